// namespaces/pid and namespaces/ipc: each container gets a pid namespace
// (its executor is pid 1 there, sees only the container's processes in a
// /proc of its own, and every process of the container dies with it) and
// an IPC namespace (System V IPC objects and POSIX message queues of its
// own). One isolator serves both names. The launch helper
// (mesos-containerizer --unshare) enters the namespaces before anything of
// the container runs; this isolator only asks for them, so it holds no
// state and has nothing to recover or clean up: the namespaces end with
// their last process.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

class NamespacesIsolator : public mesos::isolation::Isolator {
 public:
  // `names`: "namespaces/pid", "namespaces/ipc". Fails when the slave
  // cannot make namespaces (not root).
  static Result<std::unique_ptr<NamespacesIsolator>> create(const std::vector<std::string>& names);

  std::string name() const override;
  Result<void> recover(const std::map<std::string, pid_t>&) override { return {}; }
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID&, pid_t) override { return {}; }
  Result<void> update(const ContainerID&, const Resources&) override { return {}; }
  Result<void> usage(const ContainerID&, ResourceStatistics*) override { return {}; }
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID&) override { return {}; }

 private:
  explicit NamespacesIsolator(std::vector<std::string> namespaces)
      : namespaces_(std::move(namespaces)) {}

  const std::vector<std::string> namespaces_;  // "pid", "ipc"
};

}  // namespace mesos::internal::isolation
