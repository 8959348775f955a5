// The slave's endpoints answer any origin, as Apache Mesos's agent's do: the
// master's web UI, a page of the master's origin, reads a slave's /state and
// its sandboxes from the browser (docs/web-ui.md).
#pragma once

#include <functional>
#include <string>

#include "process/actor.hpp"
#include "process/http.hpp"

namespace mesos::internal::slave {

// `handler` of `actor` as a route whose answers carry
// Access-Control-Allow-Origin: *, and which answers an OPTIONS request (a
// CORS preflight) with 204 and the methods and headers it allows.
template <typename T>
std::function<process::Future<process::http::Response>(const process::http::Request&)> anyOrigin(
    T* actor,
    process::Future<process::http::Response> (T::*handler)(const process::http::Request&)) {
  using process::http::Response;
  return [actor, handler](const process::http::Request& request) -> process::Future<Response> {
    if (request.method == "OPTIONS") {
      Response preflight{204, "", "", {}};
      preflight.headers.emplace_back("Access-Control-Allow-Origin", "*");
      preflight.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
      const std::string& asked = request.header("access-control-request-headers");
      if (!asked.empty()) preflight.headers.emplace_back("Access-Control-Allow-Headers", asked);
      preflight.headers.emplace_back("Access-Control-Max-Age", "86400");
      return preflight;
    }
    return (actor->*handler)(request).then(actor->self(), [](const Response& answer) {
      Response response = answer;
      response.headers.emplace_back("Access-Control-Allow-Origin", "*");
      return response;
    });
  };
}

}  // namespace mesos::internal::slave
