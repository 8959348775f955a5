// Where the master's registry of agents is kept (docs/high-availability.md):
// a fixed number of shards, each written whole, and a few named nodes, each
// one serialized message written whole: "maintenance" (docs/maintenance.md)
// and "settings" (quota and weights, docs/quota.md). A backend is a folder here plus one line in
// storage.cpp's createStorage().
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mesos/result.hpp"
#include "process/future.hpp"
#include "process/upid.hpp"

namespace mesos::internal::zk {
class ZooKeeper;
}  // namespace mesos::internal::zk

namespace mesos::internal::master::registrar {

// The named nodes beside the shards: name -> content (a serialized
// registry::Maintenance or registry::Settings). A node never written reads
// as empty.
using Nodes = std::map<std::string, std::string>;
inline constexpr const char* kMaintenanceNode = "maintenance";
inline constexpr const char* kSettingsNode = "settings";
inline constexpr const char* kNodeNames[] = {kMaintenanceNode, kSettingsNode};

class Storage {
 public:
  // What recover() reads.
  struct Contents {
    std::vector<std::string> shards;  // each shard's content (empty for an empty shard)
    Nodes nodes;                      // the named nodes that exist, by name
    // recover(): the shards are those peek() read, found unchanged (not
    // read again).
    bool unchangedSincePeek = false;
  };

  virtual ~Storage() = default;

  // For logs and errors: "ZooKeeper zk://host:2181/mesos/registry".
  virtual std::string describe() const = 0;
  // Whether what is written outlives the master (in memory: nothing is
  // written at all).
  virtual bool durable() const = 0;
  // Called once, on the registrar's actor, before anything else: the actor
  // that continuations run on.
  virtual void attach(const process::UPID& actor) { actor_ = actor; }

  // Takes the registry over: from now on writes of earlier owners (a
  // deposed leader) fail. Then reads it: every shard's content and the
  // maintenance node's. A new registry is made with `shards` shards; an
  // existing one keeps its own number. Fails with a clear error when the
  // registry is corrupt or another owner took it over meanwhile.
  virtual process::Future<Result<Contents>> recover(uint32_t shards) = 0;

  // Reads the registry without taking it over: what a standby keeps ahead
  // of its election. A storage that can keeps what it read, so that its
  // next recover() need only check that none of it changed instead of
  // reading it again (ZooKeeper: one transaction of version checks). The
  // others fail (nothing to gain: no standby reads them).
  virtual process::Future<Result<Contents>> peek();

  // Replaces whole shards (index, content) and the named nodes given
  // (names from kNodeNames), in one fenced write. Fails when another owner took
  // the registry over since recover(), or the store fails.
  virtual process::Future<Result<process::Nothing>> write(
      std::vector<std::pair<uint32_t, std::string>> shards,
      Nodes nodes = {}) = 0;

 protected:
  process::UPID actor_;
};

// --registry's values (master/flags.cpp): "zookeeper" (the default with
// --zk), "file" (the default with --work_dir), "in_memory".
struct StorageConfig {
  std::string kind;
  // "zookeeper": the session to use (the master's) and the masters' group
  // path, under which the registry is "<path>/registry".
  std::optional<process::Pid<zk::ZooKeeper>> zk;
  std::string zkPath;
  std::string zkUrl;  // for logs, without credentials
  // "file": the master's --work_dir, under which it is "<dir>/registry".
  std::optional<std::string> workDir;
};

// The backend `config.kind` names, or why there is none.
Result<std::unique_ptr<Storage>> createStorage(const StorageConfig& config);

// The backends (each in its folder).
std::unique_ptr<Storage> inMemoryStorage();
std::unique_ptr<Storage> fileStorage(std::string directory);
std::unique_ptr<Storage> zookeeperStorage(process::Pid<zk::ZooKeeper> zk, std::string path,
                                          std::string url);

}  // namespace mesos::internal::master::registrar
