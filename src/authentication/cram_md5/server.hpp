// One SASL server connection for CRAM-MD5: what the master's session actor
// (authenticator.cpp) runs each client message through, without actors or
// messages, so that the decoding of client bytes can be tested and fuzzed
// on its own (tests/fuzz/sasl_fuzzer.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <sasl/sasl.h>

#include "authentication/cram_md5/auxprop.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::authentication::cram_md5 {

class ServerConnection {
 public:
  // What one client message led to.
  struct Step {
    enum class Kind {
      kContinue,       // send `data` to the client (a challenge) and wait
      kAuthenticated,  // `principal` proved it knows its secret
      kRefused,        // unknown principal or wrong secret
      kError,          // malformed exchange (`error` says how)
    };
    Kind kind = Kind::kError;
    std::string data;
    std::string principal;  // as the client named it (kAuthenticated, kRefused)
    std::string error;
  };

  // Longest client message taken to SASL: CRAM-MD5's are tens of bytes.
  static constexpr size_t kMaxClientBytes = 16 * 1024;

  // A connection that looks principals up in `secrets`. Fails when the SASL
  // server library cannot start (initializeServer()) or refuses a
  // connection.
  static Result<std::unique_ptr<ServerConnection>> create(std::shared_ptr<const Secrets> secrets);
  ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  // The mechanisms offered (CRAM-MD5); empty when the SASL library has no
  // CRAM-MD5 plugin (libsasl2-modules missing).
  std::vector<std::string> mechanisms() const;
  // The client's AuthenticationStartMessage, then each of its steps. Any
  // bytes are safe to pass; a call after an outcome other than kContinue
  // is an error.
  Step start(const std::string& mechanism, const std::string& data);
  Step step(const std::string& data);

 private:
  ServerConnection() = default;
  Step handle(int result, const char* output, unsigned length);
  static int option(void* context, const char* plugin, const char* name, const char** result,
                    unsigned* length);
  static int canonicalize(sasl_conn_t* connection, void* context, const char* input,
                          unsigned inputLength, unsigned flags, const char* realm, char* output,
                          unsigned outputMax, unsigned* outputLength);

  sasl_conn_t* connection_ = nullptr;
  sasl_callback_t callbacks_[3] = {};
  std::string principal_;
  bool started_ = false;
  bool ended_ = false;
};

}  // namespace mesos::internal::authentication::cram_md5
