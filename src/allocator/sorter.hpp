// Sorter: orders an allocator's clients (frameworks) by how much they should
// be offered next. A policy is a Sorter; the hierarchical allocator asks it
// for the first client that can use a slave's free resources.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/resources.hpp"

namespace mesos::allocator {

class Sorter {
 public:
  virtual ~Sorter() = default;

  virtual void add(const std::string& client, double weight) = 0;
  virtual void remove(const std::string& client) = 0;

  // Resources a client was given (offered or used) or gave back.
  virtual void allocated(const std::string& client, const Resources& resources) = 0;
  virtual void unallocated(const std::string& client, const Resources& resources) = 0;

  // The pool the shares are relative to (the cluster's total).
  virtual void addTotal(const Resources& resources) = 0;
  virtual void removeTotal(const Resources& resources) = 0;

  // The first client, in this policy's order, for which `eligible` returns
  // true; nothing if there is none.
  virtual std::optional<std::string> pick(
      const std::function<bool(const std::string&)>& eligible) = 0;

  // The client's share as this policy measures it (for /state and tests).
  virtual double share(const std::string& client) = 0;
};

}  // namespace mesos::allocator
