// ActorCell: the runtime's record of one spawned actor: its mailbox and
// scheduling state. Private to the runtime.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "process/event.hpp"
#include "process/upid.hpp"

namespace process {

class Actor;
class Runtime;

class ActorCell {
 public:
  enum class State { kIdle, kQueued, kRunning, kDone };

  ActorCell(Actor* actor, Runtime* runtime) : actor(actor), runtime(runtime) {}

  Actor* const actor;
  Runtime* const runtime;

  // Events taken from the mailbox by the worker running this actor; only
  // that worker touches it. Kept between runs (with its capacity) so that a
  // busy actor's mailbox costs no allocation per event.
  std::vector<Event> batch;
  size_t batchNext = 0;  // the next event of `batch` to run (a turn runs at most kMaxTurn)

  std::mutex mutex;  // guards everything below
  std::vector<Event> mailbox;
  // Events to run before the mailbox's (Future::thenAhead): taken at the
  // start of the actor's next turn.
  std::vector<Event> ahead;
  // Bytes of the network's events in `mailbox` (Runtime::Options::
  // maxMailboxBytes), and those refused since the last warning about it.
  size_t networkBytes = 0;
  uint64_t refusedUnreported = 0;
  std::chrono::steady_clock::time_point lastRefusalWarning{};
  State state = State::kIdle;
  // Accepts no new events. Written under `mutex`; read without it by
  // Runtime::find() to skip cells that a UPID's cached reference still names.
  std::atomic<bool> terminating{false};
  std::vector<UPID> linkers;  // local actors linked to this one
  std::condition_variable done;  // state became kDone
};

}  // namespace process
