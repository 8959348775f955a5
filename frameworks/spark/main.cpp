// mesos-spark-lr: logistic regression by gradient descent on Mesos, the way
// Spark ran it in the Mesos paper (section 5.3): long-lived executors keep
// their partitions of the data in memory across iterations.
//
//   mesos-spark-lr generate --root=DIR --file=NAME --nodes=h1:r1,h2:r1,...
//                           [--points=N --dims=D --seed=S --block_size=B]
//   mesos-spark-lr run --master=HOST:PORT --root=DIR --file=NAME
//                      [--iterations=30 --step=10 --no-cache ...]
//
// generate writes points with known true weights into the block store as
// NAME (one block a partition) and the weights as NAME.truth. run trains on
// NAME and prints each iteration's time, the final accuracy, the distance
// to the true weights (when NAME.truth exists) and the weights. Exit status
// 0 on success, 1 when the job fails, 2 on a bad command line.
#include <gflags/gflags.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/driver.hpp"
#include "common/programs.hpp"
#include "dfs/dfs.hpp"
#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"
#include "spark/dataset.hpp"
#include "spark/driver.hpp"

DEFINE_string(root, "", "The block store's root directory, as every node sees it (default: "
                        "$MESOS_DFS_ROOT)");
DEFINE_string(file, "", "The dataset's name in the block store, e.g. /spark/points");
// generate
DEFINE_string(nodes, "",
              "generate: the nodes to place blocks on, host:rack,... (default: $MESOS_NODES)");
DEFINE_uint64(points, 100000, "generate: how many points");
DEFINE_uint32(dims, 10, "generate: the dimension of the points; run: the dimension when the "
                        "file has no .truth (ignored otherwise)");
DEFINE_uint64(seed, 1, "generate: the seed of the true weights and the points");
DEFINE_uint64(block_size, 4u << 20, "generate: bytes per block (= per partition)");
DEFINE_uint32(replication, 3, "generate: copies of each block");
DEFINE_bool(overwrite, false, "generate: replace an existing file of that name");
// run
DEFINE_string(master, "", "run: the Mesos master, host:port or zk://...");
DEFINE_uint32(iterations, 30, "run: gradient-descent iterations");
DEFINE_double(step, 10, "run: the step size (w -= step * mean gradient)");
DEFINE_bool(cache, true, "run: keep parsed partitions in memory across iterations; "
                         "--no-cache reads and parses them again every iteration (the "
                         "Hadoop-style baseline)");
DEFINE_double(locality_wait, 3, "run: seconds a partition waits for a node holding its block "
                                "before taking a node of its rack (twice that: any node)");
DEFINE_double(resend_timeout, 2, "run: seconds before a request without result is sent again");
DEFINE_uint32(max_resends, 5, "run: an executor silent for resend_timeout * max_resends "
                              "seconds is taken for lost");
DEFINE_uint32(max_failures, 4, "run: a partition whose task ends or whose data fails this many "
                               "times fails the job");
DEFINE_double(task_cpus, 0.2, "run: cpus per partition task");
DEFINE_double(task_mem, 64, "run: memory per partition task, MB");
DEFINE_double(executor_cpus, 0.1, "run: cpus of each executor itself");
DEFINE_double(executor_mem, 32, "run: memory of each executor itself, MB");
DEFINE_string(executor, "", "run: the path of mesos-spark-executor (default: beside this "
                            "program, or in <prefix>/libexec/mesos)");
DEFINE_uint32(test_drop_results, 0, "run, for tests: executors drop every n-th result they "
                                    "would send (0: none)");
DEFINE_double(timeout, 600, "run: seconds after which the job is given up (0: never)");

namespace mesos::frameworks::spark {
namespace {

constexpr const char* kUsage =
    "logistic regression on Mesos with in-memory partitions.\n"
    "  mesos-spark-lr generate --root=DIR --file=NAME --nodes=host:rack,... [--points=N "
    "--dims=D --seed=S --block_size=BYTES --replication=R]\n"
    "  mesos-spark-lr run --master=HOST:PORT --root=DIR --file=NAME [--iterations=N "
    "--step=S --no-cache]";

std::string absolute(const std::string& path) {
  std::error_code error;
  std::filesystem::path full = std::filesystem::absolute(path, error);
  return error ? path : full.lexically_normal().string();
}

std::string truthName(const std::string& file) { return file + ".truth"; }

int usageError(const std::string& message) {
  std::cerr << "mesos-spark-lr: " << message << std::endl;
  return 2;
}

int generate() {
  if (FLAGS_root.empty()) return usageError("generate: missing --root (the block store's root)");
  if (FLAGS_file.empty()) return usageError("generate: missing --file (the dataset's name)");
  std::string nodesText = FLAGS_nodes;
  if (nodesText.empty() && std::getenv("MESOS_NODES") != nullptr) {
    nodesText = std::getenv("MESOS_NODES");
  }
  if (nodesText.empty()) {
    return usageError(
        "generate: missing --nodes (host:rack,... of the slaves; or set MESOS_NODES)");
  }
  auto nodes = dfs::parseNodes(nodesText);
  if (!nodes) return usageError("generate: --nodes: " + nodes.error());
  if (FLAGS_dims == 0 || FLAGS_points == 0) {
    return usageError("generate: --points and --dims must be positive");
  }

  GenerateOptions options;
  options.points = FLAGS_points;
  options.dims = FLAGS_dims;
  options.seed = FLAGS_seed;
  std::string text;
  generatePoints(options, text);
  const size_t bytes = text.size();

  dfs::PutOptions put;
  put.blockSize = FLAGS_block_size;
  put.replication = std::min<uint32_t>(FLAGS_replication, static_cast<uint32_t>(nodes->size()));
  put.nodes = *nodes;
  put.seed = FLAGS_seed;
  put.overwrite = FLAGS_overwrite;
  dfs::Store store(absolute(FLAGS_root));
  std::istringstream input(std::move(text));
  auto file = store.put(FLAGS_file, input, put);
  if (!file) {
    std::cerr << "mesos-spark-lr: generate: " << file.error() << std::endl;
    return 1;
  }
  std::istringstream truth("dims " + std::to_string(options.dims) + "\nweights " +
                           formatWeights(trueWeights(options)) + "\n");
  put.blockSize = 1 << 20;
  auto truthFile = store.put(truthName(FLAGS_file), truth, put);
  if (!truthFile) {
    std::cerr << "mesos-spark-lr: generate: " << truthFile.error() << std::endl;
    return 1;
  }
  std::cout << "generated " << options.points << " points of dimension " << options.dims << " ("
            << bytes << " bytes) as " << FLAGS_file << ": " << file->blocks.size()
            << " blocks, " << put.replication << " copies each; true weights in "
            << truthName(FLAGS_file) << std::endl;
  return 0;
}

// Reads NAME.truth ("dims D\nweights w1 ... wD\n") when it exists.
std::optional<std::vector<double>> readTruth(const dfs::Store& store, const std::string& file,
                                             std::string* error) {
  auto info = store.stat(truthName(file));
  if (!info || info->blocks.empty()) return std::nullopt;
  const dfs::BlockInfo& block = info->blocks.front();
  // Read as one of its holders: a local read, not counted as remote.
  auto read = store.readBlock(*info, block, block.hosts.empty() ? "" : block.hosts.front());
  if (!read) {
    *error = read.error();
    return std::nullopt;
  }
  size_t at = read->data.find("weights ");
  std::optional<std::vector<double>> weights;
  if (at != std::string::npos) weights = parseWeights(std::string_view(read->data).substr(at + 8));
  if (!weights || weights->empty()) {
    *error = truthName(file) + " is not a list of weights";
    return std::nullopt;
  }
  return weights;
}

std::optional<Resources> resources(double cpus, double mem) {
  auto parsed = Resources::parse("cpus:" + std::to_string(cpus) + ";mem:" + std::to_string(mem));
  if (!parsed) return std::nullopt;
  return parsed.value();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::max(0.0, s) * 1000));
}

// Runs `job` on a scheduler driver until it ends, ticking it every 100 ms
// (and abandoning it after --timeout). The driver's final status.
Status runJob(LogisticRegressionJob& job) {
  FrameworkInfo framework;
  framework.set_name("mesos-spark-lr " + FLAGS_file);
  auto holder = mesos::frameworks::schedulerDriver(&job, framework, FLAGS_master, "mesos-spark-lr");
  MesosSchedulerDriver& driver = *holder;
  job.setDriver(&driver);

  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  const auto started = std::chrono::steady_clock::now();
  std::thread ticker([&] {
    std::unique_lock lock(mutex);
    while (!wake.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping; })) {
      job.tick();
      if (FLAGS_timeout > 0 &&
          std::chrono::steady_clock::now() - started > seconds(FLAGS_timeout)) {
        job.abandon("the job did not finish within --timeout=" + fixed(FLAGS_timeout, 0) + " s");
      }
    }
  });
  Status status = driver.run();
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  ticker.join();
  return status;
}

// The summary after the iterations' lines (the lines tests and demo.sh read).
void printReport(const JobReport& report, const JobOptions& options) {
  const auto& times = report.iterationMs;
  std::cout << "done: " << times.size() << " iterations over " << report.points << " points"
            << std::endl;
  std::cout << "first iteration: " << fixed(times.front(), 1) << " ms" << std::endl;
  if (times.size() > 1) {
    double later = median(std::vector<double>(times.begin() + 1, times.end()));
    std::cout << "later iterations: median " << fixed(later, 1) << " ms ("
              << fixed(times.front() / std::max(later, 1e-3), 1) << "x faster than the first)"
              << std::endl;
  }
  std::cout << "accuracy: " << fixed(report.accuracy, 4);
  if (report.referenceAccuracy) {
    std::cout << " (the true weights: " << fixed(*report.referenceAccuracy, 4) << ")";
  }
  std::cout << std::endl;
  std::cout << "loss: " << fixed(report.loss, 6) << std::endl;
  if (!options.truth.empty()) {
    std::vector<double> zero(options.dims, 0.0);
    std::cout << "distance to the true weights: "
              << fixed(distance(report.weights, options.truth), 4)
              << " (their norm: " << fixed(distance(options.truth, zero), 4) << ")" << std::endl;
  }
  std::cout << "locality: " << report.nodeLocal << " node-local, " << report.rackLocal
            << " rack-local, " << report.remote << " remote launches; " << report.relaunched
            << " relaunched; " << report.remoteReads << " remote block reads" << std::endl;
  std::cout << "messages: " << report.resent << " requests sent again" << std::endl;
  std::cout << "weights: " << formatWeights(report.weights) << std::endl;
}

int run() {
  if (FLAGS_master.empty()) return usageError("run: missing --master (host:port of the master)");
  if (FLAGS_root.empty()) return usageError("run: missing --root (the block store's root)");
  if (FLAGS_file.empty()) return usageError("run: missing --file (the dataset's name)");
  if (FLAGS_iterations == 0) return usageError("run: --iterations must be at least 1");

  // Executors run in sandboxes elsewhere: they need the root's full path.
  dfs::Store store(absolute(FLAGS_root));
  auto file = store.stat(FLAGS_file);
  if (!file) {
    std::cerr << "mesos-spark-lr: run: the input " << FLAGS_file << " is not in the block store at "
              << FLAGS_root << " (" << file.error()
              << "); write it first with `mesos-spark-lr generate` or `mesos-dfs put`" << std::endl;
    return 1;
  }
  if (file->blocks.empty()) {
    std::cerr << "mesos-spark-lr: run: the input " << FLAGS_file << " is empty" << std::endl;
    return 1;
  }
  JobOptions options;
  options.root = store.root();
  options.file = *file;
  std::string truthError;
  if (auto truth = readTruth(store, FLAGS_file, &truthError)) {
    options.truth = *truth;
    options.dims = static_cast<uint32_t>(truth->size());
  } else if (!truthError.empty()) {
    std::cerr << "mesos-spark-lr: run: " << truthError << std::endl;
    return 1;
  } else {
    options.dims = FLAGS_dims;
  }
  options.iterations = FLAGS_iterations;
  options.step = FLAGS_step;
  options.cache = FLAGS_cache;
  options.localityWait = seconds(FLAGS_locality_wait);
  options.resendTimeout = seconds(std::max(0.1, FLAGS_resend_timeout));
  options.maxResends = std::max<uint32_t>(1, FLAGS_max_resends);
  options.maxFailures = std::max<uint32_t>(1, FLAGS_max_failures);
  options.dropEvery = FLAGS_test_drop_results;
  auto task = resources(FLAGS_task_cpus, FLAGS_task_mem);
  auto executor = resources(FLAGS_executor_cpus, FLAGS_executor_mem);
  if (!task || !executor) return usageError("run: bad --task_* or --executor_* resources");
  options.taskResources = *task;
  options.executorResources = *executor;
  options.executorPath =
      FLAGS_executor.empty() ? frameworkProgram("mesos-spark-executor") : FLAGS_executor;
  if (::access(options.executorPath.c_str(), X_OK) != 0) {
    std::cerr << "mesos-spark-lr: run: no executor program at " << options.executorPath
              << "; pass --executor=<path of mesos-spark-executor>" << std::endl;
    return 1;
  }

  std::cout << "training on " << FLAGS_file << ": " << file->blocks.size() << " partitions, "
            << file->length << " bytes, dimension " << options.dims << ", cache "
            << (options.cache ? "on" : "off") << std::endl;

  LogisticRegressionJob job(options, std::cout);
  Status status = runJob(job);
  JobReport report = job.report();
  if (!report.succeeded) {
    std::string why = !report.error.empty() ? report.error
                      : status == DRIVER_ABORTED
                          ? "the scheduler driver aborted"
                          : "the driver stopped before the job finished";
    std::cerr << "mesos-spark-lr: run: the job failed: " << why << std::endl;
    return 1;
  }
  printReport(report, options);
  return 0;
}

}  // namespace
}  // namespace mesos::frameworks::spark

int main(int argc, char** argv) {
  // gflags spells a false boolean --nocache; accept the documented --no-cache.
  std::vector<char*> args(argv, argv + argc);
  static char nocache[] = "--nocache";
  for (char*& arg : args) {
    std::string text = arg;
    if (text == "--no-cache" || text == "--no_cache") arg = nocache;
  }
  int count = static_cast<int>(args.size());
  char** values = args.data();
  gflags::SetUsageMessage(mesos::frameworks::spark::kUsage);
  mesos::frameworks::parseCommandLine(&count, &values);
  if (FLAGS_root.empty() && std::getenv("MESOS_DFS_ROOT") != nullptr) {
    FLAGS_root = std::getenv("MESOS_DFS_ROOT");
  }
  if (count != 2) {
    std::cerr << "usage: " << mesos::frameworks::spark::kUsage << std::endl;
    return 2;
  }
  std::string command = values[1];
  if (command == "generate") return mesos::frameworks::spark::generate();
  if (command == "run") return mesos::frameworks::spark::run();
  std::cerr << "mesos-spark-lr: unknown command '" << command << "' (generate or run)"
            << std::endl;
  return 2;
}
