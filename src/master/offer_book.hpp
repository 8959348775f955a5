// The master's outstanding offers, and the one way resources go back to the
// allocator.
//
// Invariants:
// - An offer is made only by make() and ends by exactly one of use(),
//   recover(), rescind() and drop(); each forgets it in the registry (the
//   framework's and the slave's sets and sums) and cancels its
//   --offer_timeout timer.
// - Resources go back to the allocator only through this class: an offer's
//   by recover() and rescind(), what a task, an executor or an ACCEPT's
//   leftovers held by giveBack(). drop() gives nothing back: the slave left,
//   and its resources with it. So the allocator is told of each resource
//   once, whichever way the offer ends.
// - A framework hears that an offer ended only when the master ends it
//   (rescind(), drop(): RescindResourceOfferMessage); not when the framework
//   answered it or is gone (use(), recover()).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mesos/allocator.hpp"
#include "master/registry.hpp"

namespace mesos::internal::master {

class Master;

class OfferBook {
 public:
  explicit OfferBook(Master& master) : m_(master) {}

  // The allocator's choice: offers to the framework, one per slave. What can
  // no longer be offered (framework or slave disconnected or deactivated
  // since) goes back unoffered.
  void make(const FrameworkID& frameworkId, std::vector<allocator::SlaveResources> resources);

  const OfferRecord* find(const std::string& id) const;

  // The framework accepted it: its resources are now the operations'.
  void use(const std::string& id);
  // Back to the allocator, unfiltered, the framework not told (it declined,
  // sent an invalid ACCEPT, failed over or is gone).
  void recover(const std::string& id);
  // Back to the allocator, the framework told.
  void rescind(const std::string& id);
  // The framework told; nothing goes back (its slave is being removed).
  void drop(const std::string& id);

  // All the offers on `slave` rescinded (it disconnected, is deactivated,
  // draining, in maintenance or converted by an operator), or dropped.
  void rescindOn(const Slave& slave);
  void dropOn(const Slave& slave);
  // All the framework's offers recovered (nobody is listening for
  // rescinds), or rescinded where `which` holds (all without it).
  void recoverOf(const Framework& framework);
  void rescindOf(const Framework& framework,
                 const std::function<bool(const OfferRecord&)>& which = {});

  // Resources a task, an executor or an ACCEPT's leftovers held, back to
  // the allocator; `filters` refuse them to the framework for a while.
  void giveBack(const FrameworkID& frameworkId, const SlaveID& slaveId, const Resources& resources,
                const std::optional<Filters>& filters = std::nullopt) const;

 private:
  void timedOut(const std::string& id);
  // Forgets the offer and cancels its timer.
  void forget(const std::string& id);
  void tell(const OfferRecord& record) const;  // RescindResourceOfferMessage

  Master& m_;
};

}  // namespace mesos::internal::master
