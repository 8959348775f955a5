// POST /api/v1 (also /master/api/v1): Apache Mesos's v1 operator API
// (docs/operator-http-api.md). A mesos.v1.master.Call as JSON or protobuf
// (Content-Type), answered with a mesos.v1.master.Response in the encoding
// Accept picks; SUBSCRIBE opens an event stream fanned out off this actor
// (operator_events.hpp, operator_stream.hpp). What a principal sees is
// filtered by the view_* ACLs as /state is (authorization.cpp).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <glog/logging.h>

#include "common/json.hpp"
#include "common/operations.hpp"
#include "common/protobuf_json.hpp"
#include "common/state_json.hpp"
#include "common/v1.hpp"
#include "master/master.hpp"
#include "master/media_types.hpp"
#include "master/metrics_actor.hpp"
#include "master/operator_events.hpp"
#include "process/dispatch.hpp"
#include "v1/master.pb.h"

namespace mesos::internal::master {

using process::Future;
using process::http::Request;
using process::http::Response;
using Call = v1::master::Call;
using V1Response = v1::master::Response;

namespace {

using media::accepts;
using media::answer;
using media::kJson;
using media::kProtobuf;

Response encoded(const V1Response& response, OperatorEncoding encoding) {
  return Response::ok(
      encoding == OperatorEncoding::kJson ? toJson(response) : response.SerializeAsString(),
      mediaType(encoding));
}

const std::string* stringAt(const json::Value& value, const char* key) {
  const json::Value& field = value[key];
  return field.isString() ? &field.string() : nullptr;
}

// A completed task from its /state JSON (the registry keeps no more of it).
v1::Task completedTask(const CompletedTask& completed, const std::string& frameworkId) {
  v1::Task task;
  task.mutable_task_id()->set_value(completed.id);
  task.mutable_framework_id()->set_value(frameworkId);
  task.mutable_agent_id()->set_value(completed.slaveId);
  task.set_state(static_cast<v1::TaskState>(completed.state));
  task.set_name("");
  if (completed.json != nullptr) {
    if (auto parsed = json::parse(*completed.json); parsed && parsed->isObject()) {
      if (const std::string* name = stringAt(*parsed, "name")) task.set_name(*name);
      if (const std::string* executor = stringAt(*parsed, "executor_id");
          executor != nullptr && !executor->empty()) {
        task.mutable_executor_id()->set_value(*executor);
      }
      if (const std::string* user = stringAt(*parsed, "user")) task.set_user(*user);
    }
  }
  return task;
}

// The roles an operation's resources are reserved for, before and after it
// (for a RESERVE: the role it reserves for); nullopt when it is not a
// conversion this master knows.
std::optional<std::set<std::string>> rolesOf(const Operation& operation) {
  auto conversion = operations::conversion(operation.info());
  if (!conversion) return std::nullopt;
  std::set<std::string> roles;
  for (const Resources* resources : {&conversion->consumed, &conversion->converted}) {
    for (const Resource& resource : *resources) {
      if (resource.has_role() && resource.role() != "*") roles.insert(resource.role());
      for (const auto& reservation : resource.reservations()) roles.insert(reservation.role());
    }
  }
  return roles;
}

}  // namespace

// The calls, served on the master's actor. A friend of Master.
class OperatorApi {
 public:
  explicit OperatorApi(Master& master) : m_(master) {}

  Future<Response> serve(const Request& request);

 private:
  Future<Response> call(const Request& request, const Call& call, OperatorEncoding encoding);
  V1Response::GetState state(const OperatorViewer& viewer) const;
  V1Response::GetAgents agents() const;
  V1Response::GetFrameworks frameworks(const OperatorViewer& viewer) const;
  V1Response::GetExecutors executors(const OperatorViewer& viewer) const;
  V1Response::GetTasks tasks(const OperatorViewer& viewer) const;
  // Operations the principal may see: view_roles on every role of their
  // resources (Apache's rule), by framework and id.
  V1Response::GetOperations operations(const std::optional<std::string>& principal) const;
  V1Response::GetRoles roles(const std::optional<std::string>& principal) const;
  // GET_WEIGHTS, UPDATE_WEIGHTS, GET_QUOTA, UPDATE_QUOTA (roles.cpp).
  Future<Response> roleSettings(const Request& request, const Call& call,
                                OperatorEncoding encoding);
  Future<Response> metrics(OperatorEncoding encoding);
  Response teardown(const Request& request, const Call& call);
  Future<Response> markAgentGone(const Request& request, const Call& call);
  // RESERVE_RESOURCES, UNRESERVE_RESOURCES, CREATE_VOLUMES,
  // DESTROY_VOLUMES: Master::operate() (operator_operations.cpp).
  Future<Response> operate(const Request& request, const Call& call);
  // DRAIN_AGENT, DEACTIVATE_AGENT, REACTIVATE_AGENT (draining.cpp).
  Future<Response> changeAgent(const Request& request, const Call& call);
  Response subscribe(const Request& request, OperatorEncoding encoding);
  // The maintenance calls (maintenance.cpp, docs/maintenance.md).
  Future<Response> maintenance(const Request& request, const Call& call,
                               OperatorEncoding encoding);
  // The user of an entry of the registry, registered or not.
  std::string frameworkUser(const std::string& frameworkId) const;

  Master& m_;
};

Future<Response> Master::operatorEndpoint(const Request& request) {
  return OperatorApi(*this).serve(request);
}

Future<Response> OperatorApi::serve(const Request& request) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  Call call;
  if (auto refused = media::parseCall(request, &call, "master::Call")) return *refused;
  if (!call.has_type() || call.type() == Call::UNKNOWN) {
    return answer(400, "Failed to validate master::Call: Expecting 'type' to be present");
  }
  OperatorEncoding encoding;
  if (accepts(request, kJson)) {
    encoding = OperatorEncoding::kJson;
  } else if (accepts(request, kProtobuf)) {
    encoding = OperatorEncoding::kProtobuf;
  } else {
    return answer(406, "Expecting 'Accept' to allow " + std::string(kJson) + " or " +
                           std::string(kProtobuf));
  }
  return this->call(request, call, encoding);
}

Future<Response> OperatorApi::call(const Request& request, const Call& call,
                                   OperatorEncoding encoding) {
  V1Response response;
  switch (call.type()) {
    case Call::GET_HEALTH:
      response.set_type(V1Response::GET_HEALTH);
      response.mutable_get_health()->set_healthy(true);
      return encoded(response, encoding);
    case Call::GET_FLAGS: {
      OperatorViewer viewer(m_.guard_, request.principal);
      if (!viewer.seesFlags()) {
        return authentication::EndpointGuard::forbidden(
            "Not authorized to view the flags (ACL view_flags)");
      }
      response.set_type(V1Response::GET_FLAGS);
      for (const auto& [name, value] : m_.flags_.values()) {
        v1::Flag* flag = response.mutable_get_flags()->add_flags();
        flag->set_name(name);
        flag->set_value(value);
      }
      return encoded(response, encoding);
    }
    case Call::GET_VERSION: {
      response.set_type(V1Response::GET_VERSION);
      v1::VersionInfo* version = response.mutable_get_version()->mutable_version_info();
      if (auto parsed = fromJson(json::stringify(json::versionInfo()), version); !parsed) {
        return answer(500, "Failed to describe the version: " + parsed.error().message);
      }
      return encoded(response, encoding);
    }
    case Call::GET_METRICS:
      if (call.get_metrics().has_timeout() && call.get_metrics().timeout().nanoseconds() < 0) {
        return answer(400, "Failed to validate master::Call: 'get_metrics.timeout' is negative");
      }
      return metrics(encoding);
    case Call::GET_MASTER: {
      response.set_type(V1Response::GET_MASTER);
      V1Response::GetMaster* master = response.mutable_get_master();
      *master->mutable_master_info() = evolve<v1::MasterInfo>(m_.info_);
      master->set_start_time(m_.startTime_);
      if (m_.leading_) master->set_elected_time(m_.electedTime_);
      return encoded(response, encoding);
    }
    default:
      break;
  }
  // The rest needs the leader's state.
  if (!m_.leading_) {
    Response redirect = m_.redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/api/v1";
    return redirect;
  }
  switch (call.type()) {
    case Call::GET_STATE:
      response.set_type(V1Response::GET_STATE);
      *response.mutable_get_state() = state(OperatorViewer(m_.guard_, request.principal));
      return encoded(response, encoding);
    case Call::GET_AGENTS:
      response.set_type(V1Response::GET_AGENTS);
      *response.mutable_get_agents() = agents();
      return encoded(response, encoding);
    case Call::GET_FRAMEWORKS:
      response.set_type(V1Response::GET_FRAMEWORKS);
      *response.mutable_get_frameworks() =
          frameworks(OperatorViewer(m_.guard_, request.principal));
      return encoded(response, encoding);
    case Call::GET_EXECUTORS:
      response.set_type(V1Response::GET_EXECUTORS);
      *response.mutable_get_executors() = executors(OperatorViewer(m_.guard_, request.principal));
      return encoded(response, encoding);
    case Call::GET_TASKS:
      response.set_type(V1Response::GET_TASKS);
      *response.mutable_get_tasks() = tasks(OperatorViewer(m_.guard_, request.principal));
      return encoded(response, encoding);
    case Call::GET_OPERATIONS:
      response.set_type(V1Response::GET_OPERATIONS);
      *response.mutable_get_operations() = operations(request.principal);
      return encoded(response, encoding);
    case Call::GET_ROLES:
      response.set_type(V1Response::GET_ROLES);
      *response.mutable_get_roles() = roles(request.principal);
      return encoded(response, encoding);
    case Call::GET_WEIGHTS:
    case Call::UPDATE_WEIGHTS:
    case Call::GET_QUOTA:
    case Call::UPDATE_QUOTA:
      return roleSettings(request, call, encoding);
    case Call::TEARDOWN:
      return teardown(request, call);
    case Call::RESERVE_RESOURCES:
    case Call::UNRESERVE_RESOURCES:
    case Call::CREATE_VOLUMES:
    case Call::DESTROY_VOLUMES:
      return operate(request, call);
    case Call::MARK_AGENT_GONE:
      return markAgentGone(request, call);
    case Call::DRAIN_AGENT:
    case Call::DEACTIVATE_AGENT:
    case Call::REACTIVATE_AGENT:
      return changeAgent(request, call);
    case Call::SUBSCRIBE:
      return subscribe(request, encoding);
    case Call::GET_MAINTENANCE_STATUS:
    case Call::GET_MAINTENANCE_SCHEDULE:
    case Call::UPDATE_MAINTENANCE_SCHEDULE:
    case Call::START_MAINTENANCE:
    case Call::STOP_MAINTENANCE:
      return maintenance(request, call, encoding);
    default:
      return answer(501, "Call " + Call::Type_Name(call.type()) +
                             " is not supported by this master yet (docs/operator-http-api.md "
                             "lists the calls it serves)");
  }
}

Future<Response> OperatorApi::operate(const Request& request, const Call& call) {
  // v1 resources are v0's on the wire.
  Offer::Operation operation;
  std::string agentId;
  switch (call.type()) {
    case Call::RESERVE_RESOURCES:
      operation.set_type(Offer::Operation::RESERVE);
      agentId = call.reserve_resources().agent_id().value();
      for (const auto& r : call.reserve_resources().resources()) {
        *operation.mutable_reserve()->add_resources() = devolve<Resource>(r);
      }
      for (const auto& r : call.reserve_resources().source()) {
        *operation.mutable_reserve()->add_source() = devolve<Resource>(r);
      }
      break;
    case Call::UNRESERVE_RESOURCES:
      operation.set_type(Offer::Operation::UNRESERVE);
      agentId = call.unreserve_resources().agent_id().value();
      for (const auto& r : call.unreserve_resources().resources()) {
        *operation.mutable_unreserve()->add_resources() = devolve<Resource>(r);
      }
      break;
    case Call::CREATE_VOLUMES:
      operation.set_type(Offer::Operation::CREATE);
      agentId = call.create_volumes().agent_id().value();
      for (const auto& r : call.create_volumes().volumes()) {
        *operation.mutable_create()->add_volumes() = devolve<Resource>(r);
      }
      break;
    default:
      operation.set_type(Offer::Operation::DESTROY);
      agentId = call.destroy_volumes().agent_id().value();
      for (const auto& r : call.destroy_volumes().volumes()) {
        *operation.mutable_destroy()->add_volumes() = devolve<Resource>(r);
      }
  }
  if (agentId.empty()) {
    return answer(400, "Failed to validate master::Call: Expecting 'agent_id' to be present");
  }
  return m_.operate(request.principal, agentId, operation);
}

std::string OperatorApi::frameworkUser(const std::string& frameworkId) const {
  const Framework* f = m_.registry_.framework(frameworkId);
  if (f == nullptr) f = m_.registry_.unregisteredFramework(frameworkId);
  return f == nullptr ? std::string() : f->info.user();
}

V1Response::GetState OperatorApi::state(const OperatorViewer& viewer) const {
  V1Response::GetState state;
  *state.mutable_get_tasks() = tasks(viewer);
  *state.mutable_get_executors() = executors(viewer);
  *state.mutable_get_frameworks() = frameworks(viewer);
  *state.mutable_get_agents() = agents();
  return state;
}

V1Response::GetAgents OperatorApi::agents() const {
  V1Response::GetAgents agents;
  m_.registry_.forEachSlave([&](const Slave& s) { *agents.add_agents() = v1Agent(s); });
  // Listed by the registry, not back since the failover.
  for (const auto& [id, info] : m_.recovered_) {
    *agents.add_recovered_agents() = evolve<v1::AgentInfo>(*info);
  }
  return agents;
}

V1Response::GetFrameworks OperatorApi::frameworks(const OperatorViewer& viewer) const {
  V1Response::GetFrameworks frameworks;
  m_.registry_.forEachFramework([&](const Framework& f) {
    if (!viewer.seesFramework(f.info.user())) return;
    V1Response::GetFrameworks::Framework* out = frameworks.add_frameworks();
    *out = v1Framework(f);
    for (const std::string& offerId : f.offers) {
      if (const OfferRecord* offer = m_.offers_.find(offerId)) {
        *out->add_offers() = evolve<v1::Offer>(offer->offer);
      }
    }
  });
  for (const std::string& id : m_.registry_.completedFrameworkIds()) {
    const Framework* f = m_.registry_.completedFramework(id);
    if (f != nullptr && viewer.seesFramework(f->info.user())) {
      *frameworks.add_completed_frameworks() = v1Framework(*f);
    }
  }
  return frameworks;
}

V1Response::GetExecutors OperatorApi::executors(const OperatorViewer& viewer) const {
  V1Response::GetExecutors executors;
  m_.registry_.forEachSlave([&](const Slave& s) {
    for (const auto& [frameworkId, byId] : s.executors) {
      std::string user = frameworkUser(frameworkId);
      for (const auto& [executorId, info] : byId) {
        if (!viewer.seesExecutor(user, info.command().user())) continue;
        V1Response::GetExecutors::Executor* out = executors.add_executors();
        *out->mutable_executor_info() = evolve<v1::ExecutorInfo>(info);
        *out->mutable_agent_id() = evolve<v1::AgentID>(s.id);
      }
    }
  });
  return executors;
}

V1Response::GetTasks OperatorApi::tasks(const OperatorViewer& viewer) const {
  V1Response::GetTasks tasks;
  auto live = [&](const Framework& f,
                  const std::unordered_map<std::string, std::unique_ptr<TaskRecord>>& records) {
    for (const auto& [taskId, task] : records) {
      if (viewer.seesTask(f.info.user(), task->task.user())) *tasks.add_tasks() = v1Task(*task);
    }
  };
  auto completed = [&](const Framework& f) {
    for (const CompletedTask& task : f.completed) {
      v1::Task out = completedTask(task, f.id.value());
      if (viewer.seesTask(f.info.user(), out.user())) *tasks.add_completed_tasks() = std::move(out);
    }
  };
  m_.registry_.forEachFramework([&](const Framework& f) {
    live(f, f.tasks);
    completed(f);
  });
  for (const std::string& id : m_.registry_.unregisteredFrameworkIds()) {
    if (Framework* f = m_.registry_.unregisteredFramework(id)) live(*f, f->tasks);
  }
  // Tasks on unreachable agents (partitions.cpp).
  for (const auto& [frameworkId, unreachable] : m_.unreachableTasks_) {
    const Framework* f = m_.registry_.framework(frameworkId);
    if (f == nullptr) continue;
    for (const auto& [taskId, task] : unreachable.byId) {
      if (!viewer.seesTask(f->info.user(), task.task.has_user() ? task.task.user() : "")) continue;
      v1::Task* out = tasks.add_unreachable_tasks();
      *out = evolve<v1::Task>(task.task);
      *out->add_statuses() = evolve<v1::TaskStatus>(task.status);
    }
  }
  for (const std::string& id : m_.registry_.completedFrameworkIds()) {
    if (const Framework* f = m_.registry_.completedFramework(id)) completed(*f);
  }
  return tasks;
}

V1Response::GetOperations OperatorApi::operations(
    const std::optional<std::string>& principal) const {
  std::map<std::pair<std::string, std::string>, const Operation*> kept;
  auto collect = [&](const Framework& f) {
    for (const auto& [id, operation] : f.operations) kept[{f.id.value(), id}] = &operation;
  };
  m_.registry_.forEachFramework(collect);
  for (const std::string& id : m_.registry_.unregisteredFrameworkIds()) {
    if (const Framework* f = m_.registry_.unregisteredFramework(id)) collect(*f);
  }
  V1Response::GetOperations out;
  for (const auto& [key, operation] : kept) {
    if (m_.guard_->authorizing()) {
      // Apache shows an operation whose resources it cannot tell to nobody.
      auto roles = rolesOf(*operation);
      if (!roles || !std::all_of(roles->begin(), roles->end(), [&](const std::string& role) {
            return m_.guard_->authorized(authorizer::Action::kViewRole, principal, role);
          })) {
        continue;
      }
    }
    *out.add_operations() = evolve<v1::Operation>(*operation);
  }
  return out;
}

V1Response::GetRoles OperatorApi::roles(const std::optional<std::string>& principal) const {
  V1Response::GetRoles out;
  for (const auto& [name, role] : m_.roleViews(principal)) {
    v1::Role* entry = out.add_roles();
    entry->set_name(name);
    entry->set_weight(m_.weightOf(name));
    for (const std::string& id : role.frameworks) entry->add_frameworks()->set_value(id);
    for (const Resource& resource : role.allocated.proto()) {
      *entry->add_resources() = evolve<v1::Resource>(resource);
    }
  }
  return out;
}

Future<Response> OperatorApi::roleSettings(const Request& request, const Call& call,
                                           OperatorEncoding encoding) {
  if (m_.recovering_) {
    return answer(503, "The registry is being read (quota and weights with it); try again");
  }
  V1Response response;
  switch (call.type()) {
    case Call::GET_WEIGHTS:
      response.set_type(V1Response::GET_WEIGHTS);
      for (const WeightInfo& info : m_.weightInfos(request.principal)) {
        *response.mutable_get_weights()->add_weight_infos() = evolve<v1::WeightInfo>(info);
      }
      return encoded(response, encoding);
    case Call::GET_QUOTA:
      response.set_type(V1Response::GET_QUOTA);
      *response.mutable_get_quota()->mutable_status() =
          evolve<v1::quota::QuotaStatus>(m_.quotaStatus(request.principal));
      return encoded(response, encoding);
    case Call::UPDATE_WEIGHTS: {
      if (!call.has_update_weights()) {
        return answer(400, "Failed to validate master::Call: Expecting 'update_weights' to be "
                           "present");
      }
      std::vector<WeightInfo> weights;
      for (const v1::WeightInfo& info : call.update_weights().weight_infos()) {
        weights.push_back(devolve<WeightInfo>(info));
      }
      return m_.updateWeights(std::move(weights), request.principal);
    }
    default: {
      if (!call.has_update_quota()) {
        return answer(400, "Failed to validate master::Call: Expecting 'update_quota' to be "
                           "present");
      }
      std::vector<quota::QuotaConfig> configs;
      for (const v1::quota::QuotaConfig& config : call.update_quota().quota_configs()) {
        configs.push_back(devolve<quota::QuotaConfig>(config));
      }
      return m_.updateQuota(std::move(configs), call.update_quota().force(), false,
                            request.principal);
    }
  }
}

Future<Response> OperatorApi::metrics(OperatorEncoding encoding) {
  return process::dispatch(m_.metricsActor_.pid(), &MetricsActor::snapshot, Request())
      .then(m_.self(), [encoding](const Response& snapshot) {
        auto parsed = json::parse(snapshot.flatBody());
        if (!parsed || !parsed->isObject()) {
          return answer(500, "Failed to read the metrics snapshot");
        }
        V1Response response;
        response.set_type(V1Response::GET_METRICS);
        for (const auto& [name, value] : parsed->object()) {
          v1::Metric* metric = response.mutable_get_metrics()->add_metrics();
          metric->set_name(name);
          if (value.isNumber()) metric->set_value(value.number());
        }
        return encoded(response, encoding);
      });
}

// As POST /master/teardown (authorization.cpp): teardown_frameworks.
Response OperatorApi::teardown(const Request& request, const Call& call) {
  if (!call.has_teardown()) {
    return answer(400, "Failed to validate master::Call: Expecting 'teardown' to be present");
  }
  const std::string& id = call.teardown().framework_id().value();
  Framework* f = m_.framework(id);
  if (f == nullptr) return answer(400, "No framework found with specified ID");
  std::optional<std::string> owner;
  if (f->info.has_principal()) owner = f->info.principal();
  if (!m_.guard_->authorized(authorizer::Action::kTeardownFramework, request.principal, owner)) {
    LOG(WARNING) << "Refusing to tear down framework " << id << " (TEARDOWN call) for "
                 << authorizer::describe(request.principal) << " from " << request.peer
                 << " (ACL teardown_frameworks)";
    return authentication::EndpointGuard::forbidden("Not authorized to tear down framework " +
                                                    id + " (ACL teardown_frameworks)");
  }
  LOG(INFO) << "Tearing down framework " << id << " (" << f->info.name()
            << ") for a TEARDOWN call from " << request.peer;
  if (f->active && !m_.isSchedulerStream(f->pid)) {
    FrameworkErrorMessage message;
    message.set_message("Framework has been removed (TEARDOWN call of the operator API)");
    m_.send(f->pid, std::move(message));
  }
  m_.removeFramework(*f);
  return Response::ok("", "text/plain");
}

// mark_agents_gone (Apache's ACL; agents: ANY or NONE).
Future<Response> OperatorApi::markAgentGone(const Request& request, const Call& call) {
  if (!call.has_mark_agent_gone()) {
    return answer(400, "Failed to validate master::Call: Expecting 'mark_agent_gone' to be present");
  }
  if (!m_.guard_->authorized(authorizer::Action::kMarkAgentGone, request.principal,
                             std::nullopt)) {
    LOG(WARNING) << "Refusing to mark agent " << call.mark_agent_gone().agent_id().value()
                 << " gone for " << authorizer::describe(request.principal) << " from "
                 << request.peer << " (ACL mark_agents_gone)";
    return authentication::EndpointGuard::forbidden(
        "Not authorized to mark agents gone (ACL mark_agents_gone)");
  }
  SlaveID id;
  id.set_value(call.mark_agent_gone().agent_id().value());
  LOG(INFO) << "Marking agent " << id.value() << " gone for a MARK_AGENT_GONE call from "
            << request.peer;
  return m_.markAgentGone(id);
}

Future<Response> OperatorApi::maintenance(const Request& request, const Call& call,
                                          OperatorEncoding encoding) {
  auto machines = [](const google::protobuf::RepeatedPtrField<v1::MachineID>& ids) {
    std::vector<MachineID> out;
    for (const v1::MachineID& id : ids) out.push_back(devolve<MachineID>(id));
    return out;
  };
  if (m_.recovering_) {
    return answer(503, "The registry is being read (the maintenance schedule with it); try again");
  }
  V1Response response;
  switch (call.type()) {
    case Call::GET_MAINTENANCE_STATUS:
      response.set_type(V1Response::GET_MAINTENANCE_STATUS);
      *response.mutable_get_maintenance_status()->mutable_status() =
          evolve<v1::maintenance::ClusterStatus>(m_.maintenanceStatus(request.principal));
      return encoded(response, encoding);
    case Call::GET_MAINTENANCE_SCHEDULE:
      response.set_type(V1Response::GET_MAINTENANCE_SCHEDULE);
      *response.mutable_get_maintenance_schedule()->mutable_schedule() =
          evolve<v1::maintenance::Schedule>(m_.maintenanceSchedule(request.principal));
      return encoded(response, encoding);
    case Call::UPDATE_MAINTENANCE_SCHEDULE:
      if (!call.has_update_maintenance_schedule()) {
        return answer(400, "Failed to validate master::Call: Expecting "
                           "'update_maintenance_schedule' to be present");
      }
      return m_.updateMaintenanceSchedule(
          devolve<mesos::maintenance::Schedule>(call.update_maintenance_schedule().schedule()),
          request.principal);
    case Call::START_MAINTENANCE:
      if (!call.has_start_maintenance()) {
        return answer(400,
                      "Failed to validate master::Call: Expecting 'start_maintenance' to be present");
      }
      return m_.startMaintenance(machines(call.start_maintenance().machines()), request.principal);
    default:
      if (!call.has_stop_maintenance()) {
        return answer(400,
                      "Failed to validate master::Call: Expecting 'stop_maintenance' to be present");
      }
      return m_.stopMaintenance(machines(call.stop_maintenance().machines()), request.principal);
  }
}

// drain_agents (and mark_agents_gone with mark_gone), deactivate_agents,
// reactivate_agents: Apache's ACLs, agents ANY or NONE.
Future<Response> OperatorApi::changeAgent(const Request& request, const Call& call) {
  const char* field = nullptr;
  const v1::AgentID* agent = nullptr;
  std::vector<std::pair<authorizer::Action, const char*>> acls;
  switch (call.type()) {
    case Call::DRAIN_AGENT:
      field = "drain_agent";
      if (call.has_drain_agent()) agent = &call.drain_agent().agent_id();
      acls.emplace_back(authorizer::Action::kDrainAgent, "drain_agents");
      if (call.drain_agent().mark_gone()) {
        acls.emplace_back(authorizer::Action::kMarkAgentGone, "mark_agents_gone");
      }
      break;
    case Call::DEACTIVATE_AGENT:
      field = "deactivate_agent";
      if (call.has_deactivate_agent()) agent = &call.deactivate_agent().agent_id();
      acls.emplace_back(authorizer::Action::kDeactivateAgent, "deactivate_agents");
      break;
    default:
      field = "reactivate_agent";
      if (call.has_reactivate_agent()) agent = &call.reactivate_agent().agent_id();
      acls.emplace_back(authorizer::Action::kReactivateAgent, "reactivate_agents");
      break;
  }
  if (agent == nullptr) {
    return answer(400, "Failed to validate master::Call: Expecting '" + std::string(field) +
                           "' to be present");
  }
  if (call.type() == Call::DRAIN_AGENT && call.drain_agent().has_max_grace_period() &&
      call.drain_agent().max_grace_period().nanoseconds() < 0) {
    return answer(400, "Failed to validate master::Call: 'drain_agent.max_grace_period' is "
                       "negative");
  }
  const std::string name = Call::Type_Name(call.type());
  for (const auto& [action, acl] : acls) {
    if (!m_.guard_->authorized(action, request.principal, std::nullopt)) {
      LOG(WARNING) << "Refusing " << name << " of agent " << agent->value() << " for "
                   << authorizer::describe(request.principal) << " from " << request.peer
                   << " (ACL " << acl << ")";
      return authentication::EndpointGuard::forbidden("Not authorized to " + name + " (ACL " +
                                                      acl + ")");
    }
  }
  SlaveID id;
  id.set_value(agent->value());
  LOG(INFO) << name << " of agent " << id.value() << " from " << request.peer;
  switch (call.type()) {
    case Call::DRAIN_AGENT: {
      std::optional<DurationInfo> grace;
      if (call.drain_agent().has_max_grace_period()) {
        grace.emplace();
        grace->set_nanoseconds(call.drain_agent().max_grace_period().nanoseconds());
      }
      return m_.drainAgent(id, grace, call.drain_agent().mark_gone());
    }
    case Call::DEACTIVATE_AGENT:
      return m_.deactivateAgent(id);
    default:
      return m_.reactivateAgent(id);
  }
}

Response OperatorApi::subscribe(const Request& request, OperatorEncoding encoding) {
  auto viewer = std::make_shared<const OperatorViewer>(m_.guard_, request.principal);
  v1::master::Event event;
  event.set_type(v1::master::Event::SUBSCRIBED);
  v1::master::Event::Subscribed* subscribed = event.mutable_subscribed();
  *subscribed->mutable_get_state() = state(*viewer);
  subscribed->set_heartbeat_interval_seconds(
      std::chrono::duration<double>(Master::kHeartbeatInterval).count());
  auto pipe = std::make_shared<process::http::Pipe>();
  VLOG(1) << "Operator event stream subscribed from " << request.peer;
  m_.operatorEvents_.subscribe(OperatorSubscriber{pipe, encoding, std::move(viewer), request.peer},
                               std::move(event));
  Response response{200, mediaType(encoding), "", {}};
  response.stream = std::move(pipe);
  return response;
}

}  // namespace mesos::internal::master
