// libFuzzer target for what the master decodes of an authenticating
// client's bytes: the SASL server connection behind each CRAM-MD5 session
// (src/authentication/cram_md5/server.cpp: our option and canonicalisation
// callbacks, our in-memory auxprop plugin, Cyrus SASL's CRAM-MD5 decoding)
// and the credentials files the master and slave read
// (src/authentication/credentials.cpp).
//
// Input: one control byte, then the bytes. The control byte's low two bits
// pick what they feed:
//   0: a CRAM-MD5 exchange: start, then the bytes as the client's answer to
//      the challenge;
//   1: start with the bytes up to the first '\n' as the mechanism name and
//      the rest as the client's initial data, then answer the challenge
//      with the same bytes;
//   2: start, then one step per '\0'-separated piece;
//   3: the bytes as a credentials file and as a slave's credential file.
// Invariants (a violation aborts):
//   - nobody authenticates without knowing the secret: a fuzzed answer to a
//     fresh random challenge never gives kAuthenticated;
//   - after an outcome other than kContinue, every further step is kError;
//   - a principal reported is never longer than the input;
//   - a credentials file that parses names a non-empty principal for each
//     credential.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "authentication/credentials.hpp"
#include "authentication/cram_md5/server.hpp"

namespace {

using mesos::internal::authentication::parseCredential;
using mesos::internal::authentication::parseCredentials;
using mesos::internal::authentication::cram_md5::Secrets;
using mesos::internal::authentication::cram_md5::ServerConnection;
using Kind = ServerConnection::Step::Kind;

#define FUZZ_CHECK(condition)                                                       \
  do {                                                                              \
    if (!(condition)) {                                                             \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
                   #condition);                                                     \
      std::abort();                                                                 \
    }                                                                               \
  } while (false)

std::shared_ptr<const Secrets> secrets() {
  static auto* known =
      new std::shared_ptr<const Secrets>(std::make_shared<Secrets>(Secrets{{"alice", "wonderland"}}));
  return *known;
}

std::unique_ptr<ServerConnection> connect() {
  auto server = ServerConnection::create(secrets());
  if (!server) {
    std::fprintf(stderr, "cannot start a SASL server: %s\n", server.error().message.c_str());
    std::abort();
  }
  return std::move(server).value();
}

void checkStep(const ServerConnection::Step& step, size_t inputSize) {
  FUZZ_CHECK(step.kind != Kind::kAuthenticated);
  FUZZ_CHECK(step.principal.size() <= inputSize);
}

// After an outcome, the connection takes nothing more.
void checkEnded(ServerConnection& server, const std::string& bytes) {
  FUZZ_CHECK(server.step(bytes).kind == Kind::kError);
}

void exchange(const std::string& bytes) {
  auto server = connect();
  ServerConnection::Step first = server->start("CRAM-MD5", "");
  FUZZ_CHECK(first.kind == Kind::kContinue);
  FUZZ_CHECK(!first.data.empty());
  ServerConnection::Step answer = server->step(bytes);
  checkStep(answer, bytes.size());
  FUZZ_CHECK(answer.kind != Kind::kContinue);
  checkEnded(*server, bytes);
}

void startWith(const std::string& bytes) {
  size_t newline = bytes.find('\n');
  std::string mechanism = bytes.substr(0, newline);
  std::string data = newline == std::string::npos ? "" : bytes.substr(newline + 1);
  auto server = connect();
  ServerConnection::Step first = server->start(mechanism, data);
  checkStep(first, bytes.size());
  if (first.kind != Kind::kContinue) {
    checkEnded(*server, data);
    return;
  }
  ServerConnection::Step answer = server->step(data);
  checkStep(answer, bytes.size());
  if (answer.kind != Kind::kContinue) checkEnded(*server, data);
}

void steps(const std::string& bytes) {
  auto server = connect();
  ServerConnection::Step step = server->start("CRAM-MD5", "");
  bool ended = false;
  size_t begin = 0;
  while (begin <= bytes.size()) {
    size_t end = bytes.find('\0', begin);
    if (end == std::string::npos) end = bytes.size();
    std::string piece = bytes.substr(begin, end - begin);
    begin = end + 1;
    step = server->step(piece);
    checkStep(step, bytes.size());
    if (ended) FUZZ_CHECK(step.kind == Kind::kError);
    if (step.kind != Kind::kContinue) ended = true;
  }
}

void credentials(const std::string& bytes) {
  auto all = parseCredentials(bytes);
  if (all) {
    for (const auto& credential : all->credentials()) FUZZ_CHECK(!credential.principal().empty());
  } else {
    FUZZ_CHECK(!all.error().message.empty());
  }
  auto one = parseCredential(bytes);
  if (one) {
    FUZZ_CHECK(!one->principal().empty());
  } else {
    FUZZ_CHECK(!one.error().message.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] & 3) {
    case 0:
      exchange(bytes);
      break;
    case 1:
      startWith(bytes);
      break;
    case 2:
      steps(bytes);
      break;
    default:
      credentials(bytes);
      break;
  }
  return 0;
}
