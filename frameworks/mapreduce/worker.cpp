#include "mapreduce/worker.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <httplib.h>

namespace mesos::frameworks::mapreduce {

namespace fs = std::filesystem;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Calls `f` on every line of `text` (without its '\n').
template <typename F>
void forEachLine(const std::string& text, F f) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    f(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
}

// "key<TAB>value" -> pair; a line without a TAB is a key with no value.
std::pair<std::string, std::string> splitPair(std::string_view line) {
  size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return {std::string(line), ""};
  return {std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))};
}

void addCounts(const std::unordered_map<std::string, uint64_t>& counts, Pairs* pairs) {
  pairs->reserve(pairs->size() + counts.size());
  for (const auto& [key, count] : counts) pairs->emplace_back(key, std::to_string(count));
}

// The job's map function over one block.
Result<Pairs> mapBlock(const TaskSpec& task, const std::string& block, const std::string& host,
                       Cancellation& cancel) {
  Pairs pairs;
  const std::string& type = task.spec.type;
  if (type == "wordcount") {
    // With a combiner: one pair per distinct word of the block.
    std::unordered_map<std::string, uint64_t> counts;
    forEachLine(block, [&](std::string_view line) {
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i > start) ++counts[std::string(line.substr(start, i - start))];
      }
    });
    addCounts(counts, &pairs);
  } else if (type == "grep") {
    std::regex pattern(task.spec.pattern);
    std::unordered_map<std::string, uint64_t> counts;
    forEachLine(block, [&](std::string_view view) {
      std::string line(view);
      for (std::sregex_iterator it(line.begin(), line.end(), pattern), end; it != end; ++it) {
        if (it->length() > 0) ++counts[it->str()];
      }
    });
    addCounts(counts, &pairs);
  } else if (type == "sort") {
    forEachLine(block, [&](std::string_view line) { pairs.emplace_back(std::string(line), ""); });
  } else {
    std::string output;
    auto ran = runFilter(task.spec.mapCommand, block, streamingEnvironment(task, host), &output,
                         cancel);
    if (!ran) return Result<Pairs>::failure("map " + ran.error());
    forEachLine(output, [&](std::string_view line) { pairs.push_back(splitPair(line)); });
  }
  return pairs;
}

std::string writeFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return out ? "" : "cannot write " + path;
}

void sortByKey(Pairs* pairs) {
  std::stable_sort(pairs->begin(), pairs->end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

}  // namespace

std::map<std::string, std::string> streamingEnvironment(const TaskSpec& task,
                                                        const std::string& host) {
  return {{"MAPREDUCE_JOB", task.job},
          {"MAPREDUCE_TASK", task.attempt},
          {"MAPREDUCE_TASK_TYPE", task.isMap ? "map" : "reduce"},
          {"MAPREDUCE_INDEX", std::to_string(task.index)},
          {"MAPREDUCE_INPUT", task.spec.input},
          {"MAPREDUCE_HOST", host}};
}

Result<TaskOutcome> runMap(const TaskSpec& task, const std::string& host,
                           const std::string& outputRoot, Cancellation& cancel) {
  using R = Result<TaskOutcome>;
  dfs::Store store(task.dfsRoot);
  if (task.dfsPeerPort != 0) store.setPeerPort(task.dfsPeerPort);
  auto read = store.readBlock(task.spec.input, task.index, host);
  if (!read) return R::failure(read.error());
  TaskOutcome outcome;
  outcome.remoteRead = read->remote;
  forEachLine(read->data, [&](std::string_view) { ++outcome.records; });
  if (cancel.requested) return R::failure("cancelled");

  auto mapped = mapBlock(task, read->data, host, cancel);
  if (!mapped) return R::failure(mapped.error());
  if (cancel.requested) return R::failure("cancelled");
  Pairs& pairs = *mapped;
  outcome.outputRecords = pairs.size();

  const uint32_t reduces = task.spec.reduces;
  std::vector<Pairs> partitions(reduces);
  for (auto& pair : pairs) {
    partitions[partitionOf(pair.first, reduces, task.splits)].push_back(std::move(pair));
  }
  const fs::path final = fs::path(outputRoot) / task.job / task.attempt;
  const fs::path temporary = fs::path(outputRoot) / task.job / (task.attempt + ".tmp");
  std::error_code error;
  fs::remove_all(temporary, error);
  fs::create_directories(temporary, error);
  if (error) return R::failure("cannot create " + temporary.string() + ": " + error.message());
  for (uint32_t r = 0; r < reduces; ++r) {
    sortByKey(&partitions[r]);
    std::string data;
    for (const auto& [key, value] : partitions[r]) {
      data += key;
      data += '\t';
      data += value;
      data += '\n';
    }
    std::string problem = writeFile((temporary / std::to_string(r)).string(), data);
    if (!problem.empty()) return R::failure(problem);
  }
  fs::remove_all(final, error);
  fs::rename(temporary, final, error);
  if (error) return R::failure("cannot rename " + temporary.string() + ": " + error.message());
  return outcome;
}

Result<TaskOutcome> runReduce(const TaskSpec& task, const std::string& host,
                              Cancellation& cancel) {
  using R = Result<TaskOutcome>;
  TaskOutcome outcome;
  Pairs pairs;
  for (const MapOutputRef& ref : task.maps) {
    if (cancel.requested) return R::failure("cancelled");
    httplib::Client client(ref.host, ref.port);
    client.set_connection_timeout(3);
    client.set_read_timeout(30);
    const std::string path = "/mapout/" + task.job + "/" + ref.attempt + "/" +
                             std::to_string(task.index);
    auto answer = client.Get(path.c_str());
    if (!answer || answer->status != 200) {
      outcome.fetchFailed.push_back(ref.map);
      continue;
    }
    forEachLine(answer->body, [&](std::string_view line) {
      pairs.push_back(splitPair(line));
      ++outcome.records;
    });
  }
  if (!outcome.fetchFailed.empty()) return outcome;
  sortByKey(&pairs);

  std::string output;
  const std::string& type = task.spec.type;
  if (type == "wordcount" || type == "grep") {
    for (size_t i = 0; i < pairs.size();) {
      size_t j = i;
      uint64_t sum = 0;
      for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j) {
        sum += std::strtoull(pairs[j].second.c_str(), nullptr, 10);
      }
      output += pairs[i].first + "\t" + std::to_string(sum) + "\n";
      ++outcome.outputRecords;
      i = j;
    }
  } else if (type == "sort") {
    for (const auto& pair : pairs) {
      output += pair.first + "\n";
      ++outcome.outputRecords;
    }
  } else {
    std::string input;
    for (const auto& [key, value] : pairs) {
      input += value.empty() ? key + "\n" : key + "\t" + value + "\n";
    }
    if (task.spec.reduceCommand.empty()) {
      output = std::move(input);
    } else {
      auto ran = runFilter(task.spec.reduceCommand, input, streamingEnvironment(task, host),
                           &output, cancel);
      if (!ran) return R::failure("reduce " + ran.error());
    }
    forEachLine(output, [&](std::string_view) { ++outcome.outputRecords; });
  }
  if (cancel.requested) return R::failure("cancelled");

  const OutputLocation location = parseOutput(task.spec.output);
  const std::string part = partName(task.index);
  if (location.inStore) {
    dfs::Store store(task.dfsRoot);
    if (task.dfsPeerPort != 0) store.setPeerPort(task.dfsPeerPort);
    dfs::PutOptions options;
    options.nodes = task.nodes;
    if (options.nodes.empty()) options.nodes.push_back({host, ""});
    options.replication = std::min<uint32_t>(3, static_cast<uint32_t>(options.nodes.size()));
    options.writer = host;
    options.overwrite = true;
    std::istringstream in(output);
    auto put = store.put(location.path + "/" + part, in, options);
    if (!put) return R::failure("writing the output: " + put.error());
  } else {
    std::error_code error;
    fs::create_directories(location.path, error);
    if (error) return R::failure("cannot create the output directory " + location.path + ": " +
                                 error.message());
    // Speculative copies write the same bytes; the rename makes either whole.
    const std::string final = location.path + "/" + part;
    const std::string temporary = location.path + "/." + part + "." + task.attempt + ".tmp";
    std::string problem = writeFile(temporary, output);
    if (!problem.empty()) return R::failure(problem);
    fs::rename(temporary, final, error);
    if (error) return R::failure("cannot rename into " + final + ": " + error.message());
  }
  return outcome;
}

bool safeComponent(const std::string& part) {
  return !part.empty() && part[0] != '.' && part.find('/') == std::string::npos;
}

void serveMapOutputs(httplib::Server& server, const std::string& outputRoot) {
  server.Get(R"(/mapout/([^/]+)/([^/]+)/(\d+))",
             [outputRoot](const httplib::Request& request, httplib::Response& response) {
               const std::string job = request.matches[1], attempt = request.matches[2];
               const std::string partition = request.matches[3];
               if (!safeComponent(job) || !safeComponent(attempt)) {
                 response.status = 400;
                 return;
               }
               std::ifstream in(fs::path(outputRoot) / job / attempt / partition, std::ios::binary);
               if (!in) {
                 response.status = 404;
                 response.set_content(
                     "no map output " + job + "/" + attempt + "/" + partition + "\n", "text/plain");
                 return;
               }
               std::ostringstream data;
               data << in.rdbuf();
               response.set_content(data.str(), "text/plain");
             });
}

}  // namespace mesos::frameworks::mapreduce
