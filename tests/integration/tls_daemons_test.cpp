// A cluster of real processes over TLS: mesos-master, mesos-slave, the
// command executor and mesos-execute with LIBPROCESS_SSL_* set, certificates
// from a test CA (support/certs.hpp); HTTPS, openssl s_client and the CLI
// against the master; a bad key stops a daemon with one line.
#include <stdlib.h>

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/certs.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kVariables = {
    "LIBPROCESS_SSL_ENABLED",   "LIBPROCESS_SSL_CERT_FILE",   "LIBPROCESS_SSL_KEY_FILE",
    "LIBPROCESS_SSL_CA_FILE",   "LIBPROCESS_SSL_VERIFY_CERT", "LIBPROCESS_SSL_REQUIRE_CERT",
    "LIBPROCESS_SSL_VERIFY_IPADD", "LIBPROCESS_IP"};

class TlsDaemonsTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!certs_.ok()) GTEST_SKIP() << certs_.error();
    ASSERT_TRUE(certs_.make("node", "IP:127.0.0.1,DNS:localhost")) << certs_.error();
    // The daemons, the executor and the tools inherit this environment.
    setenv("LIBPROCESS_SSL_ENABLED", "true", 1);
    setenv("LIBPROCESS_SSL_CERT_FILE", certs_.cert("node").c_str(), 1);
    setenv("LIBPROCESS_SSL_KEY_FILE", certs_.key("node").c_str(), 1);
    setenv("LIBPROCESS_SSL_CA_FILE", certs_.caFile().c_str(), 1);
    setenv("LIBPROCESS_SSL_VERIFY_CERT", "true", 1);
    setenv("LIBPROCESS_SSL_REQUIRE_CERT", "true", 1);
    setenv("LIBPROCESS_SSL_VERIFY_IPADD", "true", 1);
    // mesos-execute on the address the certificate names (the daemons get
    // --ip=127.0.0.1).
    setenv("LIBPROCESS_IP", "127.0.0.1", 1);
  }

  void TearDown() override {
    DaemonsFixture::TearDown();
    for (const std::string& name : kVariables) unsetenv(name.c_str());
  }

  // The master's counter `name`, read over HTTPS (-1 when unreadable).
  int64_t secureMetric(const process::Address& master, const std::string& name) {
    std::string body;
    if (httpsGet(master, "/metrics/snapshot", certs_.caFile(), certs_.cert("node"),
                 certs_.key("node"), &body) != 200) {
      return -1;
    }
    auto parsed = json::parse(body);
    if (!parsed || !(*parsed)[name].isNumber()) return -1;
    return (*parsed)[name].integer();
  }

  TestCertificates certs_;
};

TEST_F(TlsDaemonsTest, AClusterRunsATaskOverTls) {
  process::Address master = startMaster();
  startSlave(master, "slave", {"--resources=cpus:2;mem:512;disk:512"});
  ASSERT_TRUE(waitUntil([&] { return secureMetric(master, "master/slaves_active") == 1; }, 60s))
      << "the slave did not register over TLS within 60 s:\n"
      << readFile(dir_ + "/master.log") << readFile(dir_ + "/slave.log");

  // A framework (mesos-execute) runs a task through the command executor.
  ChildResult task = runChild({MESOS_EXECUTE_PATH, "--master=" + master.toString(),
                               "--name=over-tls", "--command=exit 3",
                               "--resources=cpus:0.1;mem:32"},
                              90s);
  ASSERT_TRUE(task.error.empty()) << task.error;
  ASSERT_TRUE(WIFEXITED(task.status)) << task.err;
  EXPECT_EQ(3, WEXITSTATUS(task.status)) << task.out << task.err;

  // The tools speak HTTPS with the same variables.
  ChildResult resolve =
      runChild({std::string(MESOS_BINARY_DIR) + "/src/cli/mesos-resolve",
                "--master=" + master.toString()},
               30s);
  EXPECT_TRUE(WIFEXITED(resolve.status) && WEXITSTATUS(resolve.status) == 0) << resolve.err;
  EXPECT_NE(std::string::npos, resolve.out.find(master.toString())) << resolve.out;

  // openssl's own client completes a handshake and verifies the master.
  ChildResult handshake = runChild(
      {"/bin/sh", "-c",
       "openssl s_client -connect " + master.toString() + " -CAfile '" + certs_.caFile() +
           "' -cert '" + certs_.cert("node") + "' -key '" + certs_.key("node") +
           "' -verify_return_error </dev/null 2>&1"},
      30s);
  EXPECT_NE(std::string::npos, handshake.out.find("Verify return code: 0 (ok)")) << handshake.out;

  // A plain client gets nothing: no downgrade.
  EXPECT_EQ(0, httpGet(master, "/health"));
  // Nor does a TLS client without a certificate.
  EXPECT_EQ(0, httpsGet(master, "/health", certs_.caFile()));
}

TEST_F(TlsDaemonsTest, AKeyThatDoesNotMatchStopsTheMasterWithOneLine) {
  ASSERT_TRUE(certs_.make("other", "IP:127.0.0.1")) << certs_.error();
  setenv("LIBPROCESS_SSL_KEY_FILE", certs_.key("other").c_str(), 1);
  pid_t pid = startDaemon({MESOS_MASTER_PATH, "--ip=127.0.0.1",
                           "--port=" + std::to_string(freePort())},
                          dir_ + "/bad.log");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(1, waitForExit(pid, 30s));
  std::string log = readFile(dir_ + "/bad.log");
  EXPECT_NE(std::string::npos, log.find("mesos-master: LIBPROCESS_SSL_KEY_FILE: the key '"))
      << log;
  EXPECT_NE(std::string::npos, log.find("does not match the certificate")) << log;
}

}  // namespace
}  // namespace mesos::test
