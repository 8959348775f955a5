// mesos-containerizer: the first program of an executor's container when an
// isolator asks the executor to join files before it runs anything (the
// cgroup.procs files of its cgroups: whatever it forks is then inside them
// from its first instruction), and the last before the executor when it is
// to run as another user (--switch_user) or runs under wrappers:
//
//   mesos-containerizer [--join=FILE ...] [--user=NAME] [--environment_fd=N]
//                       -- PROGRAM [ARGUMENT ...]
//
// writes its own pid to every FILE, in order; with --user, takes NAME's
// uid, gid and supplementary groups; with --environment_fd, then (no longer
// root) reads the program's environment from the open file N (each
// NAME=VALUE ended by a NUL byte; the slave's launcher writes it), closes
// N, and sets those variables over its own (what the slave and the wrappers
// before it, say LXC's `container`, gave it); with --user, sets USER,
// LOGNAME and HOME to NAME's; then executes PROGRAM (looked up in the PATH
// of that environment) with the arguments. The environment this process
// starts with is what executors start from (environment.hpp), never the
// framework's: nothing a framework puts there (LD_PRELOAD...) is loaded
// while this runs as root.
// On failure it prints one line naming the file, user or program and the
// cause to stderr (the sandbox's stderr) and exits with status 127. It
// allocates nothing the executor inherits.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>

extern char** environ;

namespace {

int fail(const std::string& what, int error) {
  std::fprintf(stderr, "mesos-containerizer: %s: %s\n", what.c_str(), std::strerror(error));
  return 127;
}

// The entries of the environment file `fd` ("NAME=VALUE" each), read to
// its end; false when it cannot be read.
bool readEnvironment(int fd, std::vector<std::string>* entries) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    std::string entry = text.substr(start, end - start);
    if (entry.find('=') != std::string::npos && entry[0] != '=') entries->push_back(std::move(entry));
    start = end + 1;
  }
  return true;
}

// Sets `name` to `value` in `entries`, replacing an earlier value.
void setEntry(std::vector<std::string>* entries, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (std::string& entry : *entries) {
    if (entry.rfind(prefix, 0) == 0) {
      entry = prefix + value;
      return;
    }
  }
  entries->push_back(prefix + value);
}

}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  std::string pid = std::to_string(::getpid());
  std::string user;
  int environmentFd = -1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--user=", 0) == 0) {
      user = arg.substr(7);
      continue;
    }
    if (arg.rfind("--environment_fd=", 0) == 0) {
      char* end = nullptr;
      long fd = std::strtol(arg.c_str() + 17, &end, 10);
      if (end == arg.c_str() + 17 || *end != '\0' || fd < 0 || fd > 1024 ||
          ::fcntl(static_cast<int>(fd), F_GETFD) < 0) {
        std::fprintf(stderr, "mesos-containerizer: --environment_fd: '%s' is not an open file\n",
                     arg.c_str() + 17);
        return 127;
      }
      environmentFd = static_cast<int>(fd);
      continue;
    }
    if (arg.rfind("--join=", 0) != 0) {
      std::fprintf(stderr,
                   "mesos-containerizer: unknown argument '%s'\n"
                   "usage: mesos-containerizer [--join=FILE...] [--user=NAME] [--environment_fd=N] "
                   "-- PROGRAM [ARGUMENT...]\n",
                   argv[i]);
      return 127;
    }
    std::string file = arg.substr(7);
    int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fail("cannot open " + file, errno);
    ssize_t written = ::write(fd, pid.data(), pid.size());
    int error = errno;
    ::close(fd);
    if (written != static_cast<ssize_t>(pid.size())) {
      return fail("cannot write pid " + pid + " to " + file, written < 0 ? error : EIO);
    }
  }
  if (i + 1 >= argc) {
    std::fprintf(stderr, "mesos-containerizer: no program after '--'\n");
    return 127;
  }
  std::string home;
  if (!user.empty()) {
    errno = 0;
    const passwd* entry = ::getpwnam(user.c_str());
    if (entry == nullptr) {
      if (errno != 0) return fail("cannot look up user '" + user + "'", errno);
      std::fprintf(stderr, "mesos-containerizer: no user '%s' on this machine\n", user.c_str());
      return 127;
    }
    const uid_t uid = entry->pw_uid;
    const gid_t gid = entry->pw_gid;
    home = entry->pw_dir;
    if (::initgroups(user.c_str(), gid) != 0) return fail("cannot set the groups of " + user, errno);
    if (::setgid(gid) != 0) return fail("cannot switch to the group of " + user, errno);
    if (::setuid(uid) != 0) return fail("cannot switch to user " + user, errno);
  }
  // From here on, nothing runs with more rights than the executor has.
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    entries.emplace_back(*entry);
  }
  if (environmentFd >= 0) {
    std::vector<std::string> given;
    if (!readEnvironment(environmentFd, &given)) {
      return fail("cannot read the environment from descriptor " + std::to_string(environmentFd),
                  errno);
    }
    ::close(environmentFd);
    for (const std::string& entry : given) {
      size_t eq = entry.find('=');
      setEntry(&entries, entry.substr(0, eq), entry.substr(eq + 1));
    }
  }
  if (!user.empty()) {
    setEntry(&entries, "USER", user);
    setEntry(&entries, "LOGNAME", user);
    setEntry(&entries, "HOME", home);
  }
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  // execvp looks the program up in the PATH of `environ`: the new one.
  environ = envp.data();
  ::execvp(argv[i + 1], argv + i + 1);
  return fail("cannot run " + std::string(argv[i + 1]), errno);
}
