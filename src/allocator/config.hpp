// Parsing and checking the allocation flags of the master into a Config
// (include/mesos/allocator.hpp). Formats (docs/allocation.md):
//   --roles=prod,batch
//   --weights=prod=3,batch=1
//   --priorities=prod=10,batch=1
//   --guarantees=prod:cpus:4;mem:8192,batch:cpus:1
//   --min_offer_size=cpus:1;mem:1024
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "mesos/result.hpp"
#include "mesos/allocator.hpp"

namespace mesos::allocator {

struct ConfigFlags {
  std::optional<std::string> roles;
  std::optional<std::string> weights;
  std::optional<std::string> priorities;
  std::optional<std::string> guarantees;
  std::optional<std::string> minOfferSize;
  std::chrono::nanoseconds revocationTimeout{0};
  bool revokeBelowFairShare = false;
  std::optional<uint64_t> seed;
  std::string lotteryTickets = "weights";
};

// Fails with one line naming the flag and the problem: a malformed entry, a
// weight that is not a positive number, a role named twice or not in
// --roles, a guarantee or minimum that is not made of positive scalars.
Result<Config> parseConfig(const ConfigFlags& flags);


}  // namespace mesos::allocator
