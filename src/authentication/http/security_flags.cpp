#include "authentication/http/security_flags.hpp"

#include <glog/logging.h>

#include "authorizer/acls.hpp"

namespace mesos::internal::authentication {

void HttpSecurityFlags::addTo(flags::FlagSet& set, Daemon daemon) {
  bool master = daemon == Daemon::kMaster;
  std::string realm = master ? "mesos-master-" : "mesos-agent-";
  set.add(&authenticate_http_readonly, "authenticate_http_readonly",
          "Require HTTP Basic credentials (--http_credentials) for the endpoints that only read "
          "(realm " + realm + "readonly: /state, /flags, /metrics/snapshot" +
              (master ? std::string(", /tasks, /frameworks...)") : std::string(", /files/...)")),
          false);
  set.add(&authenticate_http_readwrite, "authenticate_http_readwrite",
          "Require HTTP Basic credentials for the endpoints that change something (realm " +
              realm + "readwrite" + (master ? ": /teardown)" : ")"),
          false);
  if (master) {
    set.add(&authenticate_http_frameworks, "authenticate_http_frameworks",
            "Require HTTP Basic credentials for the v1 scheduler API /api/v1/scheduler (realm "
            "mesos-master-scheduler); a subscription is bound to its principal",
            false);
  }
  set.add(&http_credentials, "http_credentials",
          "Credentials of HTTP clients: the path or file:// URL of a file holding Apache's JSON "
          "{\"credentials\":[{\"principal\":..,\"secret\":..}]} or 'principal secret' lines");
  set.secret("http_credentials", Secrecy::kUnlessPath);
  set.add(&http_authenticators, "http_authenticators",
          "HTTP authenticator of the readonly and readwrite realms (only 'basic')",
          std::string("basic"));
  if (master) {
    set.add(&http_framework_authenticators, "http_framework_authenticators",
            "HTTP authenticator of the scheduler API's realm (only 'basic')",
            std::string("basic"));
  }
  set.add(&acls, "acls",
          "Access control lists in Apache's JSON (docs/security.md): the JSON itself, or the path "
          "or file:// URL of a file holding it; a malformed one is refused at start");
  set.add(&authorizers, master ? "authorizers" : "authorizer",
          "Authorizer that applies --acls (only 'local')", std::string("local"));
}

Result<std::shared_ptr<EndpointGuard>> HttpSecurityFlags::guard(Daemon daemon, bool warn) const {
  bool master = daemon == Daemon::kMaster;
  EndpointGuard::Options options;
  options.readonlyRealm = master ? "mesos-master-readonly" : "mesos-agent-readonly";
  options.readwriteRealm = master ? "mesos-master-readwrite" : "mesos-agent-readwrite";
  options.frameworkRealm = "mesos-master-scheduler";
  options.readonly = authenticate_http_readonly;
  options.readwrite = authenticate_http_readwrite;
  options.frameworks = master && authenticate_http_frameworks;
  if (http_authenticators != "basic") {
    return Error{"--http_authenticators: unknown HTTP authenticator '" + http_authenticators +
                 "' (known: basic)"};
  }
  if (master && http_framework_authenticators != "basic") {
    return Error{"--http_framework_authenticators: unknown HTTP authenticator '" +
                 http_framework_authenticators + "' (known: basic)"};
  }
  if (http_credentials) {
    auto secrets = loadCredentials(*http_credentials, "http_credentials");
    if (!secrets) return secrets.error();
    options.credentials = std::move(secrets).value();
  } else if (options.readonly || options.readwrite || options.frameworks) {
    return Error{std::string("--authenticate_http_") +
                 (options.readonly ? "readonly" : options.readwrite ? "readwrite" : "frameworks") +
                 " needs --http_credentials: the principals and secrets clients may use"};
  }
  if (acls) {
    auto parsed = authorizer::loadAcls(*acls);
    if (!parsed) return parsed.error();
    std::string flag = master ? "authorizers" : "authorizer";
    auto created = authorizer::createAuthorizer(authorizers, *parsed);
    if (!created) {
      std::string message = created.error().message;
      if (!master) message.replace(0, std::string("--authorizers").size(), "--authorizer");
      return Error{message};
    }
    options.authorizer = std::move(created).value();
    for (const std::string& name : parsed->unchecked) {
      if (!warn) break;
      LOG(WARNING) << "--acls: '" << name << "' is accepted but not checked by this "
                   << (master ? "master" : "agent");
    }
  }
  return std::make_shared<EndpointGuard>(std::move(options));
}

}  // namespace mesos::internal::authentication
