// What the daemons never show (common/secrets.hpp): flags declared secret,
// passwords in URLs, environment variables named like secrets.
#include <gtest/gtest.h>

#include "common/flags.hpp"
#include "common/secrets.hpp"
#include "mesos.pb.h"

namespace mesos {
namespace {

struct SecretFlags : flags::FlagSet {
  SecretFlags() {
    add(&zk, "zk", "ZooKeeper URL");
    add(&credentials, "credentials", "inline or a path");
    add(&key, "key", "always secret", std::string("default-key"));
    add(&port, "port", "not secret", 5050);
    secret("zk", Secrecy::kUrlPassword);
    secret("credentials", Secrecy::kUnlessPath);
    secret("key");
  }
  std::optional<std::string> zk;
  std::optional<std::string> credentials;
  std::string key;
  int port;
};

TEST(SecretsTest, FlagsDeclaredSecretShowMasked) {
  SecretFlags flags;
  const char* argv[] = {"x", "--zk=zk://jo:sesame@h1:2181,h2:2181/mesos",
                        "--credentials={\"credentials\":[{\"principal\":\"p\",\"secret\":\"s\"}]}",
                        "--key=k3y"};
  ASSERT_TRUE(flags.load("TEST_SECRETS_", 4, argv));
  auto values = flags.values();
  EXPECT_EQ(values["zk"], "zk://jo:********@h1:2181,h2:2181/mesos");
  EXPECT_EQ(values["credentials"], "********");
  EXPECT_EQ(values["key"], "********");
  EXPECT_EQ(values["port"], "5050");
  // The values themselves are intact.
  EXPECT_EQ(*flags.zk, "zk://jo:sesame@h1:2181,h2:2181/mesos");
  EXPECT_EQ(flags.key, "k3y");

  SecretFlags paths;
  const char* withPath[] = {"x", "--credentials=file:///etc/mesos/credentials"};
  ASSERT_TRUE(paths.load("TEST_SECRETS_", 2, withPath));
  EXPECT_EQ(paths.values()["credentials"], "file:///etc/mesos/credentials");
}

TEST(SecretsTest, AFlagErrorDoesNotRepeatTheSecret) {
  struct Numbered : flags::FlagSet {
    Numbered() {
      add(&pin, "pin", "a secret number");
      secret("pin");
    }
    std::optional<int> pin;
  } flags;
  const char* argv[] = {"x", "--pin=12ab-secret"};
  auto loaded = flags.load("TEST_SECRETS_", 2, argv);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message.find("12ab-secret"), std::string::npos)
      << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("--pin"), std::string::npos);
}

TEST(SecretsTest, UrlPasswordsAreMaskedAndTheRestKept) {
  EXPECT_EQ(maskUrlPasswords("zk://jo:pw@h:2181/m"), "zk://jo:********@h:2181/m");
  EXPECT_EQ(maskUrlPasswords("zk://h:2181/m"), "zk://h:2181/m");
  EXPECT_EQ(maskUrlPasswords("zk://jo@h:2181/m"), "zk://jo@h:2181/m");
  EXPECT_EQ(maskUrlPasswords("file:///etc/zk"), "file:///etc/zk");
  EXPECT_EQ(maskUrlPasswords("master@10.0.0.1:5050"), "master@10.0.0.1:5050");
  EXPECT_EQ(maskUrlPasswords("zk://a:p@q@h:1/x"), "zk://a:********@h:1/x");
  EXPECT_EQ(maskUrlPasswords("http://u:p@a/x http://v:q@b/y"),
            "http://u:********@a/x http://v:********@b/y");
}

TEST(SecretsTest, VariablesNamedLikeSecretsAreMasked) {
  for (const char* name : {"DB_PASSWORD", "aws_secret_access_key", "GITHUB_TOKEN", "API_KEY",
                           "MYSQL_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS"}) {
    EXPECT_TRUE(secretVariableName(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "COLOR", "MESOS_SANDBOX"}) {
    EXPECT_FALSE(secretVariableName(name)) << name;
  }
  CommandInfo command;
  auto* secret = command.mutable_environment()->add_variables();
  secret->set_name("API_KEY");
  secret->set_value("k");
  auto* plain = command.mutable_environment()->add_variables();
  plain->set_name("COLOR");
  plain->set_value("blue");
  CommandInfo masked = maskEnvironment(command);
  EXPECT_EQ(masked.environment().variables(0).value(), "********");
  EXPECT_EQ(masked.environment().variables(1).value(), "blue");
  EXPECT_EQ(command.environment().variables(0).value(), "k");
}

}  // namespace
}  // namespace mesos
