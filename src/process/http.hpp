// HTTP requests and responses as the runtime hands them to actors' routes,
// and the encoding of messages and responses on the wire.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
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

// What a route answers. The body sent is `body` followed by every one of
// `pieces`, in order.
struct Response {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // More of the body, after `body`: shared, immutable strings (a master's
  // cached JSON fragment of one framework, slave or task) that the transport
  // writes to the socket as they are, with scatter-gather writes, never
  // copied into one string. The same pieces may be shared by any number of
  // responses at once; the transport holds a reference to each until it has
  // been written, so a piece must never be changed after it is put here
  // (replace it with a new string instead). A null piece counts as empty.
  // (Last, with an initializer, so that Response{status, type, body,
  // headers} still compiles without a warning.)
  std::vector<std::shared_ptr<const std::string>> pieces = {};

  // The length of the whole body: body.size() plus every piece's size
  // (what Content-Length says).
  size_t bodySize() const;
  // The whole body as one string (copies every piece). For tests and for
  // the rare caller that needs it flat; never on a serving path.
  std::string flatBody() const;

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
  static Response serviceUnavailable(std::string message) {
    return Response{503, "text/plain", std::move(message), {}};
  }
};

// "OK", "Not Found", ... for the status codes we send.
const char* reasonPhrase(int status);

// Appends the HTTP/1.1 head of `response` to `out`: the status line and the
// headers through the blank line, with Content-Length: bodySize().
void encodeResponseHead(const Response& response, bool keepAlive, std::string* out);

// Appends the HTTP/1.1 form of `response` to `out`: its head and the whole
// body (body and pieces, copied).
void encodeResponse(const Response& response, bool keepAlive, std::string* out);

// Appends a libprocess message: POST /<toId>/<name> with the sender in
// User-Agent and Libprocess-From, kept alive, body as one chunk.
void encodeMessage(std::string_view from, std::string_view toId, std::string_view toHost,
                   std::string_view name, std::string_view body, std::string* out);

// Decodes %XX escapes (and '+' as space when `plusIsSpace`). Invalid escapes
// are kept as they are.
std::string percentDecode(std::string_view text, bool plusIsSpace);

}  // namespace process::http
