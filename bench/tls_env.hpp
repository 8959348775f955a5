// --tls of the benchmarks: a throw-away CA and one certificate for
// 127.0.0.1 made by the openssl tool, and LIBPROCESS_SSL_* set so that this
// process and every child it starts run TLS with them (client certificates
// required and verified; downgrade on, for harness clients that speak
// plain HTTP). docs/benchmarks.md, "With TLS".
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// Makes the certificates in `dir` (created) and sets the variables.
// False, with *error, when openssl fails.
inline bool setUpTls(const std::string& dir, std::string* error) {
  std::filesystem::create_directories(dir);
  const std::string command =
      "cd '" + dir + "' && "
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key "
      "-out ca.crt -days 2 -subj /CN=bench-ca -addext basicConstraints=critical,CA:TRUE && "
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout node.key "
      "-out node.csr -subj /CN=localhost && "
      "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > node.ext && "
      "openssl x509 -req -in node.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out node.crt "
      "-days 2 -extfile node.ext";
  if (std::system((command + " > openssl.log 2>&1").c_str()) != 0) {
    *error = "openssl could not make the certificates (see " + dir + "/openssl.log)";
    return false;
  }
  const std::vector<std::pair<std::string, std::string>> variables = {
      {"LIBPROCESS_SSL_ENABLED", "true"},
      {"LIBPROCESS_SSL_CERT_FILE", dir + "/node.crt"},
      {"LIBPROCESS_SSL_KEY_FILE", dir + "/node.key"},
      {"LIBPROCESS_SSL_CA_FILE", dir + "/ca.crt"},
      {"LIBPROCESS_SSL_VERIFY_CERT", "true"},
      {"LIBPROCESS_SSL_REQUIRE_CERT", "true"},
      {"LIBPROCESS_SSL_VERIFY_IPADD", "true"},
      {"LIBPROCESS_SSL_SUPPORT_DOWNGRADE", "true"}};
  for (const auto& [name, value] : variables) ::setenv(name.c_str(), value.c_str(), 1);
  return true;
}

}  // namespace bench
