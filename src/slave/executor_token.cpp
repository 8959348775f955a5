#include "slave/executor_token.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "common/base64.hpp"
#include "common/json.hpp"
#include "slave/checkpoint.hpp"

namespace mesos::internal::slave {

namespace {

std::string hmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

constexpr char kBearer[] = "Bearer ";

}  // namespace

std::string executorToken(std::string_view key, const std::string& frameworkId,
                          const std::string& executorId, const std::string& containerId) {
  std::string header = base64::encode(R"({"alg":"HS256","typ":"JWT"})", true);
  std::string claims = base64::encode(json::stringify(
      json::Object{{"fid", frameworkId}, {"eid", executorId}, {"cid", containerId}}), true);
  std::string signed_ = header + "." + claims;
  return signed_ + "." + base64::encode(hmacSha256(key, signed_), true);
}

Result<std::string> loadExecutorSecretKey(const std::string& path, const std::string& workDir) {
  if (!path.empty()) {
    std::string file = path.rfind("file://", 0) == 0 ? path.substr(7) : path;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return Error{"cannot read --executor_secret_key file '" + file + "': " + std::strerror(errno)};
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().empty()) return Error{"--executor_secret_key file '" + file + "' is empty"};
    return text.str();
  }
  std::string kept = workDir + "/meta/executor_secret_key";
  auto existing = checkpoint::read(kept);
  if (existing && !existing->empty()) return *existing;
  if (!existing && existing.error().code != ENOENT) return existing.error();
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return Error{"cannot make an executor secret key"};
  std::string key(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  // Made 0600 from the start (a umask would race with the slave's other
  // threads), then renamed into place.
  std::string temporary = kept + ".new";
  std::error_code ignored;  // a failure shows in the open() below
  std::filesystem::create_directories(workDir + "/meta", ignored);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && ::fchmod(fd, 0600) == 0 &&
            ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) &&
            ::fsync(fd) == 0;
  int error = errno;
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(temporary.c_str(), kept.c_str()) != 0) {
    if (ok) error = errno;
    ::unlink(temporary.c_str());
    return Error{"cannot write the executor secret key '" + kept + "': " + std::strerror(error)};
  }
  return key;
}

bool carriesToken(std::string_view authorization, std::string_view token) {
  if (token.empty() || !authorization.starts_with(kBearer)) return false;
  authorization.remove_prefix(sizeof(kBearer) - 1);
  return authorization.size() == token.size() &&
         CRYPTO_memcmp(authorization.data(), token.data(), token.size()) == 0;
}

}  // namespace mesos::internal::slave
