#include "slave/docker_containers.hpp"

#include <functional>

#include <glog/logging.h>

#include "slave/reaper.hpp"

namespace mesos::internal::slave {

namespace {

// Starts `argv` and hands its output to `done` on the reaper's thread.
void runAsync(const std::vector<std::string>& argv,
              std::function<void(const docker::Output&)> done) {
  auto started = docker::spawn(argv, true);
  if (!started) {
    LOG(ERROR) << "Cannot run docker: " << started.error().message;
    return;
  }
  Reaper::instance().watch(started->pid,
                           [started = *started, done = std::move(done)](int status) {
                             done(docker::collect(started, status));
                           });
}

}  // namespace

void DockerContainers::remove(const std::string& name) const {
  runAsync(docker::removeArguments(endpoint_, name), [name](const docker::Output& output) {
    if (output.succeeded()) {
      LOG(INFO) << "Removed Docker container " << name;
    } else {
      LOG(WARNING) << "Cannot remove Docker container " << name << ": " << output.reason();
    }
  });
}

void DockerContainers::removeOrphans(std::set<std::string> keep) const {
  runAsync(docker::listArguments(endpoint_),
           [endpoint = endpoint_, keep = std::move(keep)](const docker::Output& output) {
             if (!output.succeeded()) {
               LOG(WARNING) << "Cannot list Docker containers to remove orphans: "
                            << output.reason();
               return;
             }
             const std::string prefix = docker::kNamePrefix;
             for (const std::string& name : docker::parseList(output.out)) {
               if (keep.count(name.substr(prefix.size())) != 0) continue;
               LOG(INFO) << "Removing orphan Docker container " << name;
               DockerContainers(endpoint).remove(name);
             }
           });
}

}  // namespace mesos::internal::slave
