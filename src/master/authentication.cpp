// Authentication of frameworks and slaves (Apache Mesos's v0 flow):
//
//   client's authenticatee -> master   AuthenticateMessage {pid: client}
//   master spawns a session actor (--authenticators) that talks to the
//   authenticatee; on success the master records pid -> principal, and the
//   client registers. With --authenticate_frameworks / --authenticate_agents
//   a pid without a recorded principal may not register.
#include <glog/logging.h>

#include "authentication/credentials.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using namespace std::chrono_literals;

void MasterFlags::addAuthenticationFlags() {
  add(&authenticate_frameworks, "authenticate_frameworks",
      "Only frameworks that authenticated (with a principal in --credentials) may register; "
      "others are refused with an error",
      false);
  alias("authenticate", "authenticate_frameworks");
  add(&authenticate_agents, "authenticate_agents",
      "Only slaves that authenticated (with a principal in --credentials) may register",
      false);
  alias("authenticate_slaves", "authenticate_agents");
  add(&credentials, "credentials",
      "Path (or file:// URL) of the file of principals and secrets that frameworks and slaves "
      "authenticate with: JSON {\"credentials\": [{\"principal\": \"...\", \"secret\": "
      "\"...\"}]} or one 'principal secret' per line (default: none; every authentication is "
      "refused)");
  add(&authenticators, "authenticators",
      "Authenticator frameworks and slaves authenticate with (only 'crammd5': CRAM-MD5 over "
      "SASL)",
      std::string("crammd5"));
  add(&authentication_v0_timeout, "authentication_v0_timeout",
      "Time an authentication may take before the master gives up on it (the client retries)",
      flags::Duration(15s));
}

Result<void> MasterFlags::validateAuthentication() const {
  bool known = false;
  for (const std::string& name : authentication::authenticatorNames()) {
    known = known || name == authenticators;
  }
  if (!known) {
    std::string names;
    for (const std::string& name : authentication::authenticatorNames()) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return Error{"--authenticators: unknown authenticator '" + authenticators +
                 "' (this master supports: " + names + ")"};
  }
  if (authentication_v0_timeout <= flags::Duration::zero()) {
    return Error{"--authentication_v0_timeout must be positive"};
  }
  if (credentials) {
    auto loaded = authentication::readCredentials(*credentials);
    if (!loaded) return Error{"--credentials: " + loaded.error().message};
  }
  return {};
}

void Master::setUpAuthentication() {
  LOG(INFO) << "Master "
            << (flags_.authenticate_frameworks ? "only allows authenticated frameworks"
                                               : "allows unauthenticated frameworks")
            << " and "
            << (flags_.authenticate_agents ? "only authenticated slaves" : "unauthenticated slaves")
            << " to register";
  Credentials credentials;
  if (flags_.credentials) {
    auto loaded = authentication::readCredentials(*flags_.credentials);
    if (!loaded) {
      LOG(ERROR) << "--credentials: " << loaded.error().message
                 << "; every authentication will be refused";
    } else {
      credentials = std::move(loaded).value();
      LOG(INFO) << "Loaded " << credentials.credentials_size() << " credential(s) from "
                << *flags_.credentials;
    }
  } else if (flags_.authenticate_frameworks || flags_.authenticate_agents) {
    LOG(WARNING) << "No --credentials: every authentication will be refused";
  }
  auto authenticator = authentication::createAuthenticator(flags_.authenticators, credentials);
  if (!authenticator) {
    LOG(ERROR) << "Authentication is disabled: " << authenticator.error().message
               << (flags_.authenticate_frameworks || flags_.authenticate_agents
                       ? "; no framework or slave can register"
                       : "; only clients that do not authenticate can register");
    return;
  }
  authenticator_ = std::move(authenticator).value();
}

void Master::authenticate(const UPID& from, const AuthenticateMessage& message) {
  auto pid = UPID::parse(message.pid());
  if (!pid) {
    LOG(WARNING) << "Ignoring AuthenticateMessage from " << from << ": bad pid '"
                 << message.pid() << "'";
    return;
  }
  // The authenticatee runs on its client's host (mesos-go's listens on a
  // port of its own): one host cannot authenticate, and so take over,
  // another's pid.
  if (!runtime().speaksFor(from.address.ip, pid->address.ip)) {
    LOG(WARNING) << "Refusing to authenticate " << *pid << " for " << from
                 << ": an authenticatee authenticates pids of its own host only";
    AuthenticationErrorMessage error;
    error.set_error("the pid to authenticate is not on the authenticatee's host");
    send(from, std::move(error));
    return;
  }
  bool wasAuthenticated = authenticated_.erase(*pid) > 0;
  if (!authenticator_) {
    LOG(ERROR) << "Received an authentication request from " << *pid
               << " but no authenticator is loaded";
    AuthenticationErrorMessage error;
    error.set_error("No authenticator loaded");
    send(from, std::move(error));
    return;
  }
  if (auto previous = authenticating_.find(*pid); previous != authenticating_.end()) {
    LOG(INFO) << "Re-authenticating " << *pid << "; discarding the authentication in progress";
    sessions_.end(runtime(), previous->second.session);
  } else {
    LOG(INFO) << "Authenticating " << *pid
              << (wasAuthenticated ? "; clearing its previous authentication" : "");
  }
  const uint64_t attempt = ++nextAuthentication_;
  process::Pid<Master> master(self());
  UPID client = *pid;
  UPID session = sessions_.add(authenticator_->start(
      runtime(), from, [master, client, attempt](const authentication::Outcome& outcome) {
        process::dispatch(master, &Master::authenticationFinished, client, attempt, outcome);
      }));
  link(session);  // exited() drops its handle once it stopped
  authenticating_[client] = Authenticating{attempt, session};
  delay(flags_.authentication_v0_timeout,
        [this, client, attempt] { authenticationTimedOut(client, attempt); });
}

void Master::authenticationFinished(const UPID& pid, uint64_t attempt,
                                    const authentication::Outcome& outcome) {
  auto it = authenticating_.find(pid);
  if (it == authenticating_.end() || it->second.attempt != attempt) {
    VLOG(1) << "Ignoring the stale authentication outcome of " << pid;
    return;
  }
  switch (outcome.kind) {
    case authentication::Outcome::Kind::kAuthenticated:
      LOG(INFO) << "Authenticated principal '" << outcome.principal << "' at " << pid;
      authenticated_[pid] = outcome.principal;
      break;
    case authentication::Outcome::Kind::kRefused:
      LOG(WARNING) << "Authentication of " << pid << " as '" << outcome.principal
                   << "' failed: invalid credentials";
      break;
    case authentication::Outcome::Kind::kError:
      LOG(WARNING) << "Authentication of " << pid << " broke down: " << outcome.error;
      break;
  }
  authenticating_.erase(it);
}

void Master::authenticationTimedOut(const UPID& pid, uint64_t attempt) {
  auto it = authenticating_.find(pid);
  if (it == authenticating_.end() || it->second.attempt != attempt) return;
  LOG(WARNING) << "Authentication of " << pid << " timed out after "
               << flags::formatDuration(flags_.authentication_v0_timeout);
  sessions_.end(runtime(), it->second.session);
  authenticating_.erase(it);
}

std::optional<std::string> Master::checkFrameworkAuthentication(const UPID& from,
                                                                FrameworkInfo& info) {
  if (authenticating_.count(from) > 0) return "Re-authentication in progress";
  auto it = authenticated_.find(from);
  if (it == authenticated_.end()) {
    if (flags_.authenticate_frameworks) {
      return "Framework at " + from.toString() +
             " is not authenticated (the master requires authentication: "
             "--authenticate_frameworks)";
    }
    return std::nullopt;
  }
  if (info.has_principal() && info.principal() != it->second) {
    return "Framework principal '" + info.principal() + "' does not match authenticated principal '" +
           it->second + "'";
  }
  info.set_principal(it->second);
  return std::nullopt;
}

bool Master::slaveAuthenticated(const UPID& from, const char* what) {
  if (authenticating_.count(from) > 0) {
    LOG(INFO) << "Ignoring " << what << " from " << from
              << " while it authenticates; it will try again";
    return false;
  }
  if (flags_.authenticate_agents && authenticated_.count(from) == 0) {
    LOG(WARNING) << "Refusing " << what << " of the slave at " << from
                 << " because it is not authenticated (--authenticate_agents)";
    return false;
  }
  return true;
}

void Master::forgetAuthentication(const UPID& pid) {
  authenticated_.erase(pid);
  if (auto it = authenticating_.find(pid); it != authenticating_.end()) {
    sessions_.end(runtime(), it->second.session);
    authenticating_.erase(it);
  }
}

}  // namespace mesos::internal::master
