// libFuzzer target for process::http::RequestDecoder, the runtime's parser of
// untrusted bytes.
//
// Input: one control byte, then the bytes of a TCP stream. The control byte
// picks the decoder's limits (small ones, so that the fuzzer reaches them)
// and how the stream is cut into feeds. The stream is decoded twice, whole
// and in pieces, and these must hold:
//   - both give the same requests and the same failure status;
//   - every request is well formed: a token method, a path starting with
//     '/', lower-case token header names, trimmed values, a body within the
//     limit (and of the declared Content-Length);
//   - a failure has one of the documented statuses, and is sticky: later
//     feeds return it again and yield nothing;
//   - a decoder that says it is idle decodes a following request at once.
// A violation aborts, which libFuzzer reports as a crash.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "process/decoder.hpp"
#include "process/http.hpp"

namespace {

using process::http::Request;
using process::http::RequestDecoder;

#define FUZZ_CHECK(condition)                                                       \
  do {                                                                              \
    if (!(condition)) {                                                             \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
                   #condition);                                                     \
      std::abort();                                                                 \
    }                                                                               \
  } while (false)

struct Outcome {
  std::vector<Request> requests;
  std::optional<RequestDecoder::Failure> failure;
  bool idle = false;
};

bool isToken(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("!#$%&'*+-.^_`|~", c)) {
      return false;
    }
  }
  return true;
}

bool sameRequest(const Request& a, const Request& b) {
  return a.method == b.method && a.path == b.path && a.query == b.query &&
         a.headers == b.headers && a.body == b.body && a.keepAlive == b.keepAlive;
}

void checkRequest(const Request& request, const RequestDecoder::Limits& limits) {
  FUZZ_CHECK(isToken(request.method));
  FUZZ_CHECK(!request.path.empty() && request.path.front() == '/');
  FUZZ_CHECK(request.body.size() <= limits.maxBodyBytes);
  for (const auto& [name, value] : request.headers) {
    FUZZ_CHECK(isToken(name));
    for (char c : name) FUZZ_CHECK(!std::isupper(static_cast<unsigned char>(c)));
    if (!value.empty()) {
      FUZZ_CHECK(value.front() != ' ' && value.front() != '\t');
      FUZZ_CHECK(value.back() != ' ' && value.back() != '\t');
    }
  }
  if (request.hasHeader("content-length")) {
    FUZZ_CHECK(!request.hasHeader("transfer-encoding"));
    FUZZ_CHECK(request.body.size() == std::stoull(request.header("content-length")));
  }
}

void checkFailureIsSticky(RequestDecoder& decoder, const RequestDecoder::Failure& failure) {
  static const std::string kValid = "GET / HTTP/1.1\r\n\r\n";
  std::vector<Request> out;
  auto again = decoder.feed(kValid.data(), kValid.size(), &out);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->status == failure.status);
  FUZZ_CHECK(again->message == failure.message);
  FUZZ_CHECK(out.empty());
}

// Feeds `input` in pieces of the given sizes (cycled), stopping at a
// failure as the transport does.
Outcome decode(std::string_view input, const RequestDecoder::Limits& limits,
               const std::vector<size_t>& pieces) {
  RequestDecoder decoder(limits);
  Outcome outcome;
  size_t at = 0;
  size_t next = 0;
  while (at < input.size()) {
    size_t size = std::min(pieces[next++ % pieces.size()], input.size() - at);
    outcome.failure = decoder.feed(input.data() + at, size, &outcome.requests);
    at += size;
    if (outcome.failure) break;
  }
  if (outcome.failure) {
    const int status = outcome.failure->status;
    FUZZ_CHECK(status == 400 || status == 413 || status == 431 || status == 501);
    FUZZ_CHECK(!outcome.failure->message.empty());
    checkFailureIsSticky(decoder, *outcome.failure);
  } else if (decoder.idle()) {
    outcome.idle = true;
    static const std::string kNext = "GET /next HTTP/1.1\r\n\r\n";
    std::vector<Request> out;
    FUZZ_CHECK(!decoder.feed(kNext.data(), kNext.size(), &out).has_value());
    FUZZ_CHECK(out.size() == 1 && out[0].path == "/next");
  }
  for (const Request& request : outcome.requests) checkRequest(request, limits);
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t control = data[0];
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  // Bits 0-1: the head limit; bits 2-3: the body limit; bits 4-7: the cuts.
  static constexpr size_t kHeadLimits[] = {32, 64, 300, 64 * 1024};
  static constexpr size_t kBodyLimits[] = {0, 16, 100, 64 * 1024 * 1024};
  RequestDecoder::Limits limits{kHeadLimits[control & 3], kBodyLimits[(control >> 2) & 3]};
  std::vector<size_t> pieces;
  switch (control >> 4) {
    case 0:
      pieces = {1};
      break;
    case 1:
      pieces = {2};
      break;
    case 2:
      pieces = {3, 1, 7};
      break;
    default: {
      // Piece sizes from a small generator seeded by the control byte.
      uint32_t state = control * 2654435761u + 1;
      for (int i = 0; i < 16; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        pieces.push_back(1 + state % (4u << (control >> 4)));
      }
      break;
    }
  }

  Outcome whole = decode(input, limits, {input.size() + 1});
  Outcome split = decode(input, limits, pieces);

  FUZZ_CHECK(whole.requests.size() == split.requests.size());
  for (size_t i = 0; i < whole.requests.size(); ++i) {
    FUZZ_CHECK(sameRequest(whole.requests[i], split.requests[i]));
  }
  FUZZ_CHECK(whole.failure.has_value() == split.failure.has_value());
  if (whole.failure) FUZZ_CHECK(whole.failure->status == split.failure->status);
  FUZZ_CHECK(whole.idle == split.idle);
  return 0;
}
