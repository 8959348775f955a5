#include "process/http.hpp"

#include <cstdio>

namespace process::http {

const std::string& Request::header(std::string_view name) const {
  static const std::string kEmpty;
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return kEmpty;
}

bool Request::hasHeader(std::string_view name) const {
  for (const auto& header : headers) {
    if (header.first == name) return true;
  }
  return false;
}

std::map<std::string, std::string> Request::queryParameters() const {
  std::map<std::string, std::string> result;
  std::string_view rest = query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    size_t eq = pair.find('=');
    if (!pair.empty()) {
      result[percentDecode(pair.substr(0, eq), true)] =
          eq == std::string_view::npos ? "" : percentDecode(pair.substr(eq + 1), true);
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return result;
}

const char* reasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

size_t Response::bodySize() const {
  size_t size = body.size();
  for (const auto& piece : pieces) {
    if (piece) size += piece->size();
  }
  return size;
}

std::string Response::flatBody() const {
  std::string flat;
  flat.reserve(bodySize());
  flat.append(body);
  for (const auto& piece : pieces) {
    if (piece) flat.append(*piece);
  }
  return flat;
}

void encodeResponseHead(const Response& response, bool keepAlive, std::string* out) {
  out->append("HTTP/1.1 ");
  out->append(std::to_string(response.status));
  out->push_back(' ');
  out->append(reasonPhrase(response.status));
  out->append("\r\n");
  if (!response.contentType.empty()) {
    out->append("Content-Type: ").append(response.contentType).append("\r\n");
  }
  for (const auto& [name, value] : response.headers) {
    out->append(name).append(": ").append(value).append("\r\n");
  }
  if (response.stream) {
    out->append("Transfer-Encoding: chunked\r\n");
  } else {
    out->append("Content-Length: ").append(std::to_string(response.bodySize())).append("\r\n");
  }
  out->append(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
}

bool Pipe::write(std::string data) {
  if (data.empty()) return !closed();
  return write(std::make_shared<const std::string>(std::move(data)));
}

bool Pipe::write(std::shared_ptr<const std::string> data) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_ || gone_) return false;
  if (data == nullptr || data->empty()) return true;
  if (sink_) {
    sink_(std::move(data), false);
  } else {
    backlog_.push_back(std::move(data));
  }
  return true;
}

void Pipe::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_ || gone_) return;
  ended_ = true;
  goneCallback_ = nullptr;
  if (sink_) sink_(nullptr, true);
}

bool Pipe::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ended_ || gone_;
}

void Pipe::onReaderGone(std::function<void()> callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return;
    if (!gone_) {
      goneCallback_ = std::move(callback);
      return;
    }
  }
  callback();
}

void Pipe::attach(Sink sink) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (gone_ || sink_) return;
  sink_ = std::move(sink);
  for (auto& data : backlog_) sink_(std::move(data), false);
  backlog_.clear();
  if (ended_) sink_(nullptr, true);
}

void Pipe::readerGone() {
  std::function<void()> callback;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (gone_) return;
    gone_ = true;
    sink_ = nullptr;
    backlog_.clear();
    if (!ended_) callback = std::move(goneCallback_);
  }
  if (callback) callback();
}

void encodeResponse(const Response& response, bool keepAlive, std::string* out) {
  encodeResponseHead(response, keepAlive, out);
  out->append(response.body);
  for (const auto& piece : response.pieces) {
    if (piece) out->append(*piece);
  }
}

void encodeMessage(std::string_view from, std::string_view toId, std::string_view toHost,
                   std::string_view name, std::string_view body, std::string* out,
                   std::string_view authorization) {
  out->append("POST /").append(toId).append("/").append(name).append(" HTTP/1.1\r\n");
  out->append("User-Agent: libprocess/").append(from).append("\r\n");
  out->append("Libprocess-From: ").append(from).append("\r\n");
  if (!authorization.empty()) out->append("Authorization: ").append(authorization).append("\r\n");
  out->append("Connection: Keep-Alive\r\n");
  out->append("Host: ").append(toHost).append("\r\n");
  out->append("Transfer-Encoding: chunked\r\n\r\n");
  if (!body.empty()) {
    char size[20];
    int n = std::snprintf(size, sizeof(size), "%zx\r\n", body.size());
    out->append(size, static_cast<size_t>(n));
    out->append(body);
    out->append("\r\n");
  }
  out->append("0\r\n\r\n");
}

std::string percentDecode(std::string_view text, bool plusIsSpace) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace process::http
