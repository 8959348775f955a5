// mesos-master's flags, with Apache Mesos's names and defaults.
#pragma once

#include <optional>
#include <string>

#include "common/flags.hpp"

namespace mesos::internal::master {

struct MasterFlags : flags::FlagSet {
  MasterFlags();
  Result<void> validate() const override;

  std::optional<std::string> ip;
  uint16_t port;
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
};

}  // namespace mesos::internal::master
