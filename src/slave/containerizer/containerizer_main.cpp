// mesos-containerizer: the first program of an executor's container when an
// isolator asks the executor to join files before it runs anything (the
// cgroup.procs files of its cgroups: whatever it forks is then inside them
// from its first instruction), and the last before the executor when it is
// to run as another user (--switch_user) or runs under wrappers:
//
//   mesos-containerizer [--sync_fd=N] [--join=FILE ...] [--unshare=NAME,...]
//                       [--hostname=NAME] [--user=NAME] [--environment_fd=N]
//                       -- PROGRAM [ARGUMENT ...]
//
// writes its own pid to every FILE, in order; with --unshare, enters new
// namespaces of those names (pid, ipc, net, uts, mnt). A new pid namespace
// holds only the processes forked after it, so with pid this process forks:
// the child, pid 1 of the namespace, goes on (in a mount namespace of its
// own, mounts no longer shared with the host's, with a /proc of its own),
// and this process stays outside, passing on the signals it gets (but
// SIGKILL, which reaches the child through its parent-death signal) and
// exiting as the child does. With --hostname (needs uts), the new UTS
// namespace gets that host name; in a new network namespace, lo is brought
// up. With --sync_fd=N (a socket from the slave), once all of that is done,
// it sends the slave one byte and waits for one back (the go-ahead, sent
// once the isolators have isolated the container) before it goes on: when
// the slave closes N instead, it exits (127) saying so. N is closed before
// anything else runs. With --rootfs, the program runs in that root
// filesystem (in a mount namespace of its own: rootfs.hpp), with the
// sandbox at /mnt/mesos/sandbox and the volumes (read-only with :ro) at
// their targets, in --working_dir (default: the sandbox). Without it, the
// volumes are mounted in the host's tree as this mount namespace sees it
// (relative targets in --sandbox). With --task_rootfs, all of that is
// mounted into the root filesystem, but the program stays on the host's
// root (the command executor, which starts its task in there with
// --chroot): --chroot enters such a prepared root filesystem, in a mount
// namespace of its own. Inside a root filesystem, MESOS_SANDBOX is set to
// the sandbox as seen in there. --image_user=USER[:GROUP] (names or
// numbers) is looked up in the root filesystem's /etc/passwd and
// /etc/group (the image's user, for a container the slave would otherwise
// run as root). With --no_new_privileges, nothing the
// program runs gains rights from set-user-id files. Then, with --user
// (looked up on the host, before the root filesystem), takes NAME's
// uid, gid and supplementary groups; with --environment_fd, then (no longer
// root) reads the program's environment from the open file N (each
// NAME=VALUE ended by a NUL byte; the slave's launcher writes it), closes
// N, and sets those variables over its own (what the slave and the wrappers
// before it, say LXC's `container`, gave it); --environment_file=PATH is
// the same from a file the slave wrote, opened before anything else (the
// command executor starts its task so: the framework's variables never
// reach this process's own environment while it runs as root); with --user, sets USER,
// LOGNAME and HOME to NAME's; then executes PROGRAM (looked up in the PATH
// of that environment) with the arguments. The environment this process
// starts with is what executors start from (environment.hpp), never the
// framework's: nothing a framework puts there (LD_PRELOAD...) is loaded
// while this runs as root.
// `mesos-containerizer --serve_fd=N` is the launch server instead
// (launch_server.hpp): the slave's launcher starts one, and it forks this
// program's helper for each container, without an exec.
// On failure it prints one line naming the file, user or program and the
// cause to stderr (the sandbox's stderr) and exits with status 127. It
// allocates nothing the executor inherits.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "slave/containerizer/launch_server.hpp"
#include "slave/containerizer/rootfs.hpp"

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

// The clone flags of a comma-separated list of namespace names; -1 when a
// name is unknown.
int namespaceFlags(const std::string& list) {
  int flags = 0;
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (name == "pid") {
      flags |= CLONE_NEWPID | CLONE_NEWNS;
    } else if (name == "ipc") {
      flags |= CLONE_NEWIPC;
    } else if (name == "net") {
      flags |= CLONE_NEWNET;
    } else if (name == "uts") {
      flags |= CLONE_NEWUTS;
    } else if (name == "mnt") {
      flags |= CLONE_NEWNS;
    } else {
      return -1;
    }
  }
  return flags;
}

pid_t child = -1;  // pid 1 of the new pid namespace, seen from outside
bool ownMountNamespace = false;
bool ownUtsNamespace = false;
bool ownNetworkNamespace = false;
int syncFd = -1;  // --sync_fd

void passOn(int signal) {
  if (child > 0) ::kill(child, signal);
}

// Outside the new pid namespace: waits for its first process and ends as
// it did (the same exit status, or killed by the same signal).
[[noreturn]] void waitAndMirror() {
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT}) {
    struct sigaction action {};
    action.sa_handler = passOn;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "mesos-containerizer: cannot wait for pid %d: %s\n", child,
                   std::strerror(errno));
      ::_exit(127);
    }
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    ::signal(signal, SIG_DFL);
    sigset_t unblock;
    ::sigemptyset(&unblock);
    ::sigaddset(&unblock, signal);
    ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
    // Not raise(): in a launch server's clone, glibc's idea of this
    // thread's id is the server's.
    ::kill(::getpid(), signal);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// Enters new namespaces (`flags`: clone flags). With CLONE_NEWPID only the
// child of the fork below returns: the first process of the namespace.
int enterNamespaces(int flags) {
  if (::unshare(flags) != 0) return fail("cannot enter new namespaces", errno);
  if ((flags & CLONE_NEWNS) != 0) {
    // Nothing mounted in here shows outside; the host's later mounts still
    // show in here.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
      return fail("cannot make the mounts private", errno);
    }
    ownMountNamespace = true;
  }
  ownUtsNamespace = ownUtsNamespace || (flags & CLONE_NEWUTS) != 0;
  ownNetworkNamespace = ownNetworkNamespace || (flags & CLONE_NEWNET) != 0;
  if ((flags & CLONE_NEWPID) == 0) return 0;
  child = ::fork();
  if (child < 0) return fail("cannot fork into the new pid namespace", errno);
  if (child > 0) {
    if (syncFd >= 0) ::close(syncFd);  // the child answers the slave
    waitAndMirror();
  }
  // The first process of the namespace: it dies with this helper's outer
  // half, and everything in the namespace dies with it.
  // (The outer half ends only after this process, unless killed with
  // SIGKILL before the next line.)
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
    return fail("cannot set the parent-death signal", errno);
  }
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    return fail("cannot mount /proc in the new pid namespace", errno);
  }
  return 0;
}

// The fields of the line of `file` (an /etc/passwd or /etc/group of the
// root filesystem) whose name (field 0) or number (field 2) is `key`.
std::vector<std::string> lookUp(const char* file, const std::string& key) {
  FILE* in = std::fopen(file, "re");
  if (in == nullptr) return {};
  char* line = nullptr;
  size_t size = 0;
  std::vector<std::string> found;
  while (found.empty() && ::getline(&line, &size, in) > 0) {
    std::vector<std::string> fields;
    std::stringstream text(line);
    std::string field;
    while (std::getline(text, field, ':')) fields.push_back(field);
    if (!fields.empty() && !fields.back().empty() && fields.back().back() == '\n') {
      fields.back().pop_back();
    }
    if (fields.size() >= 3 && (fields[0] == key || fields[2] == key)) found = std::move(fields);
  }
  std::free(line);
  std::fclose(in);
  return found;
}

bool numeric(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         text.find_first_not_of("0123456789") == std::string::npos;
}

// Resolves --image_user's USER[:GROUP] in the root filesystem entered:
// names through its /etc/passwd and /etc/group, numbers as they are (a
// number without a passwd line gets group 0 and home /, as Docker does).
// Empty on success, else why not.
std::string imageUser(const std::string& spec, uid_t* uid, gid_t* gid, std::string* home,
                      std::string* name) {
  const size_t colon = spec.find(':');
  const std::string user = spec.substr(0, colon);
  const std::string group = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::vector<std::string> entry = lookUp("/etc/passwd", user);
  if (entry.empty() && !numeric(user)) return "no user '" + user + "' in the image's /etc/passwd";
  if (!entry.empty() && !numeric(entry[2]))
    return "the image's /etc/passwd line of '" + user + "' has no numeric uid";
  *uid = static_cast<uid_t>(std::stoul(entry.empty() ? user : entry[2]));
  *gid = entry.size() >= 4 && numeric(entry[3]) ? static_cast<gid_t>(std::stoul(entry[3])) : 0;
  *home = entry.size() >= 6 && !entry[5].empty() ? entry[5] : "/";
  *name = entry.empty() ? user : entry[0];
  if (!group.empty()) {
    std::vector<std::string> groupEntry = lookUp("/etc/group", group);
    if (groupEntry.empty() && !numeric(group)) {
      return "no group '" + group + "' in the image's /etc/group";
    }
    if (!groupEntry.empty() && !numeric(groupEntry[2])) {
      return "the image's /etc/group line of '" + group + "' has no numeric gid";
    }
    *gid = static_cast<gid_t>(std::stoul(groupEntry.empty() ? group : groupEntry[2]));
  }
  return "";
}

// Brings the loopback interface of this (new) network namespace up.
int loopbackUp() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("cannot open a socket to bring up lo", errno);
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  int result = ::ioctl(fd, SIOCGIFFLAGS, &request);
  if (result == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
    result = ::ioctl(fd, SIOCSIFFLAGS, &request);
  }
  const int error = errno;
  ::close(fd);
  return result == 0 ? 0 : fail("cannot bring up lo", error);
}

// Tells the slave the container is set up, and waits for its go-ahead (its
// isolators have isolated the container). Closes the descriptor either way.
int awaitGoAhead(int fd) {
  ssize_t n;
  do {
    n = ::send(fd, "R", 1, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  char byte = 0;
  if (n == 1) {
    do {
      n = ::recv(fd, &byte, 1, 0);
    } while (n < 0 && errno == EINTR);
  }
  const int error = errno;
  ::close(fd);
  if (n < 0) return fail("cannot hear from the slave (--sync_fd)", error);
  if (n == 0 || byte != 'G') {
    std::fprintf(stderr,
                 "mesos-containerizer: the slave did not let the container start (an isolator "
                 "failed to isolate it; the slave's log says why)\n");
    return 127;
  }
  return 0;
}

int helperMain(int argc, char** argv) {
  int i = 1;
  std::string pid = std::to_string(::getpid());
  std::string user;
  int environmentFd = -1;
  int environmentFile = -1;  // --environment_file, opened as root
  mesos::internal::slave::RootfsSpec rootfs;
  bool taskRootfs = false;  // --task_rootfs: prepared, not entered
  std::string chroot;       // --chroot: a prepared root filesystem to enter
  std::string imageUserSpec;
  bool noNewPrivileges = false;
  std::string hostname;
  // Found first: the outer half of a pid namespace's fork closes it.
  for (int j = 1; j < argc && std::strcmp(argv[j], "--") != 0; ++j) {
    if (std::strncmp(argv[j], "--sync_fd=", 10) != 0) continue;
    char* end = nullptr;
    long fd = std::strtol(argv[j] + 10, &end, 10);
    if (end == argv[j] + 10 || *end != '\0' || fd < 0 || fd > 1024 ||
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC) != 0) {
      std::fprintf(stderr, "mesos-containerizer: --sync_fd: '%s' is not an open file\n",
                   argv[j] + 10);
      return 127;
    }
    syncFd = static_cast<int>(fd);
  }
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--sync_fd=", 0) == 0) continue;  // above
    if (arg.rfind("--hostname=", 0) == 0) {
      hostname = arg.substr(11);
      continue;
    }
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
    if (arg.rfind("--environment_file=", 0) == 0) {
      // Opened now, as root, on the host's tree (a file of the slave's that
      // only root reads), and read as --environment_fd is.
      environmentFile = ::open(arg.c_str() + 19, O_RDONLY | O_CLOEXEC);
      if (environmentFile < 0) return fail("cannot open " + arg.substr(19), errno);
      continue;
    }
    if (arg == "--no_new_privileges") {
      noNewPrivileges = true;
      continue;
    }
    if (arg.rfind("--rootfs=", 0) == 0) {
      rootfs.rootfs = arg.substr(9);
      continue;
    }
    if (arg.rfind("--task_rootfs=", 0) == 0) {
      rootfs.rootfs = arg.substr(14);
      taskRootfs = true;
      continue;
    }
    if (arg.rfind("--chroot=", 0) == 0) {
      chroot = arg.substr(9);
      continue;
    }
    if (arg.rfind("--image_user=", 0) == 0) {
      imageUserSpec = arg.substr(13);
      continue;
    }
    if (arg.rfind("--sandbox=", 0) == 0) {
      rootfs.sandbox = arg.substr(10);
      continue;
    }
    if (arg.rfind("--working_dir=", 0) == 0) {
      rootfs.workingDirectory = arg.substr(14);
      continue;
    }
    if (arg.rfind("--volume=", 0) == 0) {
      mesos::internal::slave::RootfsVolume volume;
      if (std::string error = mesos::internal::slave::parseVolume(arg.substr(9), &volume);
          !error.empty()) {
        std::fprintf(stderr, "mesos-containerizer: --volume=%s: %s\n", arg.c_str() + 9,
                     error.c_str());
        return 127;
      }
      rootfs.volumes.push_back(std::move(volume));
      continue;
    }
    if (arg.rfind("--unshare=", 0) == 0) {
      const int flags = namespaceFlags(arg.substr(10));
      if (flags <= 0) {
        std::fprintf(stderr, "mesos-containerizer: --unshare: unknown namespace in '%s'\n",
                     arg.c_str() + 10);
        return 127;
      }
      if (int failed = enterNamespaces(flags); failed != 0) return failed;
      continue;
    }
    if (arg.rfind("--join=", 0) != 0) {
      std::fprintf(
          stderr,
          "mesos-containerizer: unknown argument '%s'\n"
          "usage: mesos-containerizer [--join=FILE...] [--unshare=NAME,...] "
          "[--rootfs=DIR|--task_rootfs=DIR|--chroot=DIR] [--sandbox=DIR] "
          "[--volume=SOURCE:TARGET[:ro|:rw]...] [--working_dir=DIR] [--no_new_privileges] "
          "[--hostname=NAME] [--sync_fd=N] [--user=NAME] [--image_user=USER[:GROUP]] "
          "[--environment_fd=N] [--environment_file=PATH] -- PROGRAM [ARGUMENT...]\n",
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
  if (!hostname.empty()) {
    if (!ownUtsNamespace) {
      std::fprintf(stderr,
                   "mesos-containerizer: --hostname needs a UTS namespace of its own "
                   "(--unshare=uts)\n");
      return 127;
    }
    if (::sethostname(hostname.data(), hostname.size()) != 0) {
      return fail("cannot set the hostname to '" + hostname + "'", errno);
    }
  }
  if (ownNetworkNamespace) {
    if (int failed = loopbackUp(); failed != 0) return failed;
  }
  if (syncFd >= 0) {
    if (int failed = awaitGoAhead(syncFd); failed != 0) return failed;
  }
  // The user is the host's (it owns the sandbox), looked up before the
  // root filesystem replaces the host's /etc.
  std::string home;
  uid_t uid = 0;
  gid_t gid = 0;
  if (!user.empty() && !imageUserSpec.empty()) {
    std::fprintf(stderr, "mesos-containerizer: --user and --image_user exclude each other\n");
    return 127;
  }
  if (!imageUserSpec.empty() && rootfs.rootfs.empty() && chroot.empty()) {
    std::fprintf(stderr, "mesos-containerizer: --image_user needs --rootfs or --chroot\n");
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
    uid = entry->pw_uid;
    gid = entry->pw_gid;
    home = entry->pw_dir;
    if (::initgroups(user.c_str(), gid) != 0) return fail("cannot set the groups of " + user, errno);
  }
  if (!rootfs.rootfs.empty() || !rootfs.volumes.empty()) {
    if (!ownMountNamespace) {
      if (int failed = enterNamespaces(CLONE_NEWNS); failed != 0) return failed;
    }
    std::string error = rootfs.rootfs.empty() ? mesos::internal::slave::mountVolumes(rootfs)
                        : taskRootfs          ? mesos::internal::slave::prepareRootfs(rootfs)
                                              : mesos::internal::slave::enterRootfs(rootfs);
    if (!error.empty()) {
      std::fprintf(stderr, "mesos-containerizer: %s\n", error.c_str());
      return 127;
    }
  }
  if (!chroot.empty()) {
    if (!ownMountNamespace) {
      if (int failed = enterNamespaces(CLONE_NEWNS); failed != 0) return failed;
    }
    std::string workdir = rootfs.workingDirectory;
    if (workdir.empty()) {
      const std::string sandbox = chroot + rootfs.sandboxTarget;
      workdir = ::access(sandbox.c_str(), F_OK) == 0 ? rootfs.sandboxTarget : "/";
    }
    if (std::string error = mesos::internal::slave::pivotInto(chroot, workdir); !error.empty()) {
      std::fprintf(stderr, "mesos-containerizer: %s\n", error.c_str());
      return 127;
    }
  }
  // Inside the root filesystem: the sandbox is where it was mounted.
  const bool inside = (!rootfs.rootfs.empty() && !taskRootfs) || !chroot.empty();
  const bool sandboxInside = inside && (!chroot.empty() || !rootfs.sandbox.empty());
  if (!imageUserSpec.empty()) {
    if (std::string error = imageUser(imageUserSpec, &uid, &gid, &home, &user); !error.empty()) {
      std::fprintf(stderr, "mesos-containerizer: --image_user=%s: %s\n", imageUserSpec.c_str(),
                   error.c_str());
      return 127;
    }
    if (::setgroups(1, &gid) != 0) return fail("cannot set the groups of " + user, errno);
  }
  // Nothing the program runs gains rights by its file (set-user-id
  // programs of an image, or of a host directory a volume put over /etc).
  if (noNewPrivileges && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return fail("cannot set no_new_privs", errno);
  }
  if (!user.empty()) {
    if (::setgid(gid) != 0) return fail("cannot switch to the group of " + user, errno);
    if (::setuid(uid) != 0) return fail("cannot switch to user " + user, errno);
  }
  // From here on, nothing runs with more rights than the executor has.
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    entries.emplace_back(*entry);
  }
  for (int fd : {environmentFd, environmentFile}) {
    if (fd < 0) continue;
    std::vector<std::string> given;
    if (!readEnvironment(fd, &given)) {
      return fail("cannot read the environment from descriptor " + std::to_string(fd), errno);
    }
    ::close(fd);
    for (const std::string& entry : given) {
      size_t eq = entry.find('=');
      setEntry(&entries, entry.substr(0, eq), entry.substr(eq + 1));
    }
  }
  if (sandboxInside) setEntry(&entries, "MESOS_SANDBOX", rootfs.sandboxTarget);
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

}  // namespace

int main(int argc, char** argv) {
  // The launch server (launch_server.hpp): the launcher's socket at N.
  if (argc == 2 && std::strncmp(argv[1], "--serve_fd=", 11) == 0) {
    char* end = nullptr;
    const long fd = std::strtol(argv[1] + 11, &end, 10);
    if (end == argv[1] + 11 || *end != '\0' || fd < 0 || fd > 1024 ||
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC) != 0) {
      std::fprintf(stderr, "mesos-containerizer: --serve_fd: '%s' is not an open file\n",
                   argv[1] + 11);
      return 127;
    }
    return mesos::internal::slave::serveLaunches(static_cast<int>(fd), helperMain);
  }
  return helperMain(argc, argv);
}
