// The slave's resource monitor: what each executor's container uses, for
// GET /monitor/statistics (Apache Mesos's shape: a JSON array of
// {framework_id, executor_id, executor_name, source, statistics}).
//
// Measuring reads /proc and cgroup files, a few milliseconds a container:
// that work runs on this actor, never on the slave's. The slave answers the
// request by handing over the list of its executors (a copy, cheap) and
// returning this actor's future.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mesos/resources.hpp"
#include "process/actor.hpp"
#include "process/http.hpp"
#include "slave/containerizer/containerizer.hpp"

namespace mesos::internal::slave {

// One executor's container, as the slave knows it when asked.
struct MonitoredExecutor {
  FrameworkID frameworkId;
  ExecutorID executorId;
  std::string name;
  std::string source;
  ContainerID containerId;
  Resources resources;  // what the container holds: executor plus live tasks
};

class Monitor : public process::Actor {
 public:
  explicit Monitor(std::shared_ptr<Containerizer> containerizer);

  // The /monitor/statistics document of `executors`, measured now.
  process::http::Response statistics(const std::vector<MonitoredExecutor>& executors);

 private:
  std::shared_ptr<Containerizer> containerizer_;
};

}  // namespace mesos::internal::slave
