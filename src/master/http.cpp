// The master's HTTP endpoints: the route table, the small endpoints (/health,
// /version, /flags, /roles), how entries render, the stepped rendering
// that big documents use, and /metrics/snapshot (served by MetricsActor,
// which asks the master and the allocator). The big documents are in
// http_state.cpp (/state, /state-summary, /slaves, /frameworks) and
// http_tasks.cpp (/tasks).
#include <algorithm>
#include <map>
#include <utility>

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
  route("/redirect", &Master::redirectEndpoint);
  route("/version", &Master::versionEndpoint);
  // Each in Apache's authentication realm (authorization.cpp).
  using authentication::Realm;
  route("/flags", guarded(Realm::kReadonly, "/flags", &Master::flagsEndpoint));
  route("/roles", guarded(Realm::kReadonly, "/roles", &Master::rolesEndpoint));
  route("/roles.json", guarded(Realm::kReadonly, "/roles.json", &Master::rolesEndpoint));
  route("/state", viewed("/state", &Master::stateEndpoint));
  route("/state.json", viewed("/state.json", &Master::stateEndpoint));
  route("/state-summary", viewed("/state-summary", &Master::stateSummaryEndpoint));
  route("/slaves", guarded(Realm::kReadonly, "/slaves", &Master::slavesEndpoint));
  route("/frameworks", viewed("/frameworks", &Master::frameworksEndpoint));
  route("/tasks", viewed("/tasks", &Master::tasksEndpoint));
  route("/tasks.json", viewed("/tasks.json", &Master::tasksEndpoint));
  route("/teardown", guarded(Realm::kReadwrite, "/teardown", &Master::teardownEndpoint));
  route("/reserve", guarded(Realm::kReadwrite, "/reserve", &Master::reserveEndpoint));
  route("/unreserve", guarded(Realm::kReadwrite, "/unreserve", &Master::unreserveEndpoint));
  route("/create-volumes",
        guarded(Realm::kReadwrite, "/create-volumes", &Master::createVolumesEndpoint));
  route("/destroy-volumes",
        guarded(Realm::kReadwrite, "/destroy-volumes", &Master::destroyVolumesEndpoint));
  // roles.cpp (docs/quota.md, docs/roles.md).
  route("/quota", guarded(Realm::kReadwrite, "/quota", &Master::quotaEndpoint));
  route("/quota/", guarded(Realm::kReadwrite, "/quota", &Master::quotaEndpoint));
  route("/weights", guarded(Realm::kReadwrite, "/weights", &Master::weightsEndpoint));
  // maintenance.cpp (docs/maintenance.md).
  route("/maintenance/schedule", guarded(Realm::kReadwrite, "/maintenance/schedule",
                                         &Master::maintenanceScheduleEndpoint));
  route("/maintenance/status", guarded(Realm::kReadonly, "/maintenance/status",
                                       &Master::maintenanceStatusEndpoint));
  route("/machine/down",
        guarded(Realm::kReadwrite, "/machine/down", &Master::machineDownEndpoint));
  route("/machine/up", guarded(Realm::kReadwrite, "/machine/up", &Master::machineUpEndpoint));
  route("/api/v1/scheduler",
        guarded(Realm::kFramework, "/api/v1/scheduler", &Master::schedulerCallEndpoint));
  route("/api/v1", guarded(Realm::kReadwrite, "/api/v1", &Master::operatorEndpoint));
  operatorEvents_.start(runtime(), self(),
                        {flags_.max_operator_event_stream_subscribers,
                         flags_.operator_event_stream_queue_limit.value, kHeartbeatInterval,
                         flags_.operator_event_stream_batch_window});
  route("/metrics/snapshot",
        guarded(Realm::kReadonly, "/metrics/snapshot", &Master::metricsEndpoint));
  installWebUi();
}

Future<Response> Master::metricsEndpoint(const Request& request) {
  return process::dispatch(metricsActor_.pid(), &MetricsActor::snapshot, request);
}

Future<Response> Master::healthEndpoint(const Request&) { return Response::ok("", "text/plain"); }

// /master/redirect: 307 to the leading master, as Apache Mesos answers
// (Location "//<leader's hostname, else ip>:<port>"); 503 while a standby
// knows no leader.
Future<Response> Master::redirectEndpoint(const Request&) {
  const MasterInfo* leader = leading_ ? &info_ : (leader_ ? &*leader_ : nullptr);
  if (leader == nullptr) {
    return Response::serviceUnavailable("No leading master is elected\n");
  }
  const std::string& host =
      leader->hostname().empty() ? leader->address().ip() : leader->hostname();
  Response response{307, "text/plain", "", {}};
  response.headers.emplace_back("Location", "//" + host + ":" + std::to_string(leader->port()));
  return response;
}

Future<Response> Master::versionEndpoint(const Request&) {
  return Response::ok(json::stringify(json::versionInfo()));
}

Future<Response> Master::flagsEndpoint(const Request& request) {
  if (!guard_->authorized(authorizer::Action::kViewFlags, request.principal, std::nullopt)) {
    return authentication::EndpointGuard::forbidden("Not authorized to view the flags (ACL view_flags)");
  }
  Object body;
  body["flags"] = json::fromFlags(flags_);
  return Response::ok(json::stringify(body));
}

// /master/roles: every role configured by the allocation flags, given a
// weight or quota at run time, used by a registered framework or holding a
// reservation, as Apache Mesos 1.9 shows it: its weight, quota (guarantee,
// limit, consumed: roles.cpp), frameworks and what they are allocated,
// offered and reserved; and our priority and guarantee (--guarantees).
// Roles the caller may not view (view_roles) are left out.
Future<Response> Master::rolesEndpoint(const Request& request) {
  auto views = roleViews(request.principal);
  auto scalarsOf = [](const auto& map) {
    Object object;
    for (const auto& [name, scalar] : map) object[name] = scalar.value();
    return object;
  };
  Array array;
  for (auto& [name, role] : views) {
    Object object;
    object["name"] = name;
    object["weight"] = weightOf(name);
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
    Object quota;
    quota["role"] = name;
    if (auto it = quotas_.find(name); it != quotas_.end()) {
      quota["guarantee"] = scalarsOf(it->second.guarantees());
      quota["limit"] = scalarsOf(it->second.limits());
    } else {
      quota["guarantee"] = Object();
      quota["limit"] = Object();
    }
    Object consumed;
    for (const auto& [resource, amount] : consumedQuota(name, views)) consumed[resource] = amount;
    quota["consumed"] = std::move(consumed);
    object["quota"] = std::move(quota);
    Array frameworks;
    for (const std::string& id : role.frameworks) frameworks.push_back(id);
    object["frameworks"] = std::move(frameworks);
    object["resources"] = json::fromResources(role.allocated);
    object["allocated"] = json::fromResources(role.allocated);
    object["offered"] = json::fromResources(role.offered);
    object["reserved"] = json::fromResources(role.reserved);
    array.push_back(std::move(object));
  }
  Object body;
  body["roles"] = std::move(array);
  // Whether the cluster as it stands can meet every guarantee at once.
  Object guarantees;
  guarantees["total"] = json::fromResources(guaranteed_);
  Resources cluster = registry_.clusterTotal().flatten();
  guarantees["cluster"] = json::fromResources(cluster);
  guarantees["satisfiable"] = cluster.contains(guaranteed_);
  body["guarantees"] = std::move(guarantees);
  return Response::ok(json::stringify(body));
}

struct Master::Steps {
  std::vector<Pass> passes;
  size_t pass = 0;  // the current pass
  size_t next = 0;  // the next entry in it
  std::function<void()> done;
};

Master::Pass::Pass(std::vector<std::string> ids, std::function<bool(const std::string& id)> visit)
    : count(ids.size()) {
  auto list = std::make_shared<const std::vector<std::string>>(std::move(ids));
  this->visit = [list, visit = std::move(visit)](size_t index) -> size_t {
    return visit((*list)[index]) ? 1 : 0;
  };
}

// Slaves that joined after the pass began are left out: one that left
// after its visit and came back may have taken a later slot.
Master::Pass Master::slavePass(std::function<bool(const Slave& slave)> visit) const {
  uint64_t began = registry_.version();
  return Pass(registry_.slaveSlots(), [this, began, visit = std::move(visit)](size_t slot) {
    const Slave* s = registry_.slaveInSlot(slot);
    return s != nullptr && s->addedAt <= began && visit(*s) ? 1 : 0;
  });
}

Master::Pass Master::slaveChunkPass(Pieces* pieces) const {
  uint64_t began = registry_.version();
  auto first = std::make_shared<bool>(true);
  size_t chunks = (registry_.slaveSlots() + kSlaveChunk - 1) / kSlaveChunk;
  return Pass(chunks, [this, began, pieces, first](size_t chunk) {
    return registry_.slaveChunkPieces(chunk, began, pieces, first.get());
  });
}

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
    if (pass.start) std::exchange(pass.start, nullptr)();
    while (budget > 0 && steps->next < pass.count) {
      budget -= std::min(budget, pass.visit(steps->next++));
    }
    if (steps->next < pass.count) {
      process::dispatch(self(), [this, steps] { runSteps(steps); });
      return;
    }
    steps->pass++;
    steps->next = 0;
  }
  steps->done();
}

Object Master::stateHead() const {
  Object head = json::versionInfo();
  head["start_time"] = startTime_;
  if (leading_) head["elected_time"] = electedTime_;
  head["id"] = info_.id();
  head["pid"] = self().toString();
  head["hostname"] = info_.hostname();
  // A standby names the leader it knows of (none: no "leader").
  const MasterInfo* known = leading_ ? &info_ : (leader_ ? &*leader_ : nullptr);
  if (known != nullptr) {
    head["leader"] = known->pid();
    Object leader;
    leader["id"] = known->id();
    leader["pid"] = known->pid();
    leader["port"] = known->port();
    leader["hostname"] = known->hostname();
    head["leader_info"] = std::move(leader);
  }
  head["cluster"] = flags_.cluster;
  head["activated_slaves"] =
      static_cast<int64_t>(registry_.slaveCount() - registry_.inactiveSlaveCount());
  head["deactivated_slaves"] = static_cast<int64_t>(registry_.inactiveSlaveCount());
  head["unreachable_slaves"] = static_cast<int64_t>(unreachable_.size());
  head["flags"] = json::fromFlags(flags_);
  return head;
}

}  // namespace mesos::internal::master
