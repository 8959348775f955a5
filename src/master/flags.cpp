#include "master/flags.hpp"

#include <chrono>
#include <sstream>

#include "allocator/config.hpp"
#include "allocator/factory.hpp"
#include "process/runtime.hpp"
#include "zk/url.hpp"

namespace mesos::internal::master {

using namespace std::chrono_literals;

MasterFlags::MasterFlags() {
  add(&ip, "ip",
      "IP address to listen on; 0.0.0.0 listens on every interface (default: $LIBPROCESS_IP, "
      "else this host's address)");
  add(&port, "port", "Port to listen on", uint16_t{5050});
  add(&advertise_ip, "advertise_ip",
      "IP address to advertise in the master's pid and MasterInfo, for peers that reach it "
      "through another address (default: $LIBPROCESS_ADVERTISE_IP, else the --ip address; with "
      "--ip=0.0.0.0, this host's address)");
  add(&advertise_port, "advertise_port",
      "Port to advertise in the master's pid and MasterInfo (default: "
      "$LIBPROCESS_ADVERTISE_PORT, else --port)");
  add(&hostname, "hostname", "Hostname to advertise (default: the system's)");
  add(&work_dir, "work_dir", "Directory for the master's files");
  add(&allocation_interval, "allocation_interval",
      "Time between batch allocations of all free resources", flags::Duration(1s));
  add(&offer_timeout, "offer_timeout",
      "Time after which an unanswered offer is rescinded (default: never)");
  add(&slave_ping_timeout, "slave_ping_timeout",
      "Time a slave has to answer a ping before the ping counts as missed",
      flags::Duration(15s));
  alias("agent_ping_timeout", "slave_ping_timeout");
  add(&max_slave_ping_timeouts, "max_slave_ping_timeouts",
      "Missed pings in a row after which a slave is marked unreachable", uint32_t{5});
  alias("max_agent_ping_timeouts", "max_slave_ping_timeouts");
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
  add(&max_operator_event_stream_subscribers, "max_operator_event_stream_subscribers",
      "Most subscribers to the operator API's event stream (SUBSCRIBE to /api/v1) at once: a "
      "new one past it closes the oldest",
      uint32_t{1000});
  add(&operator_event_stream_queue_limit, "operator_event_stream_queue_limit",
      "Most bytes of events one subscriber of the operator API's event stream may leave unread "
      "(beyond its first event, the state); past it its stream is closed",
      flags::Bytes{4ull * 1024 * 1024});
  add(&operator_event_stream_batch_window, "operator_event_stream_batch_window",
      "Events of the operator API's event stream published within this long of the last batch "
      "sent wait to go out together, as one write per subscriber (0: each batch at once)",
      flags::Duration(100ms));

  add(&zk, "zk",
      "ZooKeeper URL of the masters' group, for leader election among several masters: "
      "zk://host:port[,host:port...]/path, optionally with user:password@ before the hosts, or "
      "file:///path naming a file that holds it (default: no election; this master leads)");
  secret("zk", Secrecy::kUrlPassword);
  add(&zk_session_timeout, "zk_session_timeout",
      "ZooKeeper session timeout: a leader not heard from for this long is replaced, and stops "
      "acting a little sooner",
      flags::Duration(10s));
  add(&quorum, "quorum",
      "Accepted for compatibility with Apache Mesos (its replicated log's quorum); unused: the "
      "registry is kept in ZooKeeper, whose ensemble has its own quorum");
  add(&slave_reregister_timeout, "slave_reregister_timeout",
      "After an election, how long slaves the registry lists have to re-register: those that do "
      "not are marked unreachable (reconciliation of their tasks waits until then); frameworks "
      "known only from slaves' reports are kept at least this long",
      flags::Duration(std::chrono::minutes(10)));
  alias("agent_reregister_timeout", "slave_reregister_timeout");
  add(&registry, "registry",
      "Where the registry of agents is kept: zookeeper (under the --zk path), file (under "
      "--work_dir), or in_memory (lost when the master stops) (default: zookeeper with --zk, "
      "else file with --work_dir, else in_memory)");
  add(&registry_fetch_timeout, "registry_fetch_timeout",
      "How long a newly elected master may take to read the registry before it gives up "
      "leading",
      flags::Duration(std::chrono::minutes(1)));
  add(&registry_store_timeout, "registry_store_timeout",
      "How long one write of the registry may take before the master gives up leading",
      flags::Duration(std::chrono::seconds(20)));
  add(&registry_gc_interval, "registry_gc_interval",
      "How often the leading master forgets unreachable and gone agents past "
      "--registry_max_agent_age or --registry_max_agent_count",
      flags::Duration(std::chrono::minutes(15)));
  add(&registry_max_agent_age, "registry_max_agent_age",
      "How long the registry remembers an unreachable or gone agent",
      flags::Duration(std::chrono::hours(24 * 14)));
  add(&registry_max_agent_count, "registry_max_agent_count",
      "How many unreachable and gone agents the registry remembers at most (the oldest are "
      "forgotten first)",
      uint64_t{102400});
  add(&agent_removal_rate_limit, "agent_removal_rate_limit",
      "Most agents marked unreachable for failed health checks per time, as N/<duration> "
      "(e.g. 1/10mins) (default: no limit)");
  alias("slave_removal_rate_limit", "agent_removal_rate_limit");
  add(&recovery_agent_removal_limit, "recovery_agent_removal_limit",
      "After a failover, the largest share of the registry's agents that may be marked "
      "unreachable for not re-registering in time; past it the master stops leading instead "
      "(a human should look)",
      std::string("100%"));
  alias("recovery_slave_removal_limit", "recovery_agent_removal_limit");
  add(&max_unreachable_tasks_per_framework, "max_unreachable_tasks_per_framework",
      "Tasks on unreachable agents remembered per framework, for reconciliation",
      uint32_t{1000});
  add(&allocation_settle_delay, "allocation_settle_delay",
      "After an election, how long the master lets slaves and frameworks re-register before it "
      "offers resources",
      flags::Duration(1s));
  add(&allocator, "allocator",
      "Allocation policy: drf (weighted DRF), priority (strict priority among roles), lottery, "
      "or the path of an allocator module (.so)",
      std::string("drf"));
  add(&roles, "roles",
      "Comma-separated roles frameworks may register with (default: any role)");
  add(&weights, "weights", "Role weights for weighted DRF and lottery: role=weight,... (default 1)");
  add(&priorities, "priorities",
      "Role priorities for --allocator=priority: role=N,...; higher first (default 0)");
  add(&guarantees, "guarantees",
      "Guaranteed allocations: role:cpus:4;mem:8192,...; a framework below its role's "
      "guarantee never loses tasks, and may have tasks above others' guarantees revoked for it");
  add(&min_offer_size, "min_offer_size",
      "A slave's free resources are offered only once this much is free, e.g. cpus:1;mem:1024 "
      "(capped at the slave's total)");
  add(&revocation_timeout, "revocation_timeout",
      "How long a framework below its guarantee waits for offers before tasks of frameworks "
      "above their guarantees are revoked for it (0secs disables revocation)",
      flags::Duration(30s));
  add(&revoke_below_fair_share, "revoke_below_fair_share",
      "Also revoke for a framework whose role is below its fair share (its weight over the "
      "weights of the roles with frameworks), from roles above theirs",
      false);
  add(&revocation_grace_period, "revocation_grace_period",
      "Time a revoked task's executor has to kill it before the master kills the executor",
      flags::Duration(5s));
  add(&lottery_seed, "lottery_seed", "Seed of --allocator=lottery's draws (default: random)");
  add(&lottery_tickets, "lottery_tickets",
      "What a framework's lottery tickets are: 'weights' (its role's weight) or 'guarantees' "
      "(its role's guaranteed share), split among the role's frameworks",
      std::string("weights"));
  add(&long_task_share, "long_task_share",
      "Largest fraction, in (0, 1], of each slave's total of each scalar resource that tasks "
      "labelled long=true may hold together (1: no cap)",
      1.0);
  add(&short_task_max_duration, "short_task_max_duration",
      "Time after its launch at which a task not labelled long=true and still running is "
      "revoked (default: no limit)");
  add(&http_allowed_origins, "http_allowed_origins",
      "Origins (scheme://host:port, comma-separated; '*' for any) whose web pages may read "
      "this master's endpoints from a browser (CORS); the master's own web UI needs none "
      "(default: none)");
  security.addTo(*this, authentication::Daemon::kMaster);
  addAuthenticationFlags();
}

Result<allocator::Config> MasterFlags::allocatorConfig() const {
  allocator::ConfigFlags config;
  config.roles = roles;
  config.weights = weights;
  config.priorities = priorities;
  config.guarantees = guarantees;
  config.minOfferSize = min_offer_size;
  config.revocationTimeout = revocation_timeout;
  config.revokeBelowFairShare = revoke_below_fair_share;
  config.seed = lottery_seed;
  config.lotteryTickets = lottery_tickets;
  return allocator::parseConfig(config);
}

Result<std::unique_ptr<allocator::Allocator>> createAllocator(const MasterFlags& flags) {
  auto config = flags.allocatorConfig();
  if (!config) return config.error();
  return allocator::create(flags.allocator, *config);
}

std::string MasterFlags::registryKind() const {
  if (registry) return *registry;
  if (zk) return "zookeeper";
  if (work_dir) return "file";
  return "in_memory";
}

Result<std::optional<MasterFlags::RemovalRate>> MasterFlags::removalRate() const {
  if (!agent_removal_rate_limit) return std::optional<RemovalRate>();
  const std::string& text = *agent_removal_rate_limit;
  size_t slash = text.find('/');
  auto invalid = [&](const std::string& why) {
    return Error{"--agent_removal_rate_limit=" + text + ": " + why +
                 " (expected N/<duration>, e.g. 1/10mins)"};
  };
  if (slash == std::string::npos) return invalid("no '/'");
  RemovalRate rate;
  try {
    size_t used = 0;
    rate.count = std::stod(text.substr(0, slash), &used);
    if (used != slash) return invalid("the count is not a number");
  } catch (const std::exception&) {
    return invalid("the count is not a number");
  }
  if (!(rate.count > 0)) return invalid("the count must be positive");
  auto per = flags::parseDuration(text.substr(slash + 1));
  if (!per) return invalid(per.error().message);
  if (per.value() <= flags::Duration::zero()) return invalid("the duration must be positive");
  rate.per = per.value();
  return std::optional<RemovalRate>(rate);
}

Result<double> MasterFlags::recoveryRemovalLimit() const {
  const std::string& text = recovery_agent_removal_limit;
  auto invalid = Error{"--recovery_agent_removal_limit=" + text +
                       ": expected a percentage from 0% to 100%, e.g. 10%"};
  if (text.empty() || text.back() != '%') return invalid;
  try {
    size_t used = 0;
    double percent = std::stod(text.substr(0, text.size() - 1), &used);
    if (used != text.size() - 1 || !(percent >= 0 && percent <= 100)) return invalid;
    return percent / 100.0;
  } catch (const std::exception&) {
    return invalid;
  }
}

Result<void> MasterFlags::validate() const {
  if (auto ok = process::Runtime::checkAddressFlags(ip, advertise_ip, advertise_port); !ok) {
    return ok.error();
  }
  if (operator_event_stream_batch_window < flags::Duration::zero() ||
      operator_event_stream_batch_window > flags::Duration(10s)) {
    return Error{"--operator_event_stream_batch_window must be between 0 and 10secs"};
  }
  if (allocation_interval <= flags::Duration::zero()) {
    return Error{"--allocation_interval must be positive"};
  }
  if (http_allowed_origins) {
    auto origins = process::http::AllowedOrigins::parse(*http_allowed_origins);
    if (!origins) return Error{"--http_allowed_origins: " + origins.error().message};
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
  if (revocation_grace_period < flags::Duration::zero()) {
    return Error{"--revocation_grace_period must not be negative"};
  }
  if (!(long_task_share > 0 && long_task_share <= 1)) {
    std::ostringstream given;
    given << long_task_share;
    return Error{"--long_task_share must be in (0, 1], e.g. 0.5 for half of each slave (got " +
                 given.str() + ")"};
  }
  if (short_task_max_duration && *short_task_max_duration <= flags::Duration::zero()) {
    return Error{"--short_task_max_duration must be positive"};
  }
  if (zk) {
    auto url = zk::parseUrl(*zk);
    if (!url) return Error{"--zk: " + url.error().message};
  }
  if (zk_session_timeout <= flags::Duration::zero()) {
    return Error{"--zk_session_timeout must be positive"};
  }
  if (slave_reregister_timeout <= flags::Duration::zero()) {
    return Error{"--slave_reregister_timeout must be positive"};
  }
  if (allocation_settle_delay < flags::Duration::zero()) {
    return Error{"--allocation_settle_delay must not be negative"};
  }
  if (registry) {
    const std::string& kind = *registry;
    if (kind == "replicated_log") {
      return Error{"--registry=replicated_log: Apache Mesos's replicated log is not "
                   "implemented; this master keeps the registry in ZooKeeper "
                   "(--registry=zookeeper, the default with --zk), in files under --work_dir "
                   "(--registry=file) or in memory (--registry=in_memory)"};
    }
    if (kind != "zookeeper" && kind != "file" && kind != "in_memory") {
      return Error{"--registry=" + kind + ": expected zookeeper, file or in_memory"};
    }
    if (kind == "zookeeper" && !zk) return Error{"--registry=zookeeper needs --zk"};
    if (kind == "file" && !work_dir) return Error{"--registry=file needs --work_dir"};
  }
  for (auto [value, name] : {std::pair{registry_fetch_timeout, "registry_fetch_timeout"},
                             std::pair{registry_store_timeout, "registry_store_timeout"},
                             std::pair{registry_gc_interval, "registry_gc_interval"},
                             std::pair{registry_max_agent_age, "registry_max_agent_age"}}) {
    if (value <= flags::Duration::zero()) return Error{"--" + std::string(name) + " must be positive"};
  }
  if (auto rate = removalRate(); !rate) return rate.error();
  if (auto limit = recoveryRemovalLimit(); !limit) return limit.error();
  if (auto config = allocatorConfig(); !config) return config.error();
  if (auto guard = security.guard(authentication::Daemon::kMaster, true); !guard) return guard.error();
  if (auto authentication = validateAuthentication(); !authentication) {
    return authentication.error();
  }
  return {};
}

}  // namespace mesos::internal::master
