#include "torque/queue.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

namespace mesos::frameworks::torque {

namespace {

constexpr double kEpsilon = 1e-6;

std::string formatCpus(double cpus) {
  std::ostringstream text;
  text << cpus;
  return text.str();
}

}  // namespace

char stateLetter(JobState state) {
  switch (state) {
    case JobState::Queued:
      return 'Q';
    case JobState::Running:
      return 'R';
    case JobState::Exiting:
      return 'E';
    case JobState::Completed:
      return 'C';
  }
  return '?';
}

std::string Job::outputPath() const {
  if (!spec.outPath.empty()) return spec.outPath;
  return spec.outDir + "/" + spec.name + ".o" + std::to_string(id);
}

std::string Job::errorPath() const {
  if (spec.join) return outputPath();
  if (!spec.errPath.empty()) return spec.errPath;
  return spec.errDir + "/" + spec.name + ".e" + std::to_string(id);
}

int64_t Job::secondsUsed(TimePoint now) const {
  if (state == JobState::Queued || nodes.empty()) return 0;
  TimePoint end = state == JobState::Completed ? ended : now;
  return std::chrono::duration_cast<std::chrono::seconds>(end - started).count();
}

void Effects::merge(const Effects& other) {
  run.insert(run.end(), other.run.begin(), other.run.end());
  kill.insert(kill.end(), other.kill.begin(), other.kill.end());
  release.insert(release.end(), other.release.begin(), other.release.end());
  completed.insert(completed.end(), other.completed.begin(), other.completed.end());
}

Queue::Queue(QueueConfig config)
    : config_(config), maxNodes_(config.maxNodes), maxNodesWhy_("--max_nodes") {}

void Queue::limitNodes(int maxNodes, std::string why) {
  if (maxNodes < config_.maxNodes) {
    maxNodes_ = std::max(0, maxNodes);
    maxNodesWhy_ = std::move(why);
  } else {
    maxNodes_ = config_.maxNodes;
    maxNodesWhy_ = "--max_nodes";
  }
}

Parsed<int64_t> Queue::submit(JobSpec spec, int64_t nowUnix) {
  using Result = Parsed<int64_t>;
  const ResourceRequest& request = spec.request;
  if (maxNodes_ == 0) {
    return Result::failure("this server may hold no node at all (" + maxNodesWhy_ +
                           "): nothing can run until its limit allows one node");
  }
  if (request.nodes > maxNodes_) {
    return Result::failure("nodes=" + std::to_string(request.nodes) + " is more than the " +
                           std::to_string(maxNodes_) + " node(s) this server may hold (" +
                           maxNodesWhy_ + "); ask for fewer nodes");
  }
  if (request.ppn > config_.nodeCpus + kEpsilon) {
    return Result::failure("ppn=" + std::to_string(request.ppn) + " is more than the " +
                           formatCpus(config_.nodeCpus) +
                           " cpus of a node (the server's --node_cpus); ask for fewer");
  }
  if (request.memPerNodeMb() > config_.nodeMemMb) {
    return Result::failure("mem=" + std::to_string(request.memMb) + "mb is " +
                           std::to_string(request.memPerNodeMb()) + " MB per node, more than the " +
                           std::to_string(config_.nodeMemMb) +
                           " MB of a node (the server's --node_mem); ask for less");
  }
  Job job;
  job.id = ++lastJobId_;
  job.spec = std::move(spec);
  job.submittedUnix = nowUnix;
  jobs_.emplace(job.id, std::move(job));
  return Result{lastJobId_, ""};
}

Queue::Removal Queue::remove(int64_t id, TimePoint now, Effects* effects) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Removal::Unknown;
  Job& job = it->second;
  switch (job.state) {
    case JobState::Queued:
      finish(&job, 271, "deleted (mesos-qdel) while queued", now, effects);
      return Removal::Deleted;
    case JobState::Running:
      job.state = JobState::Exiting;
      job.comment = "deleted (mesos-qdel) while running";
      job.lastSent = now;
      effects->kill.push_back(id);
      return Removal::Killing;
    case JobState::Exiting:
      return Removal::Killing;
    case JobState::Completed:
      return Removal::AlreadyCompleted;
  }
  return Removal::Unknown;
}

Queue::Share Queue::shareOf(const Job& job) const {
  return Share{static_cast<double>(job.spec.request.ppn), job.spec.request.memPerNodeMb()};
}

int64_t Queue::walltimeOf(const Job& job) const {
  return job.spec.request.walltimeSeconds.value_or(config_.defaultWalltimeSeconds);
}

std::optional<std::vector<std::string>> Queue::pick(const Job& job, const FreeMap& free,
                                                    const std::set<std::string>& avoid) const {
  Share share = shareOf(job);
  std::vector<std::pair<double, std::string>> fitting;
  for (const auto& [id, left] : free) {
    if (avoid.count(id)) continue;
    if (left.cpus + kEpsilon >= share.cpus && left.memMb >= share.memMb) {
      fitting.emplace_back(left.cpus, id);
    }
  }
  auto wanted = static_cast<size_t>(job.spec.request.nodes);
  if (fitting.size() < wanted) return std::nullopt;
  std::sort(fitting.begin(), fitting.end());
  std::vector<std::string> chosen;
  for (size_t i = 0; i < wanted; i++) chosen.push_back(fitting[i].second);
  return chosen;
}

Queue::FreeMap Queue::freeOnUpNodes() const {
  FreeMap free;
  for (const auto& [id, node] : nodes_) {
    if (node.state != NodeState::Up) continue;
    free[id] = Share{node.cpus - node.usedCpus, node.memMb - node.usedMemMb};
  }
  return free;
}

int Queue::nodesWanted() const {
  int held = 0;
  FreeMap free;
  for (const auto& [id, node] : nodes_) {
    if (node.state == NodeState::Releasing) continue;
    held++;
    free[id] = Share{node.cpus - node.usedCpus, node.memMb - node.usedMemMb};
  }
  // Packs every queued job as if it started now, adding imagined nodes
  // where the held ones are too few or too busy.
  int imagined = 0;
  for (const auto& [id, job] : jobs_) {
    if (job.state != JobState::Queued) continue;
    Share share = shareOf(job);
    std::vector<std::string> chosen;
    for (const auto& [nodeId, left] : free) {
      if (chosen.size() == static_cast<size_t>(job.spec.request.nodes)) break;
      if (left.cpus + kEpsilon >= share.cpus && left.memMb >= share.memMb) chosen.push_back(nodeId);
    }
    while (chosen.size() < static_cast<size_t>(job.spec.request.nodes)) {
      std::string name = "imagined-" + std::to_string(++imagined);
      free[name] = Share{config_.nodeCpus, config_.nodeMemMb};
      chosen.push_back(name);
    }
    for (const std::string& nodeId : chosen) {
      free[nodeId].cpus -= share.cpus;
      free[nodeId].memMb -= share.memMb;
    }
  }
  return std::max(0, std::min(imagined, maxNodes_ - held));
}

bool Queue::slaveFree(const std::string& slaveId) const {
  return std::none_of(nodes_.begin(), nodes_.end(),
                      [&](const auto& entry) { return entry.second.slaveId == slaveId; });
}

void Queue::nodeLaunched(const std::string& id, const std::string& slaveId,
                         const std::string& hostname, double cpus, int64_t memMb, TimePoint now) {
  Node node;
  node.id = id;
  node.slaveId = slaveId;
  node.hostname = hostname;
  node.cpus = cpus;
  node.memMb = memMb;
  node.idleSince = now;
  nodes_[id] = std::move(node);
}

void Queue::nodeUp(const std::string& id, TimePoint now) {
  auto it = nodes_.find(id);
  if (it == nodes_.end() || it->second.state != NodeState::Launching) return;
  it->second.state = NodeState::Up;
  it->second.idleSince = now;
}

void Queue::nodeGone(const std::string& id, const std::string& reason, TimePoint now,
                     Effects* effects) {
  auto it = nodes_.find(id);
  if (it == nodes_.end()) return;
  std::set<int64_t> jobs = it->second.jobs;
  for (int64_t jobId : jobs) {
    auto job = jobs_.find(jobId);
    if (job != jobs_.end()) {
      std::string why = job->second.comment.empty() ? "" : job->second.comment + "; ";
      finish(&job->second, -1, why + "node " + it->second.hostname + " lost: " + reason, now,
             effects);
    }
  }
  nodes_.erase(id);
}

void Queue::jobAcknowledged(int64_t id) {
  auto it = jobs_.find(id);
  if (it != jobs_.end()) it->second.runAcknowledged = true;
}

void Queue::jobEnded(int64_t id, int exitStatus, const std::string& comment, TimePoint now,
                     Effects* effects) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  if (job.state != JobState::Running && job.state != JobState::Exiting) return;
  std::string why = comment;
  if (job.state == JobState::Exiting && !job.comment.empty()) {
    why = comment.empty() ? job.comment : job.comment + "; " + comment;
  }
  finish(&job, exitStatus, why, now, effects);
}

void Queue::start(Job* job, const std::vector<std::string>& nodes, TimePoint now,
                  Effects* effects) {
  Share share = shareOf(*job);
  job->state = JobState::Running;
  job->started = now;
  job->lastSent = now;
  job->nodes = nodes;
  job->hosts.clear();
  for (const std::string& id : nodes) {
    Node& node = nodes_.at(id);
    node.usedCpus += share.cpus;
    node.usedMemMb += share.memMb;
    node.jobs.insert(job->id);
    job->hosts.push_back(node.hostname);
  }
  effects->run.push_back(job->id);
}

void Queue::finish(Job* job, int exitStatus, const std::string& comment, TimePoint now,
                   Effects* effects) {
  Share share = shareOf(*job);
  for (const std::string& id : job->nodes) {
    auto it = nodes_.find(id);
    if (it == nodes_.end() || !it->second.jobs.erase(job->id)) continue;
    Node& node = it->second;
    node.usedCpus = std::max(0.0, node.usedCpus - share.cpus);
    node.usedMemMb = std::max<int64_t>(0, node.usedMemMb - share.memMb);
    if (node.jobs.empty()) node.idleSince = now;
  }
  if (job->state == JobState::Queued) job->started = now;
  job->state = JobState::Completed;
  job->ended = now;
  job->exitStatus = exitStatus;
  job->comment = comment;
  effects->completed.push_back(job->id);
}

Effects Queue::schedule(TimePoint now) {
  Effects effects;
  FreeMap free = freeOnUpNodes();
  auto take = [&](const Job& job, const std::vector<std::string>& nodes) {
    Share share = shareOf(job);
    for (const std::string& id : nodes) {
      free[id].cpus -= share.cpus;
      free[id].memMb -= share.memMb;
    }
  };

  // The reservation of the first job that cannot start: when (shadow) and
  // on which nodes it will.
  bool reserved = false;
  TimePoint shadow = TimePoint::max();
  std::set<std::string> reservedNodes;

  for (auto& [id, job] : jobs_) {
    if (job.state != JobState::Queued) continue;
    std::optional<std::vector<std::string>> nodes = pick(job, free);
    if (!reserved) {
      if (nodes) {
        take(job, *nodes);
        start(&job, *nodes, now, &effects);
        continue;
      }
      reserved = true;
      // Frees the running jobs' nodes in the order their walltimes end
      // until this job fits.
      std::vector<std::pair<TimePoint, const Job*>> ends;
      for (const auto& [otherId, other] : jobs_) {
        if (other.state != JobState::Running && other.state != JobState::Exiting) continue;
        TimePoint end = other.state == JobState::Exiting
                            ? now
                            : other.started + std::chrono::seconds(walltimeOf(other));
        ends.emplace_back(std::max(end, now), &other);
      }
      std::sort(ends.begin(), ends.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      FreeMap later = free;
      for (const auto& [end, other] : ends) {
        Share share = shareOf(*other);
        for (const std::string& nodeId : other->nodes) {
          auto it = later.find(nodeId);
          if (it == later.end()) continue;
          it->second.cpus += share.cpus;
          it->second.memMb += share.memMb;
        }
        if (auto fit = pick(job, later)) {
          shadow = end;
          reservedNodes.insert(fit->begin(), fit->end());
          break;
        }
      }
      if (reservedNodes.empty()) {
        // It waits for nodes not yet held: every held node is kept for it.
        for (const auto& entry : free) reservedNodes.insert(entry.first);
      }
      continue;
    }
    // Backfill: only what cannot delay the reserved job.
    if (!nodes) continue;
    TimePoint end = now + std::chrono::seconds(walltimeOf(job));
    if (shadow != TimePoint::max() && end <= shadow) {
      take(job, *nodes);
      start(&job, *nodes, now, &effects);
    } else if (auto elsewhere = pick(job, free, reservedNodes)) {
      take(job, *elsewhere);
      start(&job, *elsewhere, now, &effects);
    }
  }

  if (count(JobState::Queued) == 0) {
    for (auto& [id, node] : nodes_) {
      if (node.state == NodeState::Up && node.jobs.empty() &&
          now - node.idleSince >= config_.idleTimeout) {
        node.state = NodeState::Releasing;
        effects.release.push_back(id);
      }
    }
  }
  return effects;
}

Effects Queue::resends(TimePoint now) {
  Effects effects;
  for (auto& [id, job] : jobs_) {
    if (now - job.lastSent < config_.resendAfter) continue;
    if (job.state == JobState::Running && !job.runAcknowledged) {
      job.lastSent = now;
      effects.run.push_back(id);
    } else if (job.state == JobState::Exiting) {
      job.lastSent = now;
      effects.kill.push_back(id);
    }
  }
  return effects;
}

const Job* Queue::job(int64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

size_t Queue::count(JobState state) const {
  return static_cast<size_t>(std::count_if(
      jobs_.begin(), jobs_.end(), [&](const auto& entry) { return entry.second.state == state; }));
}

}  // namespace mesos::frameworks::torque
