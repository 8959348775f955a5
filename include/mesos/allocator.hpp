// The allocator module interface: the policy that decides which framework is
// offered which free resources (the paper's section 3.3, "allocation
// modules"). The master tells the allocator what exists and what is used;
// the allocator answers with offers through the callback.
//
// Threading: an allocator runs inside the master's allocator actor. Every
// method is called on that actor, one call at a time, never concurrently; the
// offer callback must be called from within those calls too. An
// implementation needs no locks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mesos/resources.hpp"
#include "mesos.pb.h"

namespace mesos::allocator {

using TimePoint = std::chrono::steady_clock::time_point;

// Resources on one slave offered to one framework. For a MULTI_ROLE
// framework (docs/roles.md) `role` names the role they are allocated to,
// and each resource carries it (Resource.allocation_info); for the others
// both are empty.
struct SlaveResources {
  SlaveID slaveId;
  Resources resources;
  std::string role;
};

// The policy's configuration, from the master's flags (see
// docs/allocation.md). Parsed and checked by allocator::parseConfig().
struct Config {
  // --roles: the roles frameworks may use; empty means any role.
  std::vector<std::string> roles;
  // --weights: role -> weight (> 0); roles not named weigh 1.
  std::map<std::string, double> weights;
  // --priorities: role -> priority; higher goes first; roles not named have 0.
  std::map<std::string, int64_t> priorities;
  // --guarantees: role -> resources the role may hold without losing tasks.
  std::map<std::string, Resources> guarantees;
  // --min_offer_size: a slave's free resources are offered only once this
  // much is free (per resource, capped at the slave's total).
  Resources minOfferSize;
  // --revocation_timeout: how long a framework below its guarantee waits for
  // resources before tasks of frameworks above theirs are revoked. Zero
  // disables revocation.
  std::chrono::nanoseconds revocationTimeout{0};
  // --revoke_below_fair_share: also revoke for a framework whose role is
  // below its fair share (its weight over the weights of the roles with
  // frameworks), from roles above theirs, one slave's worth at a time.
  bool revokeBelowFairShare = false;
  // --lottery_seed: seeds the lottery policy's random choices.
  std::optional<uint64_t> seed;
  // --lottery_tickets: "weights" (role weight, split among the role's
  // frameworks) or "guarantees" (the role's guaranteed dominant share).
  std::string lotteryTickets = "weights";
};

// A request to free resources for a framework below its guarantee: the
// master kills tasks of `frameworkId` on `slaveId` (youngest first) until at
// least `amount` is freed, taking no more than `limit` in all (what the
// framework holds above its guarantee there), after rescinding its
// outstanding offers on that slave.
struct Revocation {
  FrameworkID frameworkId;
  SlaveID slaveId;
  Resources amount;
  Resources limit;
  FrameworkID beneficiary;  // the framework waiting for resources
  // The role whose share is taken (a MULTI_ROLE framework's tasks of other
  // roles are spared) and the role the beneficiary waits in.
  std::string role;
  std::string beneficiaryRole;
};

// A role's quota (docs/quota.md), by scalar resource name: what it is
// guaranteed, and the most it may hold (a name missing from `limits` is
// unlimited). Both count the role's reservations and what it is allocated,
// its descendants' ("a/b" under "a") included. Empty: no quota.
struct Quota {
  std::map<std::string, double> guarantees;
  std::map<std::string, double> limits;
  bool empty() const { return guarantees.empty() && limits.empty(); }
};

struct Options {
  // The current time on the master's clock (paused in tests). Filters
  // expire by it.
  std::function<TimePoint()> now;
  // Called with every batch of offers for one framework. An offer holds only
  // unreserved resources (role "*") and resources reserved for the role it
  // is allocated to (FrameworkInfo.role, or one of FrameworkInfo.roles
  // with MULTI_ROLE), with their roles as the slave gave them
  // (docs/allocation-modules.md, "Roles and reservations").
  std::function<void(const FrameworkID&, std::vector<SlaveResources>)> offer;
  // Called for every revocation the policy decides on (may be empty for
  // policies that never revoke).
  std::function<void(const Revocation&)> revoke;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Called once, before anything else. (Configuration comes to the
  // constructor or module factory, which is where it can fail.)
  virtual void initialize(const Options& options) = 0;

  // A framework registered (or was re-added); `used` is what its running
  // tasks and executors hold, per slave id value. A MULTI_ROLE framework
  // (FrameworkInfo.roles) is offered resources for each of its roles, as
  // a framework of that role would be; resources given back to the
  // allocator with a Resource.allocation_info count against that role
  // (without one: its first role).
  virtual void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                            const std::unordered_map<std::string, Resources>& used,
                            bool active) = 0;
  // The framework is gone; the master has recovered its resources first.
  virtual void removeFramework(const FrameworkID& frameworkId) = 0;
  // Inactive frameworks (disconnected schedulers) are offered nothing.
  virtual void activateFramework(const FrameworkID& frameworkId) = 0;
  virtual void deactivateFramework(const FrameworkID& frameworkId) = 0;

  // A slave registered with `total` resources, of which `used` (per
  // framework id value) are held by tasks and executors already.
  virtual void addSlave(const SlaveID& slaveId, const SlaveInfo& info, const Resources& total,
                        const std::unordered_map<std::string, Resources>& used) = 0;
  // What the slave declared it can do (RegisterSlaveMessage's
  // agent_capabilities), right after its addSlave() and whenever it
  // re-registers declaring something else. A policy offers a slave without
  // MULTI_ROLE to no MULTI_ROLE framework, and one without
  // HIERARCHICAL_ROLE to no hierarchical role ("eng/web"), as Apache
  // Mesos's allocator does: such a slave would not understand their
  // resources. A slave never described is taken to declare everything.
  // Default: ignored.
  virtual void updateSlaveCapabilities(const SlaveID& slaveId,
                                       const std::vector<SlaveInfo::Capability::Type>& declared) {
    (void)slaveId;
    (void)declared;
  }
  // The slave is gone with everything on it.
  virtual void removeSlave(const SlaveID& slaveId) = 0;
  // A deactivated slave (its connection to the master broke) keeps what its
  // frameworks hold but is offered nothing until it is activated again (it
  // re-registered) or removed. Both are no-ops for unknown slaves.
  virtual void activateSlave(const SlaveID& slaveId) = 0;
  virtual void deactivateSlave(const SlaveID& slaveId) = 0;

  // Resources allocated to a framework (offered or used) are free again:
  // declined, unused in a launch, or released by a finished task. With
  // `filters`, the framework refuses such resources on that slave for
  // filters->refuse_seconds().
  virtual void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                const Resources& resources,
                                const std::optional<Filters>& filters) = 0;

  // A framework's offer operations (RESERVE, UNRESERVE, CREATE, DESTROY)
  // turned `from`, which it was offered on that slave, into `to` (the same
  // amounts, reserved or made volumes differently): the slave's total and
  // what the framework holds there change alike, and nothing is freed.
  virtual void updateAllocation(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                const Resources& from, const Resources& to) = 0;

  // An operator's operation (/reserve, /create-volumes...) turns free
  // resources `from` of a slave into `to`. False, changing nothing, when
  // the slave's free resources do not hold `from` (they are offered or
  // used).
  virtual bool updateAvailable(const SlaveID& slaveId, const Resources& from,
                               const Resources& to) = 0;

  // A framework asks for resources (ResourceRequestMessage); a hint.
  virtual void requestResources(const FrameworkID& frameworkId,
                                const std::vector<Request>& requests) = 0;
  // Stop, and resume, offering to a framework. Reviving also drops its
  // filters.
  virtual void suppressOffers(const FrameworkID& frameworkId) = 0;
  virtual void reviveOffers(const FrameworkID& frameworkId) = 0;
  // The same for some of a MULTI_ROLE framework's roles only. Default: all
  // of them, for policies that offer per framework.
  virtual void suppressRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles) {
    (void)roles;
    suppressOffers(frameworkId);
  }
  virtual void reviveRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles) {
    (void)roles;
    reviveOffers(frameworkId);
  }
  // The framework changed its FrameworkInfo (UPDATE_FRAMEWORK, or a
  // re-subscription): its roles now are `info`'s, of which
  // `suppressedRoles` want no offers (the others do). A role it leaves is
  // offered nothing more; what it holds there still counts for that role
  // until it is given back. Default: ignored.
  virtual void updateFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                               const std::vector<std::string>& suppressedRoles) {
    (void)frameworkId;
    (void)info;
    (void)suppressedRoles;
  }

  // Offers free resources now: on every slave, or only on `slaveIds`.
  virtual void allocate() = 0;
  virtual void allocate(const std::vector<SlaveID>& slaveIds) = 0;

  // Called every allocation interval after allocate(): a policy that
  // revokes decides here (default: nothing).
  virtual void checkRevocations() {}

  // An operator changed roles' weights at run time (/weights,
  // UPDATE_WEIGHTS): each replaces that role's weight (> 0), for the offers
  // made from now on. Default: ignored, for policies without weights.
  virtual void updateWeights(const std::vector<WeightInfo>& weights) { (void)weights; }
  // An operator set a role's quota (/quota, UPDATE_QUOTA); an empty one
  // removes it. Guarantees are offered first, the headroom unsatisfied
  // guarantees need is held back from other roles, and no role is offered
  // beyond its limits. Default: ignored, for policies without quota.
  virtual void updateQuota(const std::string& role, const Quota& quota) {
    (void)role;
    (void)quota;
  }
};

// Loadable allocator modules (docs/allocation-modules.md): a shared library
// given as --allocator=/path/to/module.so exports this C symbol. It returns a
// new allocator configured by `config`, or nullptr after writing the reason
// to `*error`. The master owns (and deletes) the result.
#define MESOS_ALLOCATOR_FACTORY_SYMBOL "mesos_allocator_create_v1"
using AllocatorFactory = Allocator* (*)(const Config* config, std::string* error);

}  // namespace mesos::allocator
