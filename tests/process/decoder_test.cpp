// Unit tests for process::http::RequestDecoder, the runtime's parser of
// untrusted bytes: framing (Content-Length, chunked, pipelining), the request
// fields it fills in, and every way it refuses input. Most tests feed the
// same bytes whole, one byte at a time and split in two at every position,
// because the decoder must not care how TCP cut the stream.
#include "process/decoder.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "process/http.hpp"

namespace process::http {
namespace {

using Limits = RequestDecoder::Limits;
using Failure = RequestDecoder::Failure;

// Everything a decoder produced for one input: the requests, flattened to
// text so that gtest prints a readable difference, and the failure, if any.
struct Outcome {
  std::vector<std::string> requests;
  std::optional<int> status;
  std::string message;
};

std::string describe(const Request& request) {
  std::string out = request.method + " path=[" + request.path + "] query=[" + request.query +
                    "] keepAlive=" + (request.keepAlive ? "1" : "0") + "\n";
  for (const auto& [name, value] : request.headers) {
    out += "  [" + name + "]=[" + value + "]\n";
  }
  out += "  body(" + std::to_string(request.body.size()) + ")=[" + request.body + "]";
  return out;
}

// Feeds `input` in pieces that end at the offsets in `cuts` (ascending),
// then the rest. Stops at the first failure, as the transport does.
Outcome decodeWithCuts(const std::string& input, const std::vector<size_t>& cuts,
                       Limits limits = {}) {
  RequestDecoder decoder(limits);
  Outcome outcome;
  size_t start = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(input.size());
  for (size_t end : ends) {
    std::vector<Request> out;
    auto failure = decoder.feed(input.data() + start, end - start, &out);
    for (const Request& request : out) outcome.requests.push_back(describe(request));
    start = end;
    if (failure) {
      outcome.status = failure->status;
      outcome.message = failure->message;
      break;
    }
  }
  return outcome;
}

Outcome decodeWhole(const std::string& input, Limits limits = {}) {
  return decodeWithCuts(input, {}, limits);
}

Outcome decodeBytewise(const std::string& input, Limits limits = {}) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < input.size(); ++i) cuts.push_back(i);
  return decodeWithCuts(input, cuts, limits);
}

// Checks that feeding `input` one byte at a time and in two pieces split at
// every offset gives exactly what feeding it whole gives. Returns the whole
// outcome for further checks.
Outcome expectSplitIndependent(const std::string& input, Limits limits = {}) {
  Outcome whole = decodeWhole(input, limits);
  Outcome bytewise = decodeBytewise(input, limits);
  EXPECT_EQ(whole.requests, bytewise.requests) << "fed one byte at a time";
  EXPECT_EQ(whole.status, bytewise.status) << "fed one byte at a time: " << bytewise.message;
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    Outcome split = decodeWithCuts(input, {cut}, limits);
    EXPECT_EQ(whole.requests, split.requests) << "split at byte " << cut;
    EXPECT_EQ(whole.status, split.status) << "split at byte " << cut << ": " << split.message;
    if (::testing::Test::HasFailure()) break;  // one reported offset is enough
  }
  return whole;
}

// Decodes `input`, expecting it to be complete requests and nothing else.
std::vector<Request> decodeAll(const std::string& input, Limits limits = {}) {
  RequestDecoder decoder(limits);
  std::vector<Request> out;
  auto failure = decoder.feed(input.data(), input.size(), &out);
  EXPECT_FALSE(failure.has_value()) << failure->status << " " << failure->message;
  EXPECT_TRUE(decoder.idle());
  return out;
}

std::string chunked(const std::string& head, const std::vector<std::string>& chunks) {
  std::string out = head;
  char size[32];
  for (const std::string& chunk : chunks) {
    std::snprintf(size, sizeof(size), "%zx\r\n", chunk.size());
    out += size + chunk + "\r\n";
  }
  return out + "0\r\n\r\n";
}

TEST(DecoderTest, ContentLengthBody) {
  auto requests = decodeAll(
      "POST /master/mesos.internal.Foo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
      "hello world");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/master/mesos.internal.Foo");
  EXPECT_EQ(requests[0].query, "");
  EXPECT_EQ(requests[0].body, "hello world");
  EXPECT_EQ(requests[0].header("content-length"), "11");
  EXPECT_TRUE(requests[0].keepAlive);
}

TEST(DecoderTest, BodyIsBinarySafe) {
  std::string body("a\0b\r\n\r\n\xff", 8);
  auto requests = decodeAll("POST /x HTTP/1.1\r\nContent-Length: 8\r\n\r\n" + body);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, body);
}

TEST(DecoderTest, NoBodyWithoutContentLength) {
  auto requests = decodeAll("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path, "/health");
  EXPECT_EQ(requests[0].body, "");
}

TEST(DecoderTest, ZeroContentLength) {
  auto requests = decodeAll("POST /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, "");
}

TEST(DecoderTest, ChunkedBodyOfSeveralChunks) {
  auto requests = decodeAll(chunked("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                                    {"hello", " ", std::string(300, 'z'), "!"}));
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, "hello " + std::string(300, 'z') + "!");
  EXPECT_EQ(requests[0].header("transfer-encoding"), "chunked");
}

TEST(DecoderTest, ChunkSizesInEitherCaseWithExtensionsAndTrailers) {
  auto requests = decodeAll(
      "POST /x HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n"
      "A;name=value\r\n0123456789\r\n"
      "b \r\nabcdefghijk\r\n"
      "0;last\r\nX-Trailer: 1\r\nY-Trailer: 2\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, "0123456789abcdefghijk");
}

TEST(DecoderTest, EmptyChunkedBody) {
  auto requests = decodeAll("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, "");
}

TEST(DecoderTest, TheWayTheRuntimeEncodesMessages) {
  std::string bytes;
  encodeMessage("scheduler(1)@10.0.0.1:5050", "master", "10.0.0.2:5050",
                "mesos.internal.RegisterFrameworkMessage", std::string("\x0a\x03" "abc", 5),
                &bytes);
  encodeMessage("scheduler(1)@10.0.0.1:5050", "master", "10.0.0.2:5050",
                "mesos.internal.Empty", "", &bytes);
  auto requests = decodeAll(bytes);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/master/mesos.internal.RegisterFrameworkMessage");
  EXPECT_EQ(requests[0].body, std::string("\x0a\x03" "abc", 5));
  EXPECT_EQ(requests[0].header("libprocess-from"), "scheduler(1)@10.0.0.1:5050");
  EXPECT_EQ(requests[0].header("user-agent"), "libprocess/scheduler(1)@10.0.0.1:5050");
  EXPECT_TRUE(requests[0].keepAlive);
  EXPECT_EQ(requests[1].path, "/master/mesos.internal.Empty");
  EXPECT_EQ(requests[1].body, "");
}

TEST(DecoderTest, PipelinedRequestsInOneFeedComeOutInOrder) {
  std::string input =
      "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\none" +
      chunked("POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", {"tw", "o"}) +
      "GET /c HTTP/1.1\r\n\r\n"
      "POST /d HTTP/1.0\r\nContent-Length: 5\r\n\r\nthree";
  auto requests = decodeAll(input);
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].path, "/a");
  EXPECT_EQ(requests[0].body, "one");
  EXPECT_EQ(requests[1].path, "/b");
  EXPECT_EQ(requests[1].body, "two");
  EXPECT_EQ(requests[2].path, "/c");
  EXPECT_EQ(requests[2].body, "");
  EXPECT_EQ(requests[3].path, "/d");
  EXPECT_EQ(requests[3].body, "three");
  // Nothing of one request leaks into the next one's headers.
  EXPECT_FALSE(requests[2].hasHeader("content-length"));
  EXPECT_FALSE(requests[2].hasHeader("transfer-encoding"));
}

TEST(DecoderTest, BlankLinesBetweenRequestsAreSkipped) {
  auto requests = decodeAll(
      "\r\n\r\nGET /a HTTP/1.1\r\n\r\n\r\n"
      "POST /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nx\r\n\r\n\r\n");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/a");
  EXPECT_EQ(requests[1].path, "/b");
  EXPECT_EQ(requests[1].body, "x");
}

TEST(DecoderTest, SplitAtEveryByteGivesTheSameRequests) {
  std::string input =
      "POST /master/mesos.internal.A HTTP/1.1\r\nUser-Agent: libprocess/s@1.2.3.4:5\r\n"
      "Content-Length: 7\r\n\r\nabc\r\n\r\n" +
      chunked("POST /b?x=%41&y=1 HTTP/1.1\r\nTRANSFER-ENCODING:chunked\r\nX:  spaced  \r\n\r\n",
              {"\r\n", "0\r\n\r\n", std::string(17, 'q')}) +
      "\r\nGET /c%20d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
      "POST /e HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;ext=\"a;b\"\r\nabc\r\n0\r\nTrailer: t\r\n\r\n"
      "GET /f HTTP/1.1\r\nConnection: close\r\n\r\n";
  Outcome outcome = expectSplitIndependent(input);
  EXPECT_FALSE(outcome.status.has_value()) << outcome.message;
  ASSERT_EQ(outcome.requests.size(), 5u);
}

TEST(DecoderTest, SplitAtEveryByteGivesTheSameLargeBody) {
  std::mt19937 random(42);
  std::string body(200 * 1024, '\0');
  for (char& c : body) c = static_cast<char>(random());
  std::string input = "POST /x HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) +
                      "\r\n\r\n" + body +
                      chunked("POST /y HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                              {body.substr(0, 70000), body.substr(70000)});
  // Every split of 400 KB would be slow; random cuts cover the same paths.
  for (int round = 0; round < 20; ++round) {
    std::vector<size_t> cuts;
    size_t at = 0;
    for (;;) {
      at += 1 + random() % 9000;
      if (at >= input.size()) break;
      cuts.push_back(at);
    }
    Outcome outcome = decodeWithCuts(input, cuts);
    ASSERT_FALSE(outcome.status.has_value()) << outcome.message;
    ASSERT_EQ(outcome.requests.size(), 2u);
  }
  auto requests = decodeAll(input);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body, body);
  EXPECT_EQ(requests[1].body, body);
}

TEST(DecoderTest, RequestComesOutOnlyWhenItsLastByteArrives) {
  std::string input = "POST /x HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody";
  RequestDecoder decoder(Limits{});
  EXPECT_TRUE(decoder.idle());
  std::vector<Request> out;
  for (size_t i = 0; i + 1 < input.size(); ++i) {
    ASSERT_FALSE(decoder.feed(&input[i], 1, &out).has_value());
    EXPECT_TRUE(out.empty()) << "after byte " << i;
    EXPECT_FALSE(decoder.idle()) << "after byte " << i;
  }
  ASSERT_FALSE(decoder.feed(&input.back(), 1, &out).has_value());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body, "body");
  EXPECT_TRUE(decoder.idle());
}

TEST(DecoderTest, EmptyFeedChangesNothing) {
  RequestDecoder decoder(Limits{});
  std::vector<Request> out;
  std::string head = "GET /x HTTP/1.1\r\n";
  ASSERT_FALSE(decoder.feed(head.data(), head.size(), &out).has_value());
  ASSERT_FALSE(decoder.feed(head.data(), 0, &out).has_value());
  EXPECT_TRUE(out.empty());
  ASSERT_FALSE(decoder.feed("\r\n", 2, &out).has_value());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].path, "/x");
}

TEST(DecoderTest, KeepAliveFollowsTheVersionAndConnectionHeader) {
  struct Case {
    const char* head;
    bool keepAlive;
  };
  const Case cases[] = {
      {"GET / HTTP/1.1\r\n", true},
      {"GET / HTTP/1.1\r\nConnection: close\r\n", false},
      {"GET / HTTP/1.1\r\nConnection: Close\r\n", false},
      {"GET / HTTP/1.1\r\nConnection: Upgrade, close\r\n", false},
      {"GET / HTTP/1.1\r\nConnection: keep-alive\r\n", true},
      {"GET / HTTP/1.1\r\nConnection: closed\r\n", true},
      {"GET / HTTP/1.0\r\n", false},
      {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: foo , keep-alive\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: close\r\n", false},
  };
  for (const Case& c : cases) {
    auto requests = decodeAll(std::string(c.head) + "\r\n");
    ASSERT_EQ(requests.size(), 1u) << c.head;
    EXPECT_EQ(requests[0].keepAlive, c.keepAlive) << c.head;
  }
}

TEST(DecoderTest, HeaderNamesAreLowerCasedAndValuesTrimmed) {
  auto requests = decodeAll(
      "GET / HTTP/1.1\r\n"
      "Host: example\r\n"
      "X-MiXeD-CaSe:\t value with  inner  spaces \t\r\n"
      "LIBPROCESS-FROM: a@1.2.3.4:5\r\n"
      "Empty:\r\n"
      "x-mixed-case: second\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  const Request& request = requests[0];
  std::vector<std::pair<std::string, std::string>> expected = {
      {"host", "example"},
      {"x-mixed-case", "value with  inner  spaces"},
      {"libprocess-from", "a@1.2.3.4:5"},
      {"empty", ""},
      {"x-mixed-case", "second"},
  };
  EXPECT_EQ(request.headers, expected);
  EXPECT_EQ(request.header("x-mixed-case"), "value with  inner  spaces");
  EXPECT_EQ(request.header("libprocess-from"), "a@1.2.3.4:5");
  EXPECT_TRUE(request.hasHeader("empty"));
  EXPECT_FALSE(request.hasHeader("absent"));
  EXPECT_EQ(request.header("absent"), "");
}

TEST(DecoderTest, PathIsPercentDecodedAndQueryKeptRaw) {
  auto requests = decodeAll(
      "GET /master/a%20b%2Fc+d%zz%4?x=1%202&y=a+b&flag&=v&&z=%41%42 HTTP/1.1\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  const Request& request = requests[0];
  // '+' is a space only in queries; invalid escapes stay as they are.
  EXPECT_EQ(request.path, "/master/a b/c+d%zz%4");
  EXPECT_EQ(request.query, "x=1%202&y=a+b&flag&=v&&z=%41%42");
  std::map<std::string, std::string> expected = {
      {"x", "1 2"}, {"y", "a b"}, {"flag", ""}, {"", "v"}, {"z", "AB"}};
  EXPECT_EQ(request.queryParameters(), expected);
}

TEST(DecoderTest, EmptyQuery) {
  auto requests = decodeAll("GET /x? HTTP/1.1\r\n\r\n");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/x");
  EXPECT_EQ(requests[0].query, "");
  EXPECT_TRUE(requests[0].queryParameters().empty());
}

TEST(DecoderTest, PercentDecode) {
  EXPECT_EQ(percentDecode("%41%62%7e", false), "Ab~");
  EXPECT_EQ(percentDecode("a+b", false), "a+b");
  EXPECT_EQ(percentDecode("a+b", true), "a b");
  EXPECT_EQ(percentDecode("%", true), "%");
  EXPECT_EQ(percentDecode("%4", true), "%4");
  EXPECT_EQ(percentDecode("%g1", true), "%g1");
  EXPECT_EQ(percentDecode("100%", true), "100%");
  EXPECT_EQ(percentDecode("%00", true), std::string(1, '\0'));
}

// One kind of bad input: the bytes, the status the decoder must fail with,
// and a piece of the message that names the problem.
struct BadInput {
  const char* name;
  std::string input;
  int status;
  const char* message;
};

void PrintTo(const BadInput& bad, std::ostream* out) { *out << bad.name; }

// Small limits so that the "too large" cases stay small.
constexpr Limits kSmall{256, 1024};

class DecoderFailureTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(DecoderFailureTest, FailsWithTheStatusWholeOrBytewise) {
  const BadInput& bad = GetParam();
  Outcome whole = decodeWhole(bad.input, kSmall);
  ASSERT_EQ(whole.status, bad.status) << whole.message;
  EXPECT_NE(whole.message.find(bad.message), std::string::npos) << whole.message;
  EXPECT_TRUE(whole.requests.empty());
  Outcome bytewise = decodeBytewise(bad.input, kSmall);
  EXPECT_EQ(bytewise.status, bad.status) << bytewise.message;
  EXPECT_TRUE(bytewise.requests.empty());
}

TEST_P(DecoderFailureTest, FailureIsSticky) {
  const BadInput& bad = GetParam();
  RequestDecoder decoder(kSmall);
  std::vector<Request> out;
  auto first = decoder.feed(bad.input.data(), bad.input.size(), &out);
  ASSERT_TRUE(first.has_value());
  const std::string valid = "GET /ok HTTP/1.1\r\n\r\n";
  for (int i = 0; i < 3; ++i) {
    auto again = decoder.feed(valid.data(), valid.size(), &out);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->status, first->status);
    EXPECT_EQ(again->message, first->message);
    auto empty = decoder.feed(valid.data(), 0, &out);
    ASSERT_TRUE(empty.has_value());
    EXPECT_EQ(empty->status, first->status);
  }
  EXPECT_TRUE(out.empty());
}

TEST_P(DecoderFailureTest, RequestsBeforeTheBadOneStillComeOut) {
  const BadInput& bad = GetParam();
  std::string input = "POST /first HTTP/1.1\r\nContent-Length: 2\r\n\r\nok" + bad.input;
  for (const Outcome& outcome : {decodeWhole(input, kSmall), decodeBytewise(input, kSmall)}) {
    EXPECT_EQ(outcome.status, bad.status) << outcome.message;
    ASSERT_EQ(outcome.requests.size(), 1u);
    EXPECT_NE(outcome.requests[0].find("path=[/first]"), std::string::npos);
  }
}

const std::string kPost = "POST /x HTTP/1.1\r\n";
const std::string kChunkedPost = "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";

INSTANTIATE_TEST_SUITE_P(
    Malformed, DecoderFailureTest,
    ::testing::Values(
        BadInput{"Garbage", "\x16\x03\x01\x02garbage\r\n\r\n", 400, "request line"},
        BadInput{"RequestLineWithoutVersion", "GET /\r\n\r\n", 400, "request line"},
        BadInput{"RequestLineWithoutSpaces", "GET\r\n\r\n", 400, "request line"},
        BadInput{"EmptyMethod", " / HTTP/1.1\r\n\r\n", 400, "request line"},
        BadInput{"MethodWithSeparator", "GE(T / HTTP/1.1\r\n\r\n", 400, "method"},
        BadInput{"RelativeTarget", "GET x HTTP/1.1\r\n\r\n", 400, "target"},
        BadInput{"EmptyTarget", "GET  HTTP/1.1\r\n\r\n", 400, "target"},
        BadInput{"ControlCharacterInTarget", "GET /a\x01 HTTP/1.1\r\n\r\n", 400, "target"},
        BadInput{"UnknownVersion", "GET / HTTP/2.0\r\n\r\n", 400, "version"},
        BadInput{"TrailingJunkAfterVersion", "GET / HTTP/1.1 x\r\n\r\n", 400, "version"},
        BadInput{"HeaderWithoutColon", kPost + "Host x\r\n\r\n", 400, "header line"},
        BadInput{"HeaderWithEmptyName", kPost + ": x\r\n\r\n", 400, "header line"},
        BadInput{"HeaderNameWithSpace", kPost + "Bad Name: x\r\n\r\n", 400, "header line"},
        BadInput{"FoldedHeader", kPost + "A: b\r\n c\r\n\r\n", 400, "header line"},
        BadInput{"NonNumericContentLength", kPost + "Content-Length: 1x\r\n\r\n", 400,
                 "Content-Length"},
        BadInput{"NegativeContentLength", kPost + "Content-Length: -1\r\n\r\n", 400,
                 "Content-Length"},
        BadInput{"EmptyContentLength", kPost + "Content-Length:\r\n\r\n", 400, "Content-Length"},
        BadInput{"HugeContentLength", kPost + "Content-Length: 99999999999999999999\r\n\r\n",
                 400, "Content-Length"},
        BadInput{"ConflictingContentLengths",
                 kPost + "Content-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "Content-Length"},
        BadInput{"BothContentLengthAndChunked",
                 kPost + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                 "both"},
        BadInput{"BothChunkedAndContentLength",
                 kPost + "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", 400, "both"},
        BadInput{"UnsupportedTransferEncoding", kPost + "Transfer-Encoding: gzip\r\n\r\n", 501,
                 "Transfer-Encoding"},
        BadInput{"ChunkedThenAnotherCoding",
                 kPost + "Transfer-Encoding: chunked, gzip\r\n\r\n", 501, "Transfer-Encoding"},
        BadInput{"NonHexChunkSize", kChunkedPost + "xyz\r\n", 400, "chunk size"},
        BadInput{"EmptyChunkSize", kChunkedPost + "\r\n", 400, "chunk size"},
        BadInput{"NegativeChunkSize", kChunkedPost + "-1\r\n", 400, "chunk size"},
        BadInput{"OverlongChunkSize", kChunkedPost + "10000000000000000\r\n", 400, "chunk size"},
        BadInput{"ChunkSizeLineTooLong", kChunkedPost + "1;" + std::string(2000, 'e'), 400,
                 "chunk size"},
        BadInput{"ChunkDataLongerThanItsSize", kChunkedPost + "2\r\nabc\r\n", 400, "CRLF"},
        BadInput{"ContentLengthOverLimit", kPost + "Content-Length: 1025\r\n\r\n", 413,
                 "1025"},
        BadInput{"ChunkOverLimit", kChunkedPost + "401\r\n", 413, "limit"},
        BadInput{"ChunksOverLimitTogether",
                 kChunkedPost + "200\r\n" + std::string(512, 'a') + "\r\n200\r\n" +
                     std::string(512, 'b') + "\r\n1\r\n",
                 413, "limit"},
        BadInput{"HeadTooLargeUnterminated", kPost + "X: " + std::string(300, 'a'), 431,
                 "head"},
        BadInput{"HeadTooLargeTerminated", kPost + "X: " + std::string(300, 'a') + "\r\n\r\n",
                 431, "head"},
        BadInput{"TrailerTooLong",
                 kChunkedPost + "0\r\nX: " + std::string(300, 't'), 431, "trailer"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

TEST(DecoderTest, OversizedContentLengthFailsBeforeTheBodyArrives) {
  RequestDecoder decoder(Limits{1024, 1000});
  std::vector<Request> out;
  std::string head = "POST /x HTTP/1.1\r\nContent-Length: 4096\r\n\r\n";
  auto failure = decoder.feed(head.data(), head.size(), &out);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->status, 413);
  EXPECT_NE(failure->message.find("4096"), std::string::npos) << failure->message;
  EXPECT_NE(failure->message.find("1000"), std::string::npos) << failure->message;
}

TEST(DecoderTest, OversizedChunkFailsBeforeItsDataArrives) {
  RequestDecoder decoder(Limits{1024, 1000});
  std::vector<Request> out;
  std::string input = kChunkedPost + "3e8\r\n" + std::string(1000, 'a') + "\r\n1\r\n";
  auto failure = decoder.feed(input.data(), input.size(), &out);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->status, 413);
  EXPECT_TRUE(out.empty());
}

TEST(DecoderTest, BodyOfExactlyTheLimitIsAccepted) {
  Limits limits{1024, 1000};
  std::string body(1000, 'b');
  std::string input = "POST /x HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + body +
                      chunked(kChunkedPost, {body.substr(0, 1), body.substr(1)});
  Outcome outcome = expectSplitIndependent(input, limits);
  EXPECT_FALSE(outcome.status.has_value()) << outcome.message;
  EXPECT_EQ(outcome.requests.size(), 2u);
}

// A request head of `size` bytes (request line and header lines up to, not
// including, the blank line's CRLF CRLF).
std::string headOfSize(size_t size) {
  std::string head = "GET / HTTP/1.1\r\nX: ";
  head += std::string(size - head.size(), 'h');
  return head + "\r\n\r\n";
}

TEST(DecoderTest, HeadAtTheLimitIsAcceptedHoweverItIsSplit) {
  Limits limits{256, 1024};
  for (size_t size = 250; size <= 256; ++size) {
    Outcome outcome = expectSplitIndependent(headOfSize(size), limits);
    EXPECT_FALSE(outcome.status.has_value()) << "head of " << size << ": " << outcome.message;
  }
}

TEST(DecoderTest, HeadOverTheLimitIsRefusedHoweverItIsSplit) {
  Limits limits{256, 1024};
  for (size_t size = 257; size <= 262; ++size) {
    Outcome outcome = expectSplitIndependent(headOfSize(size), limits);
    EXPECT_EQ(outcome.status, 431) << "head of " << size;
  }
}

TEST(DecoderTest, ChunkSizeLineLimitDoesNotDependOnTheSplit) {
  // Chunk extensions make the size line long; around 1 KB the decoder must
  // decide the same way whether or not the CRLF arrived with the line.
  for (size_t extension = 1010; extension <= 1030; ++extension) {
    std::string input = kChunkedPost + "1;" + std::string(extension, 'e') + "\r\nx\r\n0\r\n\r\n";
    expectSplitIndependent(input);
  }
}

TEST(DecoderTest, TrailerLineLimitDoesNotDependOnTheSplit) {
  Limits limits{256, 1024};
  for (size_t size = 250; size <= 262; ++size) {
    std::string trailer = "T: " + std::string(size - 3, 't');
    std::string input = kChunkedPost + "0\r\n" + trailer + "\r\n\r\n";
    expectSplitIndependent(input, limits);
  }
}

TEST(DecoderTest, FailuresDoNotDependOnTheSplit) {
  const std::string inputs[] = {
      "GET / HTTP/1.1\r\nA: b\r\n\r\nBAD\r\n\r\n",
      "POST /x HTTP/1.1\r\nContent-Length: 2000\r\n\r\n",
      kChunkedPost + "5\r\nabcde\r\n3\r\nabcX\r\n",
      kChunkedPost + "5\r\nabcde\r\nzz\r\n",
      "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n",
  };
  for (const std::string& input : inputs) {
    Outcome outcome = expectSplitIndependent(input, kSmall);
    EXPECT_TRUE(outcome.status.has_value()) << input;
  }
}

}  // namespace
}  // namespace process::http
