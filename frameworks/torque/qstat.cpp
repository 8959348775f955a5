// mesos-qstat: lists the torque server's jobs, as PBS's qstat.
#include <cstdio>
#include <iostream>

#include "torque/client.hpp"
#include "torque/protocol.hpp"

namespace {

using nlohmann::json;
using namespace mesos::frameworks::torque;

const char* const kUsage = R"(usage: mesos-qstat [-f] [--server=HOST:PORT] [JOB_ID...]
       mesos-qstat -B [--server=HOST:PORT]
Lists the jobs (all, or those named): id, name, user, time used, state and
nodes. States: Q queued, R running, E exiting (being killed), C completed.

options:
  -f                  every attribute of each job (exit status, paths, ...)
  -B                  the server: the nodes it holds and its job counts
  --server=HOST:PORT  the server (default: $MESOS_TORQUE_URL)
  -h, --help          this help

exit status: 0 success, 1 an unknown job or the server unreachable, 2 a
usage error.
)";

int usage(const std::string& message) {
  std::cerr << "mesos-qstat: " << message << std::endl;
  return kExitUsage;
}

std::string text(const json& job, const char* key) {
  auto it = job.find(key);
  if (it == job.end()) return "";
  return it->is_string() ? it->get<std::string>() : jsonText(*it);
}

std::string joinHosts(const json& job) {
  std::string hosts;
  for (const json& host : job.value("hosts", json::array())) {
    hosts += (hosts.empty() ? "" : "+") + host.get<std::string>();
  }
  return hosts;
}

std::string requested(const json& job) {
  return std::to_string(job.value("nodes", 1)) + ":ppn=" + std::to_string(job.value("ppn", 1));
}

void printTable(const std::vector<json>& jobs) {
  std::printf("%-8s %-16s %-12s %-9s %s %s\n", "Job ID", "Name", "User", "Time Use", "S", "Nodes");
  std::printf("%-8s %-16s %-12s %-9s %s %s\n", "--------", "----------------", "------------",
              "---------", "-", "---------------");
  for (const json& job : jobs) {
    std::string nodes = joinHosts(job);
    if (nodes.empty()) nodes = "(" + requested(job) + ")";
    std::printf("%-8s %-16.16s %-12.12s %-9s %s %s\n", text(job, "id").c_str(),
                text(job, "name").c_str(), text(job, "user").c_str(),
                text(job, "time_used").c_str(), text(job, "state").c_str(), nodes.c_str());
  }
}

void printFull(const std::vector<json>& jobs) {
  for (const json& job : jobs) {
    std::cout << "Job Id: " << text(job, "id") << "\n"
              << "    Job_Name = " << text(job, "name") << "\n"
              << "    Job_Owner = " << text(job, "user") << "\n"
              << "    job_state = " << text(job, "state") << "\n"
              << "    resources_used.walltime = " << text(job, "time_used") << "\n"
              << "    exec_host = " << joinHosts(job) << "\n"
              << "    Resource_List.nodes = " << requested(job) << "\n"
              << "    Resource_List.mem = " << text(job, "mem_mb") << "mb\n"
              << "    Resource_List.walltime = " << text(job, "walltime") << "\n"
              << "    init_work_dir = " << text(job, "workdir") << "\n"
              << "    Output_Path = " << text(job, "output_path") << "\n"
              << "    Error_Path = " << text(job, "error_path") << "\n";
    if (job.contains("exit_status"))
      std::cout << "    exit_status = " << job["exit_status"] << "\n";
    if (!text(job, "comment").empty())
      std::cout << "    comment = " << text(job, "comment") << "\n";
    std::cout << "\n";
  }
}

void printServer(const ServerAddress& server, const json& status) {
  std::cout << "Server " << server.text() << ": framework " << text(status, "framework_id")
            << ", role " << text(status, "role") << ", at most " << text(status, "max_nodes")
            << " node(s) of cpus:" << text(status, "node_cpus")
            << ";mem:" << text(status, "node_mem") << "\n"
            << "Jobs: " << text(status, "queued") << " queued, " << text(status, "running")
            << " running, " << text(status, "exiting") << " exiting, " << text(status, "completed")
            << " completed\n"
            << "Offers: " << (status.value("suppressed", false) ? "suppressed" : "wanted") << " ("
            << text(status, "nodes_wanted") << " more node(s) wanted)\n"
            << "Nodes held: " << status["held"].value("nodes", 0) << "\n";
  for (const json& node : status.value("nodes", json::array())) {
    std::printf("  %-10s %-16s %-10s cpus %s/%s mem %s/%s jobs %s\n", text(node, "id").c_str(),
                text(node, "hostname").c_str(), text(node, "state").c_str(),
                text(node, "used_cpus").c_str(), text(node, "cpus").c_str(),
                text(node, "used_mem").c_str(), text(node, "mem").c_str(),
                text(node, "jobs").c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string serverFlag;
  bool full = false;
  bool serverStatus = false;
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
    if (arg == "-f") {
      full = true;
      continue;
    }
    if (arg == "-B") {
      serverStatus = true;
      continue;
    }
    if (arg.starts_with("-")) return usage("unknown option " + arg + " (see --help)");
    std::optional<int64_t> id = parseJobId(arg);
    if (!id) return usage("'" + arg + "' is not a job id (e.g. 12)");
    ids.push_back(*id);
  }
  std::string error;
  std::optional<ServerAddress> server = serverAddress(serverFlag, &error);
  if (!server) return usage(error);

  if (serverStatus) {
    HttpResult result = callServer(*server, "GET", "/status");
    if (!result.transportError.empty()) {
      std::cerr << unreachable("mesos-qstat", *server, result.transportError) << std::endl;
      return kExitFailure;
    }
    if (result.status != 200) {
      std::cerr << "mesos-qstat: " << result.errorMessage() << std::endl;
      return kExitFailure;
    }
    printServer(*server, result.body);
    return 0;
  }

  std::vector<json> jobs;
  int status = 0;
  if (ids.empty()) {
    HttpResult result = callServer(*server, "GET", "/jobs");
    if (!result.transportError.empty()) {
      std::cerr << unreachable("mesos-qstat", *server, result.transportError) << std::endl;
      return kExitFailure;
    }
    if (result.status != 200 || !result.body.contains("jobs")) {
      std::cerr << "mesos-qstat: " << result.errorMessage() << std::endl;
      return kExitFailure;
    }
    for (const json& job : result.body["jobs"]) jobs.push_back(job);
  }
  for (int64_t id : ids) {
    HttpResult result = callServer(*server, "GET", "/jobs/" + std::to_string(id));
    if (!result.transportError.empty()) {
      std::cerr << unreachable("mesos-qstat", *server, result.transportError) << std::endl;
      return kExitFailure;
    }
    if (result.status == 404) {
      std::cerr << "mesos-qstat: unknown job " << id << std::endl;
      status = kExitFailure;
      continue;
    }
    if (result.status != 200) {
      std::cerr << "mesos-qstat: job " << id << ": " << result.errorMessage() << std::endl;
      status = kExitFailure;
      continue;
    }
    jobs.push_back(result.body);
  }
  if (full) {
    printFull(jobs);
  } else if (!jobs.empty()) {
    printTable(jobs);
  }
  return status;
}
