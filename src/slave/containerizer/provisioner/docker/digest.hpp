// SHA-256 digests of blobs as registries name them ("sha256:<hex>"), computed
// as the bytes stream by (OpenSSL EVP).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner::docker {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t size);
  // "sha256:<64 lower-case hex>"; the hasher is spent afterwards.
  std::string finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256Of(const std::string& bytes);

// The digest of the whole file at `path`, and its size.
Result<std::string> sha256OfFile(const std::string& path, uint64_t* size = nullptr);

}  // namespace mesos::internal::slave::provisioner::docker
