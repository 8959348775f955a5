// Offers: made from the allocator's allocations, answered by LaunchTasks
// (with tasks, or none for a decline), rescinded, timed out.
#include <glog/logging.h>

#include "master/master.hpp"
#include "master/validation.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;

void Master::offer(const FrameworkID& frameworkId,
                   std::vector<allocator::SlaveResources> resources) {
  Framework* f = framework(frameworkId.value());
  if (f == nullptr || !f->active) {
    // Gone or disconnected since the allocator decided: give it all back.
    for (auto& entry : resources) {
      dispatch(allocator_.pid(), &AllocatorActor::recoverResources, frameworkId, entry.slaveId,
               entry.resources, std::optional<Filters>());
    }
    return;
  }
  ResourceOffersMessage message;
  for (auto& entry : resources) {
    Slave* s = slave(entry.slaveId.value());
    if (s == nullptr) continue;  // removed meanwhile; the allocator knows
    if (!offerable(*s)) {
      // Disconnected or deactivated since the allocator decided: back, not
      // offered.
      dispatch(allocator_.pid(), &AllocatorActor::recoverResources, frameworkId, entry.slaveId,
               entry.resources, std::optional<Filters>());
      continue;
    }
    std::string offerId = nextId("O");
    OfferRecord& record = registry_.addOffer(*f, *s, offerId, std::move(entry.resources));
    if (flags_.offer_timeout) {
      record.timeout = delay(*flags_.offer_timeout, [this, offerId] { offerTimedOut(offerId); });
    }
    if (const Machine* machine = maintenanceOf(*s);
        machine != nullptr && machine->info.has_unavailability()) {
      *record.offer.mutable_unavailability() = machine->info.unavailability();
    }
    message.add_offers()->CopyFrom(record.offer);
    message.add_pids(s->pid.toString());
  }
  if (message.offers_size() == 0) return;
  metrics_.offersSent += message.offers_size();
  send(f->pid, std::move(message));
}

void Master::removeOffer(const std::string& offerId) {
  OfferRecord* record = registry_.offer(offerId);
  if (record == nullptr) return;
  if (record->timeout) cancel(*record->timeout);
  registry_.removeOffer(offerId);
}

void Master::rescindOffer(const std::string& offerId, bool recover) {
  OfferRecord* record = registry_.offer(offerId);
  if (record == nullptr) return;
  const Offer& offer = record->offer;
  if (Framework* f = framework(offer.framework_id().value())) {
    RescindResourceOfferMessage rescind;
    rescind.mutable_offer_id()->CopyFrom(offer.id());
    send(f->pid, std::move(rescind));
  }
  if (recover) {
    dispatch(allocator_.pid(), &AllocatorActor::recoverResources, offer.framework_id(),
             offer.slave_id(), record->resources, std::optional<Filters>());
  }
  metrics_.offersRescinded++;
  removeOffer(offerId);
}

void Master::recoverOffer(const std::string& offerId) {
  OfferRecord* record = registry_.offer(offerId);
  if (record == nullptr) return;
  dispatch(allocator_.pid(), &AllocatorActor::recoverResources, record->offer.framework_id(),
           record->offer.slave_id(), record->resources, std::optional<Filters>());
  removeOffer(offerId);
}

void Master::offerTimedOut(const std::string& offerId) {
  if (registry_.offer(offerId) == nullptr) return;
  LOG(INFO) << "Offer " << offerId << " timed out; rescinding it";
  rescindOffer(offerId, true);
}

void Master::launchTasks(const UPID& from, const LaunchTasksMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "LaunchTasksMessage");
  if (f == nullptr) return;
  Filters filters = message.has_filters() ? message.filters() : Filters();

  // The offers must exist, be this framework's, and be on one slave. Every
  // offer of this framework the message names is used up by it: on any
  // error they all go back to the allocator, unfiltered.
  std::vector<std::string> offerIds;  // this framework's offers, once each
  std::unordered_set<std::string> seen;
  std::vector<std::string> errors;
  Slave* s = nullptr;
  Resources offered;
  for (const OfferID& id : message.offer_ids()) {
    if (!seen.insert(id.value()).second) {
      errors.push_back("offer " + id.value() + " appears twice");
      continue;
    }
    const OfferRecord* record = registry_.offer(id.value());
    if (record == nullptr) {
      errors.push_back("offer " + id.value() + " is no longer valid");
      continue;
    }
    const Offer& offer = record->offer;
    if (offer.framework_id().value() != f->id.value()) {
      errors.push_back("offer " + id.value() + " was not made to this framework");
      continue;
    }
    offerIds.push_back(id.value());
    Slave* offerSlave = slave(offer.slave_id().value());
    if (offerSlave == nullptr) {
      errors.push_back("offer " + id.value() + " is on a slave that is gone");
    } else if (s != nullptr && s != offerSlave) {
      errors.push_back("offers are on more than one slave (" + s->id.value() + " and " +
                       offerSlave->id.value() + ")");
    } else {
      s = offerSlave;
      offered += record->resources;
    }
  }
  if (message.offer_ids_size() == 0 && message.tasks_size() > 0) {
    errors.push_back("no offers given");
  }

  if (!errors.empty()) {
    std::string offerError;
    for (const std::string& error : errors) offerError += (offerError.empty() ? "" : "; ") + error;
    LOG(WARNING) << "Framework " << f->id.value() << ": launch refused: " << offerError;
    for (const TaskInfo& task : message.tasks()) {
      sendMasterUpdate(*f, task.slave_id(), task.task_id(), TASK_LOST,
                       TaskStatus::REASON_INVALID_OFFERS,
                       "Task launched with invalid offers: " + offerError);
      metrics_.tasksInvalid++;
      registry_.countRefused(TASK_LOST);
    }
    for (const std::string& offerId : offerIds) recoverOffer(offerId);
    return;
  }
  if (s == nullptr) return;  // no offers and no tasks: nothing to do

  if (message.tasks_size() == 0) metrics_.offersDeclined += offerIds.size();

  Resources available = offered;
  std::unordered_set<std::string> launched;  // task ids in this message
  std::unordered_set<std::string> newExecutors;
  size_t executorsOnSlave = s->executorCount;

  for (const TaskInfo& task : message.tasks()) {
    if (auto allowed = authorizeTask(*f, task); !allowed) {
      LOG(WARNING) << "Framework " << f->id.value() << ": " << allowed.error().message;
      sendMasterUpdate(*f, s->id, task.task_id(), TASK_ERROR,
                       TaskStatus::REASON_TASK_UNAUTHORIZED, allowed.error().message);
      metrics_.tasksInvalid++;
      registry_.countRefused(TASK_ERROR);
      continue;
    }
    TaskContext context{*f, *s, available, launched, newExecutors, executorsOnSlave,
                        flags_.max_executors_per_slave};
    auto used = validateTask(task, context);
    if (auto share = used ? checkLongTaskShare(*s, task) : Result<void>(); !share) {
      used = share.error();
    }
    if (!used) {
      LOG(WARNING) << "Framework " << f->id.value() << ": task '" << task.task_id().value()
                   << "' is invalid: " << used.error().message;
      sendMasterUpdate(*f, s->id, task.task_id(), TASK_ERROR, TaskStatus::REASON_TASK_INVALID,
                       used.error().message);
      metrics_.tasksInvalid++;
      registry_.countRefused(TASK_ERROR);
      continue;
    }
    available -= *used;
    launched.insert(task.task_id().value());
    if (task.has_executor() &&
        registry_.executor(*s, f->id.value(), task.executor().executor_id().value()) == nullptr) {
      if (newExecutors.insert(task.executor().executor_id().value()).second) executorsOnSlave++;
    }
    addTask(*f, *s, task);
    RunTaskMessage run;
    run.mutable_framework()->CopyFrom(f->info);
    run.set_pid(f->pid.toString());
    run.mutable_task()->CopyFrom(task);
    send(s->pid, std::move(run));
    metrics_.tasksLaunched++;
  }

  for (const std::string& offerId : offerIds) removeOffer(offerId);
  // Standing filters (Filters.offer_filters) reach the allocator even when
  // nothing is left over.
  if (!available.empty() || filters.has_offer_filters()) {
    dispatch(allocator_.pid(), &AllocatorActor::recoverResources, f->id, s->id, available,
             std::optional<Filters>(filters));
  }
}

}  // namespace mesos::internal::master
