#include "local/cluster.hpp"

#include <glog/logging.h>

#include "slave/flags.hpp"
#include "zk/url.hpp"

namespace mesos::internal::local {

Result<std::unique_ptr<LocalCluster>> LocalCluster::start(process::Runtime::Options options,
                                                          master::MasterFlags masterFlags,
                                                          size_t masters) {
  auto runtime = process::Runtime::create(options);
  if (!runtime) return runtime.error();
  std::unique_ptr<LocalCluster> cluster(new LocalCluster());
  cluster->runtime_ = std::move(runtime).value();
  const process::Address& listen = cluster->runtime_->listenAddress();
  const process::Address& advertised = cluster->runtime_->address();
  masterFlags.ip = listen.ipString();
  masterFlags.port = listen.port;
  if (advertised.ip != listen.ip) masterFlags.advertise_ip = advertised.ipString();
  if (advertised.port != listen.port) masterFlags.advertise_port = advertised.port;
  if (!masterFlags.zk) masters = 1;
  for (size_t i = 0; i < masters; ++i) {
    auto policy = master::createAllocator(masterFlags);
    if (!policy) return policy.error();
    auto spawned = std::make_unique<master::Master>(
        masterFlags, std::move(policy).value(),
        i == 0 ? std::string("master") : "master" + std::to_string(i + 1));
    if (masterFlags.zk) {
      spawned->setLostLeadershipAction([](const std::string&) {
        LOG(ERROR) << "This master terminates; the others carry on";
        process::Actor* self = process::currentActor();
        if (self != nullptr) self->runtime().terminate(self->self());
      });
    }
    cluster->masters_.push_back(cluster->runtime_->spawn(std::move(spawned)));
  }
  if (masterFlags.zk) {
    auto url = zk::parseUrl(*masterFlags.zk);
    if (!url) return Error{"--zk: " + url.error().message};
    cluster->detector_ = zk::MasterDetector::zookeeper(*cluster->runtime_, *url);
  }
  cluster->runtime_->setDelegate("master");
  cluster->files_ = cluster->runtime_->spawn<slave::Files>();
  return cluster;
}

LocalCluster::~LocalCluster() {
  slaves_.clear();
  files_.reset();
  detector_.reset();
  masters_.clear();
  runtime_.reset();
}

Result<size_t> LocalCluster::addSlave(const std::vector<std::string>& flags) {
  std::vector<const char*> argv = {"slave"};
  for (const auto& flag : flags) argv.push_back(flag.c_str());
  slave::Flags slaveFlags;
  // An unlikely prefix: these slaves take no flags from the environment.
  auto loaded = slaveFlags.load("MESOS_LOCAL_SLAVE_", static_cast<int>(argv.size()), argv.data());
  if (!loaded) return loaded.error();
  slave::SlaveOptions options;
  if (detector_) {
    options.detector = detector_;
  } else {
    options.master = masters_.at(0).pid();
  }
  options.files = files_.pid();
  // The slaves share one work directory, and a local cluster's end is its
  // executors' end too: no checkpoints, no recovery.
  options.recovery = false;
  auto created = slave::Slave::create(slaveFlags, std::move(options));
  if (!created) return created.error();
  slaves_.push_back(runtime_->spawn(std::move(created).value()));
  return slaves_.size() - 1;
}

void LocalCluster::stopSlave(size_t index) { slaves_.at(index).reset(); }

}  // namespace mesos::internal::local
