// HierarchicalAllocator: the built-in policies (--allocator=drf, priority,
// lottery). It keeps every slave's free resources and every framework's
// allocation (offered or used), and offers each slave's free resources,
// whole, to one framework that is active, not suppressed and not filtering
// that slave, the one the policy's Chooser (chooser.hpp) picks:
//   drf       the first in weighted DRF order: roles by weighted dominant
//             share, then the role's frameworks by dominant share
//             (drf/chooser.hpp);
//   priority  the same, but roles of higher --priorities first
//             (priority/chooser.hpp);
//   lottery   a random framework, with probability proportional to its
//             tickets (its role's weight or guarantee, split among the
//             role's frameworks; lottery/chooser.hpp).
// Everything else here (filters, reservations, multi-role, quota,
// revocation) is the same for every policy.
// A slave is offered only when at least --min_offer_size is free on it.
//
// Reservations: resources of a role other than "*" (the slave's
// --resources 'cpus(prod):1', or RESERVE) are offered only to frameworks of
// that role or of its sub-roles ("prod/web" gets "prod"'s, to refine them).
// A framework is offered, on a slave, the unreserved free resources plus
// those reserved for its role and its ancestors; filters, standing
// filters and the minimum offer size judge that part. What the chosen
// framework cannot take (another role's reservation) goes, in the same
// cycle, to the next framework in order that can. Slaves without
// reservations take none of these steps.
//
// A MULTI_ROLE framework is one sorter client per role: each role of it is
// offered, filtered, suppressed and counted as a framework of that role
// alone would be; its offers carry the role (Resource.allocation_info).
//
// With --guarantees, a framework below its role's guarantee that has waited
// --revocation_timeout for an offer gets resources revoked for it from roles
// above their guarantees (see checkRevocations()), counting only what it
// could be offered.
//
// Quota (docs/quota.md, set with updateQuota()): a role's consumption is
// its reservations plus the unreserved resources its frameworks hold (its
// descendants' included), kept up to date as resources move. With any quota
// set, each free slave is offered in two stages: first to roles below
// their guarantee, then to every role; an offer's unreserved scalars are
// cut to what the role may take: no more than its limits (and its
// ancestors') allow, and beyond its own unsatisfied guarantee only what is
// left once the headroom of every role's unsatisfied guarantee is kept
// free. What is cut stays free for the next choice on that slave. Without
// any quota none of these steps is taken.
//
// Cost: a cycle visits only slaves with free resources, and per slave asks
// the chooser once (one virtual call: the sorter's order, or a draw); the
// sorter keeps its order incrementally.
// A slave with reservations is asked about once per framework it goes to.
// Nothing scans every slave except a full cycle.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "allocator/chooser.hpp"
#include "allocator/drf/sorter.hpp"
#include "mesos/allocator.hpp"

namespace mesos::allocator {

class HierarchicalAllocator : public Allocator {
 public:
  // `policy` names a built-in policy (findPolicy(): "drf", "priority",
  // "lottery"); an unknown name is a programming error (CHECK): the
  // factory (factory.hpp) checks --allocator first.
  explicit HierarchicalAllocator(const std::string& policy = "drf", Config config = {});

  void initialize(const Options& options) override;
  void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                    const std::unordered_map<std::string, Resources>& used, bool active) override;
  void removeFramework(const FrameworkID& frameworkId) override;
  void activateFramework(const FrameworkID& frameworkId) override;
  void deactivateFramework(const FrameworkID& frameworkId) override;
  void addSlave(const SlaveID& slaveId, const SlaveInfo& info, const Resources& total,
                const std::unordered_map<std::string, Resources>& used) override;
  void updateSlaveCapabilities(const SlaveID& slaveId,
                               const std::vector<SlaveInfo::Capability::Type>& declared) override;
  void removeSlave(const SlaveID& slaveId) override;
  void activateSlave(const SlaveID& slaveId) override;
  void deactivateSlave(const SlaveID& slaveId) override;
  void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& resources, const std::optional<Filters>& filters) override;
  void updateAllocation(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& from, const Resources& to) override;
  bool updateAvailable(const SlaveID& slaveId, const Resources& from,
                       const Resources& to) override;
  void requestResources(const FrameworkID& frameworkId,
                        const std::vector<Request>& requests) override;
  void suppressOffers(const FrameworkID& frameworkId) override;
  void reviveOffers(const FrameworkID& frameworkId) override;
  void suppressRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles) override;
  void reviveRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles) override;
  void updateFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                       const std::vector<std::string>& suppressedRoles) override;
  void allocate() override;
  void allocate(const std::vector<SlaveID>& slaveIds) override;
  void checkRevocations() override;
  void updateWeights(const std::vector<WeightInfo>& weights) override;
  void updateQuota(const std::string& role, const Quota& quota) override;

  // A role's consumed quota: its reservations and the unreserved resources
  // it holds, its descendants' included (scalars only).
  Resources consumed(const std::string& role);

  // For tests and the benchmark: a framework's dominant share (in its first
  // role), a role's weighted share, a slave's free resources.
  double share(const FrameworkID& frameworkId);
  double roleShare(const std::string& role) { return sorter_.roleShare(role); }
  Resources free(const SlaveID& slaveId) const;

 private:
  // The sorter's clients by number: one per role of each framework (a
  // MULTI_ROLE framework has several), named `Framework` below.
  using Seq = uint64_t;

  // A framework refuses, until `expires`, offers on one slave that are
  // within `resources` (more free resources lift the filter).
  struct Filter {
    Resources resources;
    TimePoint expires;
  };
  // The paper's standing filters (Filters.offer_filters).
  struct Standing {
    std::unordered_set<std::string> slaves;  // slave ids or hostnames; empty: any
    Resources minFree;
  };
  // One role of a framework. Filters, suppression and what it holds are
  // per role, as Apache Mesos keeps them.
  struct Framework {
    std::string id;
    std::string role;  // "" until known (held on a slave before addFramework)
    bool added = false;  // known from addFramework (not only from a slave's `used`)
    bool multiRole = false;  // its offers carry Resource.allocation_info
    bool subscribed = true;  // false once the framework left this role (updateFramework)
    bool active = true;
    bool suppressed = false;
    std::unordered_map<uint32_t, Filter> filters;  // by slave index
    std::optional<Standing> standing;
    // Where it holds resources, and maybe a few slaves where it held some
    // (pruned as they pile up; slave.allocated says what it holds).
    std::unordered_set<uint32_t> slaves;
    size_t holding = 0;  // slaves where it holds resources
    std::optional<TimePoint> waitingSince;  // below its guarantee, wanting offers
  };
  struct Slave {
    std::string id;
    std::string hostname;  // all of SlaveInfo a standing offer needs
    Resources total;
    // Some of `total` is reserved for a role: offers are made per role
    // (allocateReserved()). Otherwise the whole free set goes to one
    // framework.
    bool reserved = false;
    Resources free;
    double freeCpus = 0;  // free.scalar("cpus"), "mem": kept for the hot path
    double freeMem = 0;
    std::vector<std::pair<std::string, double>> threshold;  // min offer size, capped by total
    std::unordered_map<Seq, Resources> allocated;
    bool live = false;
    bool active = true;  // false while its connection to the master is broken
    // What it declared (updateSlaveCapabilities): offered to MULTI_ROLE
    // frameworks, to hierarchical roles.
    bool multiRole = true;
    bool hierarchicalRole = true;
    bool listed = false;  // in withFree_
    uint32_t generation = 0;
    std::optional<Seq> promisedTo;  // freed by a revocation for this framework
    TimePoint promisedUntil{};
  };
  using Offers = std::unordered_map<Seq, std::vector<SlaveResources>>;

  // The client of framework `id` for `role` (made, not added, if new); ""
  // is its first role's, or a placeholder until the framework is added.
  Seq clientSeq(const std::string& id, const std::string& role);
  // Calls f(seq, part) for each part of `resources` (given back by the
  // master, allocation roles and all) with the client it belongs to, the
  // part without allocation roles. Made if new, as clientSeq().
  template <typename F>
  void byClient(const std::string& id, const Resources& resources, F&& f);
  // The added clients of framework `id` (none when unknown).
  std::vector<Seq> clientsOf(const std::string& id);
  void addClient(Seq seq, const std::string& role, const FrameworkInfo& info);
  void wanting(Seq seq);  // tells the sorter whether the client wants offers
  // Its clients of `roles` (none: all) suppressed or revived.
  void setSuppressed(const FrameworkID& frameworkId, const std::vector<std::string>& roles,
                     bool suppressed);
  void ensureRole(const std::string& role);
  // Free cpus and memory of one role on a slave (allocateReserved()).
  struct RoleFree {
    const std::string* role;
    double cpus;
    double mem;
  };
  void allocateSlave(uint32_t index, Offers& offers);
  void allocateReserved(uint32_t index, Offers& offers);
  bool bigEnough(const Slave& slave, const std::string& role) const;
  bool offerable(const Slave& slave) const;
  template <typename Offer>
  bool eligible(Framework& framework, uint32_t index, const Slave& slave, Offer&& offer);
  template <typename Ok, typename RoleOk>
  std::optional<Seq> choose(Slave& slave, Ok&& ok, RoleOk&& roleOk);
  void offer(Seq seq, uint32_t index, Slave& slave, Resources resources, Offers& offers);
  void give(Seq seq, uint32_t index, Slave& slave, const Resources& resources);
  void setFree(Slave& slave, Resources free);
  void forget(Framework& framework, Seq seq, Slave& slave);
  void take(Seq seq, uint32_t index, Slave& slave, const Resources& resources);
  void markFree(uint32_t index);
  void send(Offers& offers);
  std::vector<double> vector(const Resources& resources);
  Resources resources(const std::vector<double>& scalars) const;
  // Quota (see the top of this file).
  struct RoleQuota {
    std::vector<double> guarantees;
    std::vector<double> limits;  // +infinity where unlimited
    bool top = true;             // no ancestor has a quota
  };
  struct Consumption {
    std::vector<double> reserved;             // its reservations, on every slave
    std::vector<double> allocatedUnreserved;  // unreserved resources its frameworks hold
  };
  void countReserved(const Resources& total, double sign);
  void countAllocated(const Framework& framework, const Resources& resources, double sign);
  // The sorter and the quota consumption follow a framework's allocation.
  void account(Seq seq, const Resources& resources, double sign);
  double consumedAt(const std::string& role, size_t i);
  // Per scalar index, the most of the unreserved resources `role` may be
  // offered now.
  std::vector<double> quotaCap(const std::string& role);
  bool belowGuarantee(const std::string& role);
  Resources cut(const Resources& offer, const std::vector<double>& cap);
  void allocateWithQuota(uint32_t index, Offers& offers);
  void refreshQuotaIndices();

  std::map<std::string, RoleQuota> quotas_;
  std::map<std::string, Quota> quotaConfigs_;
  std::unordered_map<std::string, Consumption> consumption_;
  std::vector<double> unreservedTotal_;
  std::vector<double> unreservedAllocated_;

  void revokeFor(Framework& beneficiary, Seq seq, std::vector<double> deficit, bool fair);
  static bool positive(const std::vector<double>& scalars);
  std::vector<double> guaranteeDeficit(const std::string& role);
  double fairShare(const std::string& role) const;
  std::vector<double> fairShareDeficit(const std::string& role);

  Config config_;
  Options options_;
  DrfSorter sorter_;
  std::unique_ptr<Chooser> chooser_;  // reads sorter_ and config_

  TimePoint now_{};  // options_.now() at the start of the current allocation
  Seq nextSeq_ = 0;
  std::unordered_map<Seq, Framework> frameworks_;
  std::unordered_map<std::string, std::vector<Seq>> clients_;  // by framework id, first role first
  std::unordered_map<std::string, std::set<Seq>> roleMembers_;  // added frameworks by role

  std::vector<Slave> slaves_;  // by index; slots of removed slaves are reused
  std::vector<uint32_t> freeSlots_;
  std::unordered_map<std::string, uint32_t> slaveIndex_;
  // Slaves that may have offerable free resources, with their generation.
  std::vector<std::pair<uint32_t, uint32_t>> withFree_;
  std::vector<RoleFree> roleFree_;  // scratch of allocateReserved()
};

// Whether `resources` are worth offering: some cpus or memory (Apache Mesos's
// minimums: 0.01 cpus, 32 MB).
bool allocatable(const Resources& resources);

}  // namespace mesos::allocator
