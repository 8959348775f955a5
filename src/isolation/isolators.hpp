// The isolators --isolation names, built from one table: a new isolator is
// a folder under src/isolation/ and one line in isolators.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

// What the isolators are built from: the slave's flags of the same names.
struct IsolationOptions {
  std::string isolation = "posix/cpu,posix/mem";  // --isolation
  // Called, from any thread, when a container goes past a limit.
  mesos::isolation::LimitationCallback onLimitation;
};

// --isolation's comma-separated list with its aliases expanded ("posix" is
// posix/cpu,posix/mem), in order, without repeats. Fails naming an unknown
// item and the names there are.
Result<std::vector<std::string>> expandIsolation(const std::string& isolation);

// The isolators of options.isolation, in its order. Fails with one line
// naming the isolator that cannot work here and why.
Result<std::vector<std::unique_ptr<mesos::isolation::Isolator>>> createIsolators(
    const IsolationOptions& options);

}  // namespace mesos::internal::isolation
