// What a MapReduce job is, and what the JobTracker tells a TaskTracker to
// run: the job's spec (from the command line or POST /jobs), the spec of one
// task attempt (TaskInfo.data, JSON) and what a finished attempt reports
// back (TaskStatus.data, JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dfs/dfs.hpp"

namespace mesos::frameworks::mapreduce {

template <typename T>
using Result = dfs::Result<T>;
using dfs::Done;

// The built-in jobs and the streaming one.
//   wordcount: (word, occurrences) for every word (whitespace-separated).
//   grep:      (match, occurrences) for every match of `pattern` (ECMAScript
//              regex), as Hadoop's Grep example.
//   sort:      the input's lines in byte order (range-partitioned on split
//              keys sampled from the input when the job is submitted, as
//              TeraSort does, so that the reduce outputs part-00000,
//              part-00001, ... in order are one sorted sequence).
//   streaming: `map_command` reads a block's lines on stdin and writes
//              "key<TAB>value" lines (a line without a TAB is a key with an
//              empty value); `reduce_command` reads its partition's pairs
//              sorted by key and writes output lines (no reduce command:
//              the sorted pairs themselves).
struct JobSpec {
  std::string type;    // wordcount | grep | sort | streaming
  std::string name;    // a label for reports (default: type and input)
  std::string input;   // a file of the block store
  std::string output;  // "dfs:<name>" (files <name>/part-NNNNN in the store) or a directory
  uint32_t reduces = 2;
  std::string pattern;        // grep
  std::string mapCommand;     // streaming
  std::string reduceCommand;  // streaming, optional
};

// Checks a spec (not the input's existence): a known type, an input, an
// output, 1..1000 reduces, a valid grep pattern, a streaming map command.
// The error names the field and what to give.
Result<Done> validate(const JobSpec& spec);

nlohmann::json toJson(const JobSpec& spec);
// REQUIRES: `value` an object; unknown fields are ignored, missing ones default.
JobSpec jobSpecFromJson(const nlohmann::json& value);

// Where a job's output goes.
struct OutputLocation {
  bool inStore = false;
  std::string path;  // the directory, or the store name prefix
};
OutputLocation parseOutput(const std::string& output);
// "part-00003"
std::string partName(uint32_t partition);

// The "output" of a job's report: in_store, location ("dfs:<name>" or the
// directory) and its parts' paths, one a reduce.
nlohmann::json outputReport(const JobSpec& spec);

// What running a job needs checked first: a valid spec, an input that is a
// non-empty file of the store, and an output that is absent or empty (an
// absolute directory, or a name with no files in the store). Returns the
// input's blocks; the error names what to fix.
Result<dfs::FileInfo> prepareInput(const JobSpec& spec, const dfs::Store& store);

// The split keys of a sort's range partitioner: sampled lines of up to 20
// blocks spread over the input, read from a holder (a local read).
std::vector<std::string> sampleSplits(const dfs::Store& store, const dfs::FileInfo& input,
                                      uint32_t reduces);

// Where a reduce task fetches one map task's output: the TaskTracker serving
// it and the attempt's directory there.
struct MapOutputRef {
  uint32_t map = 0;
  std::string host;
  uint16_t port = 0;
  std::string attempt;  // e.g. "job-1-m3-a1"
};

// One task attempt, as sent in TaskInfo.data.
struct TaskSpec {
  std::string job;      // the job's id
  std::string attempt;  // the attempt's id (= the Mesos task id)
  bool isMap = true;
  uint32_t index = 0;   // map: the block; reduce: the partition
  JobSpec spec;
  std::string dfsRoot;
  uint16_t dfsPeerPort = 0;  // dfs::Store::setPeerPort(); 0: the file system only
  // Reduce, output into the store: the nodes to place the part on.
  std::vector<dfs::Node> nodes;
  // Reduce: every map's output.
  std::vector<MapOutputRef> maps;
  // Map of a sort: the sorted split keys of the range partitioner.
  std::vector<std::string> splits;
};

nlohmann::json toJson(const TaskSpec& task);
Result<TaskSpec> taskSpecFromJson(const std::string& data);

// What a finished attempt reports in TaskStatus.data. A reduce that could
// not fetch some maps' outputs fails with fetchFailed naming those maps.
struct TaskOutcome {
  std::string host;  // the TaskTracker's host and port (maps: serving the output)
  uint16_t port = 0;
  bool remoteRead = false;  // map: its block came from another node
  uint64_t records = 0;     // input records read
  uint64_t outputRecords = 0;
  std::vector<uint32_t> fetchFailed;
};

nlohmann::json toJson(const TaskOutcome& outcome);
TaskOutcome taskOutcomeFromJson(const std::string& data);

// FNV-1a: the same in every process and build (the shuffle's partitioner).
uint64_t stableHash(const std::string& text);
// The reduce partition of `key` among `reduces`: with `splits` (sorted, at
// most reduces - 1), the number of splits <= key (a range partitioner, for
// a total order); else a hash of the key.
uint32_t partitionOf(const std::string& key, uint32_t reduces,
                     const std::vector<std::string>& splits);

}  // namespace mesos::frameworks::mapreduce
