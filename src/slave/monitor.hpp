// The slave's resource monitor: what each executor's container uses, for
// GET /monitor/statistics (Apache Mesos's shape: a JSON array of
// {framework_id, executor_id, executor_name, source, statistics}).
//
// Measuring reads /proc and cgroup files, a few milliseconds a container:
// that work runs on this actor, never on the slave's. The slave answers the
// request by handing over the list of its executors (a copy, cheap) and
// returning this actor's future. A Docker task's container is measured too
// (its cgroups, found through `docker inspect`, which runs here as well).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mesos/resources.hpp"
#include "process/actor.hpp"
#include "process/http.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/containerizer/docker/docker.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

namespace mesos::internal::slave {

// One executor's container, as the slave knows it when asked.
struct MonitoredExecutor {
  FrameworkID frameworkId;
  ExecutorID executorId;
  std::string name;
  std::string source;
  ContainerID containerId;
  Resources resources;  // what the container holds: executor plus live tasks
  std::string dockerContainer;  // its task's Docker container (mesos-<id>), or ""
};

class Monitor : public process::Actor {
 public:
  // `docker`: the daemon of the slave's Docker containers, if it runs any.
  explicit Monitor(std::shared_ptr<Containerizer> containerizer,
                   std::optional<docker::Endpoint> docker = std::nullopt);

  // The /monitor/statistics document of `executors`, measured now: the
  // executor's container, plus, for a Docker task, its Docker container's
  // cgroups (Apache reports the latter).
  process::http::Response statistics(const std::vector<MonitoredExecutor>& executors);

 private:
  // Adds what Docker's container `name` uses to `statistics`.
  Result<void> addDockerUsage(const std::string& name, ResourceStatistics* statistics);

  std::shared_ptr<Containerizer> containerizer_;
  std::optional<docker::Endpoint> docker_;
  std::optional<Result<cgroups::Layout>> layout_;  // detected on first use
};

}  // namespace mesos::internal::slave
