// mesos-mpirun: runs an MPI program (MPICH) as a gang of tasks on a Mesos
// cluster. See docs/frameworks/mpi.md.
//
//   mesos-mpirun --master=host:5050 -n 4 [--cpus_per_rank=1 --mem_per_rank=128]
//                [--gang_timeout=5] [--role=R] [--] program [args...]
//
// Exit status: 0 when the MPI job succeeded; 1 when it failed (one line on
// stderr says what failed); 2 for a bad command line.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>

#include "common/driver.hpp"
#include "common/programs.hpp"
#include "mesos/scheduler.hpp"
#include "mpi_scheduler.hpp"

DEFINE_string(master, "", "The master: host:port, zk://... or file:///... (required; "
                          "MESOS_MASTER when not given)");
DEFINE_int32(n, 0, "How many MPI ranks to run (required)");
DEFINE_double(cpus_per_rank, 1.0, "cpus each rank takes");
DEFINE_double(mem_per_rank, 128.0, "Memory (MB) each rank takes");
DEFINE_double(gang_timeout, 5.0,
              "Seconds to hold offers that do not yet fit the whole gang before releasing "
              "them and backing off (a random wait, longer after each release)");
DEFINE_double(timeout, 0.0,
              "Seconds to wait for the master and then for the whole gang before giving up "
              "(0: wait for ever)");
DEFINE_string(role, "*", "The framework's role; a gang larger than the role's guarantee is "
                         "refused");
DEFINE_string(name, "", "The framework's name (default: \"mpi: <program>\")");
DEFINE_string(mpiexec, "mpiexec", "MPICH's Hydra mpiexec");
DEFINE_string(proxy_wrapper, "",
              "The program that runs a Hydra proxy as a task (default: mesos-mpi-proxy "
              "beside this program or in <prefix>/libexec/mesos); must exist at this path "
              "on every node");
DEFINE_string(launch_host, "",
              "The name or address of this host as the nodes reach it (mpiexec -localhost; "
              "default: this host's name)");
DEFINE_bool(check_program, true,
            "Check that the program exists here before asking for resources (turn off when "
            "it exists only on the nodes)");
DEFINE_bool(verbose, false, "Log every task state change");

namespace {

using mesos::frameworks::mpi::MpiJob;
using mesos::frameworks::mpi::MpiScheduler;

int usageError(const std::string& message) {
  std::fprintf(stderr, "mesos-mpirun: %s\n", message.c_str());
  return 2;
}

// The index of the first argument that is neither a flag nor a flag's
// value: the MPI program. gflags alone would read the program's own flags.
int programIndex(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") return i + 1;
    if (arg.size() < 2 || arg[0] != '-') return i;
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    if (name.find('=') != std::string::npos) continue;
    gflags::CommandLineFlagInfo info;
    if (gflags::GetCommandLineFlagInfo(name.c_str(), &info) && info.type != "bool") ++i;
  }
  return argc;
}

// `program` as the ranks will exec it: an absolute path when it names a
// file here, or the name found on PATH. Empty when it is neither.
std::string resolveProgram(const std::string& program) {
  auto executable = [](const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) {
    if (!executable(program)) return "";
    return std::filesystem::absolute(program).lexically_normal().string();
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(begin, end - begin);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (executable(candidate)) return candidate;
    begin = end + 1;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "runs an MPI program as a gang of tasks on a Mesos cluster:\n"
      "  mesos-mpirun --master=host:5050 -n N [--cpus_per_rank=C --mem_per_rank=M]\n"
      "               [--gang_timeout=T] [--role=R] [--] program [args...]");
  const int first = programIndex(argc, argv);
  std::vector<std::string> program(argv + first, argv + argc);
  int flagCount = first;
  if (first > 1 && std::string(argv[first - 1]) == "--") --flagCount;
  mesos::frameworks::parseCommandLine(&flagCount, &argv);

  if (FLAGS_master.empty()) {
    if (const char* master = std::getenv("MESOS_MASTER")) FLAGS_master = master;
  }
  if (FLAGS_master.empty()) return usageError("--master is required (or set MESOS_MASTER)");
  if (FLAGS_n < 1) return usageError("-n must be at least 1 (the number of MPI ranks)");
  if (!(FLAGS_cpus_per_rank > 0)) return usageError("--cpus_per_rank must be positive");
  if (!(FLAGS_mem_per_rank > 0)) return usageError("--mem_per_rank must be positive");
  if (!(FLAGS_gang_timeout > 0)) return usageError("--gang_timeout must be positive (seconds)");
  if (FLAGS_timeout < 0) return usageError("--timeout must be 0 (none) or positive (seconds)");
  if (program.empty()) return usageError("no MPI program given (usage: mesos-mpirun -n N program)");

  if (FLAGS_check_program) {
    std::string resolved = resolveProgram(program[0]);
    if (resolved.empty()) {
      std::fprintf(stderr,
                   "mesos-mpirun: the MPI program '%s' does not exist or is not executable; "
                   "give a path valid on every node (or --nocheck_program if it exists only "
                   "on the nodes)\n",
                   program[0].c_str());
      return 1;
    }
    program[0] = resolved;
  }

  MpiJob job;
  job.ranks = FLAGS_n;
  job.shape.cpus = FLAGS_cpus_per_rank;
  job.shape.mem = FLAGS_mem_per_rank;
  job.shape.role = FLAGS_role;
  job.gangTimeout = std::chrono::milliseconds(static_cast<long>(FLAGS_gang_timeout * 1000));
  job.waitLimit = std::chrono::milliseconds(static_cast<long>(FLAGS_timeout * 1000));
  job.mpiexec = FLAGS_mpiexec;
  job.proxyWrapper = FLAGS_proxy_wrapper.empty()
                         ? mesos::frameworks::frameworkProgram("mesos-mpi-proxy")
                         : FLAGS_proxy_wrapper;
  job.launchHost = FLAGS_launch_host;
  job.program = program;
  job.verbose = FLAGS_verbose;
  // The ranks learn their node from their task; not from us.
  ::unsetenv("MESOS_MPI_NODE");

  // SIGINT and SIGTERM tear the gang down; a thread of ours waits for them.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGUSR1);  // ours: the job is over
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  MpiScheduler scheduler(job);
  mesos::FrameworkInfo framework;
  framework.set_name(FLAGS_name.empty() ? "mpi: " + program[0] : FLAGS_name);
  framework.set_role(FLAGS_role);
  auto holder =
      mesos::frameworks::schedulerDriver(&scheduler, framework, FLAGS_master, "mesos-mpirun");
  mesos::MesosSchedulerDriver& driver = *holder;
  scheduler.setDriver(&driver);

  std::thread signals([&scheduler, stopSignals] {
    int signal = 0;
    if (sigwait(&stopSignals, &signal) == 0 && signal != SIGUSR1) {
      scheduler.interrupt(std::string("interrupted by ") + strsignal(signal));
    }
  });

  int status = 1;
  if (driver.start() == mesos::DRIVER_RUNNING) {
    status = scheduler.waitUntilDone();
  } else {
    scheduler.interrupt("the scheduler driver did not start");
    status = 1;
  }
  driver.stop();
  driver.join();

  pthread_kill(signals.native_handle(), SIGUSR1);
  signals.join();

  if (status == 0) {
    std::fprintf(stderr, "mesos-mpirun: the MPI job succeeded (%d ranks)\n", job.ranks);
    return 0;
  }
  std::fprintf(stderr, "mesos-mpirun: the MPI job failed: %s\n", scheduler.failure().c_str());
  return 1;
}
