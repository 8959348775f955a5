// CRAM-MD5 over SASL (Cyrus SASL), Apache Mesos's default mechanism
// ("crammd5"). The master keeps its principals' secrets in memory and hands
// them to Cyrus through an auxiliary property plugin of ours (auxprop.hpp):
// nothing is written to disk, and no sasldb is read.
#pragma once

#include <memory>

#include "authentication/authentication.hpp"

namespace mesos::internal::authentication::cram_md5 {

// Fails when the SASL library does not initialise or offers no CRAM-MD5
// (the libsasl2-modules package is missing).
Result<std::unique_ptr<Authenticator>> createAuthenticator(const Credentials& credentials);
std::unique_ptr<Authenticatee> createAuthenticatee();

}  // namespace mesos::internal::authentication::cram_md5
