#include "mapreduce/local.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

#include "mapreduce/worker.hpp"

namespace mesos::frameworks::mapreduce {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kJob = "local-1";

std::string attemptOf(bool isMap, uint32_t index) {
  return std::string(kJob) + (isMap ? "-m" : "-r") + std::to_string(index) + "-a1";
}

// Runs work(i) for i in [0, count) on up to `slots` threads; stops handing
// out work after the first failure, which it returns.
std::string runAll(uint32_t count, uint32_t slots,
                   const std::function<Result<TaskOutcome>(uint32_t)>& work,
                   std::vector<TaskOutcome>* outcomes) {
  outcomes->assign(count, TaskOutcome{});
  std::atomic<uint32_t> next{0};
  std::mutex mutex;
  std::string error;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < std::min(slots, count); ++t) {
    threads.emplace_back([&] {
      for (uint32_t i = next++; i < count; i = next++) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (!error.empty()) return;
        }
        Result<TaskOutcome> outcome = Result<TaskOutcome>::failure("not run");
        try {
          outcome = work(i);
        } catch (const std::exception& e) {
          outcome = Result<TaskOutcome>::failure(std::string("unexpected error: ") + e.what());
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (!outcome) {
          if (error.empty()) error = outcome.error();
        } else if (!outcome->fetchFailed.empty()) {
          if (error.empty()) error = "a reduce could not fetch some map outputs";
        } else {
          (*outcomes)[i] = *outcome;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return error;
}

}  // namespace

Result<json> runLocally(const JobSpec& given, const LocalOptions& options) {
  using R = Result<json>;
  JobSpec spec = given;
  dfs::Store store(options.dfsRoot);
  auto input = prepareInput(spec, store);
  if (!input) return R::failure(input.error());
  if (spec.name.empty()) spec.name = spec.type + " " + spec.input;
  const auto started = std::chrono::steady_clock::now();
  const uint32_t slots = std::max<uint32_t>(1, options.slots);
  const std::vector<std::string> splits =
      spec.type == "sort" ? sampleSplits(store, *input, spec.reduces) : std::vector<std::string>{};

  // The map outputs, and the server the reduces fetch them from.
  std::error_code ignored;
  const fs::path outputRoot =
      fs::temp_directory_path() / ("mesos-mapreduce-local." + std::to_string(::getpid()));
  fs::create_directories(outputRoot, ignored);
  httplib::Server server;
  serveMapOutputs(server, outputRoot.string());
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) return R::failure("cannot listen on a port of 127.0.0.1 for the map outputs");
  std::thread serving([&] { server.listen_after_bind(); });

  auto taskSpec = [&](bool isMap, uint32_t index) {
    TaskSpec task;
    task.job = kJob;
    task.attempt = attemptOf(isMap, index);
    task.isMap = isMap;
    task.index = index;
    task.spec = spec;
    task.dfsRoot = options.dfsRoot;
    task.nodes = input->nodes;
    task.splits = splits;
    return task;
  };
  const uint32_t mapCount = static_cast<uint32_t>(input->blocks.size());
  std::vector<TaskOutcome> maps, reduces;
  std::string error = runAll(
      mapCount, slots,
      [&](uint32_t i) {
        Cancellation cancel;
        const dfs::BlockInfo& block = input->blocks[i];
        return runMap(taskSpec(true, i), block.hosts.empty() ? "" : block.hosts[0],
                      outputRoot.string(), cancel);
      },
      &maps);
  if (error.empty()) {
    error = runAll(
        spec.reduces, slots,
        [&](uint32_t r) {
          TaskSpec task = taskSpec(false, r);
          for (uint32_t m = 0; m < mapCount; ++m) {
            task.maps.push_back({m, "127.0.0.1", static_cast<uint16_t>(port), attemptOf(true, m)});
          }
          Cancellation cancel;
          return runReduce(task, input->nodes.empty() ? "" : input->nodes[0].host, cancel);
        },
        &reduces);
  }
  server.stop();
  serving.join();
  fs::remove_all(outputRoot, ignored);

  uint64_t inputRecords = 0, outputRecords = 0, remoteReads = 0;
  for (const TaskOutcome& map : maps) {
    inputRecords += map.records;
    remoteReads += map.remoteRead ? 1 : 0;
  }
  for (const TaskOutcome& reduce : reduces) outputRecords += reduce.outputRecords;
  json report = {
      {"id", kJob},
      {"name", spec.name},
      {"state", error.empty() ? "succeeded" : "failed"},
      {"seconds",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
      {"slots", slots},
      {"maps", {{"total", mapCount}, {"done", error.empty() ? mapCount : 0}}},
      {"reduces", {{"total", spec.reduces}, {"done", error.empty() ? spec.reduces : 0}}},
      {"locality",
       {{"node_local", mapCount}, {"rack_local", 0}, {"remote", 0}, {"percent", 100.0}}},
      {"attempts", {{"failed", error.empty() ? 0 : 1}, {"killed", 0}, {"speculative", 0}}},
      {"recomputed_maps", 0},
      {"remote_block_reads", remoteReads},
      {"map_input_records", inputRecords},
      {"output_records", outputRecords},
      {"output", outputReport(spec)}};
  if (!error.empty()) report["error"] = error;
  return report;
}

}  // namespace mesos::frameworks::mapreduce
