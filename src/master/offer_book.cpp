// The master's outstanding offers (offer_book.hpp states the invariants).
#include "master/offer_book.hpp"

#include <glog/logging.h>

#include "common/roles.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;

void OfferBook::make(const FrameworkID& frameworkId,
                     std::vector<allocator::SlaveResources> resources) {
  Framework* f = m_.framework(frameworkId.value());
  if (f == nullptr || !f->active) {
    // Gone or disconnected since the allocator decided: all of it back.
    for (auto& entry : resources) giveBack(frameworkId, entry.slaveId, entry.resources);
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
    Slave* s = m_.slave(entry.slaveId.value());
    if (s == nullptr) continue;  // removed meanwhile; the allocator knows
    if (!m_.offerable(*s)) {
      giveBack(frameworkId, entry.slaveId, entry.resources);
      continue;
    }
    std::string offerId = m_.nextId("O");
    std::string role;
    if (multiRole) {
      role = !entry.role.empty()        ? entry.role
             : f->info.roles_size() > 0 ? f->info.roles(0)
                                        : std::string("*");
      if (entry.resources.allocationRole() != role) {
        entry.resources = entry.resources.allocatedTo(role);
      }
    }
    OfferRecord& record = m_.registry_.addOffer(*f, *s, offerId, std::move(entry.resources));
    if (multiRole) record.offer.mutable_allocation_info()->set_role(role);
    if (m_.flags_.offer_timeout) {
      record.timeout = m_.delay(*m_.flags_.offer_timeout, [this, offerId] { timedOut(offerId); });
    }
    if (const Master::Machine* machine = m_.maintenanceOf(*s);
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
  m_.metrics_.offersSent += message.offers_size();
  m_.send(f->pid, std::move(message));
}

const OfferRecord* OfferBook::find(const std::string& id) const { return m_.registry_.offer(id); }

void OfferBook::use(const std::string& id) { forget(id); }

void OfferBook::recover(const std::string& id) {
  const OfferRecord* record = find(id);
  if (record == nullptr) return;
  giveBack(record->offer.framework_id(), record->offer.slave_id(), record->resources);
  forget(id);
}

void OfferBook::rescind(const std::string& id) {
  const OfferRecord* record = find(id);
  if (record == nullptr) return;
  tell(*record);
  giveBack(record->offer.framework_id(), record->offer.slave_id(), record->resources);
  m_.metrics_.offersRescinded++;
  forget(id);
}

void OfferBook::drop(const std::string& id) {
  const OfferRecord* record = find(id);
  if (record == nullptr) return;
  tell(*record);
  m_.metrics_.offersRescinded++;
  forget(id);
}

// The sets are copied: each end erases from them.
void OfferBook::rescindOn(const Slave& slave) {
  std::vector<std::string> ids(slave.offers.begin(), slave.offers.end());
  for (const std::string& id : ids) rescind(id);
}

void OfferBook::dropOn(const Slave& slave) {
  std::vector<std::string> ids(slave.offers.begin(), slave.offers.end());
  for (const std::string& id : ids) drop(id);
}

void OfferBook::recoverOf(const Framework& framework) {
  std::vector<std::string> ids(framework.offers.begin(), framework.offers.end());
  for (const std::string& id : ids) recover(id);
}

void OfferBook::rescindOf(const Framework& framework,
                          const std::function<bool(const OfferRecord&)>& which) {
  std::vector<std::string> ids;
  for (const std::string& id : framework.offers) {
    if (!which || which(*find(id))) ids.push_back(id);
  }
  for (const std::string& id : ids) rescind(id);
}

void OfferBook::giveBack(const FrameworkID& frameworkId, const SlaveID& slaveId,
                         const Resources& resources, const std::optional<Filters>& filters) const {
  process::dispatch(m_.allocator_.pid(), &AllocatorActor::recoverResources, frameworkId, slaveId,
                    resources, filters);
}

void OfferBook::timedOut(const std::string& id) {
  OfferRecord* record = m_.registry_.offer(id);
  if (record == nullptr) return;
  record->timeout.reset();  // fired: nothing to cancel
  LOG(INFO) << "Offer " << id << " timed out; rescinding it";
  rescind(id);
}

void OfferBook::forget(const std::string& id) {
  OfferRecord* record = m_.registry_.offer(id);
  if (record == nullptr) return;
  if (record->timeout) m_.cancel(*record->timeout);
  m_.registry_.removeOffer(id);
}

void OfferBook::tell(const OfferRecord& record) const {
  Framework* f = m_.framework(record.offer.framework_id().value());
  if (f == nullptr) return;
  RescindResourceOfferMessage rescind;
  rescind.mutable_offer_id()->CopyFrom(record.offer.id());
  m_.send(f->pid, std::move(rescind));
}

}  // namespace mesos::internal::master
