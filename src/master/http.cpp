// The master's HTTP endpoints: the route table, the small endpoints (/health,
// /version, /flags, /roles), how entries render, the stepped rendering
// that big documents use, and /metrics/snapshot (served by MetricsActor,
// which asks the master and the allocator). The big documents are in
// http_state.cpp (/state, /state-summary, /slaves, /frameworks) and
// http_tasks.cpp (/tasks).
#include <algorithm>
#include <map>

#include <glog/logging.h>

#include "common/json.hpp"
#include "common/state_json.hpp"
#include "master/master.hpp"
#include "master/metrics_actor.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using json::Array;
using json::Object;
using process::Future;
using process::http::Request;
using process::http::Response;

void Master::installRoutes() {
  route("/health", &Master::healthEndpoint);
  route("/version", &Master::versionEndpoint);
  route("/flags", &Master::flagsEndpoint);
  route("/roles", &Master::rolesEndpoint);
  route("/roles.json", &Master::rolesEndpoint);
  route("/state", &Master::stateEndpoint);
  route("/state.json", &Master::stateEndpoint);
  route("/state-summary", &Master::stateSummaryEndpoint);
  route("/slaves", &Master::slavesEndpoint);
  route("/frameworks", &Master::frameworksEndpoint);
  route("/tasks", &Master::tasksEndpoint);
  route("/tasks.json", &Master::tasksEndpoint);
}

Future<Response> Master::healthEndpoint(const Request&) { return Response::ok("", "text/plain"); }

Future<Response> Master::versionEndpoint(const Request&) {
  return Response::ok(json::stringify(json::versionInfo()));
}

Future<Response> Master::flagsEndpoint(const Request&) {
  Object body;
  body["flags"] = json::fromFlags(flags_);
  return Response::ok(json::stringify(body));
}

// /master/roles: every role configured by the allocation flags or used by a
// registered framework, with its weight, priority and guarantee, its
// frameworks, and what they hold (used and offered).
Future<Response> Master::rolesEndpoint(const Request&) {
  struct Role {
    Array frameworks;
    Resources resources;
  };
  std::map<std::string, Role> roles;
  for (const std::string& role : config_.roles) roles[role];
  for (const auto& [role, weight] : config_.weights) roles[role];
  for (const auto& [role, priority] : config_.priorities) roles[role];
  for (const auto& [role, guarantee] : config_.guarantees) roles[role];
  for (const auto& [id, f] : frameworks_) {
    Role& role = roles[f->info.role()];
    role.frameworks.push_back(id);
    role.resources += f->used + f->offered;
  }
  Array array;
  for (auto& [name, role] : roles) {
    Object object;
    object["name"] = name;
    auto weight = config_.weights.find(name);
    object["weight"] = weight == config_.weights.end() ? 1.0 : weight->second;
    auto priority = config_.priorities.find(name);
    object["priority"] = priority == config_.priorities.end() ? int64_t{0} : priority->second;
    Object guarantee;
    if (auto it = config_.guarantees.find(name); it != config_.guarantees.end()) {
      for (const Resource& resource : it->second) {
        if (resource.type() == Value::SCALAR) {
          guarantee[resource.name()] = it->second.scalar(resource.name());
        }
      }
    }
    object["guarantee"] = std::move(guarantee);
    std::sort(role.frameworks.begin(), role.frameworks.end(),
              [](const json::Value& a, const json::Value& b) { return a.string() < b.string(); });
    object["frameworks"] = std::move(role.frameworks);
    object["resources"] = json::fromResources(role.resources);
    array.push_back(std::move(object));
  }
  Object body;
  body["roles"] = std::move(array);
  // Whether the cluster as it stands can meet every guarantee at once.
  Object guarantees;
  guarantees["total"] = json::fromResources(guaranteed_);
  guarantees["cluster"] = json::fromResources(clusterTotal_.flatten());
  guarantees["satisfiable"] = clusterTotal_.flatten().contains(guaranteed_);
  body["guarantees"] = std::move(guarantees);
  return Response::ok(json::stringify(body));
}

struct Master::Steps {
  std::vector<Pass> passes;
  size_t pass = 0;  // the current pass
  size_t next = 0;  // the next id in it
  std::function<void()> done;
};

void Master::renderInSteps(std::vector<Pass> passes, std::function<void()> done) {
  auto steps = std::make_shared<Steps>();
  steps->passes = std::move(passes);
  steps->done = std::move(done);
  runSteps(steps);
}

void Master::runSteps(const std::shared_ptr<Steps>& steps) {
  size_t budget = std::max<size_t>(stateChunk_, 1);
  while (steps->pass < steps->passes.size()) {
    Pass& pass = steps->passes[steps->pass];
    while (budget > 0 && steps->next < pass.ids.size()) {
      if (pass.visit(pass.ids[steps->next++])) budget--;
    }
    if (steps->next < pass.ids.size()) {
      process::dispatch(self(), [this, steps] { runSteps(steps); });
      return;
    }
    steps->pass++;
    steps->next = 0;
  }
  steps->done();
}

std::vector<std::string> Master::slaveIds() const {
  std::vector<std::string> ids;
  ids.reserve(slaves_.size());
  for (const auto& [id, s] : slaves_) ids.push_back(id);
  return ids;
}

std::vector<std::string> Master::frameworkIds() const {
  std::vector<std::string> ids;
  ids.reserve(frameworks_.size());
  for (const auto& [id, f] : frameworks_) ids.push_back(id);
  return ids;
}

std::vector<std::string> Master::completedFrameworkIds() const {
  std::vector<std::string> ids;
  ids.reserve(completedFrameworks_.size());
  for (const auto& f : completedFrameworks_) ids.push_back(f->id.value());
  return ids;
}

const Framework* Master::completedFramework(const std::string& id) const {
  // At most --max_completed_frameworks entries.
  for (const auto& f : completedFrameworks_) {
    if (f->id.value() == id) return f.get();
  }
  return nullptr;
}

Object Master::stateHead() const {
  Object head = json::versionInfo();
  head["start_time"] = startTime_;
  head["elected_time"] = electedTime_;
  head["id"] = info_.id();
  head["pid"] = self().toString();
  head["hostname"] = info_.hostname();
  head["leader"] = self().toString();
  Object leader;
  leader["id"] = info_.id();
  leader["pid"] = info_.pid();
  leader["port"] = info_.port();
  leader["hostname"] = info_.hostname();
  head["leader_info"] = std::move(leader);
  head["cluster"] = flags_.cluster;
  head["activated_slaves"] = static_cast<int64_t>(slaves_.size() - inactiveSlaves_);
  head["deactivated_slaves"] = static_cast<int64_t>(inactiveSlaves_);
  head["flags"] = json::fromFlags(flags_);
  return head;
}

Object Master::slaveJson(const Slave& s) const {
  Resources offered;
  for (const std::string& offerId : s.offers) {
    auto it = offers_.find(offerId);
    if (it != offers_.end()) offered += it->second.resources;
  }
  Object object;
  object["id"] = s.id.value();
  object["pid"] = s.pid.toString();
  object["hostname"] = s.info.hostname();
  object["port"] = s.info.port();
  object["registered_time"] = s.registeredTime;
  object["resources"] = json::fromResources(s.total);
  object["used_resources"] = json::fromResources(s.used);
  object["offered_resources"] = json::fromResources(offered);
  object["reserved_resources"] = json::reservedResources(s.total);
  object["unreserved_resources"] = json::unreservedResources(s.total);
  object["attributes"] = json::fromAttributes(s.info.attributes());
  // False while its connection is broken (offered nothing until it
  // re-registers).
  object["active"] = s.active;
  object["version"] = s.version;
  return object;
}

Object Master::frameworkSummaryJson(const Framework& f) const {
  Object object;
  object["id"] = f.id.value();
  object["name"] = f.info.name();
  object["pid"] = f.pid.toString();
  object["used_resources"] = json::fromResources(f.used);
  object["offered_resources"] = json::fromResources(f.offered);
  Array capabilities;
  for (const FrameworkInfo::Capability& capability : f.info.capabilities()) {
    capabilities.push_back(FrameworkInfo::Capability::Type_Name(capability.type()));
  }
  object["capabilities"] = std::move(capabilities);
  object["hostname"] = f.info.hostname();
  object["webui_url"] = f.info.webui_url();
  object["active"] = f.active;
  return object;
}

Object Master::frameworkJson(const Framework& f) const {
  Object object = frameworkSummaryJson(f);
  object["user"] = f.info.user();
  object["role"] = f.info.role();
  if (f.info.has_principal()) object["principal"] = f.info.principal();
  object["checkpoint"] = f.info.checkpoint();
  object["failover_timeout"] = f.info.failover_timeout();
  object["registered_time"] = f.registeredTime;
  object["reregistered_time"] = f.reregisteredTime;
  object["unregistered_time"] = f.unregisteredTime;
  object["resources"] = json::fromResources(f.used + f.offered);
  Array tasks;
  for (const auto& [id, task] : f.tasks) tasks.push_back(json::fromTask(task->task));
  object["tasks"] = std::move(tasks);
  Array completed;
  for (const Task& task : f.completedTasks) completed.push_back(json::fromTask(task));
  object["completed_tasks"] = std::move(completed);
  Array offers;
  for (const std::string& offerId : f.offers) {
    auto it = offers_.find(offerId);
    if (it == offers_.end()) continue;
    Object offer;
    offer["id"] = offerId;
    offer["framework_id"] = f.id.value();
    offer["slave_id"] = it->second.offer.slave_id().value();
    offer["resources"] = json::fromResources(it->second.resources);
    offers.push_back(std::move(offer));
  }
  object["offers"] = std::move(offers);
  Array executors;
  for (const auto& [slaveId, byId] : f.executors) {
    for (const auto& [executorId, info] : byId) {
      Object executor;
      executor["executor_id"] = executorId;
      executor["framework_id"] = f.id.value();
      executor["slave_id"] = slaveId;
      executor["name"] = info.name();
      if (info.has_command()) executor["command"] = json::fromProto(info.command());
      executor["resources"] = json::fromResources(Resources(info.resources()));
      executors.push_back(std::move(executor));
    }
  }
  object["executors"] = std::move(executors);
  if (f.info.has_labels()) object["labels"] = json::fromProto(f.info.labels())["labels"];
  return object;
}

Object Master::completedFrameworkJson(const Framework& f) const {
  Object object = frameworkJson(f);
  object["active"] = false;
  return object;
}

}  // namespace mesos::internal::master
