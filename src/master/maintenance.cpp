// Maintenance (docs/maintenance.md), as Apache Mesos 1.x has it: the
// schedule of windows an operator posts, each machine's mode (UP, DRAINING
// while in the schedule, DOWN between /machine/down and /machine/up), the
// unavailability that offers of scheduled agents carry, and the inverse
// offers that ask frameworks with tasks there to give them back. The
// schedule and the modes are stored in the registry (registrar.hpp) before
// the master answers or acts; the frameworks' answers are soft state.
#include <glog/logging.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <vector>

#include "common/json.hpp"
#include "common/protobuf_json.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"
#include "v1/master.pb.h"

namespace mesos::internal::master {

using authorizer::Action;
using process::Future;
using process::http::Request;
using process::http::Response;
using registrar::Registrar;
using InverseOfferStatus = mesos::allocator::InverseOfferStatus;

namespace {

Response badRequest(const std::string& message) {
  return Response{400, "text/plain", message + "\n", {}};
}

std::string quoted(const MachineID& id) { return "Machine '" + toJson(id) + "'"; }


std::string keyOf(const MachineID& id) { return Registry::machineKey(id.hostname(), id.ip()); }

// Apache's checks of one machine id.
std::optional<std::string> invalidMachine(const MachineID& id) {
  if (id.hostname().empty() && id.ip().empty()) {
    return "Both 'hostname' and 'ip' for a machine are empty";
  }
  if (!id.ip().empty() && !process::Address::parseIp(id.ip())) {
    return "Failed to parse IP '" + id.ip() + "' of " + quoted(id);
  }
  return std::nullopt;
}

// The machines of /machine/down and /machine/up: valid, none twice.
std::optional<std::string> invalidMachines(const std::vector<MachineID>& ids) {
  if (ids.empty()) return "List of machines is empty";
  std::set<std::string> seen;
  for (const MachineID& id : ids) {
    if (auto invalid = invalidMachine(id)) return invalid;
    if (!seen.insert(keyOf(id)).second) {
      return quoted(id) + " appears more than once in the schedule";
    }
  }
  return std::nullopt;
}

// A JSON array of machine ids (the body of /machine/down and /machine/up).
Result<std::vector<MachineID>> parseMachines(const std::string& body) {
  auto parsed = json::parse(body);
  if (!parsed || !parsed->isArray()) {
    return Error{"Expecting a JSON array of machines, e.g. [{\"hostname\": \"host1\", \"ip\": "
                 "\"10.0.0.1\"}]"};
  }
  v1::master::Call::StartMaintenance machines;
  if (auto done = fromJson("{\"machines\": " + body + "}", &machines); !done) {
    return done.error();
  }
  std::vector<MachineID> ids;
  for (const v1::MachineID& id : machines.machines()) {
    MachineID out;
    out.set_hostname(id.hostname());
    out.set_ip(id.ip());
    ids.push_back(std::move(out));
  }
  return ids;
}

// The runtime's clock (paused in tests), in seconds: filters expire on it.
double clockSeconds(process::Runtime& runtime) {
  return std::chrono::duration<double>(runtime.clock().now().time_since_epoch()).count();
}

Response beingRead() {
  return Response{503, "text/plain",
                  "The registry is being read (the maintenance schedule with it); try again\n",
                  {}};
}

Response forbidden(const char* what, const char* acl) {
  return authentication::EndpointGuard::forbidden(std::string("Not authorized to ") + what +
                                                  " (ACL " + acl + ")");
}

// Apache's 400 for /machine/down and /machine/up: every machine must be
// scheduled and in `mode` (`machines` by keyOf()).
template <typename Machines>
std::optional<std::string> notAllIn(const Machines& machines, const std::vector<MachineID>& ids,
                                    MachineInfo::Mode mode, const char* action) {
  for (const MachineID& id : ids) {
    auto it = machines.find(keyOf(id));
    if (it == machines.end()) return quoted(id) + " is not part of a maintenance schedule";
    if (it->second.info.mode() != mode) {
      return quoted(id) + " is not in " + MachineInfo::Mode_Name(mode) +
             " mode and cannot be " + action;
    }
  }
  return std::nullopt;
}

}  // namespace

// Hostnames are compared in any case, as Apache Mesos compares them.
std::string Master::machineKey(const MachineID& id) { return keyOf(id); }

const Master::Machine* Master::maintenanceOf(const Slave& s) const {
  if (machines_.empty()) return nullptr;
  auto it = machines_.find(s.machine);
  return it == machines_.end() ? nullptr : &it->second;
}

bool Master::onDownMachine(const SlaveInfo& info, const UPID& pid) const {
  if (machines_.empty()) return false;
  auto it = machines_.find(Registry::machineKey(info.hostname(), pid.address.ipString()));
  return it != machines_.end() && it->second.info.mode() == MachineInfo::DOWN;
}

void Master::recoverMaintenance(const registry::Maintenance& stored) {
  if (stored.schedules_size() == 0 && stored.machines_size() == 0) return;
  LOG(INFO) << "The registry holds a maintenance schedule of "
            << (stored.schedules_size() > 0 ? stored.schedules(0).windows_size() : 0)
            << " windows and " << stored.machines_size() << " machines in maintenance";
  applyMaintenance(stored);
}

registry::Maintenance Master::currentMaintenance() const {
  registry::Maintenance current;
  if (schedule_.windows_size() > 0) *current.add_schedules() = schedule_;
  for (const auto& [key, machine] : machines_) *current.add_machines() = machine.info;
  return current;
}

void Master::applyMaintenance(const registry::Maintenance& next) {
  std::map<std::string, MachineInfo> modes;
  for (const MachineInfo& info : next.machines()) modes[machineKey(info.id())] = info;
  // Machines that leave DRAINING, or whose window changed: their inverse
  // offers and answers are void, their agents' offers are made again with
  // the new unavailability.
  std::set<std::string> changed;
  for (const auto& [key, machine] : machines_) {
    auto it = modes.find(key);
    if (it == modes.end() || it->second.SerializeAsString() != machine.info.SerializeAsString()) {
      changed.insert(key);
    }
  }
  for (const auto& [key, info] : modes) {
    if (machines_.count(key) == 0) changed.insert(key);
  }
  for (const std::string& key : changed) rescindInverseOffers(key);
  std::map<std::string, Machine> machines;
  for (auto& [key, info] : modes) {
    Machine& machine = machines[key];
    machine.info = info;
    if (changed.count(key) == 0) machine.statuses = std::move(machines_[key].statuses);
  }
  machines_ = std::move(machines);
  schedule_ = next.schedules_size() > 0 ? next.schedules(0) : maintenance::Schedule();
  lastState_.reset();
  if (changed.empty()) return;
  std::vector<Slave*> down;
  std::set<std::string> agents;
  for (const std::string& key : changed) {
    auto it = machines_.find(key);
    bool isDown = it != machines_.end() && it->second.info.mode() == MachineInfo::DOWN;
    registry_.forEachSlaveOn(key, [&](Slave& s) {
      agents.insert(s.id.value());
      offers_.rescindOn(s);
      if (isDown) down.push_back(&s);
    });
  }
  // As Apache's allocator does, the frameworks' filters on those agents'
  // inverse offers go: they are asked again at once.
  for (auto it = inverseOfferRefused_.begin(); it != inverseOfferRefused_.end();) {
    it = agents.count(it->first.second) != 0 ? inverseOfferRefused_.erase(it) : std::next(it);
  }
  // As Apache Mesos does: the agents are told to shut down and removed; their
  // tasks are TASK_GONE_BY_OPERATOR for partition-aware frameworks,
  // TASK_LOST for the others.
  for (Slave* s : down) {
    LOG(WARNING) << "Removing agent " << s->id.value() << " at " << s->pid
                 << ": its machine went DOWN for maintenance";
    removeAgent(*s, Removal::kGone, "Operator initiated 'Machine DOWN'");
  }
  makeInverseOffers();
}

Future<Response> Master::changeMaintenance(registry::Maintenance next) {
  if (recovering_) return beingRead();
  if (maintenanceChanging_) {
    return Response{503, "text/plain",
                    "Another maintenance change is being stored; try again\n", {}};
  }
  maintenanceChanging_ = true;
  auto promise = std::make_shared<process::Promise<Response>>();
  process::dispatch(registrar_.pid(), &Registrar::setMaintenance, next)
      .then(self(), [this, next, promise](const Result<bool>& done) {
        maintenanceChanging_ = false;
        if (!done) {
          registryFailed(done.error());
          promise->set(Response{503, "text/plain",
                                "The registry failed: " + done.error().message + "\n", {}});
          return;
        }
        applyMaintenance(next);
        promise->set(Response::ok("", "text/plain"));
      });
  return promise->future();
}

maintenance::Schedule Master::maintenanceSchedule(
    const std::optional<std::string>& principal) const {
  if (!guard_->authorized(Action::kGetMaintenanceSchedule, principal, std::nullopt)) return {};
  return schedule_;
}

maintenance::ClusterStatus Master::maintenanceStatus(
    const std::optional<std::string>& principal) const {
  maintenance::ClusterStatus status;
  if (!guard_->authorized(Action::kGetMaintenanceStatus, principal, std::nullopt)) return status;
  for (const auto& [key, machine] : machines_) {
    if (machine.info.mode() == MachineInfo::DOWN) {
      *status.add_down_machines() = machine.info.id();
      continue;
    }
    auto* draining = status.add_draining_machines();
    *draining->mutable_id() = machine.info.id();
    for (const auto& [frameworkId, answer] : machine.statuses) {
      *draining->add_statuses() = answer;
    }
  }
  return status;
}

Future<Response> Master::updateMaintenanceSchedule(const maintenance::Schedule& schedule,
                                                   const std::optional<std::string>& principal) {
  // Apache's validation: windows not empty, durations not negative,
  // machines valid and each in one window only, DOWN machines kept.
  std::map<std::string, const maintenance::Window*> windowOf;
  for (const maintenance::Window& window : schedule.windows()) {
    if (window.machine_ids_size() == 0) {
      return badRequest("List of machines in the maintenance window is empty");
    }
    if (window.unavailability().duration().nanoseconds() < 0) {
      return badRequest("Unavailability 'duration' is negative");
    }
    for (const MachineID& id : window.machine_ids()) {
      if (auto invalid = invalidMachine(id)) return badRequest(*invalid);
      if (!windowOf.emplace(machineKey(id), &window).second) {
        return badRequest(quoted(id) + " appears more than once in the schedule");
      }
    }
  }
  for (const auto& [key, machine] : machines_) {
    if (machine.info.mode() == MachineInfo::DOWN && windowOf.count(key) == 0) {
      return badRequest(quoted(machine.info.id()) +
                        " is deactivated and cannot be removed from the schedule");
    }
  }
  if (!guard_->authorized(Action::kUpdateMaintenanceSchedule, principal, std::nullopt)) {
    return forbidden("update the maintenance schedule", "update_maintenance_schedules");
  }
  // Scheduled machines are DRAINING (DOWN ones stay DOWN) with their
  // window's unavailability; the others are UP again.
  registry::Maintenance next;
  if (schedule.windows_size() > 0) *next.add_schedules() = schedule;
  for (const auto& [key, window] : windowOf) {
    MachineInfo* info = next.add_machines();
    auto known = machines_.find(key);
    bool down = known != machines_.end() && known->second.info.mode() == MachineInfo::DOWN;
    *info->mutable_id() = down ? known->second.info.id() : [&] {
      for (const MachineID& id : window->machine_ids()) {
        if (machineKey(id) == key) return id;
      }
      return MachineID();
    }();
    info->set_mode(down ? MachineInfo::DOWN : MachineInfo::DRAINING);
    *info->mutable_unavailability() = window->unavailability();
  }
  LOG(INFO) << "Updating the maintenance schedule: " << schedule.windows_size() << " windows, "
            << windowOf.size() << " machines";
  return changeMaintenance(std::move(next));
}

Future<Response> Master::startMaintenance(const std::vector<MachineID>& ids,
                                          const std::optional<std::string>& principal) {
  if (auto invalid = invalidMachines(ids)) return badRequest(*invalid);
  if (auto invalid = notAllIn(machines_, ids, MachineInfo::DRAINING, "brought down")) {
    return badRequest(*invalid);
  }
  if (!guard_->authorized(Action::kStartMaintenance, principal, std::nullopt)) {
    return forbidden("start maintenance", "start_maintenances");
  }
  registry::Maintenance next = currentMaintenance();
  std::set<std::string> keys;
  for (const MachineID& id : ids) keys.insert(machineKey(id));
  for (MachineInfo& info : *next.mutable_machines()) {
    if (keys.count(machineKey(info.id())) != 0) info.set_mode(MachineInfo::DOWN);
  }
  LOG(INFO) << "Bringing " << ids.size() << " machines down for maintenance";
  return changeMaintenance(std::move(next));
}

Future<Response> Master::stopMaintenance(const std::vector<MachineID>& ids,
                                         const std::optional<std::string>& principal) {
  if (auto invalid = invalidMachines(ids)) return badRequest(*invalid);
  if (auto invalid = notAllIn(machines_, ids, MachineInfo::DOWN, "brought up")) {
    return badRequest(*invalid);
  }
  if (!guard_->authorized(Action::kStopMaintenance, principal, std::nullopt)) {
    return forbidden("stop maintenance", "stop_maintenances");
  }
  // UP again: out of the machines and of the schedule (an emptied window
  // goes, and an emptied schedule).
  std::set<std::string> keys;
  for (const MachineID& id : ids) keys.insert(machineKey(id));
  registry::Maintenance next;
  maintenance::Schedule schedule;
  for (const maintenance::Window& window : schedule_.windows()) {
    maintenance::Window kept;
    *kept.mutable_unavailability() = window.unavailability();
    for (const MachineID& id : window.machine_ids()) {
      if (keys.count(machineKey(id)) == 0) *kept.add_machine_ids() = id;
    }
    if (kept.machine_ids_size() > 0) *schedule.add_windows() = std::move(kept);
  }
  if (schedule.windows_size() > 0) *next.add_schedules() = std::move(schedule);
  for (const auto& [key, machine] : machines_) {
    if (keys.count(key) == 0) *next.add_machines() = machine.info;
  }
  LOG(INFO) << "Bringing " << ids.size() << " machines up after maintenance";
  return changeMaintenance(std::move(next));
}

void Master::rescindInverseOffers(const std::string& machine) {
  std::vector<std::string> ids;
  for (const auto& [id, record] : inverseOffers_) {
    if (record.machine == machine) ids.push_back(id);
  }
  for (const std::string& id : ids) {
    const InverseOffer& offer = inverseOffers_.at(id).offer;
    if (Framework* f = framework(offer.framework_id().value()); f != nullptr && f->active) {
      RescindInverseOfferMessage rescind;
      *rescind.mutable_inverse_offer_id() = offer.id();
      send(f->pid, std::move(rescind));
    }
    inverseOffers_.erase(id);
  }
}

// Inverse offers for the frameworks that hold something on `s`, an active
// agent of the DRAINING `machine`, but for those with one outstanding or a
// refusal still in force.
void Master::offerInverse(Slave& s, Machine& machine,
                          const std::set<std::pair<std::string, std::string>>& outstanding,
                          double time, double clock,
                          std::map<std::string, InverseOffersMessage>* messages) {
  std::set<std::string> frameworks;
  for (const TaskRecord* task : s.tasks) frameworks.insert(task->framework->id.value());
  for (const auto& [frameworkId, executors] : s.executors) frameworks.insert(frameworkId);
  for (const std::string& frameworkId : frameworks) {
    Framework* f = framework(frameworkId);
    if (f == nullptr || !f->active) continue;
    std::pair<std::string, std::string> pair{frameworkId, s.id.value()};
    if (outstanding.count(pair) != 0) continue;
    if (auto refused = inverseOfferRefused_.find(pair);
        refused != inverseOfferRefused_.end()) {
      if (refused->second > clock) continue;
      inverseOfferRefused_.erase(refused);
    }
    InverseOfferRecord record;
    record.machine = s.machine;
    InverseOffer& offer = record.offer;
    offer.mutable_id()->set_value(nextId("O"));
    *offer.mutable_framework_id() = f->id;
    *offer.mutable_slave_id() = s.id;
    URL* url = offer.mutable_url();
    url->set_scheme("http");
    url->mutable_address()->set_hostname(s.info.hostname());
    url->mutable_address()->set_ip(s.pid.address.ipString());
    url->mutable_address()->set_port(s.pid.address.port);
    url->set_path("/" + s.pid.id);
    *offer.mutable_unavailability() = machine.info.unavailability();
    InverseOffersMessage& message = (*messages)[frameworkId];
    *message.add_inverse_offers() = offer;
    message.add_pids(s.pid.toString());
    // The framework has not answered yet.
    auto [status, added] = machine.statuses.try_emplace(frameworkId);
    if (added) {
      status->second.set_status(InverseOfferStatus::UNKNOWN);
      *status->second.mutable_framework_id() = f->id;
      status->second.mutable_timestamp()->set_nanoseconds(static_cast<int64_t>(time * 1e9));
    }
    // As Apache Mesos does, --offer_timeout applies to inverse offers
    // too: one left unanswered is rescinded (and made again).
    if (flags_.offer_timeout) {
      delay(*flags_.offer_timeout, [this, id = offer.id().value()] {
        auto it = inverseOffers_.find(id);
        if (it == inverseOffers_.end()) return;
        if (Framework* f = framework(it->second.offer.framework_id().value());
            f != nullptr && f->active) {
          RescindInverseOfferMessage rescind;
          *rescind.mutable_inverse_offer_id() = it->second.offer.id();
          send(f->pid, std::move(rescind));
        }
        inverseOffers_.erase(it);
      });
    }
    inverseOffers_.emplace(offer.id().value(), std::move(record));
  }
}

void Master::makeInverseOffers() {
  // Inverse offers of frameworks or agents that left are forgotten.
  for (auto it = inverseOffers_.begin(); it != inverseOffers_.end();) {
    const InverseOffer& offer = it->second.offer;
    Framework* f = framework(offer.framework_id().value());
    Slave* s = slave(offer.slave_id().value());
    if (f == nullptr || !f->active || s == nullptr) {
      it = inverseOffers_.erase(it);
    } else {
      ++it;
    }
  }
  bool draining = false;
  for (const auto& [key, machine] : machines_) {
    if (machine.info.mode() == MachineInfo::DRAINING) draining = true;
  }
  if (!draining) {
    inverseOfferRefused_.clear();
    return;
  }
  std::set<std::pair<std::string, std::string>> outstanding;  // (framework, agent)
  for (const auto& [id, record] : inverseOffers_) {
    outstanding.emplace(record.offer.framework_id().value(), record.offer.slave_id().value());
  }
  const double time = now();
  const double clock = clockSeconds(runtime());
  std::map<std::string, InverseOffersMessage> messages;  // by framework id
  // The agents of the DRAINING machines, not all of them.
  for (auto& [key, machine] : machines_) {
    if (machine.info.mode() != MachineInfo::DRAINING) continue;
    registry_.forEachSlaveOn(key, [&](Slave& s) {
      if (s.active) offerInverse(s, machine, outstanding, time, clock, &messages);
    });
  }
  for (auto& [frameworkId, message] : messages) {
    Framework* f = framework(frameworkId);
    VLOG(1) << "Sending " << message.inverse_offers_size() << " inverse offers to framework "
            << frameworkId;
    send(f->pid, std::move(message));
  }
  if (!inverseOfferTimer_) {
    inverseOfferTimer_ = true;
    delay(flags_.allocation_interval, [this] {
      inverseOfferTimer_ = false;
      if (leading_ && !lost_) makeInverseOffers();
    });
  }
}

void Master::answerInverseOffers(Framework& f,
                                 const google::protobuf::RepeatedPtrField<OfferID>& ids,
                                 const Filters& filters, bool accept) {
  const double time = now();
  for (const OfferID& id : ids) {
    auto it = inverseOffers_.find(id.value());
    if (it == inverseOffers_.end() || it->second.offer.framework_id().value() != f.id.value()) {
      LOG(WARNING) << "Ignoring an answer of framework " << f.id.value()
                   << " to inverse offer " << id.value() << ": it is not outstanding";
      continue;
    }
    const InverseOffer offer = it->second.offer;
    const std::string machine = it->second.machine;
    inverseOffers_.erase(it);
    inverseOfferRefused_[{f.id.value(), offer.slave_id().value()}] =
        clockSeconds(runtime()) + std::max(0.0, filters.refuse_seconds());
    auto m = machines_.find(machine);
    if (m == machines_.end()) continue;
    InverseOfferStatus& status = m->second.statuses[f.id.value()];
    status.set_status(accept ? InverseOfferStatus::ACCEPT : InverseOfferStatus::DECLINE);
    *status.mutable_framework_id() = f.id;
    status.mutable_timestamp()->set_nanoseconds(static_cast<int64_t>(time * 1e9));
    LOG(INFO) << "Framework " << f.id.value() << (accept ? " accepted" : " declined")
              << " inverse offer " << id.value() << " for agent " << offer.slave_id().value();
  }
}

// GET: the schedule (empty without get_maintenance_schedules). POST: a new
// schedule, replacing the old.
Future<Response> Master::maintenanceScheduleEndpoint(const Request& request) {
  if (request.method != "GET" && request.method != "POST") {
    return Response{405, "text/plain", "Expecting a GET or a POST request\n",
                    {{"Allow", "GET, POST"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/maintenance/schedule";
    return redirect;
  }
  if (recovering_) return beingRead();
  if (request.method == "GET") {
    return Response::ok(toJson(maintenanceSchedule(request.principal)));
  }
  maintenance::Schedule schedule;
  if (auto parsed = fromJson(request.body, &schedule); !parsed) {
    return badRequest(parsed.error().message);
  }
  return updateMaintenanceSchedule(schedule, request.principal);
}

Future<Response> Master::maintenanceStatusEndpoint(const Request& request) {
  if (request.method != "GET") {
    return Response{405, "text/plain", "Expecting a GET request\n", {{"Allow", "GET"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/maintenance/status";
    return redirect;
  }
  if (recovering_) return beingRead();
  return Response::ok(toJson(maintenanceStatus(request.principal)));
}

Future<Response> Master::machineDownEndpoint(const Request& request) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/machine/down";
    return redirect;
  }
  if (recovering_) return beingRead();
  auto ids = parseMachines(request.body);
  if (!ids) return badRequest(ids.error().message);
  return startMaintenance(ids.value(), request.principal);
}

Future<Response> Master::machineUpEndpoint(const Request& request) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/machine/up";
    return redirect;
  }
  if (recovering_) return beingRead();
  auto ids = parseMachines(request.body);
  if (!ids) return badRequest(ids.error().message);
  return stopMaintenance(ids.value(), request.principal);
}

}  // namespace mesos::internal::master
