// mesos-master's flags, with Apache Mesos's names and defaults.
#pragma once

#include <optional>
#include <string>

#include <memory>

#include "authentication/http/security_flags.hpp"
#include "common/flags.hpp"
#include "mesos/allocator.hpp"

namespace mesos::internal::master {

struct MasterFlags : flags::FlagSet {
  MasterFlags();
  Result<void> validate() const override;

  std::optional<std::string> ip;
  uint16_t port;
  std::optional<std::string> advertise_ip;
  std::optional<uint16_t> advertise_port;
  std::optional<std::string> hostname;
  std::optional<std::string> work_dir;
  flags::Duration allocation_interval;
  std::optional<flags::Duration> offer_timeout;
  flags::Duration slave_ping_timeout;
  uint32_t max_slave_ping_timeouts;
  flags::Duration framework_failover_timeout;
  std::optional<uint32_t> max_executors_per_slave;
  uint32_t max_completed_frameworks;
  uint32_t max_completed_tasks_per_framework;
  std::string cluster;
  flags::Bytes max_body_size;
  // The v1 operator API's event stream (docs/operator-http-api.md).
  uint32_t max_operator_event_stream_subscribers;
  flags::Bytes operator_event_stream_queue_limit;
  flags::Duration operator_event_stream_batch_window;

  // High availability (docs/high-availability.md).
  std::optional<std::string> zk;
  flags::Duration zk_session_timeout;
  std::optional<uint32_t> quorum;
  flags::Duration slave_reregister_timeout;
  flags::Duration allocation_settle_delay;

  // The registry of agents and partition awareness (docs/high-availability.md,
  // docs/partition-awareness.md).
  std::optional<std::string> registry;  // unset: zookeeper with --zk, file with --work_dir, else in_memory
  flags::Duration registry_fetch_timeout;
  flags::Duration registry_store_timeout;
  flags::Duration registry_gc_interval;
  flags::Duration registry_max_agent_age;
  uint64_t registry_max_agent_count;
  std::optional<std::string> agent_removal_rate_limit;
  std::string recovery_agent_removal_limit;
  uint32_t max_unreachable_tasks_per_framework;
  // --registry resolved ("zookeeper", "file" or "in_memory").
  std::string registryKind() const;
  // --agent_removal_rate_limit "N/<duration>": at most `count` removals per
  // `per`; none without the flag.
  struct RemovalRate {
    double count = 0;
    flags::Duration per{0};
  };
  Result<std::optional<RemovalRate>> removalRate() const;
  // --recovery_agent_removal_limit as a fraction (0..1).
  Result<double> recoveryRemovalLimit() const;

  // Allocation (docs/allocation.md).
  std::string allocator;
  std::optional<std::string> roles;
  std::optional<std::string> weights;
  std::optional<std::string> priorities;
  std::optional<std::string> guarantees;
  std::optional<std::string> min_offer_size;
  flags::Duration revocation_timeout;
  flags::Duration revocation_grace_period;
  bool revoke_below_fair_share;
  std::optional<uint64_t> lottery_seed;
  std::string lottery_tickets;
  // Long-task slots (docs/allocation.md, "Long tasks").
  double long_task_share;
  std::optional<flags::Duration> short_task_max_duration;
  // Hardening (docs/security.md).
  std::optional<std::string> http_allowed_origins;

  // HTTP authentication and authorization (docs/security.md).
  authentication::HttpSecurityFlags security;

  // Authentication (docs/security.md; master/authentication.cpp adds them).
  bool authenticate_frameworks;
  bool authenticate_agents;
  std::optional<std::string> credentials;
  std::string authenticators;
  flags::Duration authentication_v0_timeout;
  void addAuthenticationFlags();
  Result<void> validateAuthentication() const;

  // The allocation flags as the allocator's configuration.
  Result<allocator::Config> allocatorConfig() const;
};

// The allocator --allocator names, configured by the allocation flags; fails
// with one line (unknown name, module that does not load or initialise).
Result<std::unique_ptr<allocator::Allocator>> createAllocator(const MasterFlags& flags);

}  // namespace mesos::internal::master
