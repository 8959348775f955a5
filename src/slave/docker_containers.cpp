#include "slave/docker_containers.hpp"

#include <functional>

#include <glog/logging.h>

#include "slave/reaper.hpp"

namespace mesos::internal::slave {

namespace {

// Starts `argv` and hands its output to `done` on the reaper's thread;
// false (logged) when it cannot start. `pid`, when given, holds its pid
// while it runs.
bool runAsync(const std::vector<std::string>& argv,
              std::function<void(const docker::Output&)> done,
              std::shared_ptr<std::atomic<pid_t>> pid = nullptr) {
  auto started = docker::spawn(argv, true);
  if (!started) {
    LOG(ERROR) << "Cannot run docker: " << started.error().message;
    return false;
  }
  if (pid) pid->store(started->pid);
  Reaper::instance().watch(started->pid, [started = *started, done = std::move(done),
                                          pid = std::move(pid)](int status) {
    if (pid) pid->store(-1);
    done(docker::collect(started, status));
  });
  return true;
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

void DockerContainers::stop(const std::string& name) const {
  runAsync(docker::stopArguments(endpoint_, name, std::chrono::seconds(0)),
           [name](const docker::Output& output) {
             if (!output.succeeded()) {
               LOG(WARNING) << "Cannot stop Docker container " << name << ": " << output.reason();
             }
           });
}

void DockerContainers::update(const std::string& name, const Resources& resources) const {
  {
    std::lock_guard lock(updates_->mutex);
    auto [it, idle] = updates_->running.try_emplace(name);
    if (!idle) {
      it->second = resources;
      return;
    }
  }
  runUpdate(endpoint_, updates_, name, resources);
}

void DockerContainers::runUpdate(const docker::Endpoint& endpoint, std::shared_ptr<Updates> updates,
                                 const std::string& name, const Resources& resources) {
  // After this update: the one that waited meanwhile, if any.
  auto next = [endpoint, updates, name] {
    std::optional<Resources> waiting;
    {
      std::lock_guard lock(updates->mutex);
      auto it = updates->running.find(name);
      if (it == updates->running.end()) return;
      if (!it->second) {
        updates->running.erase(it);
        return;
      }
      waiting.swap(it->second);
    }
    runUpdate(endpoint, updates, name, *waiting);
  };
  bool started =
      runAsync(docker::updateArguments(endpoint, name, resources),
               [name, limits = resources.toString(), next](const docker::Output& output) {
                 if (output.succeeded()) {
                   LOG(INFO) << "Updated Docker container " << name << " to " << limits;
                 } else {
                   LOG(WARNING) << "Cannot update Docker container " << name << " to " << limits
                                << ": " << output.reason();
                 }
                 next();
               });
  if (!started) next();
}

void DockerContainers::pull(const std::string& image, bool force,
                            std::shared_ptr<std::atomic<pid_t>> pid,
                            std::function<void(std::optional<std::string>)> done) const {
  auto pullNow = [endpoint = endpoint_, image, pid, done] {
    LOG(INFO) << "Pulling Docker image '" << image << "'";
    bool started = runAsync(
        docker::pullArguments(endpoint, image),
        [image, done](const docker::Output& output) {
          if (output.succeeded()) {
            done(std::nullopt);
          } else {
            done("Failed to pull image '" + image + "': " + output.reason());
          }
        },
        pid);
    if (!started) done("Failed to pull image '" + image + "': cannot run docker");
  };
  if (force) {
    pullNow();
    return;
  }
  bool started = runAsync(
      docker::imagePresentArguments(endpoint_, image),
      [pullNow, done](const docker::Output& output) {
        if (output.succeeded()) {
          done(std::nullopt);
        } else {
          pullNow();
        }
      },
      pid);
  if (!started) done("Cannot look up image '" + image + "': cannot run docker");
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
