// mesos-qdel: deletes jobs from the torque server, as PBS's qdel. A queued
// job completes at once; a running one is killed on its node.
#include <iostream>

#include "torque/client.hpp"

namespace {

using namespace mesos::frameworks::torque;

const char* const kUsage = R"(usage: mesos-qdel [--server=HOST:PORT] JOB_ID...
Deletes the jobs: a queued job is removed from the queue, a running job is
killed (its state is E until its node reports the end, then C).

options:
  --server=HOST:PORT  the server (default: $MESOS_TORQUE_URL)
  -h, --help          this help

exit status: 0 every job deleted, 1 a job unknown or already completed (or
the server unreachable), 2 a usage error.
)";

int usage(const std::string& message) {
  std::cerr << "mesos-qdel: " << message << std::endl;
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string serverFlag;
  std::vector<int64_t> ids;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    bool missing = false;
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      std::cout << kUsage;
      return 0;
    }
    if (takeLongFlag(args, &i, "server", &serverFlag, &missing)) {
      if (missing) return usage("--server needs HOST:PORT");
      continue;
    }
    if (arg.starts_with("-")) return usage("unknown option " + arg + " (see --help)");
    std::optional<int64_t> id = parseJobId(arg);
    if (!id) return usage("'" + arg + "' is not a job id (mesos-qstat lists them)");
    ids.push_back(*id);
  }
  if (ids.empty()) return usage("no job id given (usage: mesos-qdel JOB_ID...)");
  std::string error;
  std::optional<ServerAddress> server = serverAddress(serverFlag, &error);
  if (!server) return usage(error);

  int status = 0;
  for (int64_t id : ids) {
    HttpResult result = callServer(*server, "DELETE", "/jobs/" + std::to_string(id));
    if (!result.transportError.empty()) {
      std::cerr << unreachable("mesos-qdel", *server, result.transportError) << std::endl;
      return kExitFailure;
    }
    if (result.status == 404) {
      std::cerr << "mesos-qdel: unknown job " << id << " (mesos-qstat lists the jobs)" << std::endl;
      status = kExitFailure;
    } else if (result.status == 409) {
      std::cerr << "mesos-qdel: job " << id << " has already completed; nothing to delete"
                << std::endl;
      status = kExitFailure;
    } else if (result.status != 200) {
      std::cerr << "mesos-qdel: job " << id << ": " << result.errorMessage() << std::endl;
      status = kExitFailure;
    }
  }
  return status;
}
