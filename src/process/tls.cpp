#include "process/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

extern char** environ;

namespace process {

// Apache's default list, behind the forward-secret AEAD suites that
// browsers and curl offer first.
const char* const TlsOptions::kDefaultCiphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "AES128-SHA:AES256-SHA:RC4-SHA:DHE-RSA-AES128-SHA:DHE-DSS-AES128-SHA:"
    "DHE-RSA-AES256-SHA:DHE-DSS-AES256-SHA";

namespace {

// OpenSSL's reason for the last failure, and clears its queue.
std::string opensslReason() {
  unsigned long code = ERR_get_error();
  char text[256] = {};
  if (code != 0) ERR_error_string_n(code, text, sizeof(text));
  ERR_clear_error();
  return code != 0 ? std::string(text) : std::string("unknown OpenSSL error");
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

Result<bool> parseBool(const std::string& name, const std::string& text) {
  std::string value = lower(text);
  if (value == "true" || value == "1" || value == "yes") return true;
  if (value == "false" || value == "0" || value == "no") return false;
  return Error{name + ": '" + text + "' is not a boolean (write true or false)"};
}

}  // namespace

Result<TlsOptions> TlsOptions::fromEnvironment() {
  // Suffix -> value; LIBPROCESS_SSL_X wins over SSL_X.
  std::map<std::string, std::pair<std::string, std::string>> given;  // suffix -> (name, value)
  for (int pass = 0; pass < 2; ++pass) {
    const std::string prefix = pass == 0 ? "SSL_" : "LIBPROCESS_SSL_";
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      std::string_view text(*entry);
      size_t eq = text.find('=');
      if (eq == std::string_view::npos || !text.starts_with(prefix)) continue;
      std::string name(text.substr(0, eq));
      given[name.substr(prefix.size())] = {name, std::string(text.substr(eq + 1))};
    }
  }
  TlsOptions options;
  options.ciphers = kDefaultCiphers;
  bool verifyCert = false;
  bool requireCert = false;
  std::map<std::string, bool*> booleans = {
      {"ENABLED", &options.enabled},
      {"SUPPORT_DOWNGRADE", &options.supportDowngrade},
      {"VERIFY_CERT", &verifyCert},
      {"VERIFY_SERVER_CERT", &options.verifyServerCert},
      {"REQUIRE_CERT", &requireCert},
      {"REQUIRE_CLIENT_CERT", &options.requireClientCert},
      {"VERIFY_IPADD", &options.verifyIpAdd},
      {"ENABLE_SSL_V3", &options.enableSslV3},
      {"ENABLE_TLS_V1_0", &options.enableTlsV1_0},
      {"ENABLE_TLS_V1_1", &options.enableTlsV1_1},
      {"ENABLE_TLS_V1_2", &options.enableTlsV1_2},
      {"ENABLE_TLS_V1_3", &options.enableTlsV1_3},
  };
  std::map<std::string, std::string*> strings = {
      {"CERT_FILE", &options.certFile},
      {"KEY_FILE", &options.keyFile},
      {"CA_FILE", &options.caFile},
      {"CA_DIR", &options.caDir},
      {"CIPHERS", &options.ciphers},
      {"ECDH_CURVES", &options.ecdhCurves},
      {"HOSTNAME_VALIDATION_SCHEME", &options.hostnameValidationScheme},
  };
  for (const auto& [suffix, variable] : given) {
    const auto& [name, value] = variable;
    if (auto it = booleans.find(suffix); it != booleans.end()) {
      if (value.empty()) continue;
      auto parsed = parseBool(name, value);
      if (!parsed) return parsed.error();
      *it->second = *parsed;
    } else if (auto it = strings.find(suffix); it != strings.end()) {
      if (!value.empty()) *it->second = value;
    } else if (suffix == "VERIFICATION_DEPTH") {
      int depth = 0;
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), depth);
      if (error != std::errc() || end != value.data() + value.size() || depth < 0) {
        return Error{name + ": '" + value + "' is not a certificate chain depth (0 or more)"};
      }
      options.verificationDepth = depth;
    } else if (name.starts_with("LIBPROCESS_SSL_")) {
      // A misspelt variable would silently weaken the set-up.
      return Error{name + ": not a variable libprocess knows (docs/security.md lists them)"};
    }
  }
  options.verifyServerCert = options.verifyServerCert || verifyCert;
  options.requireClientCert = options.requireClientCert || requireCert;
  // As Apache's: requiring client certificates implies verifying servers'.
  if (options.requireClientCert) options.verifyServerCert = true;
  if (options.hostnameValidationScheme != "legacy" &&
      options.hostnameValidationScheme != "openssl") {
    return Error{"LIBPROCESS_SSL_HOSTNAME_VALIDATION_SCHEME: '" +
                 options.hostnameValidationScheme + "' is not 'legacy' or 'openssl'"};
  }
  return options;
}

bool TlsPeer::names(uint32_t ip) const {
  return std::find(ips.begin(), ips.end(), ip) != ips.end();
}

std::string TlsPeer::describe() const {
  if (!verified) return "no verified certificate";
  std::string text = "certificate '" + subject + "' (naming ";
  if (ips.empty()) text += "no address";
  for (size_t i = 0; i < ips.size(); ++i) {
    if (i > 0) text += ", ";
    text += Address{ips[i], 0}.ipString();
  }
  return text + ")";
}

TlsContext::TlsContext(const TlsOptions& options)
    : options_(options), context_(std::make_unique<asio::ssl::context>(asio::ssl::context::tls)) {}

TlsContext::~TlsContext() = default;

Result<std::shared_ptr<TlsContext>> TlsContext::create(const TlsOptions& options) {
  if (options.certFile.empty()) {
    return Error{"LIBPROCESS_SSL_ENABLED is set but LIBPROCESS_SSL_CERT_FILE is not: give the "
                 "path of this node's PEM certificate"};
  }
  if (options.keyFile.empty()) {
    return Error{"LIBPROCESS_SSL_ENABLED is set but LIBPROCESS_SSL_KEY_FILE is not: give the "
                 "path of the certificate's PEM private key"};
  }
  std::shared_ptr<TlsContext> tls(new TlsContext(options));
  SSL_CTX* ctx = tls->context_->native_handle();
  ERR_clear_error();
  // No resumption (as Apache's): every connection shows its certificate.
  // OpenSSL still wants a session id context once it verifies clients
  // (browsers offer to resume).
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  static const unsigned char kSessionContext[] = "mesos";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  if (SSL_CTX_use_certificate_chain_file(ctx, options.certFile.c_str()) != 1) {
    return Error{"LIBPROCESS_SSL_CERT_FILE: cannot load the certificate '" + options.certFile +
                 "': " + opensslReason()};
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, options.keyFile.c_str(), SSL_FILETYPE_PEM) != 1) {
    std::string reason = opensslReason();
    if (reason.find("key values mismatch") != std::string::npos) {
      return Error{"LIBPROCESS_SSL_KEY_FILE: the key '" + options.keyFile +
                   "' does not match the certificate '" + options.certFile + "'"};
    }
    return Error{"LIBPROCESS_SSL_KEY_FILE: cannot load the private key '" + options.keyFile +
                 "': " + reason};
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Error{"LIBPROCESS_SSL_KEY_FILE: the key '" + options.keyFile +
                 "' does not match the certificate '" + options.certFile + "'"};
  }
  if (options.verifyServerCert || options.requireClientCert) {
    if (!options.caFile.empty() || !options.caDir.empty()) {
      const char* file = options.caFile.empty() ? nullptr : options.caFile.c_str();
      const char* dir = options.caDir.empty() ? nullptr : options.caDir.c_str();
      if (SSL_CTX_load_verify_locations(ctx, file, dir) != 1) {
        return Error{std::string(file ? "LIBPROCESS_SSL_CA_FILE" : "LIBPROCESS_SSL_CA_DIR") +
                     ": cannot load the certificate authorities from '" +
                     (file ? options.caFile : options.caDir) + "': " + opensslReason()};
      }
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return Error{"cannot load the system's certificate authorities (set "
                   "LIBPROCESS_SSL_CA_FILE): " + opensslReason()};
    }
    SSL_CTX_set_verify_depth(ctx, options.verificationDepth);
  }
  const std::string ciphers =
      options.ciphers.empty() ? std::string(TlsOptions::kDefaultCiphers) : options.ciphers;
  if (SSL_CTX_set_cipher_list(ctx, ciphers.c_str()) != 1) {
    return Error{"LIBPROCESS_SSL_CIPHERS: OpenSSL knows none of '" + ciphers +
                 "': " + opensslReason()};
  }
  if (options.ecdhCurves != "auto" &&
      SSL_CTX_set1_groups_list(ctx, options.ecdhCurves.c_str()) != 1) {
    return Error{"LIBPROCESS_SSL_ECDH_CURVES: cannot use '" + options.ecdhCurves +
                 "': " + opensslReason()};
  }
  if (!options.enableSslV3 && !options.enableTlsV1_0 && !options.enableTlsV1_1 &&
      !options.enableTlsV1_2 && !options.enableTlsV1_3) {
    return Error{"LIBPROCESS_SSL_ENABLE_TLS_V1_2 is false and no other protocol is enabled: "
                 "enable at least one (LIBPROCESS_SSL_ENABLE_TLS_V1_2 or _V1_3)"};
  }
  uint64_t all = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 |
                 SSL_OP_NO_TLSv1_2 | SSL_OP_NO_TLSv1_3;
  SSL_CTX_clear_options(ctx, all);
  uint64_t off = SSL_OP_NO_SSLv2 | SSL_OP_CIPHER_SERVER_PREFERENCE;
  if (!options.enableSslV3) off |= SSL_OP_NO_SSLv3;
  if (!options.enableTlsV1_0) off |= SSL_OP_NO_TLSv1;
  if (!options.enableTlsV1_1) off |= SSL_OP_NO_TLSv1_1;
  if (!options.enableTlsV1_2) off |= SSL_OP_NO_TLSv1_2;
  if (!options.enableTlsV1_3) off |= SSL_OP_NO_TLSv1_3;
  SSL_CTX_set_options(ctx, off);
  // OpenSSL 3 refuses the old protocols at its default minimum; enabling
  // them (as Apache's variables may) lowers it.
  if (options.enableSslV3 || options.enableTlsV1_0 || options.enableTlsV1_1) {
    SSL_CTX_set_min_proto_version(ctx, 0);
    SSL_CTX_set_security_level(ctx, 0);
  }
  return tls;
}

int TlsContext::serverVerifyMode() const {
  if (options_.requireClientCert) return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  // A client may still present one: it is verified, and binds it.
  if (options_.verifyServerCert) return SSL_VERIFY_PEER;
  return SSL_VERIFY_NONE;
}

int TlsContext::clientVerifyMode() const {
  return options_.verifyServerCert ? SSL_VERIFY_PEER : SSL_VERIFY_NONE;
}

void TlsContext::identify(asio::io_context& io, SSL* ssl,
                          std::function<void(std::shared_ptr<const TlsPeer>)> done) const {
  auto peer = std::make_shared<TlsPeer>();
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) {
    if (cert != nullptr) X509_free(cert);
    done(peer);
    return;
  }
  peer->verified = true;
  std::vector<std::string> hostNames;
  auto* sans = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (sans != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
      if (name->type == GEN_DNS) {
        const ASN1_STRING* dns = name->d.dNSName;
        std::string text(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                         static_cast<size_t>(ASN1_STRING_length(dns)));
        // An embedded NUL would make the name mean two things: ignored.
        if (text.find('\0') == std::string::npos) hostNames.push_back(text);
      } else if (name->type == GEN_IPADD && options_.verifyIpAdd) {
        const ASN1_OCTET_STRING* ip = name->d.iPAddress;
        if (ASN1_STRING_length(ip) == 4) {
          const unsigned char* b = ASN1_STRING_get0_data(ip);
          peer->ips.push_back((uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
                              (uint32_t{b[2]} << 8) | uint32_t{b[3]});
          if (peer->subject.empty()) peer->subject = Address{peer->ips.back(), 0}.ipString();
        }
      }
    }
    GENERAL_NAMES_free(sans);
  }
  char common[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, common,
                                sizeof(common)) > 0) {
    std::string text(common);
    hostNames.push_back(text);
    peer->subject = text;
  }
  X509_free(cert);
  if (peer->subject.empty() && !hostNames.empty()) peer->subject = hostNames.front();
  // Wildcards name no one host; a handful of names is plenty.
  std::erase_if(hostNames, [](const std::string& name) {
    return name.empty() || name.find('*') != std::string::npos;
  });
  std::sort(hostNames.begin(), hostNames.end());
  hostNames.erase(std::unique(hostNames.begin(), hostNames.end()), hostNames.end());
  if (hostNames.size() > 8) hostNames.resize(8);
  if (hostNames.empty()) {
    done(peer);
    return;
  }
  // Resolved on Asio's resolver thread; the last answer finishes.
  struct Pending {
    std::shared_ptr<TlsPeer> peer;
    size_t left;
    std::function<void(std::shared_ptr<const TlsPeer>)> done;
  };
  auto pending = std::make_shared<Pending>(Pending{peer, hostNames.size(), std::move(done)});
  for (const std::string& name : hostNames) {
    auto resolver = std::make_shared<asio::ip::tcp::resolver>(io);
    resolver->async_resolve(
        asio::ip::tcp::v4(), name, "",
        [pending, resolver](const boost::system::error_code& ec,
                            asio::ip::tcp::resolver::results_type results) {
          if (!ec) {
            for (const auto& entry : results) {
              uint32_t ip = entry.endpoint().address().to_v4().to_uint();
              if (!pending->peer->names(ip)) pending->peer->ips.push_back(ip);
            }
          }
          if (--pending->left == 0) pending->done(pending->peer);
        });
  }
}

}  // namespace process
