#include "process/decoder.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace process::http {

namespace {

constexpr size_t kMaxChunkLine = 1024;

bool isTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool containsToken(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (equalsIgnoreCase(trim(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<RequestDecoder::Failure> RequestDecoder::fail(int status, std::string message) {
  failure_ = Failure{status, std::move(message)};
  buffer_.clear();
  consumed_ = scanned_ = 0;
  return failure_;
}

std::optional<RequestDecoder::Failure> RequestDecoder::parseHead(size_t headEnd) {
  std::string_view head(buffer_.data() + consumed_, headEnd - consumed_);
  size_t lineEnd = head.find("\r\n");
  std::string_view line = head.substr(0, lineEnd);
  head.remove_prefix(lineEnd == std::string_view::npos ? head.size() : lineEnd + 2);

  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0) {
    return fail(400, "malformed request line");
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!std::all_of(method.begin(), method.end(), isTokenChar)) {
    return fail(400, "malformed request method");
  }
  if (target.empty() || target.front() != '/' ||
      std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
      })) {
    return fail(400, "malformed request target");
  }
  bool http11;
  if (version == "HTTP/1.1") {
    http11 = true;
  } else if (version == "HTTP/1.0") {
    http11 = false;
  } else {
    return fail(400, "unsupported HTTP version");
  }

  current_ = Request();
  current_.method = std::string(method);
  size_t question = target.find('?');
  current_.path = percentDecode(target.substr(0, question), false);
  if (question != std::string_view::npos) current_.query = std::string(target.substr(question + 1));

  bool chunked = false;
  std::optional<size_t> contentLength;
  std::string_view connection;
  while (!head.empty()) {
    size_t end = head.find("\r\n");
    std::string_view field = head.substr(0, end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 2);
    size_t colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0 ||
        !std::all_of(field.begin(), field.begin() + colon, isTokenChar)) {
      return fail(400, "malformed header line");
    }
    std::string name = lower(field.substr(0, colon));
    std::string_view value = trim(field.substr(colon + 1));
    if (name == "content-length") {
      size_t n = 0;
      if (value.empty() || value.size() > 19 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return fail(400, "malformed Content-Length");
      }
      for (char c : value) n = n * 10 + static_cast<size_t>(c - '0');
      if (contentLength && *contentLength != n) return fail(400, "conflicting Content-Length");
      contentLength = n;
    } else if (name == "transfer-encoding") {
      // Only "chunked" alone: other codings (gzip, ...) we cannot undo.
      if (!equalsIgnoreCase(value, "chunked")) {
        return fail(501, "unsupported Transfer-Encoding '" + std::string(value) + "'");
      }
      chunked = true;
    } else if (name == "connection") {
      connection = value;
    }
    current_.headers.emplace_back(std::move(name), std::string(value));
  }
  if (chunked && contentLength) {
    return fail(400, "both Content-Length and Transfer-Encoding");
  }
  current_.keepAlive = http11 ? !containsToken(connection, "close")
                              : containsToken(connection, "keep-alive");

  if (chunked) {
    phase_ = Phase::kChunkSize;
  } else if (contentLength && *contentLength > 0) {
    if (*contentLength > limits_.maxBodyBytes) {
      return fail(413, "body of " + std::to_string(*contentLength) + " bytes exceeds the limit of " +
                           std::to_string(limits_.maxBodyBytes));
    }
    remaining_ = *contentLength;
    // Reserve what a peer has shown it sends, not what it declares: a head
    // alone must not pin a large buffer.
    current_.body.reserve(std::min<size_t>(remaining_, 64 * 1024));
    phase_ = Phase::kBody;
  } else {
    phase_ = Phase::kBody;
    remaining_ = 0;
  }
  return std::nullopt;
}

void RequestDecoder::finishRequest(std::vector<Request>* out) {
  out->push_back(std::move(current_));
  current_ = Request();
  phase_ = Phase::kHead;
}

namespace {
constexpr size_t kKeptIdleBytes = 4096;
}  // namespace

std::optional<RequestDecoder::Failure> RequestDecoder::feed(const char* data, size_t size,
                                                            std::vector<Request>* out) {
  if (failure_) return failure_;
  buffer_.append(data, size);

  bool progress = true;
  while (progress) {
    progress = false;
    size_t available = buffer_.size() - consumed_;
    switch (phase_) {
      case Phase::kHead: {
        // Tolerate blank lines between requests (RFC 9112 section 2.2).
        while (buffer_.size() - consumed_ >= 2 && buffer_[consumed_] == '\r' &&
               buffer_[consumed_ + 1] == '\n') {
          consumed_ += 2;
        }
        size_t from = std::max(consumed_, scanned_ >= 3 ? scanned_ - 3 : 0);
        size_t headEnd = buffer_.find("\r\n\r\n", from);
        if (headEnd == std::string::npos) {
          scanned_ = buffer_.size();
          // Up to 3 bytes of the blank line may be here without it being
          // found; they do not count, so that the split cannot matter.
          if (buffer_.size() - consumed_ > limits_.maxHeaderBytes + 3) {
            return fail(431, "request head exceeds " + std::to_string(limits_.maxHeaderBytes) +
                                 " bytes");
          }
          break;
        }
        if (headEnd - consumed_ > limits_.maxHeaderBytes) {
          return fail(431, "request head exceeds " + std::to_string(limits_.maxHeaderBytes) +
                               " bytes");
        }
        if (auto failure = parseHead(headEnd)) return failure;
        consumed_ = headEnd + 4;
        scanned_ = consumed_;
        if (phase_ == Phase::kBody && remaining_ == 0) finishRequest(out);
        progress = true;
        break;
      }
      case Phase::kBody:
      case Phase::kChunkData: {
        size_t take = std::min(available, remaining_);
        current_.body.append(buffer_, consumed_, take);
        consumed_ += take;
        remaining_ -= take;
        if (remaining_ == 0) {
          if (phase_ == Phase::kBody) {
            finishRequest(out);
          } else {
            phase_ = Phase::kChunkDataEnd;
          }
          progress = true;
        }
        break;
      }
      case Phase::kChunkDataEnd: {
        if (available < 2) break;
        if (buffer_[consumed_] != '\r' || buffer_[consumed_ + 1] != '\n') {
          return fail(400, "chunk data not followed by CRLF");
        }
        consumed_ += 2;
        phase_ = Phase::kChunkSize;
        progress = true;
        break;
      }
      case Phase::kChunkSize: {
        size_t end = buffer_.find("\r\n", consumed_);
        // A lone CR may wait for its LF; it does not count towards the limit.
        if (end == std::string::npos) {
          if (available > kMaxChunkLine + 1) return fail(400, "chunk size line too long");
          break;
        }
        if (end - consumed_ > kMaxChunkLine) return fail(400, "chunk size line too long");
        std::string_view line(buffer_.data() + consumed_, end - consumed_);
        line = line.substr(0, line.find(';'));  // drop chunk extensions
        line = trim(line);
        if (line.empty() || line.size() > 15) return fail(400, "malformed chunk size");
        size_t chunk = 0;
        for (char c : line) {
          int digit;
          if (c >= '0' && c <= '9') {
            digit = c - '0';
          } else if (c >= 'a' && c <= 'f') {
            digit = c - 'a' + 10;
          } else if (c >= 'A' && c <= 'F') {
            digit = c - 'A' + 10;
          } else {
            return fail(400, "malformed chunk size");
          }
          chunk = chunk * 16 + static_cast<size_t>(digit);
        }
        consumed_ = end + 2;
        if (chunk == 0) {
          phase_ = Phase::kTrailer;
        } else {
          if (chunk > limits_.maxBodyBytes - current_.body.size()) {
            return fail(413, "chunked body exceeds the limit of " +
                                 std::to_string(limits_.maxBodyBytes) + " bytes");
          }
          remaining_ = chunk;
          phase_ = Phase::kChunkData;
        }
        progress = true;
        break;
      }
      case Phase::kTrailer: {
        size_t end = buffer_.find("\r\n", consumed_);
        if (end == std::string::npos) {
          if (available > limits_.maxHeaderBytes + 1) return fail(431, "trailer too long");
          break;
        }
        if (end - consumed_ > limits_.maxHeaderBytes) return fail(431, "trailer too long");
        bool last = end == consumed_;
        consumed_ = end + 2;
        if (last) finishRequest(out);
        progress = true;
        break;
      }
    }
  }

  // Drop consumed input; keep the unscanned tail. A connection that is not
  // streaming (this input was small) keeps no large buffer: a master has a
  // decoder per slave, mostly idle.
  if (consumed_ == buffer_.size()) {
    if (buffer_.capacity() > kKeptIdleBytes && size < kKeptIdleBytes) {
      std::string().swap(buffer_);
    } else {
      buffer_.clear();
    }
    scanned_ = consumed_ = 0;
  } else if (consumed_ > 64 * 1024 || consumed_ > buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    scanned_ = scanned_ > consumed_ ? scanned_ - consumed_ : 0;
    consumed_ = 0;
  }
  return std::nullopt;
}

}  // namespace process::http
