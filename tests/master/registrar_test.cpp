// The master's durable registry of agents (src/master/registrar/): what
// each change does, the three backends, a deposed writer fenced off in
// ZooKeeper, and corrupt contents refused with a clear error.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <filesystem>
#include <fstream>
#include <string>

#include <zookeeper/zookeeper.h>

#include "master/registrar/registrar.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/zookeeper_server.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using internal::master::registrar::Registrar;
using internal::master::registrar::Storage;
using internal::registry::Agent;
namespace registrar = internal::master::registrar;

SlaveInfo agentInfo(const std::string& id, const std::string& host = "host") {
  SlaveInfo info;
  info.set_hostname(host);
  info.mutable_id()->set_value(id);
  return info;
}

SlaveID agentId(const std::string& id) {
  SlaveID slaveId;
  slaveId.set_value(id);
  return slaveId;
}

class RegistrarTest : public ::testing::Test {
 protected:
  void SetUp() override { runtime_ = std::move(process::Runtime::create({})).value(); }
  void TearDown() override {
    registrars_.clear();
    zk_ = {};
    runtime_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  process::Pid<Registrar> spawn(std::unique_ptr<Storage> storage) {
    registrars_.push_back(runtime_->spawn<Registrar>(process::generateId("registrar"),
                                                     std::move(storage), 30000ms, 30000ms));
    return registrars_.back().pid();
  }

  template <typename T>
  static T await(const process::Future<T>& future) {
    EXPECT_TRUE(future.await(60s)) << "no answer within 60 s";
    return future.get();
  }

  std::vector<Agent> recover(const process::Pid<Registrar>& registrar) {
    auto agents = await(process::dispatch(registrar, &Registrar::recover));
    EXPECT_TRUE(agents.ok()) << agents.error().message;
    return agents.ok() ? agents.value() : std::vector<Agent>{};
  }

  static bool applied(const process::Future<Result<bool>>& change) {
    auto done = await(change);
    EXPECT_TRUE(done.ok()) << done.error().message;
    return done.ok() && done.value();
  }

  std::string tempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("registrar-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    return dir_;
  }

  std::unique_ptr<process::Runtime> runtime_;
  std::vector<process::Spawned<Registrar>> registrars_;
  process::Spawned<internal::zk::ZooKeeper> zk_;
  std::string dir_;
};

// What each change does, and whether it says it changed something.
TEST_F(RegistrarTest, ChangesAndWhatTheyRefuse) {
  auto r = spawn(registrar::inMemoryStorage());
  // Nothing before recovery.
  auto early = await(process::dispatch(r, &Registrar::admit, agentInfo("a"), 1.0));
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(recover(r).empty());

  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a"), 1.0)));
  // The same again: nothing changes; a new hostname does.
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a"), 2.0)));
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a", "other"), 2.0)));
  // Only an admitted agent becomes unreachable.
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::markUnreachable, agentId("a"), 3.0)));
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::markUnreachable, agentId("a"), 4.0)));
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::markUnreachable, agentId("b"), 4.0)));
  // Back from unreachable.
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a", "other"), 5.0)));
  // Gone, known or not; a gone agent is never admitted again.
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::markGone, agentId("a"), 6.0)));
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::markGone, agentId("c"), 6.0)));
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::markGone, agentId("c"), 7.0)));
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a"), 8.0)));
  EXPECT_TRUE(applied(process::dispatch(r, &Registrar::remove,
                                        std::vector<SlaveID>{agentId("a"), agentId("x")})));
  EXPECT_FALSE(applied(process::dispatch(r, &Registrar::remove, std::vector<SlaveID>{agentId("a")})));
  // Recovered once only.
  auto again = await(process::dispatch(r, &Registrar::recover));
  EXPECT_FALSE(again.ok());
}

// Files under the work directory: a second registrar over them reads what
// the first stored; a second one at the same time is refused; a corrupt
// shard stops recovery with a message naming it.
TEST_F(RegistrarTest, FilesKeepTheRegistryAndRefuseCorruption) {
  std::string dir = tempDir();
  {
    auto r = spawn(registrar::fileStorage(dir + "/registry"));
    EXPECT_TRUE(recover(r).empty());
    // Many changes at once: batched into few writes.
    std::vector<process::Future<Result<bool>>> changes;
    for (int i = 0; i < 1000; ++i) {
      changes.push_back(process::dispatch(r, &Registrar::admit,
                                          agentInfo("agent-" + std::to_string(i)), 1.0));
    }
    for (auto& change : changes) EXPECT_TRUE(applied(change));
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::markUnreachable, agentId("agent-7"), 2.0)));
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::markGone, agentId("agent-8"), 3.0)));
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::remove, std::vector<SlaveID>{agentId("agent-9")})));

    // Another master on the same directory is refused while this one runs.
    auto other = spawn(registrar::fileStorage(dir + "/registry"));
    auto refused = await(process::dispatch(other, &Registrar::recover));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(std::string::npos, refused.error().message.find("another master holds"))
        << refused.error().message;
    registrars_.clear();
  }
  auto r = spawn(registrar::fileStorage(dir + "/registry"));
  std::vector<Agent> agents = recover(r);
  ASSERT_EQ(999u, agents.size());
  std::map<std::string, Agent> byId;
  for (const Agent& agent : agents) byId[agent.info().id().value()] = agent;
  EXPECT_EQ(Agent::UNREACHABLE, byId["agent-7"].state());
  EXPECT_EQ(2.0, byId["agent-7"].since());
  EXPECT_EQ(Agent::GONE, byId["agent-8"].state());
  EXPECT_EQ(0u, byId.count("agent-9"));
  EXPECT_EQ(Agent::ADMITTED, byId["agent-10"].state());
  registrars_.clear();

  // A shard that does not parse.
  std::string shard;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/registry")) {
    if (entry.path().filename().string().rfind("shard-", 0) == 0 &&
        std::filesystem::file_size(entry.path()) > 0) {
      shard = entry.path();
      break;
    }
  }
  ASSERT_FALSE(shard.empty());
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << "\xff\xff\xff garbage";
  auto corrupt = spawn(registrar::fileStorage(dir + "/registry"));
  auto failed = await(process::dispatch(corrupt, &Registrar::recover));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(std::string::npos, failed.error().message.find("is corrupt")) << failed.error().message;
  // Nothing can be changed afterwards.
  EXPECT_FALSE(await(process::dispatch(corrupt, &Registrar::admit, agentInfo("z"), 1.0)).ok());
}

internal::registry::Maintenance downMachine(const std::string& hostname) {
  internal::registry::Maintenance maintenance;
  MachineInfo* machine = maintenance.add_machines();
  machine->mutable_id()->set_hostname(hostname);
  machine->set_mode(MachineInfo::DOWN);
  return maintenance;
}

// The maintenance schedule and modes (docs/maintenance.md) are stored with
// the agents and read back by the next owner; an unchanged one is not
// written; in memory nothing survives.
TEST_F(RegistrarTest, TheMaintenanceIsKeptInFiles) {
  std::string dir = tempDir();
  {
    auto r = spawn(registrar::fileStorage(dir + "/registry"));
    EXPECT_TRUE(recover(r).empty());
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::setMaintenance, downMachine("h1"))));
    EXPECT_FALSE(applied(process::dispatch(r, &Registrar::setMaintenance, downMachine("h1"))));
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::admit, agentInfo("a"), 1.0)));
    registrars_.clear();
  }
  auto r = spawn(registrar::fileStorage(dir + "/registry"));
  EXPECT_EQ(1u, recover(r).size());
  auto read = await(process::dispatch(r, &Registrar::maintenance));
  ASSERT_EQ(1, read.machines_size());
  EXPECT_EQ("h1", read.machines(0).id().hostname());
  EXPECT_EQ(MachineInfo::DOWN, read.machines(0).mode());
  registrars_.clear();

  std::ofstream(dir + "/registry/maintenance", std::ios::binary | std::ios::trunc)
      << "\xff\xff\xff garbage";
  auto corrupt = spawn(registrar::fileStorage(dir + "/registry"));
  auto failed = await(process::dispatch(corrupt, &Registrar::recover));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(std::string::npos, failed.error().message.find("maintenance schedule"))
      << failed.error().message;

  auto memory = spawn(registrar::inMemoryStorage());
  EXPECT_TRUE(recover(memory).empty());
  EXPECT_TRUE(applied(process::dispatch(memory, &Registrar::setMaintenance, downMachine("h"))));
  EXPECT_EQ(1, await(process::dispatch(memory, &Registrar::maintenance)).machines_size());
}

internal::registry::Settings quotaOf(const std::string& role, double cpus) {
  internal::registry::Settings settings;
  quota::QuotaConfig* config = settings.add_quotas();
  config->set_role(role);
  (*config->mutable_guarantees())["cpus"].set_value(cpus);
  WeightInfo* weight = settings.add_weights();
  weight->set_role(role);
  weight->set_weight(2.5);
  return settings;
}

// Quota and weights (docs/quota.md) live in a node of their own beside the
// maintenance node: stored, read back by the next owner, refused when
// corrupt.
TEST_F(RegistrarTest, QuotaAndWeightsAreKeptInFiles) {
  std::string dir = tempDir();
  {
    auto r = spawn(registrar::fileStorage(dir + "/registry"));
    EXPECT_TRUE(recover(r).empty());
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::setSettings, quotaOf("prod", 4))));
    EXPECT_FALSE(applied(process::dispatch(r, &Registrar::setSettings, quotaOf("prod", 4))));
    EXPECT_TRUE(applied(process::dispatch(r, &Registrar::setMaintenance, downMachine("h1"))));
    registrars_.clear();
  }
  auto r = spawn(registrar::fileStorage(dir + "/registry"));
  recover(r);
  auto read = await(process::dispatch(r, &Registrar::settings));
  ASSERT_EQ(1, read.quotas_size());
  EXPECT_EQ("prod", read.quotas(0).role());
  EXPECT_EQ(4, read.quotas(0).guarantees().at("cpus").value());
  ASSERT_EQ(1, read.weights_size());
  EXPECT_EQ(2.5, read.weights(0).weight());
  EXPECT_EQ(1, await(process::dispatch(r, &Registrar::maintenance)).machines_size());
  registrars_.clear();

  std::ofstream(dir + "/registry/settings", std::ios::binary | std::ios::trunc)
      << "\xff\xff\xff garbage";
  auto corrupt = spawn(registrar::fileStorage(dir + "/registry"));
  auto failed = await(process::dispatch(corrupt, &Registrar::recover));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(std::string::npos, failed.error().message.find("quota and weights"))
      << failed.error().message;
}

class RegistrarZooKeeperTest : public RegistrarTest {
 protected:
  void SetUp() override {
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(servers_.start()) << servers_.error();
    RegistrarTest::SetUp();
    auto url = internal::zk::parseUrl("zk://" + servers_.connectString() + "/mesos");
    ASSERT_TRUE(url.ok());
    url_ = url->toString();
    zk_ = runtime_->spawn<internal::zk::ZooKeeper>("zookeeper", *url, 5000ms);
  }
  std::unique_ptr<Storage> storage() {
    return registrar::zookeeperStorage(zk_.pid(), "/mesos", url_);
  }
  // An owner with agent-0 .. agent-299 stored, and a second registrar
  // that has read them ahead.
  std::pair<process::Pid<Registrar>, process::Pid<Registrar>> readAhead() {
    auto first = spawn(storage());
    EXPECT_TRUE(recover(first).empty());
    for (int i = 0; i < 300; ++i) {
      EXPECT_TRUE(applied(process::dispatch(first, &Registrar::admit,
                                            agentInfo("agent-" + std::to_string(i)), 1.0)));
    }
    auto second = spawn(storage());
    auto ahead = await(process::dispatch(second, &Registrar::prefetch));
    EXPECT_TRUE(ahead.ok()) << ahead.error().message;
    EXPECT_EQ(300u, ahead.ok() ? ahead.value() : 0u);
    return {first, second};
  }

  ZooKeeperServers servers_{1};
  std::string url_;
};

// A new owner fences the old one off: the old owner's next write fails, and
// the new one reads every write that succeeded before.
TEST_F(RegistrarZooKeeperTest, ADeposedOwnersWritesFail) {
  auto first = spawn(storage());
  EXPECT_TRUE(recover(first).empty());
  for (int i = 0; i < 300; ++i) {
    EXPECT_TRUE(applied(process::dispatch(first, &Registrar::admit,
                                          agentInfo("agent-" + std::to_string(i)), 1.0)));
  }
  auto second = spawn(storage());
  EXPECT_EQ(300u, recover(second).size());

  auto fenced = await(process::dispatch(first, &Registrar::admit, agentInfo("late"), 2.0));
  ASSERT_FALSE(fenced.ok());
  EXPECT_NE(std::string::npos, fenced.error().message.find("another master took the registry"))
      << fenced.error().message;
  // The deposed owner refuses everything from now on.
  EXPECT_FALSE(await(process::dispatch(first, &Registrar::admit, agentInfo("later"), 2.0)).ok());
  // The new owner writes.
  EXPECT_TRUE(applied(process::dispatch(second, &Registrar::markUnreachable, agentId("agent-1"), 3.0)));
  auto third = spawn(storage());
  std::vector<Agent> agents = recover(third);
  ASSERT_EQ(300u, agents.size());
  size_t unreachable = 0;
  for (const Agent& agent : agents) {
    EXPECT_NE("late", agent.info().id().value());
    if (agent.state() == Agent::UNREACHABLE) unreachable++;
  }
  EXPECT_EQ(1u, unreachable);
}

// The maintenance node is written in the fenced transaction: a deposed
// owner cannot change it, and the new owner reads what the old stored.
TEST_F(RegistrarZooKeeperTest, TheMaintenanceIsFencedAndReadBack) {
  auto first = spawn(storage());
  EXPECT_TRUE(recover(first).empty());
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::setMaintenance, downMachine("h1"))));
  auto second = spawn(storage());
  recover(second);
  auto read = await(process::dispatch(second, &Registrar::maintenance));
  ASSERT_EQ(1, read.machines_size());
  EXPECT_EQ("h1", read.machines(0).id().hostname());

  auto fenced =
      await(process::dispatch(first, &Registrar::setMaintenance, downMachine("deposed")));
  ASSERT_FALSE(fenced.ok());
  EXPECT_NE(std::string::npos, fenced.error().message.find("another master took the registry"))
      << fenced.error().message;
  EXPECT_TRUE(applied(process::dispatch(second, &Registrar::setMaintenance, downMachine("h2"))));
  auto third = spawn(storage());
  recover(third);
  read = await(process::dispatch(third, &Registrar::maintenance));
  ASSERT_EQ(1, read.machines_size());
  EXPECT_EQ("h2", read.machines(0).id().hostname());
}

// Shards are made when first written, and "written" lists them: a new
// owner reads those only. A registry without the list (made before it
// existed) is read whole.
TEST_F(RegistrarZooKeeperTest, OnlyWrittenShardsExistAndARegistryWithoutTheListIsReadWhole) {
  auto first = spawn(storage());
  EXPECT_TRUE(recover(first).empty());
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(applied(process::dispatch(first, &Registrar::admit,
                                          agentInfo("agent-" + std::to_string(i)), 1.0)));
  }
  internal::zk::ZooKeeper* zk = zk_.get();
  auto exists = [&](uint32_t shard) {
    char path[64];
    std::snprintf(path, sizeof(path), "/mesos/registry/shard-%04u", shard);
    std::string p = path;
    return await(process::dispatch(zk_.pid(), [zk, p] { return zk->get(p); })).ok();
  };
  size_t made = 0;
  for (uint32_t shard = 0; shard < Registrar::kShards; ++shard) made += exists(shard) ? 1 : 0;
  EXPECT_GE(made, 1u);
  EXPECT_LE(made, 3u);
  auto second = spawn(storage());
  EXPECT_EQ(3u, recover(second).size());
  EXPECT_TRUE(applied(process::dispatch(second, &Registrar::admit, agentInfo("agent-3"), 2.0)));

  // Without the list, every shard is read (and the missing ones made).
  auto removed = await(process::dispatch(zk_.pid(), [zk] {
    return zk->remove("/mesos/registry/written");
  }));
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  auto third = spawn(storage());
  EXPECT_EQ(4u, recover(third).size());
  made = 0;
  for (uint32_t shard = 0; shard < Registrar::kShards; ++shard) made += exists(shard) ? 1 : 0;
  EXPECT_EQ(Registrar::kShards, made);
  EXPECT_TRUE(applied(process::dispatch(third, &Registrar::admit, agentInfo("agent-4"), 3.0)));
  auto fourth = spawn(storage());
  EXPECT_EQ(5u, recover(fourth).size());
}

// A standby reads the registry ahead: once it takes the registry over,
// one transaction of version checks finds nothing changed, and nothing is
// read or parsed again. The owner it fenced off can no longer write.
TEST_F(RegistrarZooKeeperTest, AReadAheadFoundUnchangedIsNeitherReadNorParsedAgain) {
  auto [first, second] = readAhead();
  // Read ahead again: only versions are asked for, and the same is found.
  auto ahead = await(process::dispatch(second, &Registrar::prefetch));
  ASSERT_TRUE(ahead.ok()) << ahead.error().message;
  EXPECT_EQ(300u, ahead.value());

  EXPECT_EQ(300u, recover(second).size());
  auto stats = registrars_[1].get()->stats();  // atomics
  EXPECT_TRUE(stats->unchangedSinceReadAhead.load());
  EXPECT_GT(stats->shardsReadAhead.load(), 100u);
  EXPECT_FALSE(await(process::dispatch(first, &Registrar::admit, agentInfo("late"), 2.0)).ok())
      << "the fenced owner still writes";
  auto third = spawn(storage());
  EXPECT_EQ(300u, recover(third).size());
  EXPECT_EQ(0u, registrars_[2].get()->stats()->shardsReadAhead.load());
}

// What changed after the read ahead is read again, and only the shards
// that changed are parsed again; nothing read ahead hides a change.
TEST_F(RegistrarZooKeeperTest, WhatChangedAfterTheReadAheadIsReadAgain) {
  auto [first, second] = readAhead();
  // The owner changes two agents and adds one after the read ahead.
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::admit, agentInfo("new"), 2.0)));
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::markUnreachable, agentId("agent-5"), 2.0)));
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::markGone, agentId("agent-7"), 2.0)));

  std::vector<Agent> agents = recover(second);
  ASSERT_EQ(301u, agents.size());
  std::map<std::string, Agent::State> states;
  for (const Agent& agent : agents) states[agent.info().id().value()] = agent.state();
  EXPECT_EQ(1u, states.count("new"));
  EXPECT_EQ(Agent::UNREACHABLE, states["agent-5"]);
  EXPECT_EQ(Agent::GONE, states["agent-7"]);
  auto stats = registrars_[1].get()->stats();  // atomics
  EXPECT_FALSE(stats->unchangedSinceReadAhead.load());
  EXPECT_GT(stats->shardsReadAhead.load(), 100u) << "the unchanged shards were parsed again";
}

TEST_F(RegistrarZooKeeperTest, ACorruptShardIsRefused) {
  auto first = spawn(storage());
  EXPECT_TRUE(recover(first).empty());
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::admit, agentInfo("a"), 1.0)));
  internal::zk::ZooKeeper* zk = zk_.get();
  uint32_t shard = 0;
  {
    // Which shard holds "a": the one that is not empty.
    for (; shard < Registrar::kShards; ++shard) {
      char path[64];
      std::snprintf(path, sizeof(path), "/mesos/registry/shard-%04u", shard);
      std::string p = path;
      auto got = await(process::dispatch(zk_.pid(), [zk, p] { return zk->get(p); }));
      if (!got.ok() && got.error().code == ZNONODE) continue;  // never written
      ASSERT_TRUE(got.ok()) << got.error().message;
      if (!got.value().empty()) {
        auto set = await(
            process::dispatch(zk_.pid(), [zk, p] { return zk->set(p, "\xff\xff garbage", -1); }));
        ASSERT_TRUE(set.ok()) << set.error().message;
        break;
      }
    }
  }
  ASSERT_LT(shard, Registrar::kShards);
  auto second = spawn(storage());
  auto failed = await(process::dispatch(second, &Registrar::recover));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(std::string::npos,
            failed.error().message.find("shard " + std::to_string(shard) + " of the registry"))
      << failed.error().message;
  EXPECT_NE(std::string::npos, failed.error().message.find("is corrupt")) << failed.error().message;
}

// The settings node is made on its first write, fenced like the others, and
// read by the next owner.
TEST_F(RegistrarZooKeeperTest, QuotaAndWeightsAreFencedAndReadBack) {
  auto first = spawn(storage());
  EXPECT_TRUE(recover(first).empty());
  EXPECT_TRUE(applied(process::dispatch(first, &Registrar::setSettings, quotaOf("prod", 4))));
  auto second = spawn(storage());
  recover(second);
  auto read = await(process::dispatch(second, &Registrar::settings));
  ASSERT_EQ(1, read.quotas_size());
  EXPECT_EQ("prod", read.quotas(0).role());
  auto fenced = await(process::dispatch(first, &Registrar::setSettings, quotaOf("deposed", 1)));
  ASSERT_FALSE(fenced.ok());
  EXPECT_TRUE(applied(process::dispatch(second, &Registrar::setSettings, quotaOf("dev", 2))));
  auto third = spawn(storage());
  recover(third);
  read = await(process::dispatch(third, &Registrar::settings));
  ASSERT_EQ(1, read.quotas_size());
  EXPECT_EQ("dev", read.quotas(0).role());
}

}  // namespace
}  // namespace mesos::test
