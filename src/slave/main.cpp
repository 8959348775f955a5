// mesos-slave / mesos-agent: runs one slave on this machine.
//
//   mesos-slave --master=HOST:PORT|zk://HOST:PORT,.../PATH [--work_dir=DIR] [--resources=...] ...
//
// Every flag may also be given as MESOS_<FLAG> in the environment; --help
// lists them with their defaults. SIGTERM or SIGINT stops the slave and its
// executors.
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <variant>

#include <glog/logging.h>

#include "process/runtime.hpp"
#include "process/signals.hpp"
#include "slave/files.hpp"
#include "slave/flags.hpp"
#include "slave/slave.hpp"
#include "zk/detector.hpp"

using mesos::internal::slave::Files;
using mesos::internal::slave::Flags;
using mesos::internal::slave::Slave;
using mesos::internal::slave::SlaveOptions;

int main(int argc, char** argv) {
  std::string program = argv[0];
  if (size_t slash = program.rfind('/'); slash != std::string::npos) program = program.substr(slash + 1);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;

  Flags flags;
  auto extra = flags.load("MESOS_", argc, argv);
  if (!extra) {
    std::cerr << program << ": " << extra.error().message << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage(program);
    return 0;
  }
  if (!extra->empty()) {
    std::cerr << program << ": unexpected argument '" << extra->front()
              << "' (flags look like --name=value; see --help)" << std::endl;
    return 1;
  }
  if (!flags.master) {
    std::cerr << program << ": missing --master (e.g. --master=127.0.0.1:5050)" << std::endl;
    return 1;
  }
  // host:port, or the masters' group in ZooKeeper (directly or named in a
  // file).
  auto source = mesos::internal::zk::masterSource(*flags.master);
  if (!source) {
    std::cerr << program << ": --master: " << source.error().message << std::endl;
    return 1;
  }
  std::optional<process::UPID> master;
  const auto* url = std::get_if<mesos::internal::zk::Url>(&*source);
  if (url == nullptr) {
    auto parsed = mesos::internal::slave::parseMaster(std::get<std::string>(*source));
    if (!parsed) {
      std::cerr << program << ": " << parsed.error().message << std::endl;
      return 1;
    }
    master = *parsed;
  }

  // The flags win over LIBPROCESS_*; with neither, this host's address.
  process::Runtime::Options defaults;
  defaults.ip = "";
  auto environment = process::Runtime::withEnvironment(defaults);
  if (!environment) {
    std::cerr << program << ": " << environment.error().message << std::endl;
    return 1;
  }
  process::Runtime::Options options = std::move(environment).value();
  if (flags.ip) options.ip = *flags.ip;
  options.port = flags.port;
  if (flags.advertise_ip) options.advertiseIp = flags.advertise_ip;
  if (flags.advertise_port) options.advertisePort = flags.advertise_port;

  // Every thread the runtime starts inherits the blocked stop signals
  // (executors get a clean mask from the launcher).
  process::blockStopSignals();

  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << program << ": " << runtime.error().message << std::endl;
    return 1;
  }

  process::Spawned<Files> files = (*runtime)->spawn<Files>();
  SlaveOptions slaveOptions;
  slaveOptions.master = master;
  if (url != nullptr) {
    slaveOptions.detector = mesos::internal::zk::MasterDetector::zookeeper(
        **runtime, *url,
        std::chrono::duration_cast<std::chrono::milliseconds>(flags.zk_session_timeout));
  }
  slaveOptions.files = files.pid();
  // Pages of other origins read nothing unless --http_allowed_origins says,
  // but the web UI of the master this slave registers with (slave/cors.hpp).
  auto origins = std::make_shared<process::http::AllowedOrigins>(
      process::http::AllowedOrigins::parse(flags.http_allowed_origins.value_or("")).value());
  (*runtime)->setCorsPolicy(origins);
  slaveOptions.allowedOrigins = origins;
  // As Apache Mesos's slave: a refused credential ends the process (its
  // executors keep running for a slave started with the right one).
  slaveOptions.authenticationRefused = [] {
    LOG(ERROR) << "Exiting: the master refused this slave's --credential";
    google::FlushLogFiles(google::GLOG_INFO);
    std::_Exit(1);
  };
  auto slave = Slave::create(flags, std::move(slaveOptions));
  if (!slave) {
    std::cerr << program << ": " << slave.error().message << std::endl;
    return 1;
  }
  process::Spawned<Slave> spawned = (*runtime)->spawn(std::move(slave).value());
  process::UPID pid = spawned.pid();
  // Bare paths (/state, /flags, /metrics/snapshot...) are the slave's.
  (*runtime)->setDelegate(pid.id);

  std::thread([rt = runtime->get(), pid] {
    int signal = process::awaitStopSignal();
    LOG(INFO) << "Got signal " << signal << "; stopping";
    rt->terminate(pid);
  }).detach();

  (*runtime)->wait(pid);
  spawned.reset();
  files.reset();
  std::_Exit(0);
}
