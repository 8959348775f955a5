#include "master/master.hpp"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <glog/logging.h>

#include "common/uuid.hpp"
#include "master/scheduler_stream.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

namespace {
constexpr const char* kVersion = "1.0.0";
}  // namespace

Master::Master(const MasterFlags& flags, std::unique_ptr<allocator::Allocator> allocator,
               std::string id)
    : Actor(std::move(id)),
      flags_(flags),
      policy_(std::move(allocator)),
      registry_(flags.max_completed_frameworks, flags.max_completed_tasks_per_framework) {
  // The flags were validated when loaded; flags built in code are checked
  // here.
  auto config = flags_.allocatorConfig();
  CHECK(config) << config.error().message;
  config_ = std::move(config).value();
  for (const auto& [role, guarantee] : config_.guarantees) guaranteed_ += guarantee;
  auto guard = flags_.security.guard(authentication::Daemon::kMaster);
  CHECK(guard) << guard.error().message;
  guard_ = std::move(guard).value();
}

Master::~Master() = default;

void Master::initialize() {
  startTime_ = now();
  leading_ = !flags_.zk.has_value();
  if (leading_) electedTime_ = startTime_;  // no election: this master leads from the start
  info_.set_id(uuidToString(randomUuid()));
  info_.set_ip(htonl(self().address.ip));
  info_.set_port(self().address.port);
  info_.set_pid(self().toString());
  info_.set_version(kVersion);
  if (flags_.hostname) {
    info_.set_hostname(*flags_.hostname);
  } else {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    info_.set_hostname(host);
  }
  info_.mutable_address()->set_ip(self().address.ipString());
  info_.mutable_address()->set_port(self().address.port);
  info_.mutable_address()->set_hostname(info_.hostname());
  LOG(INFO) << "Master " << info_.id() << " (" << info_.hostname() << ") started on "
            << self();
  LOG_IF(INFO, !guaranteed_.empty())
      << "Guarantees add up to " << guaranteed_.toString()
      << "; the cluster meets all of them at once when its slaves have at least that";

  setUpAuthentication();

  // Authentication (authentication.cpp).
  handle(&Master::authenticate);
  // Frameworks.
  handle(&Master::registerFramework);
  handle(&Master::reregisterFramework);
  handle(&Master::unregisterFramework);
  handle(&Master::deactivateFramework);
  handle(&Master::resourceRequest);
  handle(&Master::launchTasks);
  handle(&Master::reviveOffers);
  handle(&Master::suppressOffers);
  handle(&Master::schedulerCall);
  // mesos-go's v0 driver names the same Call message "scheduler".
  onRaw("scheduler", [this, received = &metrics_.messages["Call"]](const UPID& from,
                                                                  const std::string& body) {
    scheduler::Call call;
    if (!call.ParseFromString(body)) {
      LOG(WARNING) << "Dropping a malformed 'scheduler' Call message from " << from;
      metrics_.invalidFrameworkMessages++;
      return;
    }
    if (!leading_) {
      standby(from, "Call", [this, from, call, received] {
        ++*received;
        schedulerCall(from, call);
      });
      return;
    }
    ++*received;
    if (recovering_) {
      hold([this, from, call] { schedulerCall(from, call); });
      return;
    }
    schedulerCall(from, call);
  });
  handle(&Master::killTask);
  handle(&Master::statusUpdateAcknowledgement);
  handle(&Master::reconcileTasks);
  handle(&Master::frameworkToExecutor);
  // Slaves.
  // Repeated until answered: kept unparsed, one per slave (slaves.cpp).
  for (const google::protobuf::Descriptor* kind :
       {RegisterSlaveMessage::descriptor(), ReregisterSlaveMessage::descriptor()}) {
    const std::string name = kind->name();
    metrics_.messages[name];  // listed from the start
    onRaw(kind->full_name(), [this, name](const UPID& from, const std::string& body) {
      slaveRegistration(from, name, body);
    });
  }
  handle(&Master::unregisterSlave);
  handle(&Master::pong);
  handle(&Master::statusUpdate);
  handle(&Master::exitedExecutor);
  handle(&Master::executorToFramework);
  // HTTP (http.cpp).
  installRoutes();

  process::Pid<Master> master(self());
  allocator_ = runtime().spawn(std::make_unique<allocator::AllocatorActor>(
      std::move(policy_), flags_.allocation_interval,
      [master](const FrameworkID& frameworkId, std::vector<allocator::SlaveResources> offers) {
        process::dispatch(master, &Master::offer, frameworkId, std::move(offers));
      },
      [master](const allocator::Revocation& revocation) {
        process::dispatch(master, &Master::revoke, revocation);
      }));

  metricsActor_ = runtime().spawn<MetricsActor>(master, allocator_.pid(), guard_);

  if (!leading_) contend();
  // The registry (partitions.cpp): in ZooKeeper, the master's own session.
  registrar::StorageConfig storage;
  storage.kind = flags_.registryKind();
  if (zk_) {
    auto url = zk::parseUrl(*flags_.zk);
    if (storage.kind == "zookeeper") {
      // Its expiry guards nothing (fencing does): a longer timeout than
      // the election's keeps it through a burst of big writes.
      registryZk_ = runtime().spawn<zk::ZooKeeper>(
          process::generateId("zookeeper"), *url,
          std::max(std::chrono::milliseconds(10000),
                   std::chrono::duration_cast<std::chrono::milliseconds>(
                       flags_.zk_session_timeout)));
    }
    storage.zk = registryZk_ ? registryZk_.pid() : zk_.pid();
    storage.zkPath = url->path;
    storage.zkUrl = url->toString();
  }
  storage.workDir = flags_.work_dir;
  auto backend = registrar::createStorage(storage);
  CHECK(backend) << backend.error().message;  // the flags were validated
  durableRegistry_ = backend.value()->durable();
  auto registrar = std::make_unique<registrar::Registrar>(
      process::generateId("registrar"), std::move(backend).value(),
      std::chrono::duration_cast<std::chrono::milliseconds>(flags_.registry_fetch_timeout),
      std::chrono::duration_cast<std::chrono::milliseconds>(flags_.registry_store_timeout));
  registrarStats_ = registrar->stats();
  registrar_ = runtime().spawn(std::move(registrar));
  auto rate = flags_.removalRate();
  CHECK(rate) << rate.error().message;
  removalRate_ = rate.value();
  if (leading_) {
    recoverRegistry();
    delay(flags_.slave_ping_timeout, [this] { pingSlaves(); });
  }
}

void Master::finalize() {
  LOG(INFO) << "Master " << info_.id() << " stopping";
  operatorEvents_.stop();
}

void Master::exited(const UPID& pid) {
  if (sessions_.stopped(pid)) return;  // an authentication session
  schedulerStreamEnded(pid);
  if (auto it = frameworkPids_.find(pid); it != frameworkPids_.end()) {
    if (Framework* f = framework(it->second); f != nullptr && f->pid == pid) {
      LOG(INFO) << "Framework " << f->id.value() << " (" << f->info.name() << ") at " << pid
                << " disconnected";
      disconnectFramework(*f);
    }
    frameworkPids_.erase(it);
    return;
  }
  // A slave's connection broke. It is removed only after missing its pings
  // (it may come back and re-register); meanwhile nothing is offered on it.
  if (Slave* s = registry_.slaveAt(pid)) deactivateSlave(*s);
}

double Master::now() const {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Master::nextId(const char* kind) {
  char buffer[64];
  if (kind[0] == 'F') {
    std::snprintf(buffer, sizeof(buffer), "-%04llu",
                  static_cast<unsigned long long>(nextFrameworkId_++));
  } else if (kind[0] == 'S') {
    std::snprintf(buffer, sizeof(buffer), "-S%llu", static_cast<unsigned long long>(nextSlaveId_++));
  } else {
    std::snprintf(buffer, sizeof(buffer), "-O%llu", static_cast<unsigned long long>(nextOfferId_++));
  }
  return info_.id() + buffer;
}

}  // namespace mesos::internal::master
