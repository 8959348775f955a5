// Certificates for TLS tests, made with the `openssl` command-line tool into
// a scratch directory: a test CA, leaf certificates it signs (with the
// subjectAltNames a test asks for, one expired), and one from another CA;
// and HTTPS requests with them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "process/tls.hpp"
#include "process/upid.hpp"

namespace mesos::test {

class TestCertificates {
 public:
  // A fresh directory under /tmp with the CA in it (ca.crt, ca.key), and
  // another CA (other-ca.crt). ok() is false when `openssl` is missing or
  // failed (then error() says why).
  TestCertificates();
  ~TestCertificates();

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }
  std::string caFile() const { return dir_ + "/ca.crt"; }

  // <name>.crt and <name>.key, signed by the test CA (or the other one),
  // with subjectAltName `san` (e.g. "IP:127.0.0.1,DNS:localhost"), valid
  // from yesterday for a few days, or expired yesterday. Returns false
  // (and sets error()) on failure.
  bool make(const std::string& name, const std::string& san, bool expired = false,
            bool otherCa = false);
  std::string cert(const std::string& name) const { return dir_ + "/" + name + ".crt"; }
  std::string key(const std::string& name) const { return dir_ + "/" + name + ".key"; }

  // TLS options presenting <name> and trusting the test CA, verifying
  // peers both ways, IP subjectAltNames counting.
  process::TlsOptions options(const std::string& name) const;

  // Runs `command` (sh -c) in dir(); whether it exited 0 (its output is
  // appended to error() otherwise).
  bool run(const std::string& command);

 private:
  std::string dir_;
  std::string error_;
};

// GET `path` over HTTPS from `address`, trusting `caFile`, presenting
// `cert`/`key` when not empty. The status, 0 when no answer (the handshake
// failed: *error says why when given).
int httpsGet(const process::Address& address, const std::string& path, const std::string& caFile,
             const std::string& cert = "", const std::string& key = "", std::string* body = nullptr,
             std::string* error = nullptr);

// POSTs `body` to `path` over HTTPS with `headers` (as above otherwise).
int httpsPost(const process::Address& address, const std::string& path,
              const std::vector<std::pair<std::string, std::string>>& headers,
              const std::string& body, const std::string& caFile, const std::string& cert,
              const std::string& key, std::string* answer = nullptr);

}  // namespace mesos::test
