// Credentials files in Apache Mesos's formats (JSON and "principal secret"
// lines).
#include <gtest/gtest.h>

#include "authentication/credentials.hpp"

namespace mesos::test {
namespace {

using namespace mesos::internal::authentication;

TEST(CredentialsTest, JsonList) {
  auto parsed = parseCredentials(
      R"({"credentials": [{"principal": "a", "secret": "x"}, {"principal": "b", "secret": "y"}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(2, parsed->credentials_size());
  EXPECT_EQ("a", parsed->credentials(0).principal());
  EXPECT_EQ("x", parsed->credentials(0).secret());
  EXPECT_EQ("b", parsed->credentials(1).principal());
}

TEST(CredentialsTest, TextLines) {
  auto parsed = parseCredentials("# operators\na x\n\n  b   y  \n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(2, parsed->credentials_size());
  EXPECT_EQ("b", parsed->credentials(1).principal());
  EXPECT_EQ("y", parsed->credentials(1).secret());
}

TEST(CredentialsTest, BadInputNamesTheProblemNotTheSecret) {
  auto line = parseCredentials("a x\nb y z\n");
  ASSERT_FALSE(line.ok());
  EXPECT_EQ("line 2: expected 'principal secret' (two words), found 3 words",
            line.error().message);
  auto missing = parseCredentials(R"({"credentials": [{"secret": "hidden"}]})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ("credentials[0] has no \"principal\" string", missing.error().message);
  auto notJson = parseCredentials("{\"credentials\": [");
  ASSERT_FALSE(notJson.ok());
  EXPECT_EQ(0u, notJson.error().message.rfind("invalid JSON", 0));
}

TEST(CredentialsTest, SingleCredential) {
  auto json = parseCredential(R"({"principal": "slave", "secret": "s"})");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ("slave", json->principal());
  EXPECT_EQ("s", json->secret());
  auto text = parseCredential("slave s\n");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ("s", text->secret());
  EXPECT_FALSE(parseCredential("a x\nb y\n").ok());
  EXPECT_FALSE(parseCredential("").ok());
}

}  // namespace
}  // namespace mesos::test
