// mesos-containerizer: the first program of an executor's container when an
// isolator asks the executor to join files before it runs anything (the
// cgroup.procs files of its cgroups: whatever it forks is then inside them
// from its first instruction), and the last before the executor when it is
// to run as another user (--switch_user):
//
//   mesos-containerizer [--join=FILE ...] [--user=NAME] -- PROGRAM [ARGUMENT ...]
//
// writes its own pid to every FILE, in order; with --user, takes NAME's
// uid, gid and supplementary groups (and sets USER, LOGNAME and HOME to
// NAME's); then executes PROGRAM (looked up in PATH) with the arguments.
// On failure it prints one line naming the file, user or program and the
// cause to stderr (the sandbox's stderr) and exits with status 127. It
// allocates nothing the executor inherits.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>
#include <string>

namespace {

int fail(const std::string& what, int error) {
  std::fprintf(stderr, "mesos-containerizer: %s: %s\n", what.c_str(), std::strerror(error));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  std::string pid = std::to_string(::getpid());
  std::string user;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--user=", 0) == 0) {
      user = arg.substr(7);
      continue;
    }
    if (arg.rfind("--join=", 0) != 0) {
      std::fprintf(stderr,
                   "mesos-containerizer: unknown argument '%s'\n"
                   "usage: mesos-containerizer [--join=FILE...] [--user=NAME] -- PROGRAM "
                   "[ARGUMENT...]\n",
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
    const std::string home = entry->pw_dir;
    if (::initgroups(user.c_str(), gid) != 0) return fail("cannot set the groups of " + user, errno);
    if (::setgid(gid) != 0) return fail("cannot switch to the group of " + user, errno);
    if (::setuid(uid) != 0) return fail("cannot switch to user " + user, errno);
    ::setenv("USER", user.c_str(), 1);
    ::setenv("LOGNAME", user.c_str(), 1);
    ::setenv("HOME", home.c_str(), 1);
  }
  ::execvp(argv[i + 1], argv + i + 1);
  return fail("cannot run " + std::string(argv[i + 1]), errno);
}
