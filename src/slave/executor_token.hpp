// Executor tokens: what an executor presents with its messages to prove it
// is the executor the slave launched (docs/security.md, "Executors").
//
// Every executor the slave starts gets one in MESOS_EXECUTOR_AUTHENTICATION_TOKEN:
// a JSON Web Token (RFC 7519) signed with HMAC-SHA256 under the slave's
// executor secret key, whose claims name the executor as Apache Mesos's do
// ("fid", "eid", "cid"). Our executor driver sends it as
// "Authorization: Bearer <token>" with every message to its slave. Tasks on
// one host share its address, so the address alone cannot tell one
// executor from a task posing as it; the token can.
#pragma once

#include <string>
#include <string_view>

#include "mesos/result.hpp"

namespace mesos::internal::slave {

// The token for one executor run. Deterministic: the same key and ids give
// the same token, so a restarted slave recomputes the tokens of the
// executors it recovers.
std::string executorToken(std::string_view key, const std::string& frameworkId,
                          const std::string& executorId, const std::string& containerId);

// The slave's executor secret key: the whole contents of `path`
// (--executor_secret_key) when it is given, else the key kept at
// <workDir>/meta/executor_secret_key, made the first time (32 random bytes,
// mode 0600) and kept across restarts so that recovered executors' tokens
// stay valid. Fails naming the file when it cannot be read, is empty, or
// cannot be made.
Result<std::string> loadExecutorSecretKey(const std::string& path, const std::string& workDir);

// Whether `authorization` (an Authorization header: "Bearer <token>") carries
// exactly `token`; compared in constant time.
bool carriesToken(std::string_view authorization, std::string_view token);

}  // namespace mesos::internal::slave
