// mesos-master: the master daemon.
#include <iostream>

#include <glog/logging.h>

#include "master/flags.hpp"
#include "master/master.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"

using mesos::internal::master::Master;
using mesos::internal::master::MasterFlags;

int main(int argc, char** argv) {
  MasterFlags flags;
  auto loaded = flags.load("MESOS_", argc, argv);
  if (!loaded) {
    std::cerr << "mesos-master: " << loaded.error().message << " (see --help)" << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage("mesos-master");
    return 0;
  }
  if (!loaded->empty()) {
    std::cerr << "mesos-master: unexpected argument '" << loaded->front() << "' (see --help)"
              << std::endl;
    return 1;
  }
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;

  auto policy = mesos::internal::master::createAllocator(flags);
  if (!policy) {
    std::cerr << "mesos-master: " << policy.error().message << std::endl;
    return 1;
  }

  process::blockStopSignals();

  // The flags win over LIBPROCESS_*; with neither, this host's address.
  process::Runtime::Options defaults;
  defaults.ip = "";
  auto environment = process::Runtime::withEnvironment(defaults);
  if (!environment) {
    std::cerr << "mesos-master: " << environment.error().message << std::endl;
    return 1;
  }
  process::Runtime::Options options = std::move(environment).value();
  if (flags.ip) options.ip = *flags.ip;
  options.port = flags.port;
  if (flags.advertise_ip) options.advertiseIp = flags.advertise_ip;
  if (flags.advertise_port) options.advertisePort = flags.advertise_port;
  options.maxBodyBytes = flags.max_body_size.value;
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "mesos-master: " << runtime.error().message << std::endl;
    return 1;
  }
  {
    auto master = (*runtime)->spawn<Master>(flags, std::move(policy).value());
    (*runtime)->setDelegate("master");
    int signal = process::awaitStopSignal();
    LOG(INFO) << "Received signal " << signal << "; stopping";
  }
  return 0;
}
