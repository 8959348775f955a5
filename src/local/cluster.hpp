// LocalCluster: a master (or, with --zk in the master flags, several
// contending for leadership), a Files actor and any number of slaves on one
// runtime, as mesos-local runs them (and the tests and benchmarks).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "master/flags.hpp"
#include "master/master.hpp"
#include "process/runtime.hpp"
#include "slave/files.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::local {

class LocalCluster {
 public:
  // Starts a runtime on `options` with a master using `masterFlags` (its ip
  // and port are the runtime's). Fails if the address cannot be bound.
  // With masterFlags.zk, `masters` masters contend (ids "master",
  // "master2", ...) and slaves find the leader through ZooKeeper; a master
  // that loses its leadership terminates (the others carry on).
  static Result<std::unique_ptr<LocalCluster>> start(process::Runtime::Options options,
                                                     master::MasterFlags masterFlags = {},
                                                     size_t masters = 1);
  // Stops the slaves (and their executors), then the master.
  ~LocalCluster();

  // Starts a slave; `flags` are slave flags as "--name=value". Returns its
  // index, or the reason it could not start.
  Result<size_t> addSlave(const std::vector<std::string>& flags);
  // Terminates slave `index` without telling the master (as if it died).
  void stopSlave(size_t index);
  process::UPID slavePid(size_t index) const { return slaves_.at(index).pid(); }

  process::Runtime& runtime() { return *runtime_; }
  // The first master (the one /master/... answers for).
  process::UPID master() const { return masters_.at(0).pid(); }
  process::UPID master(size_t index) const { return masters_.at(index).pid(); }
  size_t masterCount() const { return masters_.size(); }
  // Stops master `index` (it leaves the masters' group at once).
  void stopMaster(size_t index) { masters_.at(index).reset(); }

 private:
  LocalCluster() = default;

  std::unique_ptr<process::Runtime> runtime_;
  std::vector<process::Spawned<master::Master>> masters_;
  std::shared_ptr<zk::MasterDetector> detector_;  // with --zk, for the slaves
  process::Spawned<slave::Files> files_;
  std::vector<process::Spawned<slave::Slave>> slaves_;
};

}  // namespace mesos::internal::local
