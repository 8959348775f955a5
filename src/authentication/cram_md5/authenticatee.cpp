// The client's side of CRAM-MD5: one authenticatee actor per attempt (see
// authenticator.cpp for the exchange).
#include <sasl/sasl.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include <glog/logging.h>

#include "authentication/cram_md5/auxprop.hpp"
#include "authentication/cram_md5/cram_md5.hpp"
#include "messages.pb.h"

namespace mesos::internal::authentication::cram_md5 {

namespace {

using process::UPID;

Result<void> initializeClient() {
  static std::once_flag once;
  static std::string* failure = new std::string();
  std::call_once(once, [] {
    int result = sasl_client_init(nullptr);
    if (result != SASL_OK) {
      *failure = std::string("cannot initialise the SASL client library: ") +
                 sasl_errstring(result, nullptr, nullptr);
    }
  });
  if (!failure->empty()) return Error{*failure};
  return {};
}

class Client : public process::Actor {
 public:
  Client(UPID master, UPID client, Credential credential, Done done)
      : Actor(process::generateId("crammd5-authenticatee")),
        master_(std::move(master)),
        client_(std::move(client)),
        credential_(std::move(credential)),
        done_(std::move(done)) {
    // SASL wants the secret's bytes right after its header.
    secret_ = static_cast<sasl_secret_t*>(
        std::malloc(sizeof(sasl_secret_t) + credential_.secret().size()));
    CHECK(secret_ != nullptr);
    secret_->len = credential_.secret().size();
    std::memcpy(secret_->data, credential_.secret().data(), credential_.secret().size());
  }

  ~Client() override {
    if (connection_ != nullptr) sasl_dispose(&connection_);
    std::memset(secret_->data, 0, secret_->len);
    std::free(secret_);
  }

 protected:
  void initialize() override {
    on(&Client::mechanisms);
    on(&Client::step);
    on(&Client::completed);
    on(&Client::failed);
    on(&Client::error);
    auto initialized = initializeClient();
    if (!initialized) {
      finish({Outcome::Kind::kError, "", initialized.error().message});
      return;
    }
    callbacks_[0] = saslCallback(SASL_CB_USER, &user, &credential_);
    callbacks_[1] = saslCallback(SASL_CB_AUTHNAME, &user, &credential_);
    callbacks_[2] = saslCallback(SASL_CB_PASS, &pass, secret_);
    callbacks_[3] = saslCallback<int()>(SASL_CB_LIST_END, nullptr, nullptr);
    int result = sasl_client_new("mesos", nullptr, nullptr, nullptr, callbacks_, 0, &connection_);
    if (result != SASL_OK) {
      connection_ = nullptr;
      finish({Outcome::Kind::kError, "",
              std::string("cannot create a SASL client connection: ") +
                  sasl_errstring(result, nullptr, nullptr)});
      return;
    }
    AuthenticateMessage message;
    message.set_pid(client_.toString());
    send(master_, std::move(message));
    state_ = State::kStarting;
  }

 private:
  enum class State { kStarting, kStepping, kDone };

  // The master's session actors live at the master's address (or, for a
  // master on this machine, at another of this machine's addresses with the
  // master's port); once one has spoken, only it and the master.
  bool fromMaster(const UPID& from, const char* what) const {
    bool masterHost = from.address == master_.address ||
                      (from.address.port == master_.address.port &&
                       runtime().speaksFor(master_.address.ip, from.address.ip));
    if (masterHost && (!session_ || from == session_ || from.id == master_.id)) return true;
    LOG(WARNING) << "Ignoring " << what << " from " << from << ": not master " << master_
                 << "'s authentication session";
    return false;
  }

  void mechanisms(const UPID& from, const AuthenticationMechanismsMessage& message) {
    if (state_ == State::kDone || !fromMaster(from, "AuthenticationMechanismsMessage")) return;
    if (state_ != State::kStarting) {
      finish({Outcome::Kind::kError, "", "unexpected AuthenticationMechanismsMessage"});
      return;
    }
    session_ = from;
    std::string list;
    for (const std::string& mechanism : message.mechanisms()) {
      list += (list.empty() ? "" : " ") + mechanism;
    }
    sasl_interact_t* interact = nullptr;
    const char* output = nullptr;
    unsigned length = 0;
    const char* chosen = nullptr;
    int result = sasl_client_start(connection_, list.c_str(), &interact, &output, &length, &chosen);
    if (result != SASL_OK && result != SASL_CONTINUE) {
      finish({Outcome::Kind::kError, "",
              "the master offers no mechanism this client can use ('" + list +
                  "'): " + sasl_errdetail(connection_)});
      return;
    }
    VLOG(1) << "Authenticating " << client_ << " as '" << credential_.principal() << "' with "
            << chosen;
    AuthenticationStartMessage start;
    start.set_mechanism(chosen);
    if (output != nullptr) start.set_data(output, length);
    send(session_, std::move(start));
    state_ = State::kStepping;
  }

  void step(const UPID& from, const AuthenticationStepMessage& message) {
    if (state_ == State::kDone || !fromMaster(from, "AuthenticationStepMessage")) return;
    if (state_ != State::kStepping) {
      finish({Outcome::Kind::kError, "", "unexpected AuthenticationStepMessage"});
      return;
    }
    sasl_interact_t* interact = nullptr;
    const char* output = nullptr;
    unsigned length = 0;
    int result = sasl_client_step(connection_,
                                  message.data().empty() ? nullptr : message.data().data(),
                                  static_cast<unsigned>(message.data().size()), &interact,
                                  &output, &length);
    if (result != SASL_OK && result != SASL_CONTINUE) {
      finish({Outcome::Kind::kError, "",
              std::string("SASL step failed: ") + sasl_errdetail(connection_)});
      return;
    }
    AuthenticationStepMessage reply;
    if (output != nullptr) reply.set_data(output, length);
    send(session_, std::move(reply));
  }

  void completed(const UPID& from, const AuthenticationCompletedMessage&) {
    if (state_ == State::kDone || !fromMaster(from, "AuthenticationCompletedMessage")) return;
    if (state_ != State::kStepping) {
      finish({Outcome::Kind::kError, "", "unexpected AuthenticationCompletedMessage"});
      return;
    }
    finish({Outcome::Kind::kAuthenticated, credential_.principal(), ""});
  }

  void failed(const UPID& from, const AuthenticationFailedMessage&) {
    if (state_ == State::kDone || !fromMaster(from, "AuthenticationFailedMessage")) return;
    finish({Outcome::Kind::kRefused, credential_.principal(), ""});
  }

  void error(const UPID& from, const AuthenticationErrorMessage& message) {
    if (state_ == State::kDone || !fromMaster(from, "AuthenticationErrorMessage")) return;
    finish({Outcome::Kind::kError, "", "the master reported: " + message.error()});
  }

  // The last thing an authenticatee does: it stops once it has reported.
  void finish(const Outcome& outcome) {
    state_ = State::kDone;
    if (!done_) return;
    Done done = std::move(done_);
    done_ = nullptr;
    done(outcome);
    terminate();
  }

  static int user(void* context, int /*id*/, const char** result, unsigned* length) {
    const auto* credential = static_cast<const Credential*>(context);
    *result = credential->principal().c_str();
    if (length != nullptr) *length = static_cast<unsigned>(credential->principal().size());
    return SASL_OK;
  }

  static int pass(sasl_conn_t* /*connection*/, void* context, int /*id*/, sasl_secret_t** secret) {
    *secret = static_cast<sasl_secret_t*>(context);
    return SASL_OK;
  }

  const UPID master_;
  const UPID client_;
  const Credential credential_;
  Done done_;
  UPID session_;
  State state_ = State::kStarting;
  sasl_secret_t* secret_ = nullptr;
  sasl_conn_t* connection_ = nullptr;
  sasl_callback_t callbacks_[4] = {};
};

class CramMd5Authenticatee : public Authenticatee {
 public:
  process::Spawned<process::Actor> start(process::Runtime& runtime, const UPID& master,
                                         const UPID& client, const Credential& credential,
                                         Done done) override {
    return runtime.spawn(
        std::unique_ptr<process::Actor>(new Client(master, client, credential, std::move(done))));
  }
};

}  // namespace

std::unique_ptr<Authenticatee> createAuthenticatee() {
  return std::make_unique<CramMd5Authenticatee>();
}

}  // namespace mesos::internal::authentication::cram_md5
