// The master's HTTP endpoints: /master/state (also /state), /master/health,
// /master/roles, and /metrics/snapshot (served by MetricsActor, which asks
// the master and the allocator).
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

Future<Response> Master::healthEndpoint(const Request&) { return Response::ok("", "text/plain"); }

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

// /state is rendered in steps of at most stateChunk_ slaves or frameworks,
// each step an event of its own, so that for a large cluster the master
// keeps handling messages in between. Entries that go away meanwhile are
// skipped; the document is a consistent view of each entry, not of the
// whole cluster at one instant (neither is Apache Mesos's, across actors).
struct Master::StateRender {
  process::Promise<Response> response;
  std::string text;
  std::vector<std::string> slaveIds;
  std::vector<std::string> frameworkIds;
  size_t next = 0;  // position in slaveIds, then in frameworkIds
  bool first = true;
  Resources total, used, offered;
};

Future<Response> Master::stateEndpoint(const Request&) {
  auto render = std::make_shared<StateRender>();
  Object head;
  head["version"] = info_.version();
  head["id"] = info_.id();
  head["pid"] = self().toString();
  head["hostname"] = info_.hostname();
  head["leader"] = self().toString();
  head["cluster"] = flags_.cluster;
  head["start_time"] = 0.0;
  head["activated_slaves"] = static_cast<int64_t>(slaves_.size() - inactiveSlaves_);
  head["deactivated_slaves"] = static_cast<int64_t>(inactiveSlaves_);
  Object flagValues;
  for (const auto& [name, value] : flags_.values()) flagValues[name] = value;
  head["flags"] = std::move(flagValues);
  Array completed;
  for (const auto& f : completedFrameworks_) completed.push_back(frameworkJson(*f));
  head["completed_frameworks"] = std::move(completed);
  head["orphan_tasks"] = Array();
  head["unregistered_frameworks"] = Array();
  render->text = json::stringify(head);
  render->text.pop_back();  // reopen the object: slaves and frameworks follow
  render->text += ",\"slaves\":[";
  render->slaveIds.reserve(slaves_.size());
  for (const auto& [id, s] : slaves_) render->slaveIds.push_back(id);
  render->frameworkIds.reserve(frameworks_.size());
  for (const auto& [id, f] : frameworks_) render->frameworkIds.push_back(id);
  Future<Response> response = render->response.future();
  renderState(render);
  return response;
}

void Master::renderState(const std::shared_ptr<StateRender>& render) {
  size_t budget = stateChunk_;
  while (budget > 0 && render->next < render->slaveIds.size()) {
    Slave* s = slave(render->slaveIds[render->next++]);
    if (s == nullptr) continue;
    budget--;
    Resources slaveOffered;
    for (const std::string& offerId : s->offers) {
      auto it = offers_.find(offerId);
      if (it != offers_.end()) slaveOffered += it->second.resources;
    }
    render->total += s->total;
    render->used += s->used;
    render->offered += slaveOffered;
    Object object;
    object["id"] = s->id.value();
    object["pid"] = s->pid.toString();
    object["hostname"] = s->info.hostname();
    object["registered_time"] = s->registeredTime;
    object["resources"] = json::fromResources(s->total);
    object["used_resources"] = json::fromResources(s->used);
    object["offered_resources"] = json::fromResources(slaveOffered);
    object["attributes"] = json::fromAttributes(s->info.attributes());
    object["active"] = s->active;
    object["version"] = s->version;
    if (!render->first) render->text += ",";
    render->first = false;
    render->text += json::stringify(object);
  }
  size_t slaves = render->slaveIds.size();
  if (render->next == slaves && budget > 0) {
    // Between the two lists.
    render->text += "],\"frameworks\":[";
    render->first = true;
    render->next++;
  }
  while (budget > 0 && render->next > slaves &&
         render->next - slaves - 1 < render->frameworkIds.size()) {
    Framework* f = framework(render->frameworkIds[render->next - slaves - 1]);
    render->next++;
    if (f == nullptr) continue;
    budget--;
    if (!render->first) render->text += ",";
    render->first = false;
    render->text += json::stringify(frameworkJson(*f));
  }
  if (render->next <= slaves + render->frameworkIds.size()) {
    process::dispatch(self(), [this, render] { renderState(render); });
    return;
  }
  render->text += "],\"total_resources\":" + json::stringify(json::fromResources(render->total));
  render->text += ",\"used_resources\":" + json::stringify(json::fromResources(render->used));
  render->text += ",\"offered_resources\":" + json::stringify(json::fromResources(render->offered));
  render->text += "}";
  render->response.set(Response::ok(std::move(render->text)));
}

json::Value Master::frameworkJson(const Framework& f) {
  Object object;
  object["id"] = f.id.value();
  object["name"] = f.info.name();
  object["user"] = f.info.user();
  object["pid"] = f.pid.toString();
  object["hostname"] = f.info.hostname();
  object["role"] = f.info.role();
  object["webui_url"] = f.info.webui_url();
  object["checkpoint"] = f.info.checkpoint();
  object["failover_timeout"] = f.info.failover_timeout();
  object["active"] = f.active;
  object["registered_time"] = f.registeredTime;
  object["reregistered_time"] = f.reregisteredTime;
  object["unregistered_time"] = f.unregisteredTime;
  object["used_resources"] = json::fromResources(f.used);
  object["offered_resources"] = json::fromResources(f.offered);
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
      executor["slave_id"] = slaveId;
      executor["name"] = info.name();
      executor["resources"] = json::fromResources(Resources(info.resources()));
      executors.push_back(std::move(executor));
    }
  }
  object["executors"] = std::move(executors);
  return object;
}

}  // namespace mesos::internal::master
