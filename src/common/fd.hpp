// Fd: owns a file descriptor and closes it when it goes. Not copyable.
#pragma once

#include <unistd.h>

namespace mesos {

class Fd {
 public:
  // Takes `fd` (negative: owns nothing).
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace mesos
