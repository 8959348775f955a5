// HTTP requests and responses as the runtime hands them to actors' routes,
// and the encoding of messages and responses on the wire.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace process::http {

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string path;    // decoded target without the query, e.g. "/master/state"
  std::string query;   // raw text after '?', may be empty
  // Header names lower-cased, values with surrounding spaces trimmed, in
  // arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool keepAlive = true;

  // The first header named `name` (lower case), or "" when absent.
  const std::string& header(std::string_view name) const;
  bool hasHeader(std::string_view name) const;
  // Query parameters, percent-decoded ("a=1&b=x%20y").
  std::map<std::string, std::string> queryParameters() const;
};

struct Response {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static Response ok(std::string body, std::string contentType = "application/json") {
    return Response{200, std::move(contentType), std::move(body), {}};
  }
  static Response accepted() { return Response{202, "", "", {}}; }
  static Response badRequest(std::string message) {
    return Response{400, "text/plain", std::move(message), {}};
  }
  static Response notFound(std::string message = "") {
    return Response{404, "text/plain", std::move(message), {}};
  }
  static Response payloadTooLarge(std::string message) {
    return Response{413, "text/plain", std::move(message), {}};
  }
  static Response internalError(std::string message) {
    return Response{500, "text/plain", std::move(message), {}};
  }
};

// "OK", "Not Found", ... for the status codes we send.
const char* reasonPhrase(int status);

// Appends the HTTP/1.1 form of `response` to `out`.
void encodeResponse(const Response& response, bool keepAlive, std::string* out);

// Appends a libprocess message: POST /<toId>/<name> with the sender in
// User-Agent and Libprocess-From, kept alive, body as one chunk.
void encodeMessage(std::string_view from, std::string_view toId, std::string_view toHost,
                   std::string_view name, std::string_view body, std::string* out);

// Decodes %XX escapes (and '+' as space when `plusIsSpace`). Invalid escapes
// are kept as they are.
std::string percentDecode(std::string_view text, bool plusIsSpace);

}  // namespace process::http
