// HTTP requests and responses as the runtime hands them to actors' routes,
// and the encoding of messages and responses on the wire.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
  // "ip:port" of the connection it came over ("" when made in-process).
  std::string peer;
  // The principal whose credentials the request carried, set by the
  // daemon's endpoint guard (authentication/http/endpoint_guard.hpp) when
  // the route's realm authenticates; nullopt otherwise.
  std::optional<std::string> principal;

  // The first header named `name` (lower case), or "" when absent.
  const std::string& header(std::string_view name) const;
  bool hasHeader(std::string_view name) const;
  // Query parameters, percent-decoded ("a=1&b=x%20y").
  std::map<std::string, std::string> queryParameters() const;
};

// The body of a streamed response: chunks written while the connection
// lasts, sent with Transfer-Encoding: chunked (an event stream such as the
// v1 scheduler API's). A route makes one, puts it in Response::stream and
// keeps it to write to. Any thread may call any method. Chunks queue, in
// order, until the connection's earlier responses are out; a reader too
// slow to take them (more than the transport's per-connection bound queued)
// is disconnected.
class Pipe {
 public:
  // Queues `data` to go out as one chunk (empty data sends nothing). False,
  // and nothing sent, once the reader is gone or close() was called.
  bool write(std::string data);
  // The same for bytes shared with other pipes (one event batch written to
  // many streams): the transport writes them from where they are, never
  // copied, and lets go of them once sent.
  bool write(std::shared_ptr<const std::string> data);
  // Ends the body; the connection goes on with its next response.
  void close();
  // True once the reader is gone or close() was called.
  bool closed() const;
  // `callback` runs once when the reader goes away (the connection closed,
  // or it never got the response) before close(): on the transport's I/O
  // thread, so it must only pass the news on (dispatch it to an actor). It
  // runs at once, on the caller's thread, if the reader is gone already;
  // never after close().
  void onReaderGone(std::function<void()> callback);
  // At most `bytes` of this body may wait unsent on its connection; past
  // that the transport closes the connection (a reader that does not read)
  // as it does at its own per-connection bound. 0 (the default): only that
  // bound. May be called from any thread, before or while writing.
  void limitQueue(size_t bytes) { queueLimit_.store(bytes, std::memory_order_relaxed); }
  size_t queueLimit() const { return queueLimit_.load(std::memory_order_relaxed); }

  // For the transport. `sink` gets each chunk's data, and `last` once at
  // the end; it is called with this pipe's lock held, so it must only hand
  // the data on (post it to the I/O thread). What was written before is
  // handed on at once.
  using Sink = std::function<void(std::shared_ptr<const std::string> data, bool last)>;
  void attach(Sink sink);
  // The connection closed or dropped the response.
  void readerGone();

 private:
  mutable std::mutex mutex_;
  Sink sink_;
  std::vector<std::shared_ptr<const std::string>> backlog_;  // written before attach()
  bool ended_ = false;                // close() was called
  bool gone_ = false;                 // the reader is gone
  std::function<void()> goneCallback_;
  std::atomic<size_t> queueLimit_{0};
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
  // When set, the body is streamed from this pipe instead (body and pieces
  // must be empty): the head says Transfer-Encoding: chunked, and no later
  // response on the connection goes out before the pipe is closed.
  std::shared_ptr<Pipe> stream = nullptr;

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
// User-Agent and Libprocess-From, kept alive, body as one chunk, and an
// Authorization header when `authorization` is not empty.
void encodeMessage(std::string_view from, std::string_view toId, std::string_view toHost,
                   std::string_view name, std::string_view body, std::string* out,
                   std::string_view authorization = {});

// Decodes %XX escapes (and '+' as space when `plusIsSpace`). Invalid escapes
// are kept as they are.
std::string percentDecode(std::string_view text, bool plusIsSpace);

}  // namespace process::http
