#include "torque/scheduler.hpp"

#include <chrono>
#include <cmath>
#include <iostream>

#include "common/resources.hpp"
#include "torque/protocol.hpp"

namespace mesos::frameworks::torque {

namespace {

using nlohmann::json;

constexpr double kEpsilon = 1e-6;

bool terminal(TaskState state) {
  return state == TASK_FINISHED || state == TASK_FAILED || state == TASK_KILLED ||
         state == TASK_LOST || state == TASK_ERROR;
}

Reply errorReply(int status, const std::string& message) {
  return Reply{status, json{{"error", message}}};
}

// A job or file name usable in "<name>.o<id>": no slash, no white space.
bool validName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (char c : name) {
    if (c == '/' || static_cast<unsigned char>(c) <= ' ') return false;
  }
  return true;
}

std::string stringField(const json& request, const char* key) {
  auto it = request.find(key);
  return it != request.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The JSON request of mesos-qsub as a JobSpec, or an error.
Parsed<JobSpec> specOf(const json& request) {
  using Result = Parsed<JobSpec>;
  if (!request.is_object()) return Result::failure("the request is not a JSON object");
  JobSpec spec;
  spec.name = stringField(request, "name");
  spec.user = stringField(request, "user");
  spec.submitHost = stringField(request, "host");
  spec.script = stringField(request, "script");
  spec.workdir = stringField(request, "workdir");
  spec.outDir = stringField(request, "out_dir");
  spec.outPath = stringField(request, "out_path");
  spec.errDir = stringField(request, "err_dir");
  spec.errPath = stringField(request, "err_path");
  spec.join = request.value("join", false);
  if (!validName(spec.name)) {
    return Result::failure("job name '" + spec.name +
                           "' is not usable in a file name (-N: no '/' or spaces)");
  }
  if (spec.script.empty()) return Result::failure("the job script is empty");
  if (!spec.workdir.starts_with("/")) {
    return Result::failure("the working directory '" + spec.workdir + "' is not an absolute path");
  }
  for (const std::string* path : {&spec.outDir, &spec.outPath, &spec.errDir, &spec.errPath}) {
    if (!path->empty() && !path->starts_with("/")) {
      return Result::failure("the output path '" + *path + "' is not absolute");
    }
  }
  if (spec.outDir.empty() == spec.outPath.empty()) {
    return Result::failure("give exactly one of out_dir and out_path");
  }
  if (!spec.join && spec.errDir.empty() == spec.errPath.empty()) {
    return Result::failure("give exactly one of err_dir and err_path");
  }
  if (auto it = request.find("environment"); it != request.end() && it->is_object()) {
    for (const auto& [name, value] : it->items()) {
      if (value.is_string()) spec.environment[name] = value.get<std::string>();
    }
  }
  if (auto it = request.find("resources"); it != request.end()) {
    if (!it->is_array()) return Result::failure("resources must be a list of -l strings");
    for (const json& list : *it) {
      if (!list.is_string()) return Result::failure("resources must be a list of -l strings");
      spec.resourceLists.push_back(list.get<std::string>());
    }
  }
  Parsed<ResourceRequest> parsed = parseResourceLists(spec.resourceLists);
  if (!parsed.ok()) return Result::failure(parsed.error);
  spec.request = *parsed.value;
  return Result{std::move(spec), ""};
}

}  // namespace

TorqueScheduler::TorqueScheduler(ServerConfig config)
    : config_(std::move(config)), queue_(config_.queue) {}

bool TorqueScheduler::awaitRegistration(std::chrono::seconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return registered_ || !fatalError_.empty(); });
  return registered_;
}

std::string TorqueScheduler::fatalError() {
  std::lock_guard lock(mutex_);
  return fatalError_;
}

Reply TorqueScheduler::submit(const json& request) {
  Parsed<JobSpec> spec = Parsed<JobSpec>::failure("");
  try {
    spec = specOf(request);
  } catch (const json::exception& e) {
    return errorReply(400, std::string("a field of the request has the wrong type: ") + e.what());
  }
  if (!spec.ok()) return errorReply(400, spec.error);
  std::lock_guard lock(mutex_);
  if (!registered_) {
    // Its limits (the role's guarantee) come with the registration.
    return errorReply(503,
                      "the server has not registered with the master yet (is its --master "
                      "right and the master up?); try again shortly");
  }
  int64_t nowUnix = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  Parsed<int64_t> id = queue_.submit(std::move(*spec.value), nowUnix);
  if (!id.ok()) return errorReply(400, id.error);
  std::cerr << "job " << *id.value << " queued" << std::endl;
  reschedule();
  // Revives on every submit that wants nodes: it also clears the long
  // filters of earlier declines.
  if (queue_.nodesWanted() > 0 && driver_ != nullptr) {
    driver_->reviveOffers();
    suppressed_ = false;
  }
  return Reply{201, json{{"id", *id.value}}};
}

Reply TorqueScheduler::jobs() {
  std::lock_guard lock(mutex_);
  json list = json::array();
  TimePoint now = Clock::now();
  for (const auto& [id, job] : queue_.jobs()) list.push_back(jobJson(job, now));
  return Reply{200, json{{"jobs", list}}};
}

Reply TorqueScheduler::job(int64_t id) {
  std::lock_guard lock(mutex_);
  const Job* job = queue_.job(id);
  if (job == nullptr) return errorReply(404, "unknown job " + std::to_string(id));
  return Reply{200, jobJson(*job, Clock::now())};
}

Reply TorqueScheduler::wait(int64_t id, std::chrono::seconds timeout) {
  std::unique_lock lock(mutex_);
  auto completedOrGone = [&] {
    const Job* job = queue_.job(id);
    return stopping_ || job == nullptr || job->state == JobState::Completed;
  };
  changed_.wait_for(lock, timeout, completedOrGone);
  const Job* job = queue_.job(id);
  if (job == nullptr) return errorReply(404, "unknown job " + std::to_string(id));
  return Reply{200, jobJson(*job, Clock::now())};
}

Reply TorqueScheduler::remove(int64_t id) {
  std::lock_guard lock(mutex_);
  Effects effects;
  Queue::Removal removal = queue_.remove(id, Clock::now(), &effects);
  apply(effects);
  switch (removal) {
    case Queue::Removal::Unknown:
      return errorReply(404, "unknown job " + std::to_string(id));
    case Queue::Removal::AlreadyCompleted:
      return errorReply(409, "job " + std::to_string(id) + " has already completed");
    case Queue::Removal::Deleted:
    case Queue::Removal::Killing:
      break;
  }
  reschedule();
  return Reply{200, jobJson(*queue_.job(id), Clock::now())};
}

Reply TorqueScheduler::status() {
  std::lock_guard lock(mutex_);
  json nodes = json::array();
  double cpus = 0;
  int64_t mem = 0;
  for (const auto& [id, node] : queue_.nodes()) {
    const char* state = node.state == NodeState::Launching ? "launching"
                        : node.state == NodeState::Up      ? "up"
                                                           : "releasing";
    nodes.push_back(json{{"id", id},
                         {"hostname", node.hostname},
                         {"slave_id", node.slaveId},
                         {"state", state},
                         {"cpus", node.cpus},
                         {"mem", node.memMb},
                         {"used_cpus", node.usedCpus},
                         {"used_mem", node.usedMemMb},
                         {"jobs", node.jobs}});
    cpus += node.cpus;
    mem += node.memMb;
  }
  return Reply{200, json{{"registered", registered_},
                         {"framework_id", frameworkId_},
                         {"role", config_.role},
                         {"guarantee", guarantee_},
                         {"max_nodes", queue_.maxNodes()},
                         {"node_cpus", config_.queue.nodeCpus},
                         {"node_mem", config_.queue.nodeMemMb},
                         {"nodes", nodes},
                         {"held", json{{"nodes", nodes.size()}, {"cpus", cpus}, {"mem", mem}}},
                         {"nodes_wanted", queue_.nodesWanted()},
                         {"suppressed", suppressed_},
                         {"queued", queue_.count(JobState::Queued)},
                         {"running", queue_.count(JobState::Running)},
                         {"exiting", queue_.count(JobState::Exiting)},
                         {"completed", queue_.count(JobState::Completed)}}};
}

void TorqueScheduler::stopWaiting() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  changed_.notify_all();
}

void TorqueScheduler::tick() {
  std::lock_guard lock(mutex_);
  if (!registered_) return;
  apply(queue_.resends(Clock::now()));
  reschedule();
}

void TorqueScheduler::registered(SchedulerDriver*, const FrameworkID& frameworkId,
                                 const MasterInfo& masterInfo) {
  std::lock_guard lock(mutex_);
  frameworkId_ = frameworkId.value();
  registered_ = true;
  // The role's guarantee bounds how many nodes it holds: within it, the
  // master never revokes them.
  double cpus = 0;
  double mem = 0;
  for (const Resource& resource : driver_->guarantee()) {
    if (resource.name() == "cpus") cpus += resource.scalar().value();
    if (resource.name() == "mem") mem += resource.scalar().value();
  }
  if (cpus > 0 || mem > 0) {
    int byCpus = cpus > 0 ? static_cast<int>(std::floor(cpus / config_.queue.nodeCpus + kEpsilon))
                          : config_.queue.maxNodes;
    int byMem = mem > 0 ? static_cast<int>(std::floor(
                              mem / static_cast<double>(config_.queue.nodeMemMb) + kEpsilon))
                        : config_.queue.maxNodes;
    guarantee_ = "cpus:" + std::to_string(cpus) + ";mem:" + std::to_string(mem);
    queue_.limitNodes(std::min(byCpus, byMem), "the guarantee of role '" + config_.role + "'");
  }
  std::cerr << "registered as framework " << frameworkId_ << " with master " << masterInfo.pid()
            << "; holding at most " << queue_.maxNodes() << " node(s)" << std::endl;
  // Nothing is queued yet: no offers until a job is submitted.
  driver_->suppressOffers();
  suppressed_ = true;
  changed_.notify_all();
}

void TorqueScheduler::reregistered(SchedulerDriver*, const MasterInfo&) {
  std::lock_guard lock(mutex_);
  suppressed_ = false;  // the master's view is unknown: match it again
  matchOfferInterest();
}

void TorqueScheduler::disconnected(SchedulerDriver*) {
  std::cerr << "disconnected from the master; the driver re-registers" << std::endl;
}

void TorqueScheduler::resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) {
  std::lock_guard lock(mutex_);
  int wanted = queue_.nodesWanted();
  for (const Offer& offer : offers) {
    if (wanted > 0 && queue_.slaveFree(offer.slave_id().value())) {
      google::protobuf::RepeatedPtrField<Resource> resources = nodeResources(offer);
      if (!resources.empty()) {
        std::string nodeId = queue_.nextNodeId();
        queue_.nodeLaunched(nodeId, offer.slave_id().value(), offer.hostname(),
                            config_.queue.nodeCpus, config_.queue.nodeMemMb, Clock::now());
        driver->launchTasks(offer.id(), {nodeTask(offer, nodeId, resources)}, declineFilters());
        std::cerr << "launching " << nodeId << " on " << offer.hostname() << std::endl;
        wanted--;
        continue;
      }
    }
    driver->declineOffer(offer.id(), declineFilters());
  }
  matchOfferInterest();
}

void TorqueScheduler::offerRescinded(SchedulerDriver*, const OfferID&) {}

void TorqueScheduler::statusUpdate(SchedulerDriver*, const TaskStatus& status) {
  std::lock_guard lock(mutex_);
  const std::string& nodeId = status.task_id().value();
  if (status.state() == TASK_RUNNING) {
    queue_.nodeUp(nodeId, Clock::now());
    std::cerr << nodeId << " is up" << std::endl;
  } else if (terminal(status.state())) {
    std::string reason = TaskState_Name(status.state());
    if (!status.message().empty()) reason += " (" + status.message() + ")";
    std::cerr << nodeId << " ended: " << reason << std::endl;
    Effects effects;
    queue_.nodeGone(nodeId, reason, Clock::now(), &effects);
    apply(effects);
  }
  reschedule();
}

void TorqueScheduler::frameworkMessage(SchedulerDriver*, const ExecutorID& executorId,
                                       const SlaveID&, const std::string& data) {
  json message = json::parse(data, nullptr, false);
  if (!message.is_object() || !message.contains("job") || !message["job"].is_number_integer()) {
    std::cerr << "ignoring a malformed message from " << executorId.value() << std::endl;
    return;
  }
  int64_t id = message["job"].get<int64_t>();
  std::string type;
  int exitStatus = -1;
  std::string comment;
  try {
    type = message.value("type", "");
    exitStatus = message.value("exit_status", -1);
    comment = message.value("comment", "");
  } catch (const json::exception&) {
    std::cerr << "ignoring a malformed message from " << executorId.value() << std::endl;
    return;
  }
  std::lock_guard lock(mutex_);
  if (type == "started") {
    queue_.jobAcknowledged(id);
  } else if (type == "done") {
    Effects effects;
    queue_.jobEnded(id, exitStatus, comment, Clock::now(), &effects);
    apply(effects);
    sendToNode(executorId.value(), json{{"type", "ack"}, {"job", id}});
    reschedule();
  }
}

void TorqueScheduler::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> lost;
  for (const auto& [id, node] : queue_.nodes()) {
    if (node.slaveId == slaveId.value()) lost.push_back(id);
  }
  Effects effects;
  for (const std::string& id : lost) queue_.nodeGone(id, "slave lost", Clock::now(), &effects);
  apply(effects);
  reschedule();
}

void TorqueScheduler::executorLost(SchedulerDriver*, const ExecutorID& executorId, const SlaveID&,
                                   int status) {
  std::lock_guard lock(mutex_);
  Effects effects;
  queue_.nodeGone(executorId.value(), "executor exited with wait status " + std::to_string(status),
                  Clock::now(), &effects);
  apply(effects);
  reschedule();
}

void TorqueScheduler::error(SchedulerDriver*, const std::string& message) {
  std::lock_guard lock(mutex_);
  fatalError_ = message;
  std::cerr << "mesos-torque-server: " << message << std::endl;
  changed_.notify_all();
}

void TorqueScheduler::apply(const Effects& effects) {
  for (int64_t id : effects.run) sendRun(*queue_.job(id));
  for (int64_t id : effects.kill) {
    const Job* job = queue_.job(id);
    if (job != nullptr && !job->nodes.empty()) {
      sendToNode(job->nodes.front(), json{{"type", "kill"}, {"job", id}});
    }
  }
  for (const std::string& nodeId : effects.release) {
    std::cerr << "giving back idle " << nodeId << std::endl;
    TaskID taskId;
    taskId.set_value(nodeId);
    driver_->killTask(taskId);
  }
  for (int64_t id : effects.completed) {
    const Job* job = queue_.job(id);
    std::cerr << "job " << id << " completed, exit status " << job->exitStatus.value_or(-1)
              << (job->comment.empty() ? "" : ": " + job->comment) << std::endl;
  }
  if (!effects.completed.empty()) changed_.notify_all();
}

void TorqueScheduler::sendRun(const Job& job) {
  const JobSpec& spec = job.spec;
  json message{
      {"type", "run"},
      {"job", job.id},
      {"name", spec.name},
      {"user", spec.user},
      {"submit_host", spec.submitHost},
      {"script", spec.script},
      {"workdir", spec.workdir},
      {"out", job.outputPath()},
      {"err", job.errorPath()},
      {"hosts", job.hosts},
      {"ppn", spec.request.ppn},
      {"walltime", spec.request.walltimeSeconds.value_or(config_.queue.defaultWalltimeSeconds)},
      {"environment", spec.environment}};
  sendToNode(job.nodes.front(), message);
}

void TorqueScheduler::sendToNode(const std::string& nodeId, const json& message) {
  const auto& nodes = queue_.nodes();
  auto it = nodes.find(nodeId);
  if (it == nodes.end()) return;
  ExecutorID executorId;
  executorId.set_value(nodeId);
  SlaveID slaveId;
  slaveId.set_value(it->second.slaveId);
  driver_->sendFrameworkMessage(executorId, slaveId, jsonText(message));
}

void TorqueScheduler::reschedule() {
  apply(queue_.schedule(Clock::now()));
  matchOfferInterest();
}

void TorqueScheduler::matchOfferInterest() {
  if (!registered_ || driver_ == nullptr) return;
  bool want = queue_.nodesWanted() > 0;
  if (want && suppressed_) {
    driver_->reviveOffers();
    suppressed_ = false;
  } else if (!want && !suppressed_) {
    driver_->suppressOffers();
    suppressed_ = true;
  }
}

google::protobuf::RepeatedPtrField<Resource> TorqueScheduler::nodeResources(
    const Offer& offer) const {
  google::protobuf::RepeatedPtrField<Resource> taken;
  const std::pair<const char*, double> wants[] = {
      {"cpus", config_.queue.nodeCpus}, {"mem", static_cast<double>(config_.queue.nodeMemMb)}};
  for (const auto& [name, amount] : wants) {
    double need = amount;
    // The role's reservation first: it is what the role is sure to keep.
    for (const std::string& role : {config_.role, std::string("*")}) {
      for (const Resource& resource : offer.resources()) {
        if (need <= kEpsilon) break;
        if (resource.name() != name || resource.role() != role ||
            resource.type() != Value::SCALAR || resource.has_revocable()) {
          continue;
        }
        double take = std::min(need, resource.scalar().value());
        if (take <= kEpsilon) continue;
        *taken.Add() = scalarResource(name, take, role);
        need -= take;
      }
      if (role == "*") break;
    }
    if (need > kEpsilon) return {};
  }
  return taken;
}

Filters TorqueScheduler::declineFilters() const {
  Filters filters;
  filters.set_refuse_seconds(config_.declineSeconds);
  // A standing filter: only slaves with room for a whole node are offered.
  OfferFilters* standing = filters.mutable_offer_filters();
  *standing->add_min_free() = scalarResource("cpus", config_.queue.nodeCpus, "*");
  *standing->add_min_free() =
      scalarResource("mem", static_cast<double>(config_.queue.nodeMemMb), "*");
  return filters;
}

TaskInfo TorqueScheduler::nodeTask(
    const Offer& offer, const std::string& nodeId,
    const google::protobuf::RepeatedPtrField<Resource>& resources) const {
  TaskInfo task;
  task.set_name("torque " + nodeId + " on " + offer.hostname());
  task.mutable_task_id()->set_value(nodeId);
  task.mutable_slave_id()->CopyFrom(offer.slave_id());
  *task.mutable_resources() = resources;
  ExecutorInfo* executor = task.mutable_executor();
  executor->mutable_executor_id()->set_value(nodeId);
  executor->set_name("mesos-torque-mom " + nodeId);
  executor->mutable_command()->set_value("exec '" + config_.executorPath + "'");
  return task;
}

json TorqueScheduler::jobJson(const Job& job, TimePoint now) const {
  const ResourceRequest& request = job.spec.request;
  json out{{"id", job.id},
           {"name", job.spec.name},
           {"user", job.spec.user},
           {"state", std::string(1, stateLetter(job.state))},
           {"seconds_used", job.secondsUsed(now)},
           {"time_used", formatDuration(job.secondsUsed(now))},
           {"hosts", job.hosts},
           {"nodes", request.nodes},
           {"ppn", request.ppn},
           {"mem_mb", request.memMb},
           {"walltime", request.walltimeSeconds
                            ? formatDuration(*request.walltimeSeconds)
                            : formatDuration(config_.queue.defaultWalltimeSeconds) + " (default)"},
           {"resource_lists", job.spec.resourceLists},
           {"workdir", job.spec.workdir},
           {"output_path", job.outputPath()},
           {"error_path", job.errorPath()},
           {"submitted", job.submittedUnix},
           {"comment", job.comment}};
  if (job.exitStatus) out["exit_status"] = *job.exitStatus;
  return out;
}

}  // namespace mesos::frameworks::torque
