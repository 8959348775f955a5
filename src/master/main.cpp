// mesos-master: the master daemon.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <glog/logging.h>

#include "master/flags.hpp"
#include "master/master.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"

using mesos::internal::master::Master;
using mesos::internal::master::MasterFlags;

namespace {

// How long stopping may take after SIGTERM or SIGINT.
constexpr std::chrono::milliseconds kStopBound{600};

}  // namespace

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
  auto created = process::Runtime::create(options);
  if (!created) {
    std::cerr << "mesos-master: " << created.error().message << std::endl;
    return 1;
  }
  std::unique_ptr<process::Runtime> runtime = std::move(created).value();
  auto master = runtime->spawn<Master>(flags, std::move(policy).value());
  runtime->setDelegate("master");
  // Pages of other origins read nothing unless --http_allowed_origins says.
  runtime->setCorsPolicy(std::make_shared<process::http::AllowedOrigins>(
      process::http::AllowedOrigins::parse(flags.http_allowed_origins.value_or("")).value()));
  int signal = process::awaitStopSignal();
  LOG(INFO) << "Received signal " << signal << "; stopping";
  // The master's state is soft (slaves and frameworks re-register with the
  // next master), so nothing must be saved: stop in an orderly way, but
  // within a bound whatever the load (a deep queue of messages, many
  // connections).
  std::thread([] {
    std::this_thread::sleep_for(kStopBound);
    LOG(WARNING) << "Still stopping after "
                 << std::chrono::duration<double>(kStopBound).count() << " s; exiting now";
    google::FlushLogFiles(google::GLOG_INFO);
    std::_Exit(0);
  }).detach();
  master.reset();
  runtime.reset();
  google::FlushLogFiles(google::GLOG_INFO);
  std::_Exit(0);
}
