// The slave's side of the Docker containerizer (docs/docker-containerizer.md):
// removing a task's container some time after its executor ended, and, at
// start-up, the containers an earlier run left that no executor owns. Each
// call runs the docker program as a child process the Reaper watches: no
// call blocks its caller, and results are only logged (a container that
// cannot be removed now is left for the next start-up's orphan sweep).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "slave/containerizer/docker/docker.hpp"

namespace mesos::internal::slave {

class DockerContainers {
 public:
  explicit DockerContainers(docker::Endpoint endpoint) : endpoint_(std::move(endpoint)) {}

  // `docker rm -f -v NAME`. Thread-safe; returns at once.
  void remove(const std::string& name) const;

  // `docker stop -t 0 NAME`: a container whose executor ended goes down
  // at once (its removal comes later). Thread-safe; returns at once.
  void stop(const std::string& name) const;

  // `docker update` of running container `name` to the limits of
  // `resources` (a custom executor's, which follow its tasks). One
  // container's updates run one at a time: one asked while another runs
  // waits, replacing any that waited before it, so the container ends with
  // the last limits asked. Thread-safe; returns at once.
  void update(const std::string& name, const Resources& resources) const;

  // Makes `image` the daemon's: nothing when it has the image (unless
  // `force`), else `docker pull`. `done` gets, on another thread, nothing
  // or why not ("Failed to pull image 'IMAGE': <docker's reason>"). The
  // docker program's pid is in `pid` while it runs (-1 otherwise), for a
  // caller that gives up to kill (its process group). Returns at once.
  void pull(const std::string& image, bool force, std::shared_ptr<std::atomic<pid_t>> pid,
            std::function<void(std::optional<std::string>)> done) const;

  // Lists the containers named mesos-* and removes those whose container
  // id (the name without the prefix) is not in `keep`. Thread-safe; returns
  // at once.
  void removeOrphans(std::set<std::string> keep) const;

  const docker::Endpoint& endpoint() const { return endpoint_; }

 private:
  // The containers whose update runs, each with the limits to set next.
  struct Updates {
    std::mutex mutex;
    std::map<std::string, std::optional<Resources>> running;
  };
  static void runUpdate(const docker::Endpoint& endpoint, std::shared_ptr<Updates> updates,
                        const std::string& name, const Resources& resources);

  docker::Endpoint endpoint_;
  std::shared_ptr<Updates> updates_ = std::make_shared<Updates>();
};

}  // namespace mesos::internal::slave
