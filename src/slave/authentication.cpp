// The slave's authentication with the master (--credential): before it
// registers with a master it found, or re-registers after losing one, its
// authenticatee proves its principal. A timed-out attempt is tried again
// after a random time that grows (--authentication_backoff_factor,
// --authentication_timeout_min/_max); a refused one is final.
#include <random>

#include <glog/logging.h>

#include "authentication/credentials.hpp"
#include "process/dispatch.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

using namespace std::chrono_literals;

void Flags::addAuthenticationFlags() {
  add(&credential, "credential",
      "Path (or file:// URL) of the file holding this slave's principal and secret, as JSON "
      "{\"principal\": \"...\", \"secret\": \"...\"} or one 'principal secret' line; with it the "
      "slave authenticates with the master before registering (default: none, no "
      "authentication)");
  add(&authenticatee, "authenticatee",
      "How the slave authenticates with the master (only 'crammd5': CRAM-MD5 over SASL)",
      std::string("crammd5"));
  add(&authentication_backoff_factor, "authentication_backoff_factor",
      "An authentication that gets no answer is given up after a random time in [min, min + "
      "factor * 2^n] (n: attempts so far), capped at --authentication_timeout_max",
      mesos::flags::Duration(1s));
  add(&authentication_timeout_min, "authentication_timeout_min",
      "Least time an authentication attempt is given before it is tried again",
      mesos::flags::Duration(5s));
  add(&authentication_timeout_max, "authentication_timeout_max",
      "Most time an authentication attempt is given before it is tried again",
      mesos::flags::Duration(std::chrono::minutes(1)));
}

Result<void> Flags::validateAuthentication() const {
  auto authenticatee = authentication::createAuthenticatee(this->authenticatee);
  if (!authenticatee) return Error{"--authenticatee: " + authenticatee.error().message};
  if (authentication_timeout_min <= mesos::flags::Duration::zero() ||
      authentication_timeout_max < authentication_timeout_min) {
    return Error{
        "--authentication_timeout_min must be positive and at most --authentication_timeout_max"};
  }
  if (authentication_backoff_factor < mesos::flags::Duration::zero()) {
    return Error{"--authentication_backoff_factor must not be negative"};
  }
  if (credential) {
    auto loaded = authentication::readCredential(*credential);
    if (!loaded) return Error{"--credential: " + loaded.error().message};
  }
  return {};
}

void Slave::loadCredential() {
  if (!flags_.credential) return;
  auto credential = authentication::readCredential(*flags_.credential);
  if (!credential) {
    LOG(ERROR) << "--credential: " << credential.error().message
               << "; the slave registers without authenticating";
    return;
  }
  auto authenticatee = authentication::createAuthenticatee(flags_.authenticatee);
  if (!authenticatee) {
    LOG(ERROR) << "--authenticatee: " << authenticatee.error().message
               << "; the slave registers without authenticating";
    return;
  }
  credential_ = std::move(credential).value();
  authenticatee_ = std::move(authenticatee).value();
  LOG(INFO) << "The slave authenticates with the master as principal '"
            << credential_->principal() << "'";
}

void Slave::resetAuthentication() {
  authenticated_ = false;
  if (authenticationTimer_) cancel(*authenticationTimer_);
  authenticationTimer_.reset();
  ++authenticationAttempt_;  // an outcome already on its way is stale
  if (authenticating_) authenticatees_.end(runtime(), authenticating_);
  authenticating_ = process::UPID();
}

bool Slave::readyToRegister() {
  if (!credential_ || authenticated_) return true;
  if (!authenticating_) {
    auto min = std::chrono::duration_cast<process::Duration>(flags_.authentication_timeout_min);
    auto max = std::chrono::duration_cast<process::Duration>(flags_.authentication_timeout_max);
    auto factor =
        std::chrono::duration_cast<process::Duration>(flags_.authentication_backoff_factor);
    authenticate(min, std::min(min + factor * 2, max));
  }
  return false;
}

void Slave::authenticate(process::Duration minTimeout, process::Duration maxTimeout) {
  resetAuthentication();
  if (!master_ || state_ != State::kDisconnected) return;
  LOG(INFO) << "Authenticating with master " << *master_ << " as principal '"
            << credential_->principal() << "'";
  link(*master_);
  const uint64_t attempt = authenticationAttempt_;
  process::Pid<Slave> me(self());
  authenticating_ = authenticatees_.add(authenticatee_->start(
      runtime(), *master_, self(), *credential_,
      [me, attempt](const authentication::Outcome& outcome) {
        process::dispatch(me, &Slave::authenticated, attempt, outcome);
      }));
  link(authenticating_);  // exited() drops its handle once it stopped
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  auto timeout = minTimeout + std::chrono::duration_cast<process::Duration>(
                                  (maxTimeout - minTimeout) * jitter(random));
  auto cap = std::chrono::duration_cast<process::Duration>(flags_.authentication_timeout_max);
  authenticationTimer_ = delay(timeout, [this, attempt, minTimeout, maxTimeout, cap] {
    authenticationTimer_.reset();
    if (attempt != authenticationAttempt_) return;
    LOG(WARNING) << "Authentication with master " << (master_ ? master_->toString() : "")
                 << " got no answer in time; trying again";
    authenticate(minTimeout, std::min(minTimeout + (maxTimeout - minTimeout) * 2, cap));
  });
}

void Slave::authenticated(uint64_t attempt, const authentication::Outcome& outcome) {
  if (attempt != authenticationAttempt_ || !master_) return;
  switch (outcome.kind) {
    case authentication::Outcome::Kind::kError:
      // Tried again when this attempt's time is up.
      LOG(WARNING) << "Failed to authenticate with master " << *master_ << ": " << outcome.error
                   << "; trying again";
      authenticating_ = process::UPID();  // it stops by itself
      return;
    case authentication::Outcome::Kind::kRefused:
      resetAuthentication();
      LOG(ERROR) << "Master " << *master_ << " refused authentication as principal '"
                 << credential_->principal() << "' (wrong secret or unknown principal)";
      if (authenticationRefused_) authenticationRefused_();
      return;
    case authentication::Outcome::Kind::kAuthenticated:
      resetAuthentication();
      authenticated_ = true;
      LOG(INFO) << "Authenticated with master " << *master_ << " as '" << outcome.principal
                << "'";
      doReliableRegistration(process::Duration::zero());
      return;
  }
}

}  // namespace mesos::internal::slave
