#include "mapreduce/jobtracker.hpp"

#include <algorithm>
#include <iostream>

#include "common/time.hpp"
#include "mesos/resources.hpp"

namespace mesos::frameworks::mapreduce {

using nlohmann::json;

namespace {

constexpr double kIdleDeclineSeconds = 30;
// How long an offer of a host outside --hosts is declined for.
constexpr double kOtherHostDeclineSeconds = 3600;

double secondsBetween(JobTracker::Clock::time_point a, JobTracker::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string rackOf(const Offer& offer) {
  for (const Attribute& attribute : offer.attributes()) {
    if (attribute.name() != "rack") continue;
    if (attribute.has_text()) return attribute.text().value();
    if (attribute.has_scalar()) return std::to_string(attribute.scalar().value());
  }
  return "";
}

const char* localityName(JobTracker::Locality locality) {
  switch (locality) {
    case JobTracker::Locality::kNode:
      return "node-local";
    case JobTracker::Locality::kRack:
      return "rack-local";
    case JobTracker::Locality::kAny:
      return "remote";
  }
  return "?";
}

}  // namespace

size_t JobTracker::Job::runningAttempts() const {
  size_t count = 0;
  for (const Task& task : maps) count += task.running.size();
  for (const Task& task : reduces) count += task.running.size();
  return count;
}

bool JobTracker::Job::mapsDone() const {
  return std::all_of(maps.begin(), maps.end(), [](const Task& task) { return task.done; });
}

JobTracker::JobTracker(TrackerOptions options) : options_(std::move(options)) {
  executor_.mutable_executor_id()->set_value("tasktracker");
  executor_.set_name("MapReduce TaskTracker");
  executor_.set_source("mesos-mapreduce");
  executor_.mutable_command()->set_value(options_.executorPath);
  executor_.mutable_command()->set_shell(false);
  executor_.mutable_command()->add_arguments("mesos-mapreduce-executor");
  auto resources = Resources::parse("cpus:" + std::to_string(options_.executorCpus) +
                                    ";mem:" + std::to_string(options_.executorMem));
  if (resources) *executor_.mutable_resources() = resources.value().proto();
}

JobTracker::~JobTracker() = default;

Result<std::string> JobTracker::submit(const JobSpec& given) {
  using R = Result<std::string>;
  JobSpec spec = given;
  dfs::Store store(options_.dfsRoot);
  if (options_.dfsPeerPort != 0) store.setPeerPort(options_.dfsPeerPort);
  auto input = prepareInput(spec, store);
  if (!input) return R::failure(input.error());
  if (spec.name.empty()) spec.name = spec.type + " " + spec.input;

  auto job = std::make_unique<Job>();
  job->spec = spec;
  job->input = std::move(*input);
  if (spec.type == "sort") job->splits = sampleSplits(store, job->input, spec.reduces);
  for (uint32_t i = 0; i < job->input.blocks.size(); ++i) {
    job->maps.push_back(Task{});
    job->maps.back().isMap = true;
    job->maps.back().index = i;
  }
  for (uint32_t r = 0; r < spec.reduces; ++r) {
    job->reduces.push_back(Task{});
    job->reduces.back().isMap = false;
    job->reduces.back().index = r;
  }
  job->submitted = Clock::now();
  job->submittedUtc = utcTimestamp();
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!fatal_.empty()) return R::failure("the JobTracker cannot run jobs: " + fatal_);
    job->sequence = nextJob_++;
    id = "job-" + std::to_string(job->sequence);
    job->id = id;
    order_.push_back(id);
    jobs_[id] = std::move(job);
  }
  std::cerr << "JobTracker: submitted " << id << " (" << spec.name << ")" << std::endl;
  if (driver_ != nullptr) driver_->reviveOffers();
  return id;
}

std::optional<json> JobTracker::report(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return reportLocked(*it->second);
}

json JobTracker::reports() const {
  std::lock_guard<std::mutex> lock(mutex_);
  json all = json::array();
  for (const std::string& id : order_) all.push_back(reportLocked(*jobs_.at(id)));
  return all;
}

std::optional<json> JobTracker::wait(const std::string& id, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const Job& job = *it->second;
  changed_.wait_for(lock, timeout, [&] { return job.state != Job::State::kRunning; });
  return reportLocked(job);
}

std::string JobTracker::fatalError() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fatal_;
}

bool JobTracker::registeredOnce() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return registered_;
}

void JobTracker::registered(SchedulerDriver*, const FrameworkID& frameworkId, const MasterInfo&) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    registered_ = true;
  }
  std::cerr << "JobTracker: registered as framework " << frameworkId.value() << std::endl;
}

void JobTracker::reregistered(SchedulerDriver*, const MasterInfo&) {
  std::cerr << "JobTracker: re-registered" << std::endl;
}

void JobTracker::disconnected(SchedulerDriver*) {
  std::cerr << "JobTracker: disconnected from the master" << std::endl;
}

bool JobTracker::fits(const Slots& slots) const {
  return slots.cpus + 1e-9 >= options_.taskCpus && slots.mem + 1e-9 >= options_.taskMem;
}

void JobTracker::resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  const bool idle = std::none_of(jobs_.begin(), jobs_.end(), [](const auto& entry) {
    return entry.second->state == Job::State::kRunning;
  });
  for (const Offer& offer : offers) {
    if (!options_.hosts.empty() && options_.hosts.count(offer.hostname()) == 0) {
      Filters filters;
      filters.set_refuse_seconds(kOtherHostDeclineSeconds);
      driver->declineOffer(offer.id(), filters);
      continue;
    }
    Slots slots;
    slots.host = offer.hostname();
    slots.rack = rackOf(offer);
    slots.slaveId = offer.slave_id().value();
    slaveHosts_[slots.slaveId] = slots.host;
    Resources resources(offer.resources());
    // Room for the TaskTracker is always kept (it may not run there yet).
    slots.cpus = resources.scalar("cpus") - options_.executorCpus;
    slots.mem = resources.scalar("mem") - options_.executorMem;
    std::vector<TaskInfo> tasks;
    while (!idle && fits(slots)) {
      std::optional<TaskInfo> task = nextTask(slots, now);
      if (!task) break;
      tasks.push_back(std::move(*task));
      slots.cpus -= options_.taskCpus;
      slots.mem -= options_.taskMem;
    }
    Filters filters;
    filters.set_refuse_seconds(idle ? kIdleDeclineSeconds : options_.declineSeconds);
    if (tasks.empty()) {
      driver->declineOffer(offer.id(), filters);
    } else {
      executorSlaves_.insert(slots.slaveId);
      driver->launchTasks(offer.id(), tasks, filters);
    }
  }
}

std::optional<TaskInfo> JobTracker::nextTask(const Slots& slots, Clock::time_point now) {
  std::vector<Job*> order;
  for (const std::string& id : order_) {
    Job* job = jobs_.at(id).get();
    if (job->state == Job::State::kRunning) order.push_back(job);
  }
  // Fair sharing: the job with the fewest running attempts goes first.
  std::stable_sort(order.begin(), order.end(), [](const Job* a, const Job* b) {
    return a->runningAttempts() < b->runningAttempts();
  });
  for (Job* job : order) {
    if (job->mapsDone()) {
      for (Task& reduce : job->reduces) {
        if (!reduce.done && reduce.running.empty()) {
          job->lastLaunch = now;
          return launch(*job, reduce, slots, false, now);
        }
      }
    } else if (auto task = nextMap(*job, slots, now)) {
      return task;
    }
  }
  for (Job* job : order) {
    if (auto task = speculate(*job, job->mapsDone() ? job->reduces : job->maps, slots, now)) {
      return task;
    }
  }
  return std::nullopt;
}

JobTracker::Locality JobTracker::localityOf(const Job& job, const Task& task,
                                            const std::string& host,
                                            const std::string& rack) const {
  const dfs::BlockInfo& block = job.input.blocks[task.index];
  if (std::find(block.hosts.begin(), block.hosts.end(), host) != block.hosts.end()) {
    return Locality::kNode;
  }
  const std::string nodeRack = rack.empty() ? job.input.rackOf(host) : rack;
  for (const std::string& holder : block.hosts) {
    if (!nodeRack.empty() && job.input.rackOf(holder) == nodeRack) return Locality::kRack;
  }
  return Locality::kAny;
}

std::optional<TaskInfo> JobTracker::nextMap(Job& job, const Slots& slots, Clock::time_point now) {
  Task* best = nullptr;
  Locality bestLocality = Locality::kAny;
  for (Task& map : job.maps) {
    if (map.done || !map.running.empty()) continue;
    Locality locality = localityOf(job, map, slots.host, slots.rack);
    if (best == nullptr || locality < bestLocality) {
      best = &map;
      bestLocality = locality;
      if (locality == Locality::kNode) break;
    }
  }
  if (best == nullptr) return std::nullopt;
  const auto wait = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.localityWaitSeconds));
  if (bestLocality != Locality::kNode && options_.localityWaitSeconds > 0) {
    // Delay scheduling: wait at each level for `wait` since the last launch
    // (or since the job began waiting), then allow the next level.
    if (!job.lastLaunch) job.lastLaunch = now;
    while (job.level < bestLocality && now - *job.lastLaunch >= wait) {
      job.level = static_cast<Locality>(static_cast<int>(job.level) + 1);
      *job.lastLaunch += wait;
    }
    if (bestLocality > job.level) return std::nullopt;  // skipped: keep waiting
  }
  job.level = bestLocality;
  job.lastLaunch = now;
  return launch(job, *best, slots, false, now);
}

std::optional<TaskInfo> JobTracker::speculate(Job& job, std::vector<Task>& tasks,
                                              const Slots& slots, Clock::time_point now) {
  if (!options_.speculation) return std::nullopt;
  std::vector<double> times;
  for (const Task& task : tasks) {
    if (!task.done && task.running.empty()) return std::nullopt;  // still pending work
    if (task.done) times.push_back(task.seconds);
  }
  double threshold = 3 * options_.speculationFloorSeconds;
  if (!times.empty()) {
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    threshold = std::max(options_.speculationFloorSeconds,
                         options_.speculationFactor * times[times.size() / 2]);
  }
  for (Task& task : tasks) {
    if (task.done || task.running.size() != 1) continue;
    const Attempt& only = task.running.front();
    if (only.host == slots.host || secondsBetween(only.started, now) < threshold) continue;
    std::cerr << "JobTracker: " << only.id << " on " << only.host << " has run for "
              << secondsBetween(only.started, now) << " s; speculating on " << slots.host
              << std::endl;
    return launch(job, task, slots, true, now);
  }
  return std::nullopt;
}

TaskInfo JobTracker::launch(Job& job, Task& task, const Slots& slots, bool speculative,
                            Clock::time_point now) {
  ++task.launches;
  Attempt attempt;
  attempt.id = job.id + (task.isMap ? "-m" : "-r") + std::to_string(task.index) + "-a" +
               std::to_string(task.launches);
  attempt.slaveId = slots.slaveId;
  attempt.host = slots.host;
  attempt.started = now;
  attempt.speculative = speculative;
  task.running.push_back(attempt);
  attempts_[attempt.id] = AttemptRef{job.id, task.isMap, task.index};
  if (speculative) ++job.speculativeAttempts;

  TaskSpec spec;
  spec.job = job.id;
  spec.attempt = attempt.id;
  spec.isMap = task.isMap;
  spec.index = task.index;
  spec.spec = job.spec;
  spec.dfsRoot = options_.dfsRoot;
  spec.dfsPeerPort = options_.dfsPeerPort;
  spec.nodes = job.input.nodes;
  if (task.isMap) {
    spec.splits = job.splits;
    Locality locality = localityOf(job, task, slots.host, slots.rack);
    ++(locality == Locality::kNode ? job.nodeLocal
                                   : locality == Locality::kRack ? job.rackLocal : job.remote);
    std::cerr << "JobTracker: launching " << attempt.id << " on " << slots.host << " ("
              << localityName(locality) << (speculative ? ", speculative" : "") << ")"
              << std::endl;
  } else {
    for (const Task& map : job.maps) {
      spec.maps.push_back({map.index, map.winner.host, map.port, map.winner.id});
    }
    std::cerr << "JobTracker: launching " << attempt.id << " on " << slots.host
              << (speculative ? " (speculative)" : "") << std::endl;
  }

  TaskInfo info;
  info.set_name(job.id + (task.isMap ? " map " : " reduce ") + std::to_string(task.index));
  info.mutable_task_id()->set_value(attempt.id);
  info.mutable_slave_id()->set_value(slots.slaveId);
  info.mutable_executor()->CopyFrom(executor_);
  auto resources = Resources::parse("cpus:" + std::to_string(options_.taskCpus) +
                                    ";mem:" + std::to_string(options_.taskMem));
  if (resources) *info.mutable_resources() = resources.value().proto();
  info.set_data(toJson(spec).dump());
  return info;
}

void JobTracker::offerRescinded(SchedulerDriver*, const OfferID&) {}

void JobTracker::statusUpdate(SchedulerDriver*, const TaskStatus& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string id = status.task_id().value();
  auto ref = attempts_.find(id);
  if (ref == attempts_.end()) return;
  switch (status.state()) {
    case TASK_STAGING:
    case TASK_STARTING:
    case TASK_RUNNING:
      return;
    default:
      break;
  }
  Job& job = *jobs_.at(ref->second.job);
  Task& task = ref->second.isMap ? job.maps[ref->second.index] : job.reduces[ref->second.index];
  attempts_.erase(ref);
  if (status.state() == TASK_FINISHED) {
    attemptFinished(job, task, id, status);
  } else {
    attemptFailed(job, task, id, status);
  }
  changed_.notify_all();
}

void JobTracker::attemptFinished(Job& job, Task& task, const std::string& attemptId,
                                 const TaskStatus& status) {
  auto it = std::find_if(task.running.begin(), task.running.end(),
                         [&](const Attempt& a) { return a.id == attemptId; });
  if (it == task.running.end()) return;
  Attempt attempt = *it;
  task.running.erase(it);
  killed_.erase(attemptId);
  if (job.state != Job::State::kRunning || task.done) return;
  TaskOutcome outcome = taskOutcomeFromJson(status.data());
  task.done = true;
  task.winner = attempt;
  if (!outcome.host.empty()) task.winner.host = outcome.host;
  task.port = outcome.port;
  task.seconds = secondsBetween(attempt.started, Clock::now());
  task.records = task.isMap ? outcome.records : outcome.outputRecords;
  if (task.isMap && outcome.remoteRead) ++job.remoteReads;
  killOthers(task, attemptId);
  maybeFinish(job);
}

void JobTracker::attemptFailed(Job& job, Task& task, const std::string& attemptId,
                               const TaskStatus& status) {
  auto it = std::find_if(task.running.begin(), task.running.end(),
                         [&](const Attempt& a) { return a.id == attemptId; });
  if (it != task.running.end()) task.running.erase(it);
  if (killed_.erase(attemptId) > 0) {
    ++job.killedAttempts;
    return;
  }
  if (job.state != Job::State::kRunning || task.done) return;
  TaskOutcome outcome = taskOutcomeFromJson(status.data());
  if (!outcome.fetchFailed.empty()) {
    // Not the reduce's fault: the maps' outputs are gone; run them again.
    for (uint32_t map : outcome.fetchFailed) {
      if (map < job.maps.size()) {
        mapOutputLost(job, job.maps[map], attemptId + " could not fetch its output");
      }
    }
    return;
  }
  ++job.failedAttempts;
  ++task.failures;
  task.lastError = TaskState_Name(status.state()) +
                   (status.message().empty() ? "" : ": " + status.message());
  std::cerr << "JobTracker: " << attemptId << " failed (" << task.lastError << ")" << std::endl;
  if (task.failures >= options_.maxAttempts) {
    failJob(job, std::string(task.isMap ? "map " : "reduce ") + std::to_string(task.index) +
                     " failed " + std::to_string(task.failures) + " times; last: " +
                     task.lastError);
  }
}

void JobTracker::mapOutputLost(Job& job, Task& map, const std::string& why) {
  if (!map.done || job.state != Job::State::kRunning) return;
  map.done = false;
  ++map.fetchFailures;
  ++job.recomputedMaps;
  std::cerr << "JobTracker: the output of " << map.winner.id << " on " << map.winner.host
            << " is lost (" << why << "); recomputing map " << map.index << std::endl;
  if (map.fetchFailures > 2 * options_.maxAttempts) {
    failJob(job, "the output of map " + std::to_string(map.index) + " was lost " +
                     std::to_string(map.fetchFailures) + " times; last: " + why);
  }
}

void JobTracker::outputsLost(const std::string& slaveId, const std::string& why) {
  executorSlaves_.erase(slaveId);
  for (auto& [id, job] : jobs_) {
    if (job->state != Job::State::kRunning) continue;
    const bool reducesDone = std::all_of(job->reduces.begin(), job->reduces.end(),
                                         [](const Task& task) { return task.done; });
    if (reducesDone) continue;
    for (Task& map : job->maps) {
      if (map.done && map.winner.slaveId == slaveId) mapOutputLost(*job, map, why);
    }
  }
}

void JobTracker::maybeFinish(Job& job) {
  for (const Task& reduce : job.reduces) {
    if (!reduce.done) return;
  }
  job.state = Job::State::kSucceeded;
  job.finished = Clock::now();
  std::cerr << "JobTracker: " << job.id << " succeeded in " << secondsBetween(job.submitted, job.finished)
            << " s" << std::endl;
  for (Task& map : job.maps) killOthers(map, "");
  if (driver_ != nullptr) {
    for (const auto& [slaveId, host] : slaveHosts_) {
      if (executorSlaves_.count(slaveId) == 0) continue;
      SlaveID slave;
      slave.set_value(slaveId);
      driver_->sendFrameworkMessage(executor_.executor_id(), slave, "cleanup " + job.id);
    }
  }
  changed_.notify_all();
}

void JobTracker::failJob(Job& job, const std::string& message) {
  if (job.state != Job::State::kRunning) return;
  job.state = Job::State::kFailed;
  job.error = message;
  job.finished = Clock::now();
  std::cerr << "JobTracker: " << job.id << " failed: " << message << std::endl;
  for (Task& task : job.maps) killOthers(task, "");
  for (Task& task : job.reduces) killOthers(task, "");
  changed_.notify_all();
}

void JobTracker::killOthers(Task& task, const std::string& keep) {
  for (const Attempt& attempt : task.running) {
    if (attempt.id == keep || killed_.count(attempt.id) > 0) continue;
    killed_.insert(attempt.id);
    if (driver_ != nullptr) {
      TaskID id;
      id.set_value(attempt.id);
      driver_->killTask(id);
    }
  }
}

void JobTracker::frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                                  const std::string&) {}

void JobTracker::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  std::lock_guard<std::mutex> lock(mutex_);
  outputsLost(slaveId.value(), "slave " + slaveHosts_[slaveId.value()] + " was lost");
  changed_.notify_all();
}

void JobTracker::executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID& slaveId, int) {
  std::lock_guard<std::mutex> lock(mutex_);
  outputsLost(slaveId.value(), "the TaskTracker on " + slaveHosts_[slaveId.value()] + " exited");
  changed_.notify_all();
}

void JobTracker::error(SchedulerDriver*, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  fatal_ = message;
  std::cerr << "JobTracker: framework error: " << message << std::endl;
  for (auto& [id, job] : jobs_) {
    if (job->state == Job::State::kRunning) {
      job->state = Job::State::kFailed;
      job->error = "the framework was aborted: " + message;
      job->finished = Clock::now();
    }
  }
  changed_.notify_all();
}

json JobTracker::reportLocked(const Job& job) const {
  auto count = [](const std::vector<Task>& tasks) {
    return std::count_if(tasks.begin(), tasks.end(), [](const Task& t) { return t.done; });
  };
  uint64_t inputRecords = 0, outputRecords = 0;
  for (const Task& map : job.maps) inputRecords += map.records;
  for (const Task& reduce : job.reduces) outputRecords += reduce.records;
  const uint64_t launched = job.nodeLocal + job.rackLocal + job.remote;
  const double percent = launched == 0 ? 0 : 100.0 * static_cast<double>(job.nodeLocal) /
                                                 static_cast<double>(launched);
  const char* state = job.state == Job::State::kRunning     ? "running"
                      : job.state == Job::State::kSucceeded ? "succeeded"
                                                            : "failed";
  const Clock::time_point end = job.state == Job::State::kRunning ? Clock::now() : job.finished;
  return {{"id", job.id},
          {"name", job.spec.name},
          {"spec", toJson(job.spec)},
          {"state", state},
          {"error", job.error},
          {"submitted", job.submittedUtc},
          {"seconds", secondsBetween(job.submitted, end)},
          {"maps", {{"total", job.maps.size()}, {"done", count(job.maps)}}},
          {"reduces", {{"total", job.reduces.size()}, {"done", count(job.reduces)}}},
          {"locality",
           {{"node_local", job.nodeLocal},
            {"rack_local", job.rackLocal},
            {"remote", job.remote},
            {"percent", percent}}},
          {"attempts",
           {{"failed", job.failedAttempts},
            {"killed", job.killedAttempts},
            {"speculative", job.speculativeAttempts}}},
          {"recomputed_maps", job.recomputedMaps},
          {"remote_block_reads", job.remoteReads},
          {"map_input_records", inputRecords},
          {"output_records", outputRecords},
          {"output", outputReport(job.spec)}};
}

}  // namespace mesos::frameworks::mapreduce
