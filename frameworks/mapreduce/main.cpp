// mesos-mapreduce: the MapReduce framework's command line
// (docs/frameworks/mapreduce.md).
//
//   mesos-mapreduce run --master=H:P --job=wordcount --input=/data --output=/out
//       one job, with a JobTracker in this process; exits 0 when it succeeds
//   mesos-mapreduce local --job=wordcount --input=/data --output=/out [--slots=N]
//       one job without Mesos, on N worker threads here (the baseline of the
//       paper's §6.2); exits 0 when it succeeds
//   mesos-mapreduce jobtracker --master=H:P --port=P
//       a long-running JobTracker serving the HTTP/JSON API below
//   mesos-mapreduce submit --jobtracker=H:P --job=... --input=... --output=...
//   mesos-mapreduce status --jobtracker=H:P [job id]
//   mesos-mapreduce wait --jobtracker=H:P <job id>
//
// The JobTracker's API: POST /jobs (a job spec, JSON) -> {"id"} or 400
// {"error"}; GET /jobs; GET /jobs/<id>; GET /jobs/<id>/wait?timeout=S (answers
// when the job is over or after S seconds).
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <gflags/gflags.h>
#include <httplib.h>

#include "common/driver.hpp"
#include "common/programs.hpp"
#include "mapreduce/jobtracker.hpp"
#include "mapreduce/local.hpp"

DEFINE_string(master, "", "run, jobtracker: the Mesos master (host:port or zk://...)");
DEFINE_string(dfs_root, "", "The block store's root (default: $MESOS_DFS_ROOT)");
DEFINE_uint32(dfs_peer_port, 0, "Tasks read block copies missing under the root from "
                                "`mesos-dfs serve` on their holders at this port (0: none)");
DEFINE_double(locality_wait, 5, "Seconds a job waits for a node-local slot, then for a "
                                "rack-local one (delay scheduling); 0 disables");
DEFINE_string(framework_name, "mesos-mapreduce",
              "run, jobtracker: the framework's name, as the master and its web UI show it");
DEFINE_string(hosts, "",
              "run, jobtracker: use only the offers of these hosts (comma-separated): "
              "a static partition of the cluster; empty: every host");
DEFINE_double(task_cpus, 0.5, "CPUs of one map or reduce task (a slot)");
DEFINE_double(task_mem, 64, "Memory (MB) of one task");
DEFINE_bool(speculation, true, "Re-execute stragglers speculatively");
DEFINE_double(speculation_floor, 5, "Seconds an attempt runs before it may be a straggler");
DEFINE_uint32(max_attempts, 4, "Failed attempts after which a task fails its job");
DEFINE_string(executor, "", "The TaskTracker program (default: mesos-mapreduce-executor "
                            "beside this program or in libexec/mesos)");
DEFINE_string(ip, "0.0.0.0", "jobtracker: the address the HTTP API listens on");
DEFINE_int32(port, 0, "jobtracker: the HTTP API's port (0: any, printed)");
DEFINE_string(jobtracker, "", "submit, status, wait: the JobTracker (host:port; default "
                              "$MESOS_MAPREDUCE_URL)");
DEFINE_string(job, "", "The job: wordcount, grep, sort or streaming");
DEFINE_string(name, "", "A name for the job's reports");
DEFINE_string(input, "", "The input, a file of the block store");
DEFINE_string(output, "", "The output: an absolute directory, or dfs:<name> in the store");
DEFINE_uint32(reduces, 2, "Reduce tasks");
DEFINE_string(pattern, "", "grep: the regex");
DEFINE_string(map_command, "", "streaming: the map command (stdin: lines; stdout: key<TAB>value)");
DEFINE_string(reduce_command, "", "streaming: the reduce command (stdin: sorted pairs)");
DEFINE_uint32(slots, 4, "local: the worker threads running the job's tasks");
DEFINE_double(timeout, 0, "run, wait: give up after this many seconds (0: never)");
DEFINE_bool(json, false, "Print reports as JSON");

namespace mr = mesos::frameworks::mapreduce;
using nlohmann::json;

namespace {

int fail(const std::string& message) {
  std::cerr << "mesos-mapreduce: " << message << std::endl;
  return 1;
}

std::string dfsRoot() {
  if (!FLAGS_dfs_root.empty()) return FLAGS_dfs_root;
  const char* root = std::getenv("MESOS_DFS_ROOT");
  return root != nullptr ? root : "";
}

mr::JobSpec specFromFlags() {
  mr::JobSpec spec;
  spec.type = FLAGS_job;
  spec.name = FLAGS_name;
  spec.input = FLAGS_input;
  spec.output = FLAGS_output;
  spec.reduces = FLAGS_reduces;
  spec.pattern = FLAGS_pattern;
  spec.mapCommand = FLAGS_map_command;
  spec.reduceCommand = FLAGS_reduce_command;
  return spec;
}

mr::TrackerOptions trackerOptions() {
  mr::TrackerOptions options;
  options.dfsRoot = dfsRoot();
  options.dfsPeerPort = static_cast<uint16_t>(FLAGS_dfs_peer_port);
  options.executorPath = FLAGS_executor.empty()
                             ? mesos::frameworks::frameworkProgram("mesos-mapreduce-executor")
                             : FLAGS_executor;
  options.localityWaitSeconds = FLAGS_locality_wait;
  options.taskCpus = FLAGS_task_cpus;
  options.taskMem = FLAGS_task_mem;
  options.speculation = FLAGS_speculation;
  options.speculationFloorSeconds = FLAGS_speculation_floor;
  options.maxAttempts = FLAGS_max_attempts;
  for (size_t start = 0; start < FLAGS_hosts.size();) {
    size_t end = FLAGS_hosts.find(',', start);
    if (end == std::string::npos) end = FLAGS_hosts.size();
    if (end > start) options.hosts.insert(FLAGS_hosts.substr(start, end - start));
    start = end + 1;
  }
  return options;
}

void printReport(const json& report) {
  if (FLAGS_json) {
    std::cout << report.dump() << std::endl;
    return;
  }
  const json& locality = report["locality"];
  const json& parts = report["output"]["parts"];
  std::printf("job %s (%s): %s in %.2f s\n", report.value("id", "").c_str(),
              report.value("name", "").c_str(), report.value("state", "").c_str(),
              report.value("seconds", 0.0));
  if (!report.value("error", "").empty()) {
    std::printf("  error: %s\n", report.value("error", "").c_str());
  }
  std::printf("  maps %d/%d, reduces %d/%d\n", report["maps"].value("done", 0),
              report["maps"].value("total", 0), report["reduces"].value("done", 0),
              report["reduces"].value("total", 0));
  std::printf("  map locality: node-local %d, rack-local %d, remote %d (%.1f%% node-local)\n",
              locality.value("node_local", 0), locality.value("rack_local", 0),
              locality.value("remote", 0), locality.value("percent", 0.0));
  std::printf("  attempts: failed %d, killed %d, speculative %d; maps recomputed %d; "
              "remote block reads %d\n",
              report["attempts"].value("failed", 0), report["attempts"].value("killed", 0),
              report["attempts"].value("speculative", 0), report.value("recomputed_maps", 0),
              report.value("remote_block_reads", 0));
  std::printf("  records: %llu map input, %llu output\n",
              static_cast<unsigned long long>(report.value("map_input_records", 0ull)),
              static_cast<unsigned long long>(report.value("output_records", 0ull)));
  std::printf("  output: %s (%zu parts: %s%s)\n",
              report["output"].value("location", "").c_str(), parts.size(),
              parts.empty() ? "" : parts.front().get<std::string>().c_str(),
              parts.size() > 1 ? " ..." : "");
  std::fflush(stdout);
}

int exitCodeOf(const json& report) { return report.value("state", "") == "succeeded" ? 0 : 1; }

mesos::FrameworkInfo frameworkInfo() {
  mesos::FrameworkInfo framework;
  framework.set_name(FLAGS_framework_name);
  return framework;
}

int local() {
  if (dfsRoot().empty()) return fail("no block store; pass --dfs_root or set MESOS_DFS_ROOT");
  if (FLAGS_slots == 0 || FLAGS_slots > 1024) return fail("--slots must be 1 to 1024");
  mr::LocalOptions options;
  options.dfsRoot = dfsRoot();
  options.slots = FLAGS_slots;
  auto report = mr::runLocally(specFromFlags(), options);
  if (!report) return fail(report.error());
  printReport(*report);
  return exitCodeOf(*report);
}

int run() {
  if (FLAGS_master.empty()) return fail("run needs --master=host:port");
  if (dfsRoot().empty()) return fail("no block store; pass --dfs_root or set MESOS_DFS_ROOT");
  mr::JobTracker tracker(trackerOptions());
  auto id = tracker.submit(specFromFlags());
  if (!id) return fail(id.error());
  auto holder = mesos::frameworks::schedulerDriver(&tracker, frameworkInfo(), FLAGS_master,
                                                 "mesos-mapreduce");
  mesos::MesosSchedulerDriver& driver = *holder;
  tracker.setDriver(&driver);
  if (driver.start() != mesos::DRIVER_RUNNING) {
    return fail("cannot start the scheduler driver: " + tracker.fatalError());
  }
  const auto start = std::chrono::steady_clock::now();
  json report;
  while (true) {
    report = tracker.wait(*id, std::chrono::seconds(1)).value_or(json::object());
    if (report.value("state", "") != "running") break;
    if (!tracker.registeredOnce() &&
        std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
      driver.stop();
      driver.join();
      return fail("the master at " + FLAGS_master +
                  " did not register the framework within 30 s; is it running there?");
    }
    if (FLAGS_timeout > 0 &&
        std::chrono::steady_clock::now() - start > std::chrono::duration<double>(FLAGS_timeout)) {
      report["state"] = "failed";
      report["error"] = "timed out after " + std::to_string(FLAGS_timeout) + " s";
      break;
    }
  }
  driver.stop();
  driver.join();
  printReport(report);
  return exitCodeOf(report);
}

// The JobTracker's HTTP API (see the file comment).
// A job's report, or 404 naming the job when there is none.
void answerReport(const std::optional<json>& report, const std::string& id,
                  httplib::Response& response) {
  if (!report) {
    response.status = 404;
    response.set_content(json{{"error", "no job " + id}}.dump(), "application/json");
    return;
  }
  response.set_content(report->dump(), "application/json");
}

void routes(httplib::Server& server, mr::JobTracker& tracker) {
  server.Post("/jobs", [&](const httplib::Request& request, httplib::Response& response) {
    json body = json::parse(request.body, nullptr, false);
    if (!body.is_object()) {
      response.status = 400;
      response.set_content(json{{"error", "the body is not a JSON object"}}.dump(), "application/json");
      return;
    }
    auto id = tracker.submit(mr::jobSpecFromJson(body));
    if (!id) {
      response.status = 400;
      response.set_content(json{{"error", id.error()}}.dump(), "application/json");
      return;
    }
    response.set_content(json{{"id", *id}}.dump(), "application/json");
  });
  server.Get("/jobs", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(tracker.reports().dump(), "application/json");
  });
  server.Get(R"(/jobs/([\w.-]+))", [&](const httplib::Request& request, httplib::Response& response) {
    answerReport(tracker.report(request.matches[1]), request.matches[1], response);
  });
  server.Get(R"(/jobs/([\w.-]+)/wait)", [&](const httplib::Request& request,
                                            httplib::Response& response) {
    double seconds = 10;
    if (request.has_param("timeout")) seconds = std::atof(request.get_param_value("timeout").c_str());
    seconds = std::clamp(seconds, 0.0, 60.0);
    auto report = tracker.wait(request.matches[1], std::chrono::milliseconds(
                                                       static_cast<int64_t>(seconds * 1000)));
    answerReport(report, request.matches[1], response);
  });
}

int jobtracker() {
  if (FLAGS_master.empty()) return fail("jobtracker needs --master=host:port");
  if (dfsRoot().empty()) return fail("no block store; pass --dfs_root or set MESOS_DFS_ROOT");
  // SIGTERM and SIGINT end the JobTracker cleanly: a thread waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  mr::JobTracker tracker(trackerOptions());
  httplib::Server server;
  routes(server, tracker);
  int port = FLAGS_port;
  if (port == 0) {
    port = server.bind_to_any_port(FLAGS_ip);
  } else if (!server.bind_to_port(FLAGS_ip.c_str(), port)) {
    port = -1;
  }
  if (port <= 0) {
    return fail("cannot listen on " + FLAGS_ip + ":" + std::to_string(FLAGS_port) +
                "; choose another --port");
  }
  auto holder = mesos::frameworks::schedulerDriver(&tracker, frameworkInfo(), FLAGS_master,
                                                 "mesos-mapreduce");
  mesos::MesosSchedulerDriver& driver = *holder;
  tracker.setDriver(&driver);
  if (driver.start() != mesos::DRIVER_RUNNING) {
    return fail("cannot start the scheduler driver: " + tracker.fatalError());
  }
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    server.stop();
  });
  std::cout << "JobTracker listening on http://" << FLAGS_ip << ":" << port << std::endl;
  server.listen_after_bind();
  driver.stop();
  driver.join();
  if (waiter.joinable()) {
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
  }
  return 0;
}

// host:port of the JobTracker for the client commands.
bool jobtrackerAddress(std::string* host, int* port) {
  std::string address = FLAGS_jobtracker;
  if (address.empty() && std::getenv("MESOS_MAPREDUCE_URL") != nullptr) {
    address = std::getenv("MESOS_MAPREDUCE_URL");
  }
  if (address.rfind("http://", 0) == 0) address = address.substr(7);
  while (!address.empty() && address.back() == '/') address.pop_back();
  size_t colon = address.rfind(':');
  if (address.empty() || colon == std::string::npos) return false;
  *host = address.substr(0, colon);
  *port = std::atoi(address.substr(colon + 1).c_str());
  return *port > 0;
}

int client(const std::string& command, int argc, char** argv) {
  std::string host;
  int port = 0;
  if (!jobtrackerAddress(&host, &port)) {
    return fail("no JobTracker; pass --jobtracker=host:port or set MESOS_MAPREDUCE_URL");
  }
  httplib::Client http(host, port);
  http.set_connection_timeout(5);
  http.set_read_timeout(90);
  const std::string where = "the JobTracker at " + host + ":" + std::to_string(port);
  if (command == "submit") {
    auto answer = http.Post("/jobs", mr::toJson(specFromFlags()).dump(), "application/json");
    if (!answer) return fail("cannot reach " + where + "; is it running?");
    json body = json::parse(answer->body, nullptr, false);
    if (answer->status != 200) {
      return fail(body.is_object() ? body.value("error", answer->body) : answer->body);
    }
    std::cout << body.value("id", "") << std::endl;
    return 0;
  }
  if (command == "status") {
    const std::string path = argc > 2 ? "/jobs/" + std::string(argv[2]) : "/jobs";
    auto answer = http.Get(path.c_str());
    if (!answer) return fail("cannot reach " + where + "; is it running?");
    json body = json::parse(answer->body, nullptr, false);
    if (answer->status != 200) {
      return fail(body.is_object() ? body.value("error", answer->body) : answer->body);
    }
    if (body.is_array()) {
      for (const json& report : body) printReport(report);
    } else {
      printReport(body);
    }
    return 0;
  }
  // wait
  if (argc < 3) return fail("usage: mesos-mapreduce wait <job id>");
  const std::string path = "/jobs/" + std::string(argv[2]) + "/wait?timeout=20";
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    auto answer = http.Get(path.c_str());
    if (!answer) return fail("cannot reach " + where + "; is it running?");
    json body = json::parse(answer->body, nullptr, false);
    if (answer->status != 200 || !body.is_object()) {
      return fail(body.is_object() ? body.value("error", answer->body) : answer->body);
    }
    if (body.value("state", "") != "running") {
      printReport(body);
      return exitCodeOf(body);
    }
    if (FLAGS_timeout > 0 &&
        std::chrono::steady_clock::now() - start > std::chrono::duration<double>(FLAGS_timeout)) {
      printReport(body);
      return fail("job " + std::string(argv[2]) + " still running after " +
                  std::to_string(FLAGS_timeout) + " s");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  gflags::SetUsageMessage(
      "Hadoop-style MapReduce on Mesos, with delay scheduling\n"
      "  mesos-mapreduce run --master=H:P --job=wordcount|grep|sort|streaming --input=<dfs file>\n"
      "                      --output=<dir>|dfs:<name> [--reduces=R --locality_wait=S]\n"
      "  mesos-mapreduce local --job=... --input=... --output=... [--slots=N]  (no Mesos)\n"
      "  mesos-mapreduce jobtracker --master=H:P --port=P\n"
      "  mesos-mapreduce submit --jobtracker=H:P --job=... --input=... --output=...\n"
      "  mesos-mapreduce status|wait --jobtracker=H:P [<job id>]");
  mesos::frameworks::parseCommandLine(&argc, &argv);
  if (argc < 2) {
    return fail("no command; use run, local, jobtracker, submit, status or wait (--help)");
  }
  const std::string command = argv[1];
  if (command == "run") return run();
  if (command == "local") return local();
  if (command == "jobtracker") return jobtracker();
  if (command == "submit" || command == "status" || command == "wait") {
    return client(command, argc, argv);
  }
  return fail("unknown command '" + command +
              "'; use run, local, jobtracker, submit, status or wait");
}
