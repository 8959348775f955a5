#include "spark/driver.hpp"

#include <algorithm>
#include <cstdio>

#include "spark/protocol.hpp"

namespace mesos::frameworks::spark {

namespace {

double millis(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

std::string rackAttribute(const Offer& offer) {
  for (const Attribute& attribute : offer.attributes()) {
    if (attribute.name() != "rack") continue;
    if (attribute.has_text()) return attribute.text().value();
    if (attribute.has_scalar()) return std::to_string(attribute.scalar().value());
  }
  return "";
}

// "partition-<index>-<launch>" -> index.
std::optional<uint32_t> partitionOfTask(const std::string& taskId) {
  unsigned index = 0;
  unsigned launch = 0;
  if (std::sscanf(taskId.c_str(), "partition-%u-%u", &index, &launch) != 2) return std::nullopt;
  return index;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

}  // namespace

LogisticRegressionJob::LogisticRegressionJob(JobOptions options, std::ostream& out)
    : options_(std::move(options)), out_(out) {
  auto now = Clock::now();
  for (const dfs::BlockInfo& block : options_.file.blocks) {
    PartitionState partition;
    partition.index = block.index;
    partition.hosts = block.hosts;
    for (const std::string& host : block.hosts) partition.racks.insert(options_.file.rackOf(host));
    partition.pendingSince = now;
    partitions_.push_back(std::move(partition));
  }
  for (PartitionState& partition : partitions_) choosePreferred(partition);
  weights_.assign(options_.dims, 0.0);
}

void LogisticRegressionJob::setDriver(SchedulerDriver* driver) {
  std::lock_guard lock(mutex_);
  driver_ = driver;
}

bool LogisticRegressionJob::finished() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

JobReport LogisticRegressionJob::report() const {
  std::lock_guard lock(mutex_);
  return report_;
}

void LogisticRegressionJob::registered(SchedulerDriver*, const FrameworkID& frameworkId,
                                       const MasterInfo& masterInfo) {
  std::lock_guard lock(mutex_);
  out_ << "registered as framework " << frameworkId.value() << " with master "
       << masterInfo.pid() << std::endl;
}

void LogisticRegressionJob::reregistered(SchedulerDriver*, const MasterInfo&) {
  std::lock_guard lock(mutex_);
  out_ << "re-registered with the master" << std::endl;
}

void LogisticRegressionJob::disconnected(SchedulerDriver*) {
  std::lock_guard lock(mutex_);
  out_ << "disconnected from the master; the driver reconnects" << std::endl;
}

void LogisticRegressionJob::resourceOffers(SchedulerDriver*, const std::vector<Offer>& offers) {
  std::lock_guard lock(mutex_);
  for (const Offer& offer : offers) placeOn(offer);
  if (!ended_ && !suppressed_ && allPlaced()) {
    driver_->suppressOffers();
    suppressed_ = true;
  }
}

LogisticRegressionJob::Locality LogisticRegressionJob::localityOf(
    const PartitionState& partition, const std::string& host, const std::string& rack) const {
  if (std::find(partition.hosts.begin(), partition.hosts.end(), host) != partition.hosts.end()) {
    return Locality::kNode;
  }
  if (!rack.empty() && partition.racks.contains(rack)) return Locality::kRack;
  return Locality::kAny;
}

void LogisticRegressionJob::choosePreferred(PartitionState& partition) {
  std::map<std::string, size_t> load;
  for (const PartitionState& other : partitions_) {
    if (other.index != partition.index && other.preferred) load[*other.preferred]++;
  }
  partition.preferred.reset();
  for (const std::string& host : partition.hosts) {
    if (avoided_.contains(host) || lostHosts_.contains(host)) continue;
    if (!partition.preferred || load[host] < load[*partition.preferred]) {
      partition.preferred = host;
    }
  }
}

bool LogisticRegressionJob::allowed(const PartitionState& partition, const std::string& host,
                                    Locality locality, Clock::time_point now) const {
  auto waited = now - partition.pendingSince;
  switch (locality) {
    case Locality::kNode:
      return partition.preferred == host || waited >= options_.localityWait;
    case Locality::kRack:
      return waited >= options_.localityWait;
    case Locality::kAny:
      return waited >= 2 * options_.localityWait;
  }
  return false;
}

ExecutorInfo LogisticRegressionJob::executorInfo(const std::string& id,
                                                 const std::string& host) const {
  ExecutorInfo executor;
  executor.mutable_executor_id()->set_value(id);
  executor.set_name("mesos-spark-lr executor on " + host);
  executor.set_source("mesos-spark-lr");
  executor.mutable_command()->set_value(options_.executorPath);
  executor.mutable_command()->set_shell(false);
  executor.mutable_command()->add_arguments("mesos-spark-executor");
  *executor.mutable_resources() = options_.executorResources.proto();
  return executor;
}

LogisticRegressionJob::ExecutorState* LogisticRegressionJob::liveExecutorOn(
    const SlaveID& slaveId) {
  for (auto& [id, executor] : executors_) {
    if (executor.alive && executor.slaveId.value() == slaveId.value()) return &executor;
  }
  return nullptr;
}

void LogisticRegressionJob::placeOn(const Offer& offer) {
  Filters filters;
  const std::string& host = offer.hostname();
  if (ended_ || lostHosts_.contains(host) || allPlaced()) {
    filters.set_refuse_seconds(30);
    driver_->declineOffer(offer.id(), filters);
    return;
  }
  auto now = Clock::now();
  std::string rack = options_.file.rackOf(host);
  if (rack.empty()) rack = rackAttribute(offer);
  Resources left(offer.resources());
  ExecutorState* executor = liveExecutorOn(offer.slave_id());
  std::vector<TaskInfo> tasks;
  for (PartitionState& partition : partitions_) {
    if (partition.executor) continue;
    Locality locality = localityOf(partition, host, rack);
    if (!allowed(partition, host, locality, now)) continue;
    Resources need = options_.taskResources;
    if (executor == nullptr) need += options_.executorResources;
    if (!left.contains(need)) break;
    left -= need;
    if (executor == nullptr) executor = &newExecutor(offer);
    tasks.push_back(launch(partition, *executor, locality));
  }
  filters.set_refuse_seconds(1);
  if (tasks.empty()) {
    driver_->declineOffer(offer.id(), filters);
  } else {
    driver_->launchTasks(offer.id(), tasks, filters);
  }
}

LogisticRegressionJob::ExecutorState& LogisticRegressionJob::newExecutor(const Offer& offer) {
  const std::string& host = offer.hostname();
  ExecutorState executor;
  executor.id = "spark-" + host + "-" + std::to_string(++generations_[host]);
  executor.slaveId = offer.slave_id();
  executor.host = host;
  executor.lastHeard = Clock::now();
  std::string id = executor.id;
  return executors_.emplace(id, std::move(executor)).first->second;
}

TaskInfo LogisticRegressionJob::launch(PartitionState& partition, ExecutorState& executor,
                                       Locality locality) {
  partition.launches++;
  partition.executor = executor.id;
  partition.running = false;
  partition.taskId =
      "partition-" + std::to_string(partition.index) + "-" + std::to_string(partition.launches);
  executor.partitions.insert(partition.index);

  PartitionTask data;
  data.root = options_.root;
  data.file = options_.file.name;
  data.partition = partition.index;
  data.dims = options_.dims;
  data.cache = options_.cache;
  data.dropEvery = options_.dropEvery;
  TaskInfo task;
  task.set_name("partition " + std::to_string(partition.index) + " of " + options_.file.name);
  task.mutable_task_id()->set_value(partition.taskId);
  task.mutable_slave_id()->CopyFrom(executor.slaveId);
  *task.mutable_executor() = executorInfo(executor.id, executor.host);
  *task.mutable_resources() = options_.taskResources.proto();
  task.set_data(encode(data));

  const char* where = "remote";
  if (locality == Locality::kNode) {
    where = "node-local";
    report_.nodeLocal++;
  } else if (locality == Locality::kRack) {
    where = "rack-local";
    report_.rackLocal++;
  } else {
    report_.remote++;
  }
  if (partition.launches > 1) report_.relaunched++;
  out_ << "partition " << partition.index << " -> " << executor.host << " (" << where
       << ", executor " << executor.id << ")" << std::endl;
  return task;
}

void LogisticRegressionJob::offerRescinded(SchedulerDriver*, const OfferID&) {}

bool LogisticRegressionJob::allPlaced() const {
  return std::all_of(partitions_.begin(), partitions_.end(),
                     [](const PartitionState& p) { return p.executor.has_value(); });
}

void LogisticRegressionJob::unplace(uint32_t index, const std::string& why) {
  PartitionState& partition = partitions_[index];
  if (partition.executor) {
    auto executor = executors_.find(*partition.executor);
    if (executor != executors_.end()) executor->second.partitions.erase(index);
  }
  partition.executor.reset();
  partition.running = false;
  partition.taskId.clear();
  partition.sends = 0;
  partition.pendingSince = Clock::now();
  choosePreferred(partition);
  out_ << "partition " << index << " lost (" << why << "); placing it again" << std::endl;
  if (suppressed_ && !ended_) {
    driver_->reviveOffers();
    suppressed_ = false;
  }
}

void LogisticRegressionJob::loseExecutor(ExecutorState& executor, const std::string& why,
                                         bool kill) {
  if (!executor.alive) return;
  executor.alive = false;
  avoided_.insert(executor.host);
  out_ << "executor " << executor.id << " on " << executor.host << " lost: " << why << std::endl;
  std::set<uint32_t> held = executor.partitions;
  for (uint32_t index : held) {
    if (kill && !partitions_[index].taskId.empty()) {
      TaskID taskId;
      taskId.set_value(partitions_[index].taskId);
      driver_->killTask(taskId);
    }
    unplace(index, "its executor was lost");
  }
}

void LogisticRegressionJob::statusUpdate(SchedulerDriver*, const TaskStatus& status) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  std::optional<uint32_t> index = partitionOfTask(status.task_id().value());
  if (!index || *index >= partitions_.size()) return;
  PartitionState& partition = partitions_[*index];
  if (partition.taskId != status.task_id().value()) return;  // an earlier launch
  switch (status.state()) {
    case TASK_STAGING:
    case TASK_STARTING:
      return;
    case TASK_RUNNING:
      partition.running = true;
      if (iteration_ == 0) {
        bool all = std::all_of(partitions_.begin(), partitions_.end(),
                               [](const PartitionState& p) { return p.running; });
        if (all) startIteration();
      } else if (!results_.contains(*index)) {
        sendRequests({*index});
      }
      return;
    default:
      break;
  }
  std::string why = "task " + status.task_id().value() + " " + TaskState_Name(status.state()) +
                    (status.message().empty() ? "" : ": " + status.message());
  // Any end of the current task counts (the tasks this driver kills itself
  // were forgotten before, so their updates do not come here).
  partition.lastFailure = why;
  if (++partition.failures >= options_.maxFailures) {
    fail("partition " + std::to_string(*index) + " failed " + std::to_string(partition.failures) +
         " times; last: " + why);
    return;
  }
  unplace(*index, why);
}

void LogisticRegressionJob::frameworkMessage(SchedulerDriver*, const ExecutorID& executorId,
                                             const SlaveID&, const std::string& data) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  auto executor = executors_.find(executorId.value());
  if (executor != executors_.end()) executor->second.lastHeard = Clock::now();
  std::optional<ExecutorMessage> message = decodeExecutorMessage(data);
  if (!message) {
    out_ << "ignored a malformed message from executor " << executorId.value() << std::endl;
    return;
  }
  if (message->failure) {
    const PartitionFailure& failure = *message->failure;
    if (failure.iteration != iteration_ || failure.partition >= partitions_.size()) return;
    PartitionState& partition = partitions_[failure.partition];
    if (partition.executor != executorId.value()) return;
    partition.lastFailure = failure.message;
    if (++partition.failures >= options_.maxFailures) {
      fail("partition " + std::to_string(failure.partition) + " failed " +
           std::to_string(partition.failures) + " times; last: " + failure.message);
      return;
    }
    TaskID taskId;
    taskId.set_value(partition.taskId);
    driver_->killTask(taskId);
    unplace(failure.partition, failure.message);
    return;
  }
  if (!message->result) return;  // an ack: lastHeard is all it is for
  const PartitionResult& result = *message->result;
  if (result.iteration != iteration_ || result.partition >= partitions_.size() ||
      results_.contains(result.partition)) {
    return;
  }
  if (result.partial.gradient.size() != options_.dims) {
    out_ << "ignored a result of the wrong dimension from executor " << executorId.value()
         << std::endl;
    return;
  }
  if (result.loaded) loadedThisIteration_++;
  if (result.remote) report_.remoteReads++;
  results_.emplace(result.partition, result.partial);
  if (results_.size() == partitions_.size()) finishIteration();
}

void LogisticRegressionJob::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  for (auto& [id, executor] : executors_) {
    if (executor.slaveId.value() != slaveId.value()) continue;
    lostHosts_.insert(executor.host);
    loseExecutor(executor, "its slave was lost", false);
  }
}

void LogisticRegressionJob::executorLost(SchedulerDriver*, const ExecutorID& executorId,
                                         const SlaveID&, int status) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  auto executor = executors_.find(executorId.value());
  if (executor == executors_.end()) return;
  loseExecutor(executor->second, "it exited with status " + std::to_string(status), false);
}

void LogisticRegressionJob::error(SchedulerDriver*, const std::string& message) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  fail("the scheduler driver: " + message);
}

void LogisticRegressionJob::tick() {
  std::lock_guard lock(mutex_);
  if (ended_ || iteration_ == 0 || driver_ == nullptr) return;
  auto now = Clock::now();
  // Executors that owe results and have said nothing for too long.
  const auto silence = options_.resendTimeout * options_.maxResends;
  for (auto& [id, executor] : executors_) {
    if (!executor.alive) continue;
    std::optional<Clock::time_point> owedSince;
    for (uint32_t index : executor.partitions) {
      const PartitionState& partition = partitions_[index];
      if (!partition.running || partition.sends == 0 || results_.contains(index)) continue;
      if (!owedSince || partition.firstSent < *owedSince) owedSince = partition.firstSent;
    }
    if (!owedSince) continue;
    if (now - std::max(executor.lastHeard, *owedSince) > silence) {
      loseExecutor(executor,
                   "no answer for " + fixed(millis(silence) / 1000, 1) + " s", true);
    }
  }
  std::vector<uint32_t> overdue;
  for (const PartitionState& partition : partitions_) {
    if (!partition.executor || !partition.running || results_.contains(partition.index)) continue;
    if (partition.sends > 0 && now - partition.lastSent < options_.resendTimeout) continue;
    overdue.push_back(partition.index);
  }
  if (!overdue.empty()) sendRequests(overdue);
}

void LogisticRegressionJob::startIteration() {
  iteration_++;
  results_.clear();
  loadedThisIteration_ = 0;
  iterationStart_ = Clock::now();
  std::vector<uint32_t> indexes;
  for (PartitionState& partition : partitions_) {
    partition.sends = 0;
    if (partition.executor && partition.running) indexes.push_back(partition.index);
  }
  sendRequests(indexes);
}

void LogisticRegressionJob::sendRequests(const std::vector<uint32_t>& indexes) {
  auto now = Clock::now();
  std::map<std::string, std::vector<uint32_t>> byExecutor;
  for (uint32_t index : indexes) byExecutor[*partitions_[index].executor].push_back(index);
  for (const auto& [id, group] : byExecutor) {
    const ExecutorState& executor = executors_.at(id);
    ComputeRequest request;
    request.iteration = iteration_;
    request.weights = weights_;
    if (evaluating()) request.reference = options_.truth;
    request.partitions = group;
    ExecutorID executorId;
    executorId.set_value(id);
    driver_->sendFrameworkMessage(executorId, executor.slaveId, encode(request));
    for (uint32_t index : group) {
      PartitionState& partition = partitions_[index];
      if (partition.sends == 0) partition.firstSent = now;
      if (partition.sends > 0) report_.resent++;
      partition.lastSent = now;
      partition.sends++;
    }
  }
}

void LogisticRegressionJob::finishIteration() {
  double ms = millis(Clock::now() - iterationStart_);
  std::vector<double> gradient(options_.dims, 0.0);
  uint64_t points = 0;
  uint64_t correct = 0;
  uint64_t referenceCorrect = 0;
  double loss = 0;
  // In partition order (results_ is ordered), whoever computed them.
  for (const auto& [index, partial] : results_) {
    for (uint32_t j = 0; j < options_.dims; ++j) gradient[j] += partial.gradient[j];
    points += partial.points;
    correct += partial.correct;
    referenceCorrect += partial.referenceCorrect;
    loss += partial.loss;
  }
  if (points == 0) {
    fail("the input file " + options_.file.name + " holds no points");
    return;
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(points);
  const double meanLoss = loss / static_cast<double>(points);
  if (evaluating()) {
    report_.points = points;
    report_.loss = meanLoss;
    report_.accuracy = accuracy;
    if (!options_.truth.empty()) {
      report_.referenceAccuracy =
          static_cast<double>(referenceCorrect) / static_cast<double>(points);
    }
    out_ << "final pass: " << fixed(ms, 1) << " ms, loss " << fixed(meanLoss, 6)
         << ", accuracy " << fixed(accuracy, 4) << std::endl;
    finish();
    return;
  }
  report_.iterationMs.push_back(ms);
  out_ << "iteration " << iteration_ << ": " << fixed(ms, 1) << " ms, loss " << fixed(meanLoss, 6)
       << ", accuracy " << fixed(accuracy, 4) << ", partitions loaded " << loadedThisIteration_
       << "/" << partitions_.size() << std::endl;
  for (uint32_t j = 0; j < options_.dims; ++j) {
    weights_[j] -= options_.step * gradient[j] / static_cast<double>(points);
  }
  startIteration();
}

void LogisticRegressionJob::abandon(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (!ended_) fail(why);
}

void LogisticRegressionJob::fail(const std::string& message) {
  ended_ = true;
  report_.error = message;
  if (driver_ != nullptr) driver_->stop();
}

void LogisticRegressionJob::finish() {
  ended_ = true;
  report_.succeeded = true;
  report_.weights = weights_;
  driver_->stop();
}

}  // namespace mesos::frameworks::spark
