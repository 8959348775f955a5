// The daemons' hardening seen from outside (docs/security.md): which web
// pages may read a slave's and a master's endpoints (CORS), and secrets in
// flags that never show in /flags, /state or the log.
#include <cctype>
#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

struct Answer {
  int status = 0;
  std::string head;  // status line and headers
  std::string allowed;  // the Access-Control-Allow-Origin header, "" if none
};

// `method` `path` at `address` with an Origin header (and, for OPTIONS, a
// preflight's Access-Control-Request-Method).
Answer ask(const process::Address& address, const std::string& method, const std::string& path,
           const std::string& origin) {
  TcpClient client(address);
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + address.toString() +
                        "\r\nOrigin: " + origin + "\r\n";
  if (method == "OPTIONS") {
    request += "Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: x-a\r\n";
  }
  request += "Content-Length: 0\r\n\r\n";
  Answer answer;
  std::string body;
  EXPECT_TRUE(client.write(request));
  EXPECT_TRUE(client.readResponse(&answer.status, &body, 10000, &answer.head));
  std::string lower;
  for (char c : answer.head) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string name = "access-control-allow-origin:";
  if (size_t at = lower.find(name); at != std::string::npos) {
    size_t start = answer.head.find_first_not_of(' ', at + name.size());
    size_t end = answer.head.find("\r\n", start);
    answer.allowed = answer.head.substr(start, end - start);
  }
  return answer;
}

class HardeningDaemonsTest : public DaemonsFixture {};

TEST_F(HardeningDaemonsTest, OnlyListedOriginsAndTheMastersUiReadTheEndpoints) {
  process::Address master = startMaster({"--http_allowed_origins=http://ui.example:8080"});
  uint16_t port = freePort("127.0.0.1");
  startSlave(master, "slave", {"--http_allowed_origins=https://ops.example"}, port);
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s))
      << "the slave did not register";
  process::Address slave = process::Address::parse("127.0.0.1:" + std::to_string(port)).value();
  const std::string masterOrigin = "http://127.0.0.1:" + std::to_string(master.port);
  // The slave allows its master's origin once it has heard it registered,
  // a moment after the master counts it.
  ASSERT_TRUE(waitUntil([&] { return metric(slave, "slave/registered") == 1; }, 30s));

  // The master's web UI reads the slave's /state and sandboxes.
  for (const char* path : {"/state", "/slave(1)/state", "/files/debug", "/flags"}) {
    Answer ui = ask(slave, "GET", path, masterOrigin);
    EXPECT_EQ(ui.status, 200) << path;
    EXPECT_EQ(ui.allowed, masterOrigin) << path << ": " << ui.head;
    EXPECT_NE(ui.head.find("Vary: Origin"), std::string::npos) << ui.head;
  }
  EXPECT_EQ(ask(slave, "GET", "/state", "https://ops.example").allowed, "https://ops.example");
  Answer preflight = ask(slave, "OPTIONS", "/files/browse", masterOrigin);
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(preflight.allowed, masterOrigin);

  // Any other page gets its answer without the header (the browser keeps it
  // from the page), and its preflight is refused.
  Answer evil = ask(slave, "GET", "/state", "http://evil.example");
  EXPECT_EQ(evil.status, 200);
  EXPECT_EQ(evil.allowed, "") << evil.head;
  Answer evilPreflight = ask(slave, "OPTIONS", "/files/browse", "http://evil.example");
  EXPECT_EQ(evilPreflight.status, 403);
  EXPECT_EQ(evilPreflight.allowed, "");

  // The master: its listed origin only; its own pages need none.
  EXPECT_EQ(ask(master, "GET", "/state", "http://ui.example:8080").allowed,
            "http://ui.example:8080");
  EXPECT_EQ(ask(master, "GET", "/state", "http://evil.example").allowed, "");
  EXPECT_EQ(ask(master, "OPTIONS", "/state", "http://evil.example").status, 403);
}

TEST_F(HardeningDaemonsTest, ABadOriginListIsRefusedAtStartUp) {
  pid_t master = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(freePort()),
                        "--http_allowed_origins=ui.example/path"},
                       "bad-master");
  ASSERT_GT(master, 0);
  EXPECT_EQ(waitForExit(master, 30s), 1);
  reaped(master);
  std::string log = readFile(dir_ + "/bad-master.log");
  EXPECT_NE(log.find("--http_allowed_origins: 'ui.example/path' is not an origin"),
            std::string::npos)
      << log;
}

// A slave whose --master holds a ZooKeeper password: /flags and /state show
// it masked, and the log never shows it (no ZooKeeper answers: the slave
// keeps trying, and serves meanwhile).
TEST_F(HardeningDaemonsTest, TheZooKeeperPasswordNeverShows) {
  uint16_t nobody = freePort();
  uint16_t port = freePort("127.0.0.1");
  std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
  ASSERT_GT(start({MESOS_SLAVE_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(port),
                   "--master=zk://jo:sesame-42@127.0.0.1:" + std::to_string(nobody) + "/mesos",
                   "--work_dir=" + dir_ + "/slave", "--launcher_dir=" + launcherDir},
                  "slave"),
            0);
  process::Address slave = process::Address::parse("127.0.0.1:" + std::to_string(port)).value();
  ASSERT_TRUE(waitUntil([&] { return connectable(slave); }, 30s));
  std::string flags, state;
  ASSERT_EQ(httpGet(slave, "/flags", &flags), 200);
  ASSERT_EQ(httpGet(slave, "/state", &state), 200);
  EXPECT_NE(flags.find("zk://jo:********@127.0.0.1:" + std::to_string(nobody) + "/mesos"),
            std::string::npos)
      << flags;
  EXPECT_EQ(flags.find("sesame-42"), std::string::npos) << flags;
  EXPECT_EQ(state.find("sesame-42"), std::string::npos);
  std::string log = readFile(dir_ + "/slave.log");
  EXPECT_NE(log.find("ZooKeeper"), std::string::npos) << log;
  EXPECT_EQ(log.find("sesame-42"), std::string::npos) << log;
}

}  // namespace
}  // namespace mesos::test
