// Authentication of frameworks and slaves to the master, as Apache Mesos
// does it: the client's authenticatee actor and a session actor the master
// spawns exchange SASL messages (AuthenticateMessage, mechanisms, start,
// steps, completed / failed / error; messages.proto).
//
// An authenticator (master side) and an authenticatee (client side) are
// each a folder here (cram_md5/) and one line in the registry
// (registry.cpp). Both start one actor per attempt; the actor reports the
// outcome once, through the `done` callback, on its own actor (the caller
// hops back to its own actor with dispatch()), and then stops. An actor must
// not wait for another to stop (with few workers, two actors waiting for
// each other's attempts deadlock the runtime), so an owner keeps its
// attempts' handles in AttemptActors, links to each, ends one early with
// AttemptActors::end() and drops the handle when its link says it stopped.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"
#include "process/actor.hpp"
#include "process/runtime.hpp"

namespace mesos::internal::authentication {

// How an attempt ended.
struct Outcome {
  enum class Kind {
    kAuthenticated,  // `principal` proved it knows its secret
    kRefused,        // wrong secret or unknown principal (AuthenticationFailedMessage)
    kError,          // the exchange broke down (`error` says how)
  };
  Kind kind = Kind::kError;
  std::string principal;  // kAuthenticated
  std::string error;      // kError
};

using Done = std::function<void(const Outcome& outcome)>;

// The master's side. One per master, made from the --credentials it loaded.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // Starts a session with the authenticatee actor `authenticatee` (the
  // sender of an AuthenticateMessage): the session actor, spawned on
  // `runtime`, offers its mechanisms and answers the client's steps. `done`
  // runs once, on the session's actor, unless the handle is destroyed first.
  virtual process::Spawned<process::Actor> start(process::Runtime& runtime,
                                                 const process::UPID& authenticatee,
                                                 Done done) = 0;
};

// The client's side (scheduler driver, slave). Stateless; one per client.
class Authenticatee {
 public:
  virtual ~Authenticatee() = default;
  // Starts authenticating `client` (the framework's or slave's pid) with
  // `master` as `credential`: spawns the authenticatee actor on `runtime`,
  // which sends AuthenticateMessage{pid: client} to the master and answers
  // its session. `done` runs once, on that actor, unless the handle is
  // destroyed first (the caller's timeout).
  virtual process::Spawned<process::Actor> start(process::Runtime& runtime,
                                                 const process::UPID& master,
                                                 const process::UPID& client,
                                                 const Credential& credential, Done done) = 0;
};

// The handles of an owner's attempt actors, until they have stopped. Used
// on the owner's actor only.
class AttemptActors {
 public:
  // Keeps `attempt`; its pid. The owner links to it.
  process::UPID add(process::Spawned<process::Actor> attempt) {
    process::UPID pid = attempt.pid();
    actors_.emplace(pid, std::move(attempt));
    return pid;
  }
  // Asks the attempt's actor to stop (it reports nothing more); its handle
  // stays until stopped(). Never waits.
  void end(process::Runtime& runtime, const process::UPID& pid) {
    if (actors_.count(pid) > 0) runtime.terminate(pid);
  }
  // The owner's link says `pid` stopped: whether it was one of these (its
  // handle is dropped, which does not wait long: the actor has stopped).
  bool stopped(const process::UPID& pid) { return actors_.erase(pid) > 0; }

 private:
  std::unordered_map<process::UPID, process::Spawned<process::Actor>> actors_;
};

// The authenticator registered as `name` (the master's --authenticators),
// knowing `credentials`. Fails with one line for an unknown name or one
// that cannot start (the SASL library refused to initialise).
Result<std::unique_ptr<Authenticator>> createAuthenticator(const std::string& name,
                                                           const Credentials& credentials);
// The authenticatee registered as `name` ("crammd5").
Result<std::unique_ptr<Authenticatee>> createAuthenticatee(const std::string& name);
// The registered names, for messages and --help.
std::vector<std::string> authenticatorNames();

}  // namespace mesos::internal::authentication
