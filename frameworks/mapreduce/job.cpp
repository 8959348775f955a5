#include "mapreduce/job.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

namespace mesos::frameworks::mapreduce {

using nlohmann::json;

Result<Done> validate(const JobSpec& spec) {
  auto bad = [](const std::string& message) { return Result<Done>::failure(message); };
  if (spec.type != "wordcount" && spec.type != "grep" && spec.type != "sort" &&
      spec.type != "streaming") {
    return bad("unknown job type '" + spec.type + "'; use wordcount, grep, sort or streaming");
  }
  if (spec.input.empty()) return bad("no input; give --input=<a file of the block store>");
  if (spec.output.empty()) return bad("no output; give --output=<directory> or --output=dfs:<name>");
  if (parseOutput(spec.output).path.empty()) return bad("empty output name in '" + spec.output + "'");
  if (spec.reduces == 0 || spec.reduces > 1000) {
    return bad("--reduces=" + std::to_string(spec.reduces) + ": give 1 to 1000");
  }
  if (spec.type == "grep") {
    if (spec.pattern.empty()) return bad("grep needs --pattern=<regex>");
    try {
      std::regex check(spec.pattern);
    } catch (const std::regex_error& e) {
      return bad("--pattern '" + spec.pattern + "' is not a valid regex: " + e.what());
    }
  }
  if (spec.type == "streaming" && spec.mapCommand.empty()) {
    return bad("a streaming job needs --map_command=<shell command>");
  }
  return Done{};
}

json toJson(const JobSpec& spec) {
  return {{"type", spec.type},       {"name", spec.name},
          {"input", spec.input},     {"output", spec.output},
          {"reduces", spec.reduces}, {"pattern", spec.pattern},
          {"map_command", spec.mapCommand}, {"reduce_command", spec.reduceCommand}};
}

JobSpec jobSpecFromJson(const json& value) {
  JobSpec spec;
  spec.type = value.value("type", "");
  spec.name = value.value("name", "");
  spec.input = value.value("input", "");
  spec.output = value.value("output", "");
  spec.reduces = value.value("reduces", 2u);
  spec.pattern = value.value("pattern", "");
  spec.mapCommand = value.value("map_command", "");
  spec.reduceCommand = value.value("reduce_command", "");
  return spec;
}

OutputLocation parseOutput(const std::string& output) {
  OutputLocation location;
  if (output.rfind("dfs:", 0) == 0) {
    location.inStore = true;
    location.path = output.substr(4);
  } else {
    location.path = output;
  }
  while (location.path.size() > 1 && location.path.back() == '/') location.path.pop_back();
  return location;
}

std::string partName(uint32_t partition) {
  char name[32];
  std::snprintf(name, sizeof(name), "part-%05u", partition);
  return name;
}

json toJson(const TaskSpec& task) {
  json maps = json::array();
  for (const MapOutputRef& ref : task.maps) {
    maps.push_back({{"map", ref.map}, {"host", ref.host}, {"port", ref.port}, {"attempt", ref.attempt}});
  }
  return {{"job", task.job},         {"attempt", task.attempt},
          {"map", task.isMap},       {"index", task.index},
          {"spec", toJson(task.spec)}, {"dfs_root", task.dfsRoot}, {"dfs_peer_port", task.dfsPeerPort},
          {"nodes", dfs::formatNodes(task.nodes)}, {"maps", maps},
          {"splits", task.splits}};
}

Result<TaskSpec> taskSpecFromJson(const std::string& data) {
  try {
    json value = json::parse(data);
    TaskSpec task;
    task.job = value.at("job").get<std::string>();
    task.attempt = value.at("attempt").get<std::string>();
    task.isMap = value.at("map").get<bool>();
    task.index = value.at("index").get<uint32_t>();
    task.spec = jobSpecFromJson(value.at("spec"));
    task.dfsRoot = value.at("dfs_root").get<std::string>();
    task.dfsPeerPort = value.value("dfs_peer_port", uint16_t{0});
    std::string nodes = value.value("nodes", "");
    if (!nodes.empty()) {
      auto parsed = dfs::parseNodes(nodes);
      if (parsed) task.nodes = *parsed;
    }
    for (const json& ref : value.value("maps", json::array())) {
      task.maps.push_back({ref.at("map").get<uint32_t>(), ref.at("host").get<std::string>(),
                           ref.at("port").get<uint16_t>(), ref.at("attempt").get<std::string>()});
    }
    task.splits = value.value("splits", std::vector<std::string>{});
    return task;
  } catch (const std::exception& e) {
    return Result<TaskSpec>::failure(std::string("malformed task description: ") + e.what());
  }
}

json toJson(const TaskOutcome& outcome) {
  return {{"host", outcome.host},
          {"port", outcome.port},
          {"remote_read", outcome.remoteRead},
          {"records", outcome.records},
          {"output_records", outcome.outputRecords},
          {"fetch_failed", outcome.fetchFailed}};
}

TaskOutcome taskOutcomeFromJson(const std::string& data) {
  TaskOutcome outcome;
  try {
    json value = json::parse(data);
    outcome.host = value.value("host", "");
    outcome.port = value.value("port", uint16_t{0});
    outcome.remoteRead = value.value("remote_read", false);
    outcome.records = value.value("records", uint64_t{0});
    outcome.outputRecords = value.value("output_records", uint64_t{0});
    outcome.fetchFailed = value.value("fetch_failed", std::vector<uint32_t>{});
  } catch (const std::exception&) {
    // An outcome without data (e.g. a status the slave made up) is empty.
  }
  return outcome;
}

uint64_t stableHash(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

uint32_t partitionOf(const std::string& key, uint32_t reduces,
                     const std::vector<std::string>& splits) {
  if (reduces <= 1) return 0;
  if (!splits.empty()) {
    auto above = std::upper_bound(splits.begin(), splits.end(), key);
    return std::min<uint32_t>(static_cast<uint32_t>(above - splits.begin()), reduces - 1);
  }
  return static_cast<uint32_t>(stableHash(key) % reduces);
}

json outputReport(const JobSpec& spec) {
  const OutputLocation output = parseOutput(spec.output);
  json parts = json::array();
  for (uint32_t r = 0; r < spec.reduces; ++r) parts.push_back(output.path + "/" + partName(r));
  return {{"in_store", output.inStore},
          {"location", (output.inStore ? "dfs:" : "") + output.path},
          {"parts", parts}};
}

Result<dfs::FileInfo> prepareInput(const JobSpec& spec, const dfs::Store& store) {
  using R = Result<dfs::FileInfo>;
  namespace fs = std::filesystem;
  if (auto valid = validate(spec); !valid) return R::failure(valid.error());
  auto input = store.stat(spec.input);
  if (!input) return R::failure("input: " + input.error());
  if (input->blocks.empty()) return R::failure("input '" + spec.input + "' is empty");
  const OutputLocation output = parseOutput(spec.output);
  if (output.inStore) {
    auto existing = store.list(output.path + "/");
    if (existing && !existing->empty()) {
      return R::failure("output dfs:" + output.path +
                        " already has files; remove them (mesos-dfs rm) "
                        "or choose another --output");
    }
  } else {
    if (output.path.empty() || output.path[0] != '/') {
      return R::failure("output directory '" + output.path +
                        "' is not absolute; give an absolute path (tasks run in their sandboxes)");
    }
    std::error_code error;
    if (fs::exists(output.path, error) && !fs::is_empty(output.path, error)) {
      return R::failure("output directory " + output.path +
                        " exists and is not empty; remove it or choose another --output");
    }
  }
  return std::move(*input);
}

std::vector<std::string> sampleSplits(const dfs::Store& store, const dfs::FileInfo& input,
                                      uint32_t reduces) {
  constexpr size_t kSortSamples = 2000;
  std::vector<std::string> samples;
  if (reduces <= 1 || input.blocks.empty()) return {};
  const size_t blocks = std::min<size_t>(input.blocks.size(), 20);
  const size_t perBlock = kSortSamples / blocks + 1;
  for (size_t b = 0; b < blocks; ++b) {
    const dfs::BlockInfo& block = input.blocks[b * input.blocks.size() / blocks];
    auto read = store.readBlock(input, block, block.hosts.empty() ? "" : block.hosts[0]);
    if (!read) continue;
    std::vector<std::string> lines;
    size_t start = 0;
    const std::string& data = read->data;
    while (start < data.size()) {
      size_t end = data.find('\n', start);
      if (end == std::string::npos) end = data.size();
      lines.push_back(data.substr(start, end - start));
      start = end + 1;
    }
    const size_t step = std::max<size_t>(1, lines.size() / perBlock);
    for (size_t i = 0; i < lines.size(); i += step) samples.push_back(lines[i]);
  }
  std::sort(samples.begin(), samples.end());
  std::vector<std::string> splits;
  for (uint32_t r = 1; r < reduces && !samples.empty(); ++r) {
    splits.push_back(samples[r * samples.size() / reduces]);
  }
  return splits;
}

}  // namespace mesos::frameworks::mapreduce
