// Chooser: the allocation policy of HierarchicalAllocator, the one thing
// that differs between --allocator=drf, priority and lottery. The
// allocator keeps the slaves, the clients (one per role of a framework),
// filters, reservations, quota and revocation; for each pick it asks the
// chooser which client the slave (or the part of it left) goes to.
//
// One folder per policy (drf/, priority/, lottery/), each with its chooser,
// and one line per policy in kPolicies (policies.cpp), where --allocator's
// names are looked up.
//
// Shared state: every chooser is given, at construction, the allocator's
// DrfSorter (drf/sorter.hpp) and Config. The sorter is the allocator's
// account of who holds what: it is told of every allocation, of each
// client's role and whether the client wants offers, and keeps the weighted
// DRF order incrementally; the allocator also reads it for revocation. A
// chooser reads it and may set how it orders roles, once, when constructed.
//
// Cost: the allocator calls choose() once per pick (once per slave on a
// slave without reservations), a virtual call; the predicates are called
// through ClientFilter and RoleFilter, a function pointer each, inlined in
// the allocator's side.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "mesos/allocator.hpp"
#include "mesos/resources.hpp"

namespace mesos::allocator {

class DrfSorter;

// A non-owning reference to a callable `bool(Arg)`, as C++26's
// std::function_ref: a pointer to the callable and one to a function that
// calls it. The callable must outlive the reference (pass temporaries only
// as arguments).
template <typename Arg>
class Predicate {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, Predicate>)
  Predicate(F&& f)  // implicit: a lambda goes where a Predicate is expected
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Arg arg) -> bool {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Arg>(arg));
        }) {}

  bool operator()(Arg arg) const { return call_(object_, std::forward<Arg>(arg)); }

 private:
  void* object_;
  bool (*call_)(void*, Arg);
};

class Chooser {
 public:
  // A client: one role of one framework, numbered by the allocator (the
  // sorter's clients).
  using Client = uint64_t;
  // Whether a client may take the slave now: active, wanting offers, not
  // filtering it, of a role that may take something there.
  using ClientFilter = Predicate<Client>;
  // Whether any client of a role could take something there: a chooser
  // may skip a role it rules out without asking about its clients.
  using RoleFilter = Predicate<const std::string&>;

  // What a chooser is given when made: both outlive it.
  struct Context {
    DrfSorter& sorter;
    const Config& config;
  };

  virtual ~Chooser() = default;

  // Called at the start of every allocation cycle (allocate(), full or of
  // some slaves), before any choose() of that cycle.
  virtual void beginCycle() {}

  // The client the slave goes to among those `eligible` accepts (and whose
  // role `roleEligible` accepts): nothing if there is none. May be called
  // several times per slave (a slave with reservations, or with quota).
  virtual std::optional<Client> choose(RoleFilter roleEligible, ClientFilter eligible) = 0;
};

using ChooserFactory = std::unique_ptr<Chooser> (*)(const Chooser::Context& context);

// The chooser factory of the built-in policy `name` ("drf", "priority",
// "lottery"), or null if there is none of that name.
ChooserFactory findPolicy(const std::string& name);
// The built-in policies' names in the order of kPolicies, comma-separated:
// "drf, priority, lottery".
std::string policyNames();

}  // namespace mesos::allocator
