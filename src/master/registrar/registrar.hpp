// The registrar: the master's durable registry of agents
// (docs/high-availability.md). The leading master records here every agent
// it admits, finds unreachable, is told is gone, or forgets, and acts on the
// change (answers the agent, tells frameworks) only once it is stored. A
// newly elected master reads it (recover()) before it handles anything.
//
// Changes are applied in batches: while one write is out, the changes that
// arrive wait, and the next write carries all of them; only the shards they
// touched are written (an agent lives in shard hash(id) % shards). Each
// agent is kept serialized, so writing a shard is a concatenation.
//
// An actor of its own, so that serializing and storing never hold up the
// master. A write that fails, or takes longer than the store timeout, fails
// its changes and every later one: a master whose registry cannot be
// written must stop leading.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "master/registrar/storage.hpp"
#include "mesos.pb.h"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "registry.pb.h"

namespace mesos::internal::master::registrar {

// For /metrics/snapshot (read from the master's actor).
struct Stats {
  std::atomic<uint64_t> admitted{0};
  std::atomic<uint64_t> unreachable{0};
  std::atomic<uint64_t> gone{0};
  std::atomic<uint64_t> bytes{0};           // the registry's size, serialized
  std::atomic<uint64_t> writes{0};          // writes completed
  std::atomic<uint64_t> queued{0};          // changes waiting for a write
  std::atomic<uint64_t> lastWriteUs{0};     // the last write's duration
  std::atomic<uint64_t> recoveryUs{0};      // recover()'s duration
  // The last recovery's shards taken as read ahead (prefetch()): not parsed
  // again; and whether the storage found nothing changed (nothing read
  // again).
  std::atomic<uint64_t> shardsReadAhead{0};
  std::atomic<bool> unchangedSinceReadAhead{false};
};

class Registrar : public process::Actor {
 public:
  static constexpr uint32_t kShards = 256;

  Registrar(std::string id, std::unique_ptr<Storage> storage,
            std::chrono::milliseconds fetchTimeout, std::chrono::milliseconds storeTimeout);

  // Once, first: takes the registry over (earlier owners' writes fail from
  // now on) and returns the agents it holds.
  process::Future<Result<std::vector<registry::Agent>>> recover();

  // For a standby (the master's election.cpp): reads the registry ahead
  // without taking it over and keeps it parsed, so that recover() after
  // an election reads and parses again only what changed since (with
  // ZooKeeper: nothing, when one transaction of version checks says so).
  // Completes with the agents it read, or the error that left nothing
  // kept (recovery then reads everything).
  process::Future<Result<size_t>> prefetch();

  // The changes. Each completes with whether it changed the registry, once
  // that change is stored (at once when it changes nothing), or fails when
  // the registry cannot be written.
  //
  // The agent is admitted (new, back from unreachable, or its SlaveInfo
  // changed). Refused (false) for a gone agent.
  process::Future<Result<bool>> admit(SlaveInfo info, double time);
  // An admitted agent becomes unreachable (false for any other).
  process::Future<Result<bool>> markUnreachable(SlaveID id, double time);
  // The agent is gone for good, whatever it was (known or not).
  process::Future<Result<bool>> markGone(SlaveID id, double time);
  // The agents are forgotten (removed, or pruned by the master's GC).
  process::Future<Result<bool>> remove(std::vector<SlaveID> ids);
  // An admitted or unreachable agent's operator state (docs/draining.md):
  // whether it is deactivated and how it drains (none: not draining). False
  // for an agent the registry does not hold or holds as gone.
  process::Future<Result<bool>> setDrain(SlaveID id, bool deactivated,
                                         std::optional<DrainInfo> drain);

  // Maintenance (docs/maintenance.md): what recover() read (empty before
  // it, or when none was stored), and its replacement, stored in the same
  // fenced write as the changes of agents batched with it.
  registry::Maintenance maintenance() const { return maintenance_; }
  process::Future<Result<bool>> setMaintenance(registry::Maintenance maintenance);

  // Roles' quota and weights (docs/quota.md, docs/roles.md), alike.
  registry::Settings settings() const { return settings_; }
  process::Future<Result<bool>> setSettings(registry::Settings settings);

  std::shared_ptr<const Stats> stats() const { return stats_; }
  std::string describe() const { return storage_->describe(); }

 protected:
  void initialize() override;

 private:
  struct Entry {
    registry::Agent agent;
    std::string bytes;  // `agent` serialized
    uint32_t shard = 0;
  };
  struct Change {
    std::function<bool()> apply;  // changes entries_; true when it changed something
    std::shared_ptr<process::Promise<Result<bool>>> promise;
    bool changed = false;
  };

  process::Future<Result<bool>> enqueue(std::function<bool()> apply);
  // Applies what waits and writes the shards it touched, unless a write is
  // out.
  void flush();
  void written(uint64_t write, const Result<process::Nothing>& result);
  void fail(const Error& error);
  // Sets the agent's entry (`bytes`: it serialized, when known); marks its
  // shard dirty.
  void put(registry::Agent agent, std::optional<std::string> bytes = std::nullopt);
  void erase(const std::string& id);
  void count(const registry::Agent& agent, int delta);
  uint32_t shardOf(const std::string& id) const;
  std::string shardContent(uint32_t shard) const;

  // What prefetch() read: each shard's content and, parsed, its agents
  // with their bytes.
  struct Prefetched {
    std::vector<std::string> contents;
    std::vector<std::vector<std::pair<registry::Agent, std::string>>> agents;
  };

  std::unique_ptr<Storage> storage_;
  std::optional<Prefetched> prefetched_;
  const std::chrono::milliseconds fetchTimeout_;
  const std::chrono::milliseconds storeTimeout_;
  uint32_t shards_ = kShards;
  bool recovered_ = false;
  std::optional<Error> failed_;
  std::unordered_map<std::string, Entry> entries_;            // by agent id
  std::vector<std::set<std::string>> shardIds_;               // the ids in each shard
  std::vector<size_t> shardBytes_;                            // each shard's size
  std::set<uint32_t> dirty_;                                  // shards changed since the last write
  registry::Maintenance maintenance_;
  registry::Settings settings_;
  std::set<std::string> nodesDirty_;                          // named nodes changed since the last write
  std::deque<Change> waiting_;
  std::vector<Change> writing_;                               // the changes the write out carries
  bool out_ = false;                                          // a write is out
  uint64_t writeSeq_ = 0;
  std::chrono::steady_clock::time_point writeStart_;
  std::shared_ptr<Stats> stats_ = std::make_shared<Stats>();
};

}  // namespace mesos::internal::master::registrar
