#include "process/signals.hpp"

#include <pthread.h>
#include <signal.h>

namespace process {

namespace {

sigset_t stopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void blockStopSignals() {
  sigset_t set = stopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int awaitStopSignal() {
  sigset_t set = stopSet();
  int received = 0;
  sigwait(&set, &received);
  return received;
}

}  // namespace process
