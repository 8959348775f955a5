#include "allocator/config.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "common/roles.hpp"
#include "common/strings.hpp"

namespace mesos::allocator {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  return mesos::internal::strings::splitNonEmpty(text, separator);
}

Error flagError(const std::string& flag, const std::string& problem) {
  return Error{"--" + flag + ": " + problem};
}

// "role=value,..." with each role named once.
Result<std::map<std::string, std::string>> pairs(const std::string& flag,
                                                 const std::string& text) {
  std::map<std::string, std::string> result;
  for (const std::string& entry : split(text, ',')) {
    auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size()) {
      return flagError(flag, "expected role=value, got '" + entry + "'");
    }
    std::string role = entry.substr(0, equals);
    if (auto valid = mesos::roles::validate(role); !valid) {
      return flagError(flag, valid.error().message);
    }
    if (!result.emplace(role, entry.substr(equals + 1)).second) {
      return flagError(flag, "role '" + role + "' is named twice");
    }
  }
  return result;
}

// Scalars only, each positive.
Result<Resources> scalars(const std::string& flag, const std::string& what,
                          const std::string& text) {
  auto parsed = Resources::parse(text);
  if (!parsed) return flagError(flag, what + ": " + parsed.error().message);
  if (parsed->empty()) return flagError(flag, what + ": no resources in '" + text + "'");
  for (const Resource& resource : *parsed) {
    if (resource.type() != Value::SCALAR) {
      return flagError(flag, what + ": '" + resource.name() + "' is not a scalar resource");
    }
  }
  return parsed->flatten();
}

Result<void> known(const std::string& flag, const std::string& role,
                   const std::set<std::string>& roles) {
  if (!roles.empty() && !roles.count(role)) {
    return flagError(flag, "role '" + role + "' is not in --roles");
  }
  return {};
}

}  // namespace

Result<Config> parseConfig(const ConfigFlags& flags) {
  Config config;
  std::set<std::string> roles;
  if (flags.roles) {
    for (const std::string& role : split(*flags.roles, ',')) {
      if (auto valid = mesos::roles::validate(role); !valid) {
        return flagError("roles", valid.error().message);
      }
      if (!roles.insert(role).second) return flagError("roles", "'" + role + "' is named twice");
      config.roles.push_back(role);
    }
    if (roles.empty()) return flagError("roles", "no roles in '" + *flags.roles + "'");
  }
  if (flags.weights) {
    auto parsed = pairs("weights", *flags.weights);
    if (!parsed) return parsed.error();
    for (const auto& [role, text] : *parsed) {
      if (auto ok = known("weights", role, roles); !ok) return ok.error();
      char* end = nullptr;
      double weight = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !std::isfinite(weight) || weight <= 0) {
        return flagError("weights", "weight of '" + role + "' must be a positive number, got '" +
                                        text + "'");
      }
      config.weights[role] = weight;
    }
  }
  if (flags.priorities) {
    auto parsed = pairs("priorities", *flags.priorities);
    if (!parsed) return parsed.error();
    for (const auto& [role, text] : *parsed) {
      if (auto ok = known("priorities", role, roles); !ok) return ok.error();
      char* end = nullptr;
      long long priority = std::strtoll(text.c_str(), &end, 10);
      if (end == text.c_str() || *end != '\0') {
        return flagError("priorities",
                         "priority of '" + role + "' must be an integer, got '" + text + "'");
      }
      config.priorities[role] = priority;
    }
  }
  if (flags.guarantees) {
    // Entries are separated by ',' and a role ends at the first ':'.
    for (const std::string& entry : split(*flags.guarantees, ',')) {
      auto colon = entry.find(':');
      if (colon == std::string::npos || colon == 0) {
        return flagError("guarantees", "expected role:resources, got '" + entry + "'");
      }
      std::string role = entry.substr(0, colon);
      if (auto valid = mesos::roles::validate(role); !valid) {
        return flagError("guarantees", valid.error().message);
      }
      if (auto ok = known("guarantees", role, roles); !ok) return ok.error();
      if (config.guarantees.count(role)) {
        return flagError("guarantees", "role '" + role + "' is named twice");
      }
      auto resources = scalars("guarantees", "role '" + role + "'", entry.substr(colon + 1));
      if (!resources) return resources.error();
      config.guarantees[role] = *resources;
    }
  }
  if (flags.minOfferSize) {
    auto resources = scalars("min_offer_size", "minimum", *flags.minOfferSize);
    if (!resources) return resources.error();
    config.minOfferSize = *resources;
  }
  if (flags.revocationTimeout < std::chrono::nanoseconds::zero()) {
    return flagError("revocation_timeout", "must not be negative");
  }
  config.revocationTimeout = flags.revocationTimeout;
  config.revokeBelowFairShare = flags.revokeBelowFairShare;
  config.seed = flags.seed;
  if (flags.lotteryTickets != "weights" && flags.lotteryTickets != "guarantees") {
    return flagError("lottery_tickets",
                     "expected 'weights' or 'guarantees', got '" + flags.lotteryTickets + "'");
  }
  config.lotteryTickets = flags.lotteryTickets;
  return config;
}

}  // namespace mesos::allocator
