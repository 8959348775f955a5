// mesos-containerizer: the first program of an executor's container when an
// isolator asks the executor to join files before it runs anything (the
// cgroup.procs files of its cgroups: whatever it forks is then inside them
// from its first instruction):
//
//   mesos-containerizer --join=FILE [--join=FILE ...] -- PROGRAM [ARGUMENT ...]
//
// writes its own pid to every FILE, in order, then executes PROGRAM (looked
// up in PATH) with the arguments. On failure it prints one line naming the
// file or program and the cause to stderr (the sandbox's stderr) and exits
// with status 127. It allocates nothing the executor inherits.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--join=", 0) != 0) {
      std::fprintf(stderr,
                   "mesos-containerizer: unknown argument '%s'\n"
                   "usage: mesos-containerizer --join=FILE... -- PROGRAM [ARGUMENT...]\n",
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
  ::execvp(argv[i + 1], argv + i + 1);
  return fail("cannot run " + std::string(argv[i + 1]), errno);
}
