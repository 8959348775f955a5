// What the mesos-spark-lr driver and its executors say to each other: the
// task's data at launch, and framework messages (JSON objects) during the
// job. Framework messages are best effort, so every request may arrive
// twice or never, and every answer may be lost: requests carry their
// iteration and partitions, answers name the iteration and partition they
// belong to, and the driver resends what is missing (see driver.hpp).
//
//   driver -> executor  "compute"  {iteration, weights, reference?, partitions}
//   executor -> driver  "ack"      {iteration, partitions}    at once, on receipt
//   executor -> driver  "result"   {iteration, partition, gradient, loss,
//                                   points, correct, reference_correct,
//                                   loaded, remote, load_ms, compute_ms}
//   executor -> driver  "failed"   {iteration, partition, message}
//
// Doubles travel as JSON numbers printed with 17 significant digits, which
// read back to the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spark/dataset.hpp"

namespace mesos::frameworks::spark {

// TaskInfo.data of a partition task: where the partition's block is and how
// to treat it.
struct PartitionTask {
  std::string root;  // the block store's root
  std::string file;  // the input file in the store
  uint32_t partition = 0;  // = the block's index
  uint32_t dims = 0;
  bool cache = true;  // false: read and parse again for every request
  // Fault injection for tests: the executor drops every n-th result it
  // would send (0: none), as a lossy network would.
  uint32_t dropEvery = 0;
};

struct ComputeRequest {
  uint64_t iteration = 0;
  std::vector<double> weights;
  std::vector<double> reference;  // empty, or weights to score as well
  std::vector<uint32_t> partitions;
};

struct Ack {
  uint64_t iteration = 0;
  std::vector<uint32_t> partitions;
};

struct PartitionResult {
  uint64_t iteration = 0;
  uint32_t partition = 0;
  PartialResult partial;
  bool loaded = false;  // this request read and parsed the block
  bool remote = false;  // ... from another host's copy
  double loadMs = 0;
  double computeMs = 0;
};

struct PartitionFailure {
  uint64_t iteration = 0;
  uint32_t partition = 0;
  std::string message;
};

std::string encode(const PartitionTask& task);
std::string encode(const ComputeRequest& request);
std::string encode(const Ack& ack);
std::string encode(const PartitionResult& result);
std::string encode(const PartitionFailure& failure);

// Decoders: nullopt when `data` is not that message (wrong type, missing or
// ill-typed fields); they never throw.
std::optional<PartitionTask> decodePartitionTask(const std::string& data);

// A message from the executors, one of the three kinds.
struct ExecutorMessage {
  std::optional<Ack> ack;
  std::optional<PartitionResult> result;
  std::optional<PartitionFailure> failure;
};
std::optional<ExecutorMessage> decodeExecutorMessage(const std::string& data);
std::optional<ComputeRequest> decodeComputeRequest(const std::string& data);

}  // namespace mesos::frameworks::spark
