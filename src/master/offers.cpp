// Offers: made from the allocator's allocations, rescinded, timed out (they
// are answered in operations.cpp).
#include <glog/logging.h>

#include "common/roles.hpp"
#include "master/master.hpp"
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
  // A MULTI_ROLE framework's offers say which of its roles they are for;
  // from a policy that does not say (a module offering per framework),
  // its first role.
  const bool multiRole = roles::multiRole(f->info);
  bool refinement = false;
  for (const auto& capability : f->info.capabilities()) {
    if (capability.type() == FrameworkInfo::Capability::RESERVATION_REFINEMENT) refinement = true;
  }
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
    std::string role;
    if (multiRole) {
      role = !entry.role.empty() ? entry.role
             : f->info.roles_size() > 0 ? f->info.roles(0)
                                        : std::string("*");
      if (entry.resources.allocationRole() != role) {
        entry.resources = entry.resources.allocatedTo(role);
      }
    }
    OfferRecord& record = registry_.addOffer(*f, *s, offerId, std::move(entry.resources));
    if (multiRole) record.offer.mutable_allocation_info()->set_role(role);
    if (flags_.offer_timeout) {
      record.timeout = delay(*flags_.offer_timeout, [this, offerId] { offerTimedOut(offerId); });
    }
    if (const Machine* machine = maintenanceOf(*s);
        machine != nullptr && machine->info.has_unavailability()) {
      *record.offer.mutable_unavailability() = machine->info.unavailability();
    }
    Offer* sent = message.add_offers();
    sent->CopyFrom(record.offer);
    // Reserved resources in the form the framework reads (Apache's
    // RESERVATION_REFINEMENT); unreserved ones are the same in both.
    for (Resource& resource : *sent->mutable_resources()) {
      if (resource.reservations_size() > 0) Resources::toFrameworkFormat(&resource, refinement);
    }
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

}  // namespace mesos::internal::master
