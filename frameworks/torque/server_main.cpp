// mesos-torque-server: the batch queue's long-running scheduler. It
// registers with the master as a framework, serves the queue over HTTP/JSON
// (http_api.hpp) for mesos-qsub, mesos-qstat and mesos-qdel, and runs until
// SIGTERM or SIGINT (then it unregisters: the master ends its node tasks).
#include <gflags/gflags.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/driver.hpp"
#include "common/programs.hpp"
#include "torque/http_api.hpp"
#include "torque/protocol.hpp"
#include "torque/scheduler.hpp"

DEFINE_string(master, "", "the master: host:port, zk://... or file:///... (required)");
DEFINE_string(ip, "0.0.0.0", "the address the HTTP interface listens on");
DEFINE_int32(port, 15001, "the HTTP port of the queue (mesos-qsub --server=host:PORT)");
DEFINE_string(name, "torque", "the framework's name");
DEFINE_string(role, "*", "the framework's role; it holds at most its role's guarantee");
DEFINE_double(node_cpus, 1, "cpus each node task holds (the most a job's ppn may be)");
DEFINE_int32(node_mem, 256, "MB of memory each node task holds");
DEFINE_int32(max_nodes, 16, "the most node tasks (slaves) held at once");
DEFINE_int32(idle_timeout, 30,
             "seconds a node stays idle, with nothing queued, before it is "
             "given back");
DEFINE_string(default_walltime, "01:00:00", "the walltime of jobs that give none (HH:MM:SS)");
DEFINE_int32(decline_seconds, 300, "how long declined offers stay refused");
DEFINE_string(executor, "",
              "the node executor (default: mesos-torque-mom beside this program "
              "or in <prefix>/libexec/mesos)");

namespace {

using namespace mesos::frameworks::torque;

// One line naming the flag and what to give; exit status 2.
int usageError(const std::string& message) {
  std::cerr << "mesos-torque-server: " << message << " (see --help)" << std::endl;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "the Torque-style batch queue framework\n"
      "  mesos-torque-server --master=HOST:PORT [--port=15001] [--role=R] [--node_cpus=C] ...\n"
      "Submit jobs with mesos-qsub, list them with mesos-qstat, delete them with mesos-qdel\n"
      "(--server=HOST:PORT or MESOS_TORQUE_URL).");
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      // Only this program's flags (gflags' own --help lists its internals
      // too and exits 1).
      gflags::ShowUsageWithFlagsRestrict(argv[0], "server_main");
      return 0;
    }
  }
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) return usageError(std::string("unexpected argument '") + argv[1] + "'");
  if (FLAGS_master.empty()) return usageError("--master is required (e.g. --master=host:5050)");
  if (FLAGS_port < 0 || FLAGS_port > 65535) return usageError("--port must be 0..65535");
  if (!(FLAGS_node_cpus > 0)) return usageError("--node_cpus must be positive");
  if (FLAGS_node_mem <= 0) return usageError("--node_mem must be a positive number of MB");
  if (FLAGS_max_nodes < 1) return usageError("--max_nodes must be at least 1");
  if (FLAGS_idle_timeout < 0) return usageError("--idle_timeout must be >= 0 seconds");
  if (FLAGS_decline_seconds < 0) return usageError("--decline_seconds must be >= 0");
  std::optional<int64_t> walltime = parseWalltime(FLAGS_default_walltime);
  if (!walltime || *walltime == 0) {
    return usageError("--default_walltime=" + FLAGS_default_walltime +
                      " is not a positive time (HH:MM:SS)");
  }

  ServerConfig config;
  config.queue.nodeCpus = FLAGS_node_cpus;
  config.queue.nodeMemMb = FLAGS_node_mem;
  config.queue.maxNodes = FLAGS_max_nodes;
  config.queue.idleTimeout = std::chrono::seconds(FLAGS_idle_timeout);
  config.queue.defaultWalltimeSeconds = *walltime;
  config.role = FLAGS_role;
  config.declineSeconds = FLAGS_decline_seconds;
  config.executorPath =
      FLAGS_executor.empty() ? mesos::frameworks::frameworkProgram(kMomProgram) : FLAGS_executor;
  if (::access(config.executorPath.c_str(), X_OK) != 0) {
    return usageError("the node executor " + config.executorPath +
                      " is not an executable file; give --executor=PATH");
  }

  // Signals are taken by sigwait() below, so every thread must block them
  // (threads inherit the mask: block before any starts).
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  TorqueScheduler scheduler(config);
  mesos::FrameworkInfo framework;
  framework.set_name(FLAGS_name);
  framework.set_role(FLAGS_role);
  framework.set_user("");  // filled in by the driver: the OS user
  auto holder = mesos::frameworks::schedulerDriver(&scheduler, framework, FLAGS_master,
                                                 "mesos-torque-server");
  mesos::MesosSchedulerDriver& driver = *holder;
  scheduler.setDriver(&driver);

  // Binds first, so that a taken port is reported before anything else.
  httplib::Server http;
  installRoutes(&http, &scheduler);
  if (!http.bind_to_port(FLAGS_ip.c_str(), FLAGS_port)) {
    std::cerr << "mesos-torque-server: cannot listen on " << FLAGS_ip << ":" << FLAGS_port
              << " (is another server running? pick another --port)" << std::endl;
    return 1;
  }

  if (driver.start() != mesos::DRIVER_RUNNING) {
    std::cerr << "mesos-torque-server: the scheduler driver did not start: "
              << scheduler.fatalError() << std::endl;
    return 1;
  }

  // Serves at once (/status says whether it registered; submits wait for
  // the registration, which brings the role's guarantee).
  std::thread server([&http] { http.listen_after_bind(); });
  // stop() is lost on a server not yet running: wait until it runs.
  for (int i = 0; i < 5000 && !http.is_running(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::cout << "mesos-torque-server: serving on http://" << FLAGS_ip << ":" << FLAGS_port
            << std::endl;
  auto stopServing = [&] {
    scheduler.stopWaiting();
    http.stop();
    server.join();
  };

  timespec poll{0, 0};
  while (!scheduler.awaitRegistration(std::chrono::seconds(1))) {
    bool failed = !scheduler.fatalError().empty();
    if (failed || sigtimedwait(&stopSignals, nullptr, &poll) > 0) {
      stopServing();
      driver.stop();
      driver.join();
      return failed ? 1 : 0;
    }
  }

  std::mutex tickerMutex;
  std::condition_variable tickerWake;
  bool stopping = false;
  std::thread ticker([&] {
    std::unique_lock lock(tickerMutex);
    while (!stopping) {
      tickerWake.wait_for(lock, std::chrono::milliseconds(250));
      if (stopping) break;
      lock.unlock();
      scheduler.tick();
      if (!scheduler.fatalError().empty()) ::kill(::getpid(), SIGTERM);
      lock.lock();
    }
  });

  int signal = 0;
  sigwait(&stopSignals, &signal);
  bool failed = !scheduler.fatalError().empty();
  {
    std::lock_guard lock(tickerMutex);
    stopping = true;
  }
  tickerWake.notify_all();
  ticker.join();
  stopServing();
  driver.stop();
  driver.join();
  return failed ? 1 : 0;
}
