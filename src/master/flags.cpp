#include "master/flags.hpp"

#include <chrono>

namespace mesos::internal::master {

using namespace std::chrono_literals;

MasterFlags::MasterFlags() {
  add(&ip, "ip", "IP address to listen on and advertise (default: this host's address)");
  add(&port, "port", "Port to listen on", uint16_t{5050});
  add(&hostname, "hostname", "Hostname to advertise (default: the system's)");
  add(&work_dir, "work_dir", "Directory for the master's files");
  add(&allocation_interval, "allocation_interval",
      "Time between batch allocations of all free resources", flags::Duration(1s));
  add(&offer_timeout, "offer_timeout",
      "Time after which an unanswered offer is rescinded (default: never)");
  add(&slave_ping_timeout, "slave_ping_timeout",
      "Time a slave has to answer a ping before the ping counts as missed",
      flags::Duration(15s));
  add(&max_slave_ping_timeouts, "max_slave_ping_timeouts",
      "Missed pings in a row after which a slave is removed", uint32_t{5});
  add(&framework_failover_timeout, "framework_failover_timeout",
      "How long a disconnected framework whose FrameworkInfo sets no failover_timeout is kept "
      "before it is removed and its tasks killed",
      flags::Duration(0s));
  add(&max_executors_per_slave, "max_executors_per_slave",
      "Maximum number of executors on one slave (default: no limit)");
  add(&max_completed_frameworks, "max_completed_frameworks",
      "Completed frameworks kept for /state", uint32_t{50});
  add(&max_completed_tasks_per_framework, "max_completed_tasks_per_framework",
      "Completed tasks kept per framework for /state", uint32_t{1000});
  add(&cluster, "cluster", "Human-readable name of the cluster, shown in /state", std::string());
  add(&max_body_size, "max_body_size", "Largest request body accepted",
      flags::Bytes{64ull * 1024 * 1024});
}

Result<void> MasterFlags::validate() const {
  if (allocation_interval <= flags::Duration::zero()) {
    return Error{"--allocation_interval must be positive"};
  }
  if (slave_ping_timeout <= flags::Duration::zero()) {
    return Error{"--slave_ping_timeout must be positive"};
  }
  if (max_slave_ping_timeouts == 0) {
    return Error{"--max_slave_ping_timeouts must be at least 1"};
  }
  if (offer_timeout && *offer_timeout <= flags::Duration::zero()) {
    return Error{"--offer_timeout must be positive"};
  }
  return {};
}

}  // namespace mesos::internal::master
