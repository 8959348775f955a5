// mesos-ps: the cluster's tasks, one line each, as `ps` lists processes:
// framework id, task id and name, state, host, user and the resources the
// task holds; filters narrow the list. Read from the leading master's
// /master/state, as Apache Mesos's tool of that name does.
//
//   mesos-ps --master=HOST:PORT [--framework=ID|NAME] [--task=ID|NAME]
//            [--state=running,staging] [--host=HOST|SLAVE_ID] [--user=USER] [--all]
//
// docs/cli.md describes it.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli/common.hpp"

namespace {

using namespace mesos;

constexpr const char* kProgram = "mesos-ps";

const std::set<std::string>& taskStates() {
  static const std::set<std::string> kStates = {
      "TASK_STAGING",     "TASK_STARTING", "TASK_RUNNING",          "TASK_KILLING",
      "TASK_FINISHED",    "TASK_FAILED",   "TASK_KILLED",           "TASK_LOST",
      "TASK_ERROR",       "TASK_DROPPED",  "TASK_UNREACHABLE",      "TASK_GONE",
      "TASK_GONE_BY_OPERATOR", "TASK_UNKNOWN"};
  return kStates;
}

struct PsFlags : cli::MasterFlags {
  PsFlags() {
    add(&framework, "framework", "Only the tasks of this framework (its id or its name)");
    add(&task, "task", "Only the tasks with this id or name");
    add(&state, "state",
        "Only tasks in these states, comma-separated (running or TASK_RUNNING, staging, ...)");
    add(&host, "host", "Only the tasks on this slave (its hostname or its id)");
    add(&user, "user", "Only the tasks of frameworks registered as this user");
    add(&all, "all", "Also tasks that have ended, and those of frameworks that have ended", false);
  }
  std::optional<std::string> framework;
  std::optional<std::string> task;
  std::optional<std::string> state;
  std::optional<std::string> host;
  std::optional<std::string> user;
  bool all;
};

// The states --state names, as TASK_* names. Fails on a name that is no
// task state.
Result<std::set<std::string>> parseStates(const std::string& text) {
  std::set<std::string> states;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    std::string upper;
    for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!upper.starts_with("TASK_")) upper = "TASK_" + upper;
    if (!taskStates().contains(upper)) {
      return Error{"--state: '" + name + "' is not a task state (e.g. --state=running or "
                   "--state=TASK_RUNNING,TASK_STAGING)"};
    }
    states.insert(upper);
  }
  if (states.empty()) return Error{"--state names no state (e.g. --state=running)"};
  return states;
}

std::string text(const json::Value& value) {
  return value.isString() ? value.string() : std::string();
}

const json::Array& array(const json::Value& value) {
  static const json::Array kEmpty;
  return value.isArray() ? value.array() : kEmpty;
}

// "0.5", "2": at most three decimals, trailing zeros dropped.
std::string formatNumber(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  std::string out = buffer;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

// Megabytes as Apache's mesos-ps shows sizes: "32.0 MB", "1.5 GB".
std::string formatMegabytes(double megabytes) {
  double bytes = megabytes * 1024 * 1024;
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(units)) {
    bytes /= 1024;
    unit++;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.1f %s", bytes, units[unit]);
  return buffer;
}

using Row = std::vector<std::string>;

// Prints `rows` under `header` in columns as wide as their widest entry,
// two spaces apart; the last column is not padded.
void printTable(const Row& header, const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const std::string& title : header) widths.push_back(title.size());
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto print = [&](const Row& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::cout << line << "\n";
  };
  print(header);
  for (const Row& row : rows) print(row);
  std::cout << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  PsFlags flags;
  if (auto done = cli::loadFlags(
          flags, kProgram, "mesos-ps --master=MASTER [filters]",
          "Lists the cluster's tasks, one a line: FRAMEWORK and TASK (the ids mesos-cat and "
          "mesos-tail\ntake), NAME, STATE, HOST, the framework's USER, and the task's CPUS, MEM "
          "and DISK. Live\ntasks only, unless --all. Filters combine (all must match). Exit "
          "status 0 (also when no task\nmatches), or 1 with one line on stderr saying why.\n",
          argc, argv)) {
    return *done;
  }
  std::set<std::string> states;
  if (flags.state) {
    auto parsed = parseStates(*flags.state);
    if (!parsed) return cli::fail(kProgram, parsed.error().message);
    states = std::move(parsed).value();
  }
  cli::quietLogging(argv[0]);
  auto master = cli::leadingMaster(*flags.master, flags.timeout);
  if (!master) return cli::fail(kProgram, master.error().message);
  auto state = cli::getJson(*master, "/master/state", flags.timeout, "the master");
  if (!state) return cli::fail(kProgram, state.error().message);

  std::map<std::string, std::string> hostnames;  // by slave id
  for (const json::Value& slave : array((*state)["slaves"])) {
    hostnames[text(slave["id"])] = text(slave["hostname"]);
  }

  std::vector<Row> rows;
  auto add = [&](const json::Value& framework, const json::Value& task) {
    const std::string frameworkId = text(framework["id"]);
    const std::string slaveId = text(task["slave_id"]);
    auto known = hostnames.find(slaveId);
    const std::string host = known != hostnames.end() ? known->second : slaveId;
    const std::string taskState = text(task["state"]);
    if (flags.framework && *flags.framework != frameworkId &&
        *flags.framework != text(framework["name"])) {
      return;
    }
    if (flags.task && *flags.task != text(task["id"]) && *flags.task != text(task["name"])) {
      return;
    }
    if (!states.empty() && !states.contains(taskState)) return;
    if (flags.host && *flags.host != host && *flags.host != slaveId) return;
    if (flags.user && *flags.user != text(framework["user"])) return;
    const json::Value& resources = task["resources"];
    auto scalar = [&](const char* name) {
      return resources[name].isNumber() ? resources[name].number() : 0.0;
    };
    rows.push_back({frameworkId, text(task["id"]), text(task["name"]), taskState, host,
                    text(framework["user"]), formatNumber(scalar("cpus")),
                    formatMegabytes(scalar("mem")), formatMegabytes(scalar("disk"))});
  };
  for (const json::Value& framework : array((*state)["frameworks"])) {
    for (const json::Value& task : array(framework["tasks"])) add(framework, task);
    if (!flags.all) continue;
    for (const json::Value& task : array(framework["completed_tasks"])) add(framework, task);
  }
  if (flags.all) {
    for (const json::Value& framework : array((*state)["completed_frameworks"])) {
      for (const json::Value& task : array(framework["tasks"])) add(framework, task);
      for (const json::Value& task : array(framework["completed_tasks"])) add(framework, task);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a[0], a[1]) < std::tie(b[0], b[1]);
  });
  printTable({"FRAMEWORK", "TASK", "NAME", "STATE", "HOST", "USER", "CPUS", "MEM", "DISK"}, rows);
  return cli::kExitSuccess;
}
