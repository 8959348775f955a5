// Resources: a bag of named resources (the paper's resource vectors):
// scalars (cpus, mem, disk), ranges (ports) and sets, each with a role.
// Wraps the wire type mesos::Resource; used by the master, the allocator and
// the slave for every "does this fit" and "what is left" question.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/repeated_field.h>

#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos {

class Resources {
 public:
  Resources() = default;
  // Construction and addition skip resources that are empty (zero scalars,
  // no ranges, no items) or invalid (see validate()); validate first where
  // bad input must be reported.
  Resources(const Resource& resource);  // NOLINT: implicit, like a value
  Resources(const google::protobuf::RepeatedPtrField<Resource>& resources);  // NOLINT

  // Parses the slave's --resources syntax: "name(role):value;..." where value
  // is a scalar ("4", "2.5"), ranges ("[31000-32000, 40000-40010]") or a set
  // ("{a,b}"); the role is optional (`defaultRole`). Fails on a malformed
  // entry, naming it.
  static Result<Resources> parse(const std::string& text, const std::string& defaultRole = "*");

  // Checks one resource as a framework or slave sent it: a name, a type
  // matching its value, finite non-negative scalars, ranges with begin <= end
  // that do not overlap. The message names the resource and the problem.
  static Result<void> validate(const Resource& resource);
  static Result<void> validate(const google::protobuf::RepeatedPtrField<Resource>& resources);

  // The reservation part of validate(): the stack (`reservations`) is
  // typed, each entry refines the one before it (a role under it), and the
  // older fields (`role`, `reservation`), where set, agree with its top.
  static Result<void> validateReservations(const Resource& resource);

  // Reservations and volumes (docs/reservations.md). Every resource a
  // Resources holds is in one canonical form: the reservation stack filled
  // in, and `role` and `reservation` (principal and labels of a DYNAMIC
  // top) set from its top, so that both forms can be read.
  static bool isReserved(const Resource& resource) { return resource.role() != "*"; }
  static bool isDynamicallyReserved(const Resource& resource);
  static bool isPersistentVolume(const Resource& resource) {
    return resource.has_disk() && resource.disk().has_persistence();
  }
  // With its last reservation undone (the role of the one before, or "*"),
  // or another one pushed on top; both in canonical form.
  static Resource popReservation(const Resource& resource);
  static Resource pushReservation(const Resource& resource,
                                  const Resource::ReservationInfo& reservation);
  // As offered to a framework: the older form (`role`, `reservation`) for
  // one without the RESERVATION_REFINEMENT capability, the stack alone for
  // one with it, as Apache Mesos 1.x sends them.
  static void toFrameworkFormat(Resource* resource, bool refinement);

  bool empty() const { return list().empty(); }
  size_t size() const { return list().size(); }

  // True when every resource in `that` is available here (same name, type and
  // role; scalars no larger, ranges and sets subsets).
  bool contains(const Resources& that) const;

  // The summed scalar value of `name` over all roles (0 when absent).
  double scalar(const std::string& name) const;
  // The union of the ranges named `name` over all roles (empty when absent).
  Value::Ranges ranges(const std::string& name) const;
  // These resources with every role replaced by `role`, merged.
  Resources flatten(const std::string& role = "*") const;
  // Only the resources of `role`.
  Resources role(const std::string& role) const;

  // Allocation (Resource.allocation_info, MULTI_ROLE frameworks): these
  // resources marked as allocated to `role`, or with no mark. Both return
  // the same resources, unshared copy skipped, when nothing changes.
  Resources allocatedTo(const std::string& role) const;
  Resources unallocated() const;
  // The allocation role of the first resource that has one (empty: none).
  std::string allocationRole() const;
  // Only the resources allocated to `role` (with no allocation role: "").
  Resources allocatedOnlyTo(const std::string& role) const;

  // Addition merges like resources (same name, type and role): scalars add,
  // ranges and sets unite. Subtraction removes what it can: scalars subtract
  // (a result at or below zero removes the entry), ranges and sets lose the
  // members they share. Scalars are kept to three decimal places, as Apache
  // Mesos does, so that sums of fractions stay exact.
  Resources operator+(const Resources& that) const;
  Resources operator-(const Resources& that) const;
  Resources& operator+=(const Resources& that);
  Resources& operator-=(const Resources& that);
  bool operator==(const Resources& that) const;

  // "cpus(*):4; mem(*):2048; ports(*):[31000-32000]"
  std::string toString() const;

  google::protobuf::RepeatedPtrField<Resource> proto() const;
  std::vector<Resource>::const_iterator begin() const { return list().begin(); }
  std::vector<Resource>::const_iterator end() const { return list().end(); }

 private:
  void add(const Resource& resource);
  void subtract(const Resource& resource);

  const std::vector<Resource>& list() const;
  std::vector<Resource>& mutableList();  // unshared first

  // Merged: at most one entry per (name, type, role). Copies share the list
  // until one of them changes (copy on write), so copying Resources (into
  // offers, allocations, messages between actors) costs no allocation.
  std::shared_ptr<std::vector<Resource>> list_;
};

}  // namespace mesos
