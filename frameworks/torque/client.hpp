// What mesos-qsub, mesos-qstat and mesos-qdel share: finding the server
// (--server=HOST:PORT or MESOS_TORQUE_URL), calling its HTTP/JSON interface
// (http_api.hpp), and the conventions of their command lines and exit
// statuses (0 success, 1 the server failed or refused, 2 a usage error).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace mesos::frameworks::torque {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct ServerAddress {
  std::string host;
  int port = 0;
  std::string text() const { return host + ":" + std::to_string(port); }
};

// The server named by `flag` ("host:port" or "http://host:port"), else by
// MESOS_TORQUE_URL; nullopt with `*error` set when neither is usable.
std::optional<ServerAddress> serverAddress(const std::string& flag, std::string* error);

struct HttpResult {
  std::string transportError;  // non-empty: no answer (the rest is unset)
  int status = 0;
  nlohmann::json body;
  // The server's {"error"} message, or a description of the status.
  std::string errorMessage() const;
};

// One request; `body` is sent as JSON when not null. Waits at most
// `timeoutSeconds` for the answer.
HttpResult callServer(const ServerAddress& server, const std::string& method,
                      const std::string& path, const nlohmann::json& body = nullptr,
                      int timeoutSeconds = 30);

// "<program>: cannot reach the torque server at HOST:PORT (...)", with the fix.
std::string unreachable(const std::string& program, const ServerAddress& server,
                        const std::string& why);

// A job id as PBS prints it ("12" or "12.host"): the number, or nullopt.
std::optional<int64_t> parseJobId(const std::string& text);

// If `args[*i]` is the flag `name` ("--server=V", or "--server V" taking
// the next argument), stores V and advances *i past it; `*missing` is set
// when the flag has no value.
bool takeLongFlag(const std::vector<std::string>& args, size_t* i, const std::string& name,
                  std::string* value, bool* missing);

}  // namespace mesos::frameworks::torque
