// The master's side of CRAM-MD5: one session actor per AuthenticateMessage.
//
//   session -> authenticatee  AuthenticationMechanismsMessage {CRAM-MD5}
//   authenticatee -> session  AuthenticationStartMessage {CRAM-MD5}
//   session -> authenticatee  AuthenticationStepMessage {challenge}
//   authenticatee -> session  AuthenticationStepMessage {principal digest}
//   session -> authenticatee  AuthenticationCompletedMessage | ...FailedMessage
//
// The SASL work is ServerConnection's (server.hpp); the actor carries its
// messages.
#include <utility>

#include <glog/logging.h>

#include "authentication/cram_md5/cram_md5.hpp"
#include "authentication/cram_md5/server.hpp"
#include "messages.pb.h"

namespace mesos::internal::authentication::cram_md5 {

namespace {

using process::UPID;

class Session : public process::Actor {
 public:
  Session(UPID authenticatee, std::shared_ptr<const Secrets> secrets, Done done)
      : Actor(process::generateId("crammd5-authenticator-session")),
        authenticatee_(std::move(authenticatee)),
        secrets_(std::move(secrets)),
        done_(std::move(done)) {}

 protected:
  void initialize() override {
    on(&Session::start);
    on(&Session::step);
    // A client that goes away mid-way ends the session at once.
    link(authenticatee_);
    auto server = ServerConnection::create(secrets_);
    if (!server) {
      fail(server.error().message);
      return;
    }
    server_ = std::move(server).value();
    AuthenticationMechanismsMessage mechanisms;
    for (const std::string& mechanism : server_->mechanisms()) {
      mechanisms.add_mechanisms(mechanism);
    }
    if (mechanisms.mechanisms_size() == 0) {
      fail("the SASL library offers no CRAM-MD5 mechanism (is libsasl2-modules installed?)");
      return;
    }
    send(authenticatee_, std::move(mechanisms));
  }

  void exited(const UPID& pid) override {
    if (pid == authenticatee_) fail("the authenticatee " + pid.toString() + " went away");
  }

 private:
  void start(const UPID& from, const AuthenticationStartMessage& message) {
    if (!fromClient(from, "AuthenticationStartMessage")) return;
    handle(server_->start(message.mechanism(), message.data()));
  }

  void step(const UPID& from, const AuthenticationStepMessage& message) {
    if (!fromClient(from, "AuthenticationStepMessage")) return;
    handle(server_->step(message.data()));
  }

  bool fromClient(const UPID& from, const char* what) const {
    if (done_ == nullptr) return false;  // the session is over
    if (from == authenticatee_) return true;
    LOG(WARNING) << "Ignoring " << what << " from " << from << ": session " << self()
                 << " talks to " << authenticatee_;
    return false;
  }

  void handle(const ServerConnection::Step& step) {
    switch (step.kind) {
      case ServerConnection::Step::Kind::kContinue: {
        AuthenticationStepMessage message;
        message.set_data(step.data);
        send(authenticatee_, std::move(message));
        return;
      }
      case ServerConnection::Step::Kind::kAuthenticated:
        // The outcome goes to the master before the client hears of it, so
        // the master knows the principal before the client can register.
        report({Outcome::Kind::kAuthenticated, step.principal, ""},
               AuthenticationCompletedMessage());
        return;
      case ServerConnection::Step::Kind::kRefused:
        report({Outcome::Kind::kRefused, step.principal, ""}, AuthenticationFailedMessage());
        return;
      case ServerConnection::Step::Kind::kError:
        fail(step.error);
        return;
    }
  }

  void fail(const std::string& error) {
    if (done_ == nullptr) return;
    AuthenticationErrorMessage message;
    message.set_error(error);
    report({Outcome::Kind::kError, "", error}, message);
  }

  // The last thing a session does: the outcome to its owner, `answer` to
  // the client, and it stops.
  void report(const Outcome& outcome, const google::protobuf::Message& answer) {
    Done done = std::move(done_);
    done_ = nullptr;
    if (done) done(outcome);
    send(authenticatee_, answer);
    terminate();
  }

  const UPID authenticatee_;
  const std::shared_ptr<const Secrets> secrets_;
  Done done_;  // empty once the session is over
  std::unique_ptr<ServerConnection> server_;
};

class CramMd5Authenticator : public Authenticator {
 public:
  explicit CramMd5Authenticator(std::shared_ptr<const Secrets> secrets)
      : secrets_(std::move(secrets)) {}

  process::Spawned<process::Actor> start(process::Runtime& runtime, const UPID& authenticatee,
                                         Done done) override {
    return runtime.spawn(
        std::unique_ptr<process::Actor>(new Session(authenticatee, secrets_, std::move(done))));
  }

 private:
  std::shared_ptr<const Secrets> secrets_;
};

}  // namespace

Result<std::unique_ptr<Authenticator>> createAuthenticator(const Credentials& credentials) {
  auto initialized = initializeServer();
  if (!initialized) return initialized.error();
  auto secrets = std::make_shared<Secrets>();
  for (const Credential& credential : credentials.credentials()) {
    (*secrets)[credential.principal()] = credential.secret();
  }
  return std::unique_ptr<Authenticator>(new CramMd5Authenticator(std::move(secrets)));
}

}  // namespace mesos::internal::authentication::cram_md5
