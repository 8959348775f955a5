// A library that, loaded into any process (LD_PRELOAD), creates the file
// $MESOS_TEST_MARKER_DIR/uid-<effective uid>-<pid> holding the program's
// path: tests/slave/hardening_test.cpp sees from it which processes loaded
// it, and as whom.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

__attribute__((constructor)) void mark() {
  const char* dir = getenv("MESOS_TEST_MARKER_DIR");
  if (dir == nullptr) return;
  char path[4096];
  snprintf(path, sizeof(path), "%s/uid-%u-%d", dir, static_cast<unsigned>(::geteuid()), static_cast<int>(::getpid()));
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char name[4096];
  ssize_t n = readlink("/proc/self/exe", name, sizeof(name) - 1);
  if (n > 0) {
    ssize_t written = write(fd, name, static_cast<size_t>(n));
    (void)written;
  }
  close(fd);
}

}  // namespace
