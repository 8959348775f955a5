// Deactivating and draining agents (docs/draining.md): the operator API's
// DEACTIVATE_AGENT, DRAIN_AGENT and REACTIVATE_AGENT. A deactivated agent is
// offered nothing (its outstanding offers are rescinded) and keeps its tasks;
// a draining one is deactivated and told to kill its tasks
// (DrainSlaveMessage), and is DRAINED once the master holds no task of it
// any more (each terminal update acknowledged), or marked gone with
// mark_gone. Both are stored in the registry of agents before the master
// acts, so that a newly elected master knows them.
#include <glog/logging.h>

#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;
using process::http::Response;
using registrar::Registrar;

namespace {

Response plain(int status, const std::string& message) {
  return Response{status, "text/plain", message + "\n", {}};
}

// A machine as Apache's messages name it.
std::string describe(const MachineID& machine) {
  if (machine.has_hostname() && machine.has_ip()) {
    return machine.hostname() + " (" + machine.ip() + ")";
  }
  return machine.has_hostname() ? machine.hostname() : "(" + machine.ip() + ")";
}

}  // namespace

process::Future<Response> Master::drainAgent(const SlaveID& slaveId,
                                             std::optional<DurationInfo> maxGracePeriod,
                                             bool markGone) {
  const std::string id = slaveId.value();
  if (slave(id) == nullptr && unreachable_.count(id) == 0 && recovered_.count(id) == 0) {
    return plain(400, "Unknown agent");
  }
  // Only a registered agent's machine and capabilities are known (Apache's
  // checks).
  if (const Slave* s = slave(id); s != nullptr) {
    for (const maintenance::Window& window : schedule_.windows()) {
      for (const MachineID& machine : window.machine_ids()) {
        if (machineKey(machine) != s->machine) continue;
        return plain(400, "Agent " + id + " is part of a maintenance schedule under Machine " +
                              describe(machine));
      }
    }
    if (!s->declares(SlaveInfo::Capability::AGENT_DRAINING)) {
      return plain(400, "Agent " + id + " is not capable of draining");
    }
  }
  if (markingGone_.count(id) != 0) return plain(409, "Agent is currently being marked gone");
  DrainInfo drain;
  drain.set_state(DRAINING);
  drain.mutable_config()->set_mark_gone(markGone);
  if (maxGracePeriod) *drain.mutable_config()->mutable_max_grace_period() = *maxGracePeriod;
  return dispatch(registrar_.pid(), &Registrar::setDrain, slaveId, true, drain)
      .then(self(), [this, id, drain](const Result<bool>& done) {
        if (!done) {
          registryFailed(done.error());
          return plain(503, "The registry failed: " + done.error().message);
        }
        draining_[id] = drain;
        deactivated_.insert(id);
        lastState_.reset();
        Slave* s = slave(id);
        if (s == nullptr) {
          LOG(INFO) << "Agent " << id << " (not registered) is DRAINING; it is told to drain "
                    << "when it comes back";
          return Response::ok("", "text/plain");
        }
        LOG(INFO) << "Agent " << id << " at " << s->pid << " is DRAINING with "
                  << s->tasks.size() << " tasks";
        registry_.setDrain(*s, true, drain, now());
        dispatch(allocator_.pid(), &AllocatorActor::deactivateSlave, s->id);
        offers_.rescindOn(*s);
        DrainSlaveMessage message;
        *message.mutable_config() = drain.config();
        send(s->pid, std::move(message));
        checkDrained(*s);
        return Response::ok("", "text/plain");
      });
}

process::Future<Response> Master::deactivateAgent(const SlaveID& slaveId) {
  const std::string id = slaveId.value();
  if (slave(id) == nullptr && unreachable_.count(id) == 0 && recovered_.count(id) == 0) {
    return plain(400, "Unknown agent");
  }
  std::optional<DrainInfo> drain;
  if (auto it = draining_.find(id); it != draining_.end()) drain = it->second;
  return dispatch(registrar_.pid(), &Registrar::setDrain, slaveId, true, drain)
      .then(self(), [this, id](const Result<bool>& done) {
        if (!done) {
          registryFailed(done.error());
          return plain(503, "The registry failed: " + done.error().message);
        }
        deactivated_.insert(id);
        lastState_.reset();
        if (Slave* s = slave(id); s != nullptr && !s->deactivated) {
          LOG(INFO) << "Agent " << id << " at " << s->pid << " is deactivated: offering "
                    << "nothing on it (its " << s->tasks.size() << " tasks keep running)";
          registry_.setDrain(*s, true, s->drain, s->drainStart);
          dispatch(allocator_.pid(), &AllocatorActor::deactivateSlave, s->id);
          offers_.rescindOn(*s);
        }
        return Response::ok("", "text/plain");
      });
}

process::Future<Response> Master::reactivateAgent(const SlaveID& slaveId) {
  const std::string id = slaveId.value();
  if (deactivated_.count(id) == 0) return plain(400, "Agent is not deactivated");
  if (auto it = draining_.find(id); it != draining_.end() && it->second.state() == DRAINING) {
    return plain(400, "Agent is still in the DRAINING state");
  }
  return dispatch(registrar_.pid(), &Registrar::setDrain, slaveId, false,
                  std::optional<DrainInfo>())
      .then(self(), [this, id](const Result<bool>& done) {
        if (!done) {
          registryFailed(done.error());
          return plain(503, "The registry failed: " + done.error().message);
        }
        deactivated_.erase(id);
        draining_.erase(id);
        lastState_.reset();
        Slave* s = slave(id);
        if (s == nullptr) return plain(409, "Agent removed while processing the call");
        registry_.setDrain(*s, false, std::nullopt, 0);
        if (s->active) {
          LOG(INFO) << "Agent " << id << " at " << s->pid << " is reactivated: offering it again";
          dispatch(allocator_.pid(), &AllocatorActor::activateSlave, s->id);
        } else {
          LOG(INFO) << "Agent " << id << " is reactivated; it is offered once it reconnects";
        }
        return Response::ok("", "text/plain");
      });
}

void Master::restoreDrain(Slave& s) {
  const std::string id = s.id.value();
  if (deactivated_.count(id) == 0) return;
  std::optional<DrainInfo> drain;
  if (auto it = draining_.find(id); it != draining_.end()) drain = it->second;
  registry_.setDrain(s, true, drain, drain ? now() : 0);
}

void Master::resumeDrain(Slave& s) {
  // Its deactivation is in place already: restoreDrain() (readmitSlave)
  // for a slave added again, the call itself for one that stayed.
  const std::string id = s.id.value();
  auto drain = draining_.find(id);
  if (drain == draining_.end()) return;
  // DRAINED ones too: the agent may have lost what it checkpointed.
  LOG(INFO) << "Agent " << id << " at " << s.pid << " is "
            << DrainState_Name(drain->second.state()) << "; telling it to drain";
  DrainSlaveMessage message;
  *message.mutable_config() = drain->second.config();
  send(s.pid, std::move(message));
  checkDrained(s);
}

void Master::checkDrained(Slave& s) {
  const std::string id = s.id.value();
  auto it = draining_.find(id);
  if (it == draining_.end() || it->second.state() != DRAINING) return;
  if (!s.tasks.empty()) {
    VLOG(1) << "DRAINING agent " << id << " still has " << s.tasks.size() << " tasks";
    return;
  }
  if (markingGone_.count(id) != 0 || removing_.count(id) != 0 ||
      drainedStoring_.count(id) != 0) {
    return;
  }
  if (it->second.config().mark_gone()) {
    LOG(INFO) << "Agent " << id << " is drained; marking it gone (mark_gone)";
    markAgentGone(s.id);
    return;
  }
  drainedStoring_.insert(id);
  DrainInfo drained = it->second;
  drained.set_state(DRAINED);
  dispatch(registrar_.pid(), &Registrar::setDrain, s.id, true, drained)
      .then(self(), [this, id, drained](const Result<bool>& done) {
        drainedStoring_.erase(id);
        if (!done) return registryFailed(done.error());
        auto it = draining_.find(id);
        if (it == draining_.end()) return;  // removed meanwhile
        it->second = drained;
        lastState_.reset();
        LOG(INFO) << "Agent " << id << " is DRAINED";
        if (Slave* s = slave(id)) registry_.setDrain(*s, true, drained, s->drainStart);
      });
}

void Master::forgetDrain(const std::string& id) {
  deactivated_.erase(id);
  draining_.erase(id);
}

}  // namespace mesos::internal::master
