// LocalCluster: a master, a Files actor and any number of slaves on one
// runtime, as mesos-local runs them (and the tests and benchmarks).
#pragma once

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
  static Result<std::unique_ptr<LocalCluster>> start(process::Runtime::Options options,
                                                     master::MasterFlags masterFlags = {});
  // Stops the slaves (and their executors), then the master.
  ~LocalCluster();

  // Starts a slave; `flags` are slave flags as "--name=value". Returns its
  // index, or the reason it could not start.
  Result<size_t> addSlave(const std::vector<std::string>& flags);
  // Terminates slave `index` without telling the master (as if it died).
  void stopSlave(size_t index);
  process::UPID slavePid(size_t index) const { return slaves_.at(index).pid(); }

  process::Runtime& runtime() { return *runtime_; }
  process::UPID master() const { return master_.pid(); }

 private:
  LocalCluster() = default;

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<master::Master> master_;
  process::Spawned<slave::Files> files_;
  std::vector<process::Spawned<slave::Slave>> slaves_;
};

}  // namespace mesos::internal::local
