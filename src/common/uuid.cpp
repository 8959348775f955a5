#include "common/uuid.hpp"

#include <cstdint>
#include <random>

namespace mesos {

namespace {

std::mt19937_64& generator() {
  // One generator per thread, seeded from the OS, so concurrent callers
  // neither contend nor share a sequence.
  thread_local std::mt19937_64 engine([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(),
                       device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }());
  return engine;
}

}  // namespace

std::string randomUuid() {
  std::string bytes(16, '\0');
  auto& engine = generator();
  for (int half = 0; half < 2; ++half) {
    uint64_t word = engine();
    for (int i = 0; i < 8; ++i) {
      bytes[half * 8 + i] = static_cast<char>((word >> (8 * i)) & 0xff);
    }
  }
  bytes[6] = static_cast<char>((static_cast<unsigned char>(bytes[6]) & 0x0f) | 0x40);  // version 4
  bytes[8] = static_cast<char>((static_cast<unsigned char>(bytes[8]) & 0x3f) | 0x80);  // variant 10
  return bytes;
}

std::string uuidToString(const std::string& bytes) {
  if (bytes.size() != 16) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    auto byte = static_cast<unsigned char>(bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 0x0f];
  }
  return out;
}

bool isValidUuid(const std::string& bytes) {
  if (bytes.size() != 16) return false;
  return (static_cast<unsigned char>(bytes[8]) & 0xc0) == 0x80;
}

}  // namespace mesos
