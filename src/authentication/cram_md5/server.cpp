#include "authentication/cram_md5/server.hpp"

#include <cstring>

namespace mesos::internal::authentication::cram_md5 {

Result<std::unique_ptr<ServerConnection>> ServerConnection::create(
    std::shared_ptr<const Secrets> secrets) {
  auto initialized = initializeServer();
  if (!initialized) return initialized.error();
  std::unique_ptr<ServerConnection> server(new ServerConnection());
  server->callbacks_[0] = saslCallback(SASL_CB_GETOPT, &option, nullptr);
  server->callbacks_[1] = saslCallback(SASL_CB_CANON_USER, &canonicalize, server.get());
  server->callbacks_[2] = saslCallback<int()>(SASL_CB_LIST_END, nullptr, nullptr);
  int result = sasl_server_new("mesos", nullptr, nullptr, nullptr, nullptr, server->callbacks_, 0,
                               &server->connection_);
  if (result != SASL_OK) {
    server->connection_ = nullptr;
    return Error{std::string("cannot create a SASL server connection: ") +
                 sasl_errstring(result, nullptr, nullptr)};
  }
  bind(server->connection_, std::move(secrets));
  return server;
}

ServerConnection::~ServerConnection() {
  if (connection_ != nullptr) {
    unbind(connection_);
    sasl_dispose(&connection_);
  }
}

std::vector<std::string> ServerConnection::mechanisms() const {
  const char* list = nullptr;
  unsigned length = 0;
  int count = 0;
  std::vector<std::string> out;
  if (sasl_listmech(connection_, nullptr, "", ",", "", &list, &length, &count) != SASL_OK) {
    return out;
  }
  std::string all(list, length);
  for (size_t begin = 0; begin <= all.size();) {
    size_t end = all.find(',', begin);
    if (end == std::string::npos) end = all.size();
    if (end > begin) out.push_back(all.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

ServerConnection::Step ServerConnection::start(const std::string& mechanism,
                                               const std::string& data) {
  if (started_ || ended_) return {Step::Kind::kError, "", "", "unexpected start"};
  started_ = true;
  if (data.size() > kMaxClientBytes || mechanism.size() > kMaxClientBytes) {
    ended_ = true;
    return {Step::Kind::kError, "", "", "start message too long"};
  }
  const char* output = nullptr;
  unsigned length = 0;
  int result = sasl_server_start(connection_, mechanism.c_str(),
                                 data.empty() ? nullptr : data.data(),
                                 static_cast<unsigned>(data.size()), &output, &length);
  return handle(result, output, length);
}

ServerConnection::Step ServerConnection::step(const std::string& data) {
  if (!started_ || ended_) return {Step::Kind::kError, "", "", "unexpected step"};
  if (data.size() > kMaxClientBytes) {
    ended_ = true;
    return {Step::Kind::kError, "", "", "step message too long"};
  }
  const char* output = nullptr;
  unsigned length = 0;
  int result = sasl_server_step(connection_, data.empty() ? nullptr : data.data(),
                                static_cast<unsigned>(data.size()), &output, &length);
  return handle(result, output, length);
}

ServerConnection::Step ServerConnection::handle(int result, const char* output,
                                                unsigned length) {
  if (result == SASL_CONTINUE) {
    return {Step::Kind::kContinue, output == nullptr ? "" : std::string(output, length), "", ""};
  }
  ended_ = true;
  if (result == SASL_OK && !principal_.empty()) {
    return {Step::Kind::kAuthenticated, "", principal_, ""};
  }
  if (result == SASL_OK || result == SASL_NOUSER || result == SASL_BADAUTH) {
    return {Step::Kind::kRefused, "", principal_, ""};
  }
  const char* detail = sasl_errdetail(connection_);
  return {Step::Kind::kError, "", principal_,
          std::string("SASL: ") + (detail != nullptr ? detail : "unknown error")};
}

// The options a SASL server would read from a config file.
int ServerConnection::option(void* /*context*/, const char* /*plugin*/, const char* name,
                             const char** result, unsigned* length) {
  const char* value = nullptr;
  if (std::strcmp(name, "auxprop_plugin") == 0) {
    value = kAuxpropPluginName;
  } else if (std::strcmp(name, "mech_list") == 0) {
    value = "CRAM-MD5";
  } else if (std::strcmp(name, "pwcheck_method") == 0) {
    value = "auxprop";
  } else {
    return SASL_FAIL;
  }
  *result = value;
  if (length != nullptr) *length = static_cast<unsigned>(std::strlen(value));
  return SASL_OK;
}

// Keeps the principal exactly as the client gave it (no realm, no
// trimming), and remembers it.
int ServerConnection::canonicalize(sasl_conn_t* /*connection*/, void* context, const char* input,
                                   unsigned inputLength, unsigned flags, const char* /*realm*/,
                                   char* output, unsigned outputMax, unsigned* outputLength) {
  if (input == nullptr || output == nullptr || outputLength == nullptr) return SASL_BADPARAM;
  if (inputLength >= outputMax) return SASL_BUFOVER;
  std::memmove(output, input, inputLength);
  output[inputLength] = '\0';
  *outputLength = inputLength;
  if ((flags & SASL_CU_AUTHID) != 0) {
    static_cast<ServerConnection*>(context)->principal_.assign(input, inputLength);
  }
  return SASL_OK;
}

}  // namespace mesos::internal::authentication::cram_md5
