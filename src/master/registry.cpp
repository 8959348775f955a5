#include "master/registry.hpp"

#include <cctype>
#include <limits>

#include <glog/logging.h>

#include "common/task_states.hpp"

namespace mesos::internal::master {

namespace {

// How many of a task's statuses its record keeps (for /state).
constexpr int kStatusesKept = 8;

// The part of a status that /state shows.
TaskStatus slim(const TaskStatus& status) {
  TaskStatus out;
  out.mutable_task_id()->CopyFrom(status.task_id());
  out.set_state(status.state());
  if (status.has_timestamp()) out.set_timestamp(status.timestamp());
  if (status.has_message()) out.set_message(status.message());
  if (status.has_healthy()) out.set_healthy(status.healthy());
  // The container's networks and addresses (/state shows them).
  if (status.has_container_status()) *out.mutable_container_status() = status.container_status();
  return out;
}

}  // namespace

Registry::Registry(size_t maxCompletedFrameworks, size_t maxCompletedTasksPerFramework)
    : maxCompletedFrameworks_(maxCompletedFrameworks),
      maxCompletedTasks_(maxCompletedTasksPerFramework) {}

Registry::~Registry() = default;

// Frameworks.

Framework* Registry::framework(const std::string& id) {
  auto it = frameworks_.find(id);
  return it != frameworks_.end() && it->second->registered ? it->second.get() : nullptr;
}

const Framework* Registry::framework(const std::string& id) const {
  return const_cast<Registry*>(this)->framework(id);
}

Framework& Registry::entry(const FrameworkID& id) {
  auto [it, added] = frameworks_.try_emplace(id.value());
  if (added) {
    it->second = std::make_unique<Framework>();
    it->second->id = id;
    version_++;
  }
  return *it->second;
}

void Registry::dropIfEmpty(Framework& framework) {
  if (framework.registered || !framework.tasks.empty() || !framework.executorSlaves.empty()) {
    return;
  }
  version_++;
  frameworks_.erase(framework.id.value());
}

Framework& Registry::registerFramework(const FrameworkInfo& info, const UPID& pid, double now,
                                       bool http) {
  Framework& framework = entry(info.id());
  CHECK(!framework.registered) << "framework " << info.id().value() << " registered twice";
  framework.info = info;
  framework.pid = pid;
  framework.http = http;
  framework.registered = true;
  framework.active = true;
  framework.registeredTime = now;
  registeredFrameworks_++;
  touch(framework);
  return framework;
}

void Registry::setPid(Framework& framework, const UPID& pid, bool http) {
  framework.pid = pid;
  framework.http = http;
  touch(framework);
}

void Registry::setActive(Framework& framework, bool active) {
  framework.active = active;
  touch(framework);
}

void Registry::setReregistered(Framework& framework, double now) {
  framework.reregisteredTime = now;
  touch(framework);
}

void Registry::setInfo(Framework& framework, FrameworkInfo info) {
  framework.info = std::move(info);
  touch(framework);
}

void Registry::unregisterFramework(Framework& framework, double now) {
  CHECK(framework.tasks.empty() && framework.executorSlaves.empty() && framework.offers.empty())
      << "framework " << framework.id.value() << " unregistered while it holds something";
  auto it = frameworks_.find(framework.id.value());
  CHECK(it != frameworks_.end() && it->second.get() == &framework);
  std::unique_ptr<Framework> owned = std::move(it->second);
  frameworks_.erase(it);
  registeredFrameworks_--;
  owned->registered = false;
  owned->active = false;
  owned->unregisteredTime = now;
  touch(*owned);
  completedFrameworks_.push_back(std::move(owned));
  while (completedFrameworks_.size() > maxCompletedFrameworks_) completedFrameworks_.pop_front();
}

Framework* Registry::unregisteredFramework(const std::string& id) {
  auto it = frameworks_.find(id);
  if (it == frameworks_.end() || it->second->registered) return nullptr;
  return it->second.get();
}

void Registry::describe(Framework& framework, const FrameworkInfo& info) {
  CHECK(!framework.registered) << "framework " << framework.id.value() << " is registered";
  framework.info = info;
  *framework.info.mutable_id() = framework.id;
  touch(framework);
}

const Framework* Registry::completedFramework(const std::string& id) const {
  for (const auto& framework : completedFrameworks_) {
    if (framework->id.value() == id) return framework.get();
  }
  return nullptr;
}

// Slaves.

Slave* Registry::slave(const std::string& id) {
  auto it = slaves_.find(id);
  return it == slaves_.end() ? nullptr : it->second.get();
}

const Slave* Registry::slave(const std::string& id) const {
  return const_cast<Registry*>(this)->slave(id);
}

Slave* Registry::slaveAt(const UPID& pid) {
  auto it = slavesByPid_.find(pid);
  return it == slavesByPid_.end() ? nullptr : it->second;
}

Slave& Registry::addSlave(const SlaveID& id, SlaveInfo info, const UPID& pid,
                          const std::string& version, double now) {
  auto [it, added] = slaves_.try_emplace(id.value());
  CHECK(added) << "slave " << id.value() << " added twice";
  it->second = std::make_unique<Slave>();
  Slave& slave = *it->second;
  slave.id = id;
  slave.info = std::move(info);
  slave.info.mutable_id()->CopyFrom(id);
  slave.pid = pid;
  slave.version = version;
  slave.total = Resources(slave.info.resources());
  slave.registeredTime = now;
  slavesByPid_[pid] = &slave;
  placeOnMachine(slave);
  if (freeSlots_.empty()) {
    slave.slot = slots_.size();
    slots_.push_back(&slave);
  } else {
    slave.slot = freeSlots_.back();
    freeSlots_.pop_back();
    slots_[slave.slot] = &slave;
  }
  clusterTotal_ += slave.total;
  dropChunk(slave);
  slave.addedAt = ++version_;
  return slave;
}

void Registry::setTotal(Slave& slave, const Resources& total) {
  clusterTotal_ -= slave.total;
  slave.total = total;
  clusterTotal_ += slave.total;
  // Its resources and reservations are among the fields rendered once.
  touch(slave);
}

void Registry::setPid(Slave& slave, const UPID& pid) {
  if (auto it = slavesByPid_.find(slave.pid); it != slavesByPid_.end() && it->second == &slave) {
    slavesByPid_.erase(it);
  }
  slave.pid = pid;
  slavesByPid_[pid] = &slave;
  placeOnMachine(slave);
  touch(slave);
}

std::string Registry::machineKey(const std::string& hostname, const std::string& ip) {
  std::string key;
  key.reserve(hostname.size() + 1 + ip.size());
  for (unsigned char c : hostname) key.push_back(static_cast<char>(std::tolower(c)));
  return key.append("\n").append(ip);
}

void Registry::placeOnMachine(Slave& slave) {
  std::string key = machineKey(slave.info.hostname(), slave.pid.address.ipString());
  if (key == slave.machine) return;
  removeFromMachine(slave);
  slave.machine = std::move(key);
  slavesByMachine_[slave.machine].push_back(&slave);
}

void Registry::removeFromMachine(Slave& slave) {
  auto it = slavesByMachine_.find(slave.machine);
  if (it == slavesByMachine_.end()) return;
  std::erase(it->second, &slave);
  if (it->second.empty()) slavesByMachine_.erase(it);
}

bool Registry::setCapabilities(
    Slave& slave, const google::protobuf::RepeatedPtrField<SlaveInfo::Capability>& declared) {
  bool same = slave.capabilities.size() == declared.size();
  for (int i = 0; same && i < declared.size(); ++i) {
    same = slave.capabilities.Get(i).type() == declared.Get(i).type();
  }
  if (same) return false;
  slave.capabilities = declared;
  touch(slave);
  return true;
}

void Registry::setActive(Slave& slave, bool active) {
  if (slave.active == active) return;
  slave.active = active;
  if (active) {
    inactiveSlaves_--;
  } else {
    inactiveSlaves_++;
  }
  touchUsage(slave);
}

void Registry::setDrain(Slave& slave, bool deactivated, std::optional<DrainInfo> drain,
                        double drainStart) {
  slave.deactivated = deactivated;
  slave.drain = std::move(drain);
  slave.drainStart = slave.drain ? drainStart : 0;
  touchUsage(slave);
}

void Registry::removeSlave(Slave& slave) {
  CHECK(slave.tasks.empty() && slave.executorCount == 0 && slave.offers.empty())
      << "slave " << slave.id.value() << " removed while it holds something";
  if (auto it = slavesByPid_.find(slave.pid); it != slavesByPid_.end() && it->second == &slave) {
    slavesByPid_.erase(it);
  }
  removeFromMachine(slave);
  if (!slave.active) inactiveSlaves_--;
  clusterTotal_ -= slave.total;
  version_++;
  slots_[slave.slot] = nullptr;
  freeSlots_.push_back(slave.slot);
  dropChunk(slave);
  slaves_.erase(slave.id.value());
}

// Executors.

const ExecutorInfo* Registry::executor(const Slave& slave, const std::string& frameworkId,
                                       const std::string& executorId) const {
  auto byFramework = slave.executors.find(frameworkId);
  if (byFramework == slave.executors.end()) return nullptr;
  auto it = byFramework->second.find(executorId);
  return it == byFramework->second.end() ? nullptr : &it->second;
}

void Registry::addExecutor(Slave& slave, const FrameworkID& frameworkId, ExecutorInfo info) {
  auto& executors = slave.executors[frameworkId.value()];
  auto [it, added] = executors.try_emplace(info.executor_id().value());
  if (!added) return;
  it->second = std::move(info);
  it->second.mutable_framework_id()->CopyFrom(frameworkId);
  slave.executorCount++;
  Framework& framework = entry(frameworkId);
  framework.executorSlaves[slave.id.value()]++;
  Resources resources(it->second.resources());
  addUsed(slave, resources, +1);
  framework.used += resources;
  touch(framework);
}

Resources Registry::removeExecutor(Slave& slave, const std::string& frameworkId,
                                   const std::string& executorId) {
  auto byFramework = slave.executors.find(frameworkId);
  if (byFramework == slave.executors.end()) return {};
  auto it = byFramework->second.find(executorId);
  if (it == byFramework->second.end()) return {};
  Resources resources(it->second.resources());
  byFramework->second.erase(it);
  if (byFramework->second.empty()) slave.executors.erase(byFramework);
  slave.executorCount--;
  addUsed(slave, resources, -1);
  if (auto entry = frameworks_.find(frameworkId); entry != frameworks_.end()) {
    Framework& framework = *entry->second;
    framework.used -= resources;
    auto count = framework.executorSlaves.find(slave.id.value());
    if (count != framework.executorSlaves.end() && --count->second == 0) {
      framework.executorSlaves.erase(count);
    }
    touch(framework);
    dropIfEmpty(framework);
  }
  return resources;
}

// Tasks.

void Registry::addUsed(Slave& slave, const Resources& resources, int sign) {
  if (sign > 0) {
    slave.used += resources;
    usedTotal_ += resources;
  } else {
    slave.used -= resources;
    usedTotal_ -= resources;
  }
  touchUsage(slave);
}

void Registry::addOffered(Slave& slave, const Resources& resources, int sign) {
  if (sign > 0) {
    slave.offered += resources;
    offeredTotal_ += resources;
  } else {
    slave.offered -= resources;
    offeredTotal_ -= resources;
  }
  touchUsage(slave);
}

void Registry::addUsed(TaskRecord& task) {
  addUsed(*task.slave, task.resources, +1);
  task.framework->used += task.resources;
  touch(*task.framework);
}

void Registry::setState(TaskRecord& task, TaskState state) {
  now_[task.task.state()]--;
  now_[state]++;
  task.task.set_state(state);
  touch(task);
}

TaskRecord& Registry::addTask(Framework& framework, Slave& slave, const TaskInfo& info,
                              uint64_t launchOrder) {
  auto record = std::make_unique<TaskRecord>();
  Task& task = record->task;
  task.set_name(info.name());
  task.mutable_task_id()->CopyFrom(info.task_id());
  task.mutable_framework_id()->CopyFrom(framework.id);
  task.mutable_slave_id()->CopyFrom(slave.id);
  task.set_state(TASK_STAGING);
  *task.mutable_resources() = info.resources();
  if (info.has_labels()) task.mutable_labels()->CopyFrom(info.labels());
  if (info.has_discovery()) task.mutable_discovery()->CopyFrom(info.discovery());
  if (info.has_kill_policy()) task.mutable_kill_policy()->CopyFrom(info.kill_policy());
  if (info.has_container()) task.mutable_container()->CopyFrom(info.container());
  if (info.has_command() && info.command().has_user()) {
    task.set_user(info.command().user());
  } else if (info.has_executor() && info.executor().command().has_user()) {
    task.set_user(info.executor().command().user());
  }
  if (info.has_executor()) task.mutable_executor_id()->CopyFrom(info.executor().executor_id());
  record->resources = Resources(info.resources());
  record->launchOrder = launchOrder;
  record->latest.mutable_task_id()->CopyFrom(info.task_id());
  record->latest.set_state(TASK_STAGING);
  record->latest.mutable_slave_id()->CopyFrom(slave.id);
  record->framework = &framework;
  record->slave = &slave;
  TaskRecord& added = *record;
  auto [it, inserted] = framework.tasks.try_emplace(info.task_id().value(), std::move(record));
  CHECK(inserted) << "task " << info.task_id().value() << " added twice";
  slave.tasks.insert(&added);
  placeTask(added);
  now_[TASK_STAGING]++;
  addUsed(added);
  return added;
}

TaskRecord* Registry::adoptTask(Slave& slave, Task task, uint64_t launchOrder) {
  Framework& framework = entry(task.framework_id());
  auto [it, inserted] = framework.tasks.try_emplace(task.task_id().value());
  if (!inserted) {
    LOG(WARNING) << "Slave " << slave.id.value() << " reports task " << task.task_id().value()
                 << " of framework " << framework.id.value() << ", which slave "
                 << it->second->slave->id.value() << " reported already; ignoring this report";
    return nullptr;
  }
  auto record = std::make_unique<TaskRecord>();
  record->task = std::move(task);
  record->task.mutable_slave_id()->CopyFrom(slave.id);
  record->resources = Resources(record->task.resources());
  record->launchOrder = launchOrder;
  record->latest.mutable_task_id()->CopyFrom(record->task.task_id());
  record->latest.set_state(record->task.state());
  record->latest.mutable_slave_id()->CopyFrom(slave.id);
  record->framework = &framework;
  record->slave = &slave;
  it->second = std::move(record);
  TaskRecord& adopted = *it->second;
  slave.tasks.insert(&adopted);
  placeTask(adopted);
  now_[adopted.task.state()]++;
  if (isTerminalState(adopted.task.state())) {
    adopted.released = true;
    touch(framework);
    touchUsage(slave);
  } else {
    addUsed(adopted);
  }
  return &adopted;
}

void Registry::placeTask(TaskRecord& task) {
  Framework& framework = *task.framework;
  if (framework.freeTaskSlots.empty()) {
    task.slot = framework.taskSlots.size();
    framework.taskSlots.push_back(&task);
  } else {
    task.slot = framework.freeTaskSlots.back();
    framework.freeTaskSlots.pop_back();
    framework.taskSlots[task.slot] = &task;
  }
  dropChunk(task);
}

void Registry::unplaceTask(TaskRecord& task) {
  Framework& framework = *task.framework;
  framework.taskSlots[task.slot] = nullptr;
  framework.freeTaskSlots.push_back(task.slot);
  dropChunk(task);
}

TaskRecord* Registry::task(const std::string& frameworkId, const std::string& taskId) {
  auto framework = frameworks_.find(frameworkId);
  if (framework == frameworks_.end()) return nullptr;
  auto it = framework->second->tasks.find(taskId);
  return it == framework->second->tasks.end() ? nullptr : it->second.get();
}

bool Registry::updateTask(TaskRecord& task, const TaskStatus& status) {
  if (isTerminalState(task.task.state())) return false;
  setState(task, status.state());
  task.latest = status;
  task.latest.clear_data();
  *task.task.add_statuses() = slim(status);
  if (task.task.statuses_size() > kStatusesKept) task.task.mutable_statuses()->DeleteSubrange(0, 1);
  if (!isTerminalState(status.state())) return false;
  reached_[status.state()]++;
  release(task);
  return true;
}

void Registry::release(TaskRecord& task) {
  if (task.released) return;
  task.released = true;
  addUsed(*task.slave, task.resources, -1);
  task.framework->used -= task.resources;
  touch(*task.framework);
}

void Registry::removeTask(TaskRecord& task) {
  release(task);
  now_[task.task.state()]--;
  Framework& framework = *task.framework;
  Slave& slave = *task.slave;
  // A task on an unreachable agent is not completed: the master lists it
  // apart (unreachable_tasks), and it may come back.
  if (framework.registered && task.task.state() != TASK_UNREACHABLE) {
    CompletedTask completed;
    completed.id = task.task.task_id().value();
    completed.slaveId = slave.id.value();
    completed.state = task.task.state();
    completed.start = task.task.statuses_size() > 0 ? task.task.statuses(0).timestamp()
                                                    : std::numeric_limits<double>::infinity();
    completed.json = taskJson(task);
    uint64_t seq = framework.completedSeq + framework.completed.size();
    framework.completedChunks.erase(seq / kCompletedChunk);
    framework.completed.push_back(std::move(completed));
    while (framework.completed.size() > maxCompletedTasks_) {
      framework.completedChunks.erase(framework.completedSeq / kCompletedChunk);
      framework.completed.pop_front();
      framework.completedSeq++;
    }
  }
  slave.tasks.erase(&task);
  unplaceTask(task);
  touchUsage(slave);
  touch(framework);
  framework.tasks.erase(task.task.task_id().value());  // destroys `task`
  dropIfEmpty(framework);
}

// Offers.

OfferRecord& Registry::addOffer(Framework& framework, Slave& slave, const std::string& id,
                                Resources resources) {
  OfferRecord& record = offers_[id];
  Offer& offer = record.offer;
  offer.mutable_id()->set_value(id);
  offer.mutable_framework_id()->CopyFrom(framework.id);
  offer.mutable_slave_id()->CopyFrom(slave.id);
  offer.set_hostname(slave.info.hostname());
  *offer.mutable_resources() = resources.proto();
  *offer.mutable_attributes() = slave.info.attributes();
  auto executors = slave.executors.find(framework.id.value());
  if (executors != slave.executors.end()) {
    for (const auto& [executorId, info] : executors->second) {
      offer.add_executor_ids()->CopyFrom(info.executor_id());
    }
  }
  framework.offers.insert(id);
  slave.offers.insert(id);
  framework.offered += resources;
  addOffered(slave, resources, +1);
  record.resources = std::move(resources);
  touch(framework);
  return record;
}

OfferRecord* Registry::offer(const std::string& id) {
  auto it = offers_.find(id);
  return it == offers_.end() ? nullptr : &it->second;
}

void Registry::removeOffer(const std::string& id) {
  auto it = offers_.find(id);
  if (it == offers_.end()) return;
  const OfferRecord& record = it->second;
  if (auto framework = frameworks_.find(record.offer.framework_id().value());
      framework != frameworks_.end()) {
    framework->second->offers.erase(id);
    framework->second->offered -= record.resources;
    touch(*framework->second);
  }
  if (Slave* s = slave(record.offer.slave_id().value())) {
    s->offers.erase(id);
    addOffered(*s, record.resources, -1);
  }
  offers_.erase(it);
}

// Counters.

int64_t Registry::tasksIn(TaskState state) const {
  auto it = now_.find(state);
  return it == now_.end() ? 0 : it->second;
}

size_t Registry::taskCount() const {
  int64_t count = 0;
  for (const auto& [state, n] : now_) count += n;
  return static_cast<size_t>(std::max<int64_t>(count, 0));
}

uint64_t Registry::tasksReached(TaskState state) const {
  auto it = reached_.find(state);
  return it == reached_.end() ? 0 : it->second;
}

// Listings.

std::vector<std::string> Registry::frameworkIds() const {
  std::vector<std::string> ids;
  ids.reserve(registeredFrameworks_);
  for (const auto& [id, framework] : frameworks_) {
    if (framework->registered) ids.push_back(id);
  }
  return ids;
}

std::vector<std::string> Registry::completedFrameworkIds() const {
  std::vector<std::string> ids;
  ids.reserve(completedFrameworks_.size());
  for (const auto& framework : completedFrameworks_) ids.push_back(framework->id.value());
  return ids;
}

std::vector<std::string> Registry::unregisteredFrameworkIds() const {
  std::vector<std::string> ids;
  for (const auto& [id, framework] : frameworks_) {
    if (!framework->registered) ids.push_back(id);
  }
  return ids;
}

const std::unordered_map<std::string, std::unique_ptr<TaskRecord>>& Registry::unregisteredTasks(
    const std::string& id) const {
  static const std::unordered_map<std::string, std::unique_ptr<TaskRecord>> none;
  auto it = frameworks_.find(id);
  return it == frameworks_.end() || it->second->registered ? none : it->second->tasks;
}

}  // namespace mesos::internal::master
