#include "torque/client.hpp"

#include <httplib.h>

#include <cctype>
#include <cstdlib>

#include "torque/protocol.hpp"

namespace mesos::frameworks::torque {

std::optional<ServerAddress> serverAddress(const std::string& flag, std::string* error) {
  std::string text = flag;
  std::string source = "--server";
  if (text.empty()) {
    const char* env = std::getenv("MESOS_TORQUE_URL");
    if (env == nullptr || *env == '\0') {
      *error = "no server given: pass --server=HOST:PORT or set MESOS_TORQUE_URL";
      return std::nullopt;
    }
    text = env;
    source = "MESOS_TORQUE_URL";
  }
  std::string rest = text;
  if (rest.starts_with("http://")) rest = rest.substr(7);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  ServerAddress address;
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    *error = source + "=" + text + " is not HOST:PORT (e.g. 127.0.0.1:15001)";
    return std::nullopt;
  }
  address.host = rest.substr(0, colon);
  std::string port = rest.substr(colon + 1);
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || port.size() > 5) {
      *error = source + "=" + text + " has no valid port (HOST:PORT, e.g. 127.0.0.1:15001)";
      return std::nullopt;
    }
  }
  address.port = std::stoi(port);
  if (address.port <= 0 || address.port > 65535) {
    *error = source + "=" + text + " has no valid port (1..65535)";
    return std::nullopt;
  }
  return address;
}

std::string HttpResult::errorMessage() const {
  if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    return body["error"].get<std::string>();
  }
  return "the server answered HTTP " + std::to_string(status);
}

HttpResult callServer(const ServerAddress& server, const std::string& method,
                      const std::string& path, const nlohmann::json& body, int timeoutSeconds) {
  httplib::Client client(server.host, server.port);
  client.set_connection_timeout(5);
  client.set_read_timeout(timeoutSeconds);
  client.set_write_timeout(30);
  httplib::Result response(nullptr, httplib::Error::Unknown);
  if (method == "GET") {
    response = client.Get(path.c_str());
  } else if (method == "POST") {
    response = client.Post(path.c_str(), jsonText(body), "application/json");
  } else {
    response = client.Delete(path.c_str());
  }
  HttpResult result;
  if (!response) {
    result.transportError = httplib::to_string(response.error());
    return result;
  }
  result.status = response->status;
  result.body = nlohmann::json::parse(response->body, nullptr, false);
  if (result.body.is_discarded()) result.body = nullptr;
  return result;
}

std::string unreachable(const std::string& program, const ServerAddress& server,
                        const std::string& why) {
  std::string reason = why == "Connection" ? "nothing answers there" : why;
  return program + ": cannot reach the torque server at " + server.text() + " (" + reason +
         "): is mesos-torque-server running there? (--server=HOST:PORT or MESOS_TORQUE_URL)";
}

std::optional<int64_t> parseJobId(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) end++;
  if (end == 0 || end > 15 || (end < text.size() && text[end] != '.')) return std::nullopt;
  return std::stoll(text.substr(0, end));
}

bool takeLongFlag(const std::vector<std::string>& args, size_t* i, const std::string& name,
                  std::string* value, bool* missing) {
  const std::string& arg = args[*i];
  for (const std::string& prefix : {"--" + name, "-" + name}) {
    if (arg == prefix) {
      if (*i + 1 >= args.size()) {
        *missing = true;
        return true;
      }
      *value = args[++*i];
      return true;
    }
    if (arg.starts_with(prefix + "=")) {
      *value = arg.substr(prefix.size() + 1);
      return true;
    }
  }
  return false;
}

}  // namespace mesos::frameworks::torque
