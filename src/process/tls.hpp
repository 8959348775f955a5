// TLS for the runtime's connections, configured as Apache's libprocess is
// (LIBPROCESS_SSL_* variables): the settings, the OpenSSL context built
// from them, and what a peer's certificate says about who it is.
// docs/security.md, "TLS", tells an operator how to set it up.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "process/asio.hpp"
#include "process/upid.hpp"

typedef struct ssl_st SSL;
namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace process {

struct TlsOptions {
  bool enabled = false;
  std::string certFile;  // PEM certificate (chain) this side presents
  std::string keyFile;   // its PEM private key
  std::string caFile;    // PEM certificates of the trusted authorities
  std::string caDir;     // a c_rehash'ed directory of them
  // Client side: the server's certificate must verify and name the address
  // connected to. Server side: a client's certificate, when it sends one,
  // must verify (and then binds its messages to the addresses it names).
  bool verifyServerCert = false;
  // Server side: every TLS client must present a certificate that
  // verifies. Implies verifyServerCert.
  bool requireClientCert = false;
  // IP addresses in a certificate's subjectAltName count as names of it.
  bool verifyIpAdd = false;
  // Plain connections are served on the TLS port too (told apart by their
  // first byte).
  bool supportDowngrade = false;
  int verificationDepth = 4;
  // OpenSSL cipher list for TLS 1.2 and older ("": kDefaultCiphers).
  std::string ciphers;
  std::string ecdhCurves = "auto";
  std::string hostnameValidationScheme = "legacy";
  bool enableSslV3 = false;
  bool enableTlsV1_0 = false;
  bool enableTlsV1_1 = false;
  bool enableTlsV1_2 = true;
  bool enableTlsV1_3 = false;

  static const char* const kDefaultCiphers;

  // The settings LIBPROCESS_SSL_* give (and SSL_*, Apache's older prefix,
  // where no LIBPROCESS_SSL_ variable says otherwise). Fails with one line
  // naming the variable and what it takes.
  static Result<TlsOptions> fromEnvironment();
};

// What a TLS peer's certificate says about it, learned after the handshake.
struct TlsPeer {
  // It presented a certificate that verified against our authorities.
  bool verified = false;
  // Its subject's common name (or first subjectAltName), for messages.
  std::string subject;
  // The IPv4 addresses its certificate names: subjectAltName IPs (with
  // verifyIpAdd) and what its DNS names and common name resolve to.
  std::vector<uint32_t> ips;

  bool names(uint32_t ip) const;
  std::string describe() const;  // "certificate 'CN' naming 1.2.3.4, ..."
};

class TlsContext {
 public:
  // Loads the certificate, key and authorities. Fails with one line naming
  // the variable, the file and OpenSSL's reason: a missing or unreadable
  // file, a key that does not match the certificate, no protocol enabled,
  // ciphers OpenSSL does not know.
  static Result<std::shared_ptr<TlsContext>> create(const TlsOptions& options);

  ~TlsContext();
  const TlsOptions& options() const { return options_; }
  asio::ssl::context& context() { return *context_; }

  // The verification a side of a connection asks for (SSL_VERIFY_*).
  int serverVerifyMode() const;
  int clientVerifyMode() const;

  // After a handshake on `ssl`: what the peer's certificate says, with its
  // DNS names resolved on `io` (never blocking it). `done` runs on io's
  // thread.
  void identify(asio::io_context& io, SSL* ssl,
                std::function<void(std::shared_ptr<const TlsPeer>)> done) const;

 private:
  explicit TlsContext(const TlsOptions& options);

  TlsOptions options_;
  std::unique_ptr<asio::ssl::context> context_;
};

}  // namespace process
