// Registry: the one owner of the master's state: frameworks, slaves,
// executors, tasks and offers, the resource sums kept over them, the task
// counters, and each entity's /state JSON, rendered when first asked for
// after a change and shared by every document that shows it; slaves and a
// framework's live and completed tasks are also kept joined in small
// chunks, each dropped when one of its entities changes.
//
// Everything that changes what an entity holds or how it renders goes
// through the registry's operations, which keep these invariants:
//
//  - A task is owned by the Framework entry of its framework id (registered
//    or not: a slave may report tasks of a framework that has not
//    re-registered since a master failover; such an entry is *unregistered*
//    and framework(id) does not return it) and indexed by its slave.
//    TaskRecord::framework and ::slave are never null.
//  - An executor is stored once, by its slave (Slave::executors); its
//    framework counts, per slave, how many it has there.
//  - Slave::used and Framework::used are the resources of their tasks whose
//    resources are not released (TaskRecord::released) plus those of their
//    executors; Slave::offered and Framework::offered are the resources of
//    their outstanding offers.
//  - A task's state changes at most once to a terminal state, and never
//    after (terminal states are final); counters() count every task in its
//    current state and every terminal state reached.
//  - Removing a framework's registration keeps it, with its completed
//    tasks, among the last --max_completed_frameworks; each framework keeps
//    its last --max_completed_tasks_per_framework completed tasks, as
//    rendered JSON.
//
// Cost: every operation is O(1) or O(what the entity itself holds) (e.g.
// adopting a framework visits the slaves that reported its tasks); nothing
// here walks all slaves, frameworks or tasks except the *Ids() listings the
// endpoints use. Memory is what the live entities hold plus the two
// history caps.
//
// The registry belongs to the master's actor; it is not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/json.hpp"
#include "master/pieces.hpp"
#include "mesos/resources.hpp"
#include "messages.pb.h"
#include "process/clock.hpp"
#include "process/upid.hpp"

namespace mesos::internal::master {

using process::UPID;

struct Framework;
struct Slave;

struct TaskRecord {
  Task task;  // the wire form: ids, state, resources, the latest few statuses
  Resources resources;
  TaskStatus latest;  // the latest status, whole (for reconciliation)
  Framework* framework = nullptr;
  Slave* slave = nullptr;
  bool released = false;     // its resources are no longer counted as used
  uint64_t launchOrder = 0;  // larger: launched later (revocation takes the youngest)
  bool revoked = false;      // killed by a revocation (revocation.cpp)
  bool isLong = false;       // labelled long=true (long_tasks.cpp)
  bool countedLong = false;  // its resources are in its Slave's longUsed
  // A short task's --short_task_max_duration timer, until it fires or the
  // task's resources are released (long_tasks.cpp).
  std::optional<process::TimerId> expiry;
  size_t slot = 0;        // its place in Framework::taskSlots
  mutable Fragment json;  // its /state JSON; empty after a change
};

// A task the master forgot, as /state and /tasks show it.
struct CompletedTask {
  std::string id;
  std::string slaveId;
  TaskState state = TASK_LOST;
  double start = 0;  // timestamp of its first status; +infinity if it had none
  Fragment json;
};

struct OfferRecord {
  Offer offer;
  Resources resources;
  std::optional<process::TimerId> timeout;
  mutable Fragment json;  // rendered when first shown: an offer never changes
};

struct Framework {
  FrameworkID id;
  FrameworkInfo info;
  UPID pid;
  bool registered = false;  // false: known only from slaves' reports
  bool active = false;      // registered and its scheduler connected
  // Subscribed through the v1 HTTP API: `pid` is its SchedulerStream's,
  // which /state does not show (as Apache Mesos shows no pid for it).
  bool http = false;
  // Its scheduler is not the one slaves knew before this master was
  // elected (it failed over since): a slave that re-registers later is told
  // where it is now (slaves.cpp).
  bool newPid = false;
  double registeredTime = 0;
  double reregisteredTime = 0;
  double unregisteredTime = 0;
  std::unordered_map<std::string, std::unique_ptr<TaskRecord>> tasks;  // by task id (owner)
  // Its tasks by slot (a task keeps its slot; a gone task's slot is
  // reused), and their JSON joined by kTaskChunk slots: /state shows a
  // framework's tasks as these chunks, and a task's change drops only its
  // own chunk (each is joined again when next shown).
  std::vector<TaskRecord*> taskSlots;
  std::vector<size_t> freeTaskSlots;
  mutable std::vector<Fragment> taskChunks;
  std::unordered_map<std::string, size_t> executorSlaves;  // slave id -> its executors there
  // Its offer operations that carried an id, by that id, until their
  // status is acknowledged (operations.cpp).
  std::unordered_map<std::string, Operation> operations;
  std::unordered_set<std::string> offers;                  // offer ids
  Resources used;
  Resources offered;
  std::deque<CompletedTask> completed;
  uint64_t completedSeq = 0;  // sequence number of completed.front()
  // The completed tasks' JSON joined in chunks of kCompletedChunk by
  // sequence number, so that a document shows a framework's history in a
  // few pieces; a chunk is joined again after it changes.
  mutable std::unordered_map<uint64_t, Fragment> completedChunks;
  std::optional<process::TimerId> failoverTimer;
  mutable Fragment json;  // the fields of its /state object, without lists
};

// How many completed tasks one joined piece of a document holds.
inline constexpr uint64_t kCompletedChunk = 64;
// How many task slots one joined piece of a framework's live tasks covers:
// small, so that most chunks are unchanged from one /state to the next even
// with thousands of task changes a second.
inline constexpr size_t kTaskChunk = 16;
// How many slave slots one joined piece of the slaves' list covers.
inline constexpr size_t kSlaveChunk = 8;

struct Slave {
  SlaveID id;
  SlaveInfo info;
  UPID pid;
  std::string machine;  // Registry::machineKey() of its hostname and its pid's IP
  std::string version;
  Resources total;
  Resources used;
  Resources offered;
  double registeredTime = 0;
  // False from the moment its connection to the master breaks until it
  // re-registers: it keeps its tasks but is offered nothing.
  bool active = true;
  // Deactivated by an operator (docs/draining.md): offered nothing, whether
  // connected or not; and its drain, if it drains or drained. Copies of the
  // master's (draining.cpp), which outlive the registration.
  bool deactivated = false;
  std::optional<DrainInfo> drain;
  double drainStart = 0;  // when this master told it to drain (0: not yet)
  // What it declared in its last (re-)registration's agent_capabilities:
  // DRAIN_AGENT needs AGENT_DRAINING (docs/draining.md), hierarchical roles
  // HIERARCHICAL_ROLE, refined reservations RESERVATION_REFINEMENT.
  google::protobuf::RepeatedPtrField<SlaveInfo::Capability> capabilities;
  bool declares(SlaveInfo::Capability::Type type) const {
    for (const SlaveInfo::Capability& capability : capabilities) {
      if (capability.type() == type) return true;
    }
    return false;
  }
  std::vector<SlaveInfo::Capability::Type> capabilityTypes() const {
    std::vector<SlaveInfo::Capability::Type> types;
    for (const SlaveInfo::Capability& capability : capabilities) types.push_back(capability.type());
    return types;
  }
  std::unordered_set<TaskRecord*> tasks;
  // Executors by framework id, then executor id (owner).
  std::unordered_map<std::string, std::unordered_map<std::string, ExecutorInfo>> executors;
  size_t executorCount = 0;
  std::unordered_set<std::string> offers;
  size_t slot = 0;       // its place in Registry::slaveInSlot
  uint64_t addedAt = 0;  // the registry's version() once it was added
  uint32_t missedPings = 0;
  bool pongPending = false;
  // A digest of the last re-registration handled from it (its message's
  // bytes): a retry that repeats it is answered without being parsed.
  size_t reregistration = 0;
  // Frameworks that are not partition-aware, shut down here when it came
  // back from unreachable: they were told TASK_LOST for its tasks, so the
  // updates it still sends for those tasks (the master holds none of them)
  // are dropped, never forwarded after the TASK_LOST.
  std::unordered_set<std::string> shutDownFrameworks;
  // What its long tasks whose resources are not released hold
  // (long_tasks.cpp): what --long_task_share caps.
  Resources longUsed;
  // Its /state object in two fragments: the fields that change only when it
  // re-registers ("{...,"), then those that change with its tasks and
  // offers (used, offered, active, and the closing brace). Empty after a
  // change.
  mutable Fragment json;
  mutable Fragment usageJson;
};

class Registry {
 public:
  Registry(size_t maxCompletedFrameworks, size_t maxCompletedTasksPerFramework);
  ~Registry();

  // Frameworks.
  // A registered framework, or nullptr.
  Framework* framework(const std::string& id);
  const Framework* framework(const std::string& id) const;
  // Registers a framework (info carries its id): a new one, or one whose
  // tasks or executors slaves reported (their resources become its used).
  Framework& registerFramework(const FrameworkInfo& info, const UPID& pid, double now,
                                bool http = false);
  void setPid(Framework& framework, const UPID& pid, bool http = false);
  void setActive(Framework& framework, bool active);
  void setReregistered(Framework& framework, double now);
  // UPDATE_FRAMEWORK, or a re-registration that changed it: `info` (its id
  // unchanged) from now on.
  void setInfo(Framework& framework, FrameworkInfo info);
  // Ends the registration. REQUIRES: its tasks, executors and offers are
  // gone. It joins the completed frameworks.
  void unregisterFramework(Framework& framework, double now);
  // One of the last --max_completed_frameworks frameworks unregistered
  // here, or nullptr. O(that cap).
  const Framework* completedFramework(const std::string& id) const;
  size_t frameworkCount() const { return registeredFrameworks_; }
  // Calls `visit(Framework&)` for every registered framework.
  // O(frameworks).
  template <typename Visit>
  void forEachFramework(Visit visit) {
    for (auto& [id, framework] : frameworks_) {
      if (framework->registered) visit(*framework);
    }
  }

  // Slaves.
  Slave* slave(const std::string& id);
  const Slave* slave(const std::string& id) const;
  // The slave registered at `pid`, or nullptr.
  Slave* slaveAt(const UPID& pid);
  // Room for `count` slaves, before a burst of them (after a failover).
  void reserveSlaves(size_t count) {
    slaves_.reserve(count);
    slavesByPid_.reserve(count);
    slavesByMachine_.reserve(count);
  }
  Slave& addSlave(const SlaveID& id, SlaveInfo info, const UPID& pid,
                  const std::string& version, double now);
  void setPid(Slave& slave, const UPID& pid);
  // Its total after offer operations (reservations, volumes) or with what
  // it checkpointed.
  void setTotal(Slave& slave, const Resources& total);
  // What `slave` declared (re-)registering; its /state is redone when it
  // changed. Whether it changed.
  bool setCapabilities(Slave& slave,
                       const google::protobuf::RepeatedPtrField<SlaveInfo::Capability>& declared);
  void setActive(Slave& slave, bool active);
  void setDrain(Slave& slave, bool deactivated, std::optional<DrainInfo> drain,
                double drainStart);
  // REQUIRES: its tasks, executors and offers are gone.
  void removeSlave(Slave& slave);
  size_t slaveCount() const { return slaves_.size(); }
  // The slaves by slot, for endpoints that visit them all in steps: a slave
  // keeps its slot while it is registered, and a removed slave's slot is
  // reused by a later one. A visit of slots 0..slaveSlots()-1 that began at
  // version() v and skips slaves added after v (Slave::addedAt > v) sees
  // every slave there throughout once, and no slave twice however slaves
  // leave and come back between its steps. As many slots as the most
  // slaves there were at once; nullptr for an empty slot.
  size_t slaveSlots() const { return slots_.size(); }
  const Slave* slaveInSlot(size_t slot) const {
    return slot < slots_.size() ? slots_[slot] : nullptr;
  }
  // The slaves of slots [chunk * kSlaveChunk, (chunk + 1) * kSlaveChunk)
  // added at or before version `began`, as /state shows them, comma
  // separated, appended to `pieces` (with a comma first unless `*first`;
  // *first becomes false once something was appended). The JSON of a chunk
  // is kept until one of its slaves changes. Returns how many slaves it
  // showed.
  size_t slaveChunkPieces(size_t chunk, uint64_t began, Pieces* pieces, bool* first) const;
  // Calls `visit(Slave&)` for every slave. O(slaves).
  template <typename Visit>
  void forEachSlave(Visit visit) {
    for (auto& [id, slave] : slaves_) visit(*slave);
  }
  // A machine as maintenance names it (docs/maintenance.md): its hostname,
  // in any case, and its IP.
  static std::string machineKey(const std::string& hostname, const std::string& ip);
  // Calls `visit(Slave&)` for every slave on the machine `key`, which must
  // not add or remove slaves. O(its slaves).
  template <typename Visit>
  void forEachSlaveOn(const std::string& key, Visit visit) {
    auto it = slavesByMachine_.find(key);
    if (it == slavesByMachine_.end()) return;
    for (Slave* slave : it->second) visit(*slave);
  }
  size_t inactiveSlaveCount() const { return inactiveSlaves_; }
  // Sums over the registered slaves: their totals, what is used on them
  // and what is offered.
  const Resources& clusterTotal() const { return clusterTotal_; }
  const Resources& usedTotal() const { return usedTotal_; }
  const Resources& offeredTotal() const { return offeredTotal_; }
  // Changes with every change to what any entity holds or shows: a
  // document rendered at one version is current while it stays.
  uint64_t version() const { return version_; }

  // Executors.
  const ExecutorInfo* executor(const Slave& slave, const std::string& frameworkId,
                               const std::string& executorId) const;
  // Adds an executor (its framework id set to `frameworkId`); its resources
  // count as used. No-op if it is there already.
  void addExecutor(Slave& slave, const FrameworkID& frameworkId, ExecutorInfo info);
  // Removes an executor; returns its resources (nothing if it was not there).
  Resources removeExecutor(Slave& slave, const std::string& frameworkId,
                           const std::string& executorId);

  // Tasks.
  // A task launched now (TASK_STAGING): its resources count as used.
  TaskRecord& addTask(Framework& framework, Slave& slave, const TaskInfo& info,
                      uint64_t launchOrder);
  // A task a re-registering slave reported, of a registered framework or
  // not. A terminal one's resources are released. nullptr (and a warning)
  // when the framework holds a task with that id already.
  TaskRecord* adoptTask(Slave& slave, Task task, uint64_t launchOrder);
  // The task of framework `frameworkId` (registered or not), or nullptr.
  TaskRecord* task(const std::string& frameworkId, const std::string& taskId);
  // Records the task's latest status. Returns true when it became terminal
  // now (then its resources are released); a status for a task that is
  // terminal already changes nothing and returns false.
  bool updateTask(TaskRecord& task, const TaskStatus& status);
  // Marks the task's resources released without a state change (revoked
  // tasks' grace, removals). No-op if they were.
  void release(TaskRecord& task);
  // Forgets the task: a registered framework keeps it among its completed
  // tasks. Destroys `task`.
  void removeTask(TaskRecord& task);

  // Offers.
  OfferRecord& addOffer(Framework& framework, Slave& slave, const std::string& id,
                        Resources resources);
  OfferRecord* offer(const std::string& id);
  void removeOffer(const std::string& id);
  size_t offerCount() const { return offers_.size(); }

  // Counters: the tasks in each state now, and every terminal state reached
  // (each task once).
  int64_t tasksIn(TaskState state) const;
  // Tasks held now, in any state.
  size_t taskCount() const;
  uint64_t tasksReached(TaskState state) const;
  // A terminal state the master reported for a task it never added
  // (TASK_ERROR for an invalid task, TASK_LOST for invalid offers).
  void countRefused(TaskState state) { reached_[state]++; }

  // JSON (registry_json.cpp). Fragments are rendered at most once per
  // change of their entity and shared by every document that shows them.
  // With caching off (tests: a document must equal a fresh render) every
  // fragment is rendered anew each time.
  void setCaching(bool caching) { caching_ = caching; }
  const Fragment& taskJson(const TaskRecord& task) const;
  // A framework's /state object, whole, appended to `pieces`: its fields,
  // its live tasks, completed tasks, offers and executors.
  // `unreachable`: the JSON objects of its tasks on unreachable agents,
  // joined by commas (the master keeps those, partitions.cpp).
  void frameworkPieces(const Framework& framework, Pieces* pieces,
                       std::string_view unreachable = {}) const;
  // What /state-summary starts from (it adds counts); rendered every time.
  json::Object slaveObject(const Slave& slave) const;
  json::Object frameworkSummaryObject(const Framework& framework) const;

  // Ids, for the endpoints that visit every entry in steps.
  std::vector<std::string> frameworkIds() const;  // registered ones
  std::vector<std::string> completedFrameworkIds() const;
  // Ids of frameworks known only from slaves' reports, and their tasks.
  std::vector<std::string> unregisteredFrameworkIds() const;
  const std::unordered_map<std::string, std::unique_ptr<TaskRecord>>& unregisteredTasks(
      const std::string& id) const;
  // The entry of a framework known only from slaves' reports, or nullptr.
  Framework* unregisteredFramework(const std::string& id);
  // What a slave reported of such a framework (its FrameworkInfo).
  void describe(Framework& framework, const FrameworkInfo& info);

 private:
  // The framework entry of `id`, registered or not, created if absent.
  Framework& entry(const FrameworkID& id);
  // Drops an unregistered entry that holds nothing any more.
  void dropIfEmpty(Framework& framework);
  void setState(TaskRecord& task, TaskState state);
  void addUsed(TaskRecord& task);
  const Fragment& offerJson(const OfferRecord& offer) const;
  // The fields of the framework's /state object: "{...", without the
  // closing brace and the lists.
  Fragment frameworkFields(const Framework& framework) const;
  Fragment executorsJson(const Framework& framework) const;
  void completedPieces(const Framework& framework, Pieces* pieces) const;
  void touch(const Slave& slave) const {
    slave.json.reset();
    slave.usageJson.reset();
    dropChunk(slave);
    version_++;
  }
  // What is used or offered on it, or whether it is active, changed.
  void touchUsage(const Slave& slave) const {
    slave.usageJson.reset();
    dropChunk(slave);
    version_++;
  }
  void dropChunk(const Slave& slave) const {
    if (size_t chunk = slave.slot / kSlaveChunk; chunk < slaveChunks_.size()) {
      slaveChunks_[chunk].json.reset();
    }
  }
  void touch(const Framework& framework) const {
    framework.json.reset();
    version_++;
  }
  void touch(const TaskRecord& task) const {
    task.json.reset();
    dropChunk(task);
    version_++;
  }
  void dropChunk(const TaskRecord& task) const {
    std::vector<Fragment>& chunks = task.framework->taskChunks;
    if (size_t chunk = task.slot / kTaskChunk; chunk < chunks.size()) chunks[chunk].reset();
  }
  // Gives the task a slot in its framework's taskSlots, or takes it back.
  void placeTask(TaskRecord& task);
  void unplaceTask(TaskRecord& task);
  void tasksPieces(const Framework& framework, Pieces* pieces) const;
  // Renders the slave's two fragments where they are empty.
  void renderSlave(const Slave& slave) const;
  // `sign` times `resources` more used (or offered) on `slave`.
  // Files `slave` under its machine (its pid's IP may have changed).
  void placeOnMachine(Slave& slave);
  void removeFromMachine(Slave& slave);
  void addUsed(Slave& slave, const Resources& resources, int sign);
  void addOffered(Slave& slave, const Resources& resources, int sign);

  const size_t maxCompletedFrameworks_;
  const size_t maxCompletedTasks_;
  std::unordered_map<std::string, std::unique_ptr<Framework>> frameworks_;  // registered or not
  size_t registeredFrameworks_ = 0;
  std::deque<std::unique_ptr<Framework>> completedFrameworks_;
  std::unordered_map<std::string, std::unique_ptr<Slave>> slaves_;
  std::unordered_map<UPID, Slave*> slavesByPid_;
  std::unordered_map<std::string, std::vector<Slave*>> slavesByMachine_;
  std::vector<Slave*> slots_;
  std::vector<size_t> freeSlots_;
  // The slaves' JSON joined by kSlaveChunk slots, with the latest addedAt
  // of the slaves in it; empty after a change of any of them.
  struct SlaveChunk {
    Fragment json;
    uint64_t addedAt = 0;
  };
  mutable std::vector<SlaveChunk> slaveChunks_;
  size_t inactiveSlaves_ = 0;
  Resources clusterTotal_;
  Resources usedTotal_;
  Resources offeredTotal_;
  mutable uint64_t version_ = 0;
  bool caching_ = true;
  std::unordered_map<std::string, OfferRecord> offers_;
  std::map<TaskState, int64_t> now_;
  std::map<TaskState, uint64_t> reached_;
};

}  // namespace mesos::internal::master
