// mesos-ps: the cluster's tasks, one line each, as `ps` lists processes:
// framework id, task id and name, state, host, user, the resources the
// task holds, and what its executor uses now (resident memory against its
// limit, CPU time); filters narrow the list. The tasks come from the leading
// master's /master/state, the usage from each of their slaves'
// /monitor/statistics, as Apache Mesos's tool of that name does.
// With --watch, it follows the master's event stream (/api/v1 SUBSCRIBE)
// instead and prints a line per task state change as it comes.
//
//   mesos-ps --master=HOST:PORT [--framework=ID|NAME] [--task=ID|NAME]
//            [--state=running,staging] [--host=HOST|SLAVE_ID] [--user=USER]
//            [--all | --watch]
//
// docs/cli.md describes it.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <unordered_map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
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
    add(&watch, "watch",
        "Follow the master's event stream: a line per task state change as it happens, "
        "until interrupted",
        false);
  }
  Result<void> validate() const override {
    if (auto valid = cli::MasterFlags::validate(); !valid) return valid;
    if (all && watch) return Error{"--all lists tasks that have ended; --watch prints changes: give one"};
    return {};
  }
  std::optional<std::string> framework;
  std::optional<std::string> task;
  std::optional<std::string> state;
  std::optional<std::string> host;
  std::optional<std::string> user;
  bool all;
  bool watch;
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

// Bytes as Apache's mesos-ps shows sizes: "32.0 MB", "1.5 GB".
std::string formatBytes(double bytes) {
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

std::string formatMegabytes(double megabytes) { return formatBytes(megabytes * 1024 * 1024); }

// CPU seconds as `ps` shows TIME, with hundredths: "0:00:01.25", "12:03:00.00".
std::string formatCpuTime(double seconds) {
  long long hundredths = std::llround(std::max(seconds, 0.0) * 100);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%lld:%02lld:%02lld.%02lld", hundredths / 360000,
                hundredths / 6000 % 60, hundredths / 100 % 60, hundredths % 100);
  return buffer;
}

// What an executor uses now, as its slave's /monitor/statistics says.
struct Usage {
  std::string memory;   // "10.9 MB/96.0 MB": resident against the limit
  std::string cpuTime;  // user and system time together
};

// The usage of every executor on one slave, by (framework id, executor id).
using SlaveUsage = std::map<std::pair<std::string, std::string>, Usage>;

// The executors' usage on `slave`: one GET of its /monitor/statistics.
// Fails, naming the slave, when it does not answer within `timeout`.
mesos::Result<SlaveUsage> slaveUsage(const process::UPID& slave, const std::string& name,
                                     flags::Duration timeout) {
  auto statistics =
      cli::getJson(slave.address, "/" + slave.id + "/monitor/statistics", timeout, name);
  if (!statistics) return statistics.error();
  SlaveUsage usage;
  for (const json::Value& entry : array(*statistics)) {
    const json::Value& measured = entry["statistics"];
    auto number = [&](const char* field) -> std::optional<double> {
      if (!measured[field].isNumber()) return std::nullopt;
      return measured[field].number();
    };
    Usage u{"-", "-"};
    if (auto rss = number("mem_rss_bytes")) {
      auto limit = number("mem_limit_bytes");
      u.memory = formatBytes(*rss) + "/" + (limit ? formatBytes(*limit) : "-");
    }
    auto user = number("cpus_user_time_secs");
    auto system = number("cpus_system_time_secs");
    if (user || system) u.cpuTime = formatCpuTime(user.value_or(0) + system.value_or(0));
    usage[{text(entry["framework_id"]), text(entry["executor_id"])}] = u;
  }
  return usage;
}

// A slave whose usage a listed task needs.
struct UsageQuery {
  process::UPID pid;
  std::string name;  // "slave <id> (<host>)", for messages
  mesos::Result<SlaveUsage> usage = SlaveUsage{};
};

// Asks the slaves in `queries` in parallel, at most kParallel at a time,
// each bounded by `timeout`: with slaves that do not answer, the whole takes
// at most ceil(slaves / kParallel) timeouts.
void askSlaves(std::vector<UsageQuery>& queries, flags::Duration timeout) {
  constexpr size_t kParallel = 16;
  std::atomic<size_t> next = 0;
  auto work = [&] {
    for (size_t i = next++; i < queries.size(); i = next++) {
      queries[i].usage = slaveUsage(queries[i].pid, queries[i].name, timeout);
    }
  };
  std::vector<std::thread> workers;
  for (size_t i = 0; i < std::min(kParallel, queries.size()); ++i) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();
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

// ---- --watch ----------------------------------------------------------------

void exitOnInterrupt(int) { _exit(cli::kExitSuccess); }

// Nothing for this long (the master sends a heartbeat every 15 s) ends a
// watch.
constexpr flags::Duration kSilence = std::chrono::seconds(45);

std::string idOf(const json::Value& id) { return text(id["value"]); }

// "2026-11-27T16:40:01.123Z" for seconds since the epoch.
std::string formatTime(double seconds) {
  auto millis = static_cast<long long>(std::llround(seconds * 1000));
  std::time_t whole = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                utc.tm_sec, millis % 1000);
  return buffer;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What a watch knows of the cluster, from SUBSCRIBED and the events since,
// to name what an update names only by id: each framework's name and user,
// each agent's hostname, each live task's name and agent.
class Watch {
 public:
  Watch(const PsFlags& flags, const std::set<std::string>& states)
      : flags_(flags), states_(states) {}

  // Takes the next piece of the RecordIO stream. Fails on a malformed
  // record or a failed write to stdout.
  Result<void> take(std::string_view data) {
    buffer_.append(data);
    for (;;) {
      size_t newline = buffer_.find('\n', offset_);
      if (newline == std::string::npos) break;
      const std::string header = buffer_.substr(offset_, newline - offset_);
      if (header.empty() || header.size() > 12 ||
          header.find_first_not_of("0123456789") != std::string::npos) {
        return Error{"the event stream holds a record header that is no length"};
      }
      size_t length = std::stoull(header);
      if (buffer_.size() - newline - 1 < length) break;
      auto event = json::parse(std::string_view(buffer_).substr(newline + 1, length));
      offset_ = newline + 1 + length;
      if (!event) return Error{"the event stream holds an event that is not JSON"};
      if (auto done = handle(*event); !done) return done;
    }
    buffer_.erase(0, offset_);
    offset_ = 0;
    return {};
  }

  bool subscribed() const { return subscribed_; }

 private:
  struct Task {
    std::string name;
    std::string agentId;
  };

  Result<void> handle(const json::Value& event) {
    const std::string type = text(event["type"]);
    if (!subscribed_) {
      if (type != "SUBSCRIBED") return Error{"the event stream began with " + type};
      subscribed_ = true;
      const json::Value& state = event["subscribed"]["get_state"];
      for (const json::Value& agent : array(state["get_agents"]["agents"])) addAgent(agent);
      for (const json::Value& f : array(state["get_frameworks"]["frameworks"])) {
        addFramework(f["framework_info"]);
      }
      for (const json::Value& f : array(state["get_frameworks"]["completed_frameworks"])) {
        addFramework(f["framework_info"]);
      }
      for (const json::Value& task : array(state["get_tasks"]["tasks"])) addTask(task);
      return print({"TIME", "FRAMEWORK", "TASK", "NAME", "STATE", "HOST"});
    }
    if (type == "AGENT_ADDED") {
      addAgent(event["agent_added"]["agent"]);
    } else if (type == "FRAMEWORK_ADDED") {
      addFramework(event["framework_added"]["framework"]["framework_info"]);
    } else if (type == "FRAMEWORK_UPDATED") {
      addFramework(event["framework_updated"]["framework"]["framework_info"]);
    } else if (type == "TASK_ADDED") {
      const json::Value& task = event["task_added"]["task"];
      addTask(task);
      const json::Value& statuses = task["statuses"];
      double at = nowSeconds();
      if (statuses.isArray() && !statuses.array().empty() &&
          statuses.array().back()["timestamp"].isNumber()) {
        at = statuses.array().back()["timestamp"].number();
      }
      return line(at, idOf(task["framework_id"]), idOf(task["task_id"]), text(task["state"]));
    } else if (type == "TASK_UPDATED") {
      const json::Value& updated = event["task_updated"];
      const json::Value& status = updated["status"];
      std::string state = text(updated["state"]);
      if (state.empty()) state = text(status["state"]);
      const std::string frameworkId = idOf(updated["framework_id"]);
      const std::string taskId = idOf(status["task_id"]);
      auto& known = tasks_[frameworkId + "\n" + taskId];
      if (known.agentId.empty()) known.agentId = idOf(status["agent_id"]);
      auto printed = line(status["timestamp"].isNumber() ? status["timestamp"].number()
                                                        : nowSeconds(),
                          frameworkId, taskId, state);
      if (cli::isTerminal(state)) tasks_.erase(frameworkId + "\n" + taskId);
      return printed;
    }
    return {};  // HEARTBEAT, removals (their tasks' updates come first), others
  }

  void addAgent(const json::Value& agent) {
    const json::Value& info = agent["agent_info"];
    hosts_[idOf(info["id"])] = text(info["hostname"]);
  }

  void addFramework(const json::Value& info) {
    frameworks_[idOf(info["id"])] = {text(info["name"]), text(info["user"])};
  }

  void addTask(const json::Value& task) {
    if (cli::isTerminal(text(task["state"]))) return;
    tasks_[idOf(task["framework_id"]) + "\n" + idOf(task["task_id"])] = {
        text(task["name"]), idOf(task["agent_id"])};
  }

  // The line of a task that is now in `state`, unless a filter drops it.
  Result<void> line(double at, const std::string& frameworkId, const std::string& taskId,
                    const std::string& state) {
    const Task& task = tasks_[frameworkId + "\n" + taskId];
    auto framework = frameworks_.find(frameworkId);
    const std::string frameworkName = framework != frameworks_.end() ? framework->second.first : "";
    const std::string user = framework != frameworks_.end() ? framework->second.second : "";
    auto host = hosts_.find(task.agentId);
    const std::string hostname = host != hosts_.end() ? host->second : task.agentId;
    if (flags_.framework && *flags_.framework != frameworkId && *flags_.framework != frameworkName) {
      return {};
    }
    if (flags_.task && *flags_.task != taskId && *flags_.task != task.name) return {};
    if (!states_.empty() && !states_.contains(state)) return {};
    if (flags_.host && *flags_.host != hostname && *flags_.host != task.agentId) return {};
    if (flags_.user && *flags_.user != user) return {};
    return print({formatTime(at), frameworkId, taskId, task.name.empty() ? "-" : task.name, state,
                  hostname.empty() ? "-" : hostname});
  }

  Result<void> print(const Row& row) {
    std::string out;
    for (const std::string& column : row) out += (out.empty() ? "" : "  ") + column;
    if (!cli::writeOut(out + "\n")) return Error{"cannot write to stdout"};
    return {};
  }

  const PsFlags& flags_;
  const std::set<std::string>& states_;
  std::string buffer_;
  size_t offset_ = 0;
  bool subscribed_ = false;
  std::unordered_map<std::string, std::pair<std::string, std::string>> frameworks_;  // name, user
  std::unordered_map<std::string, std::string> hosts_;  // by agent id
  std::unordered_map<std::string, Task> tasks_;         // by "framework id\ntask id"
};

// Follows the leading master's event stream until interrupted (status 0),
// or until the stream is refused, ends or falls silent (status 1, one line
// saying which).
int watch(const PsFlags& flags, const std::set<std::string>& states) {
  struct sigaction interrupt {};
  interrupt.sa_handler = exitOnInterrupt;
  sigemptyset(&interrupt.sa_mask);
  sigaction(SIGINT, &interrupt, nullptr);
  auto master = cli::leadingMaster(*flags.master, flags.timeout);
  if (!master) return cli::fail(kProgram, master.error().message);
  const std::string where = "the master at " + master->toString();
  Watch watch(flags, states);
  std::optional<Error> failed;
  auto answer = cli::httpPostStream(
      *master, "/api/v1", R"({"type":"SUBSCRIBE"})", flags.timeout, kSilence,
      [&](std::string_view data) {
        if (auto taken = watch.take(data); !taken) failed = taken.error();
        return !failed;
      });
  if (failed) return cli::fail(kProgram, failed->message);
  if (!answer) {
    return cli::fail(kProgram, (watch.subscribed() ? "lost the event stream of " : "cannot reach ") +
                                   where + " (" + answer.error().message + ")");
  }
  if (answer->status >= 300 && answer->status < 400) {
    return cli::fail(kProgram, where + " is no longer the leader (it sends SUBSCRIBE to " +
                                   (answer->location.empty() ? "another master" : answer->location) +
                                   "); run mesos-ps again");
  }
  if (answer->status != 200) {
    std::string body = answer->body.substr(0, answer->body.find('\n'));
    return cli::fail(kProgram,
                     where + " refused SUBSCRIBE to its event stream (/api/v1): HTTP " +
                         std::to_string(answer->status) + (body.empty() ? "" : ": " + body) +
                         (answer->status == 401 ? " (mesos-ps sends no credentials)" : ""));
  }
  return cli::fail(kProgram, where + " ended its event stream (a failover, or it dropped this "
                                     "subscriber)");
}

}  // namespace

int main(int argc, char** argv) {
  PsFlags flags;
  if (auto done = cli::loadFlags(
          flags, kProgram, "mesos-ps --master=MASTER [filters]",
          "Lists the cluster's tasks, one a line: FRAMEWORK and TASK (the ids mesos-cat and "
          "mesos-tail\ntake), NAME, STATE, HOST, the framework's USER, the task's CPUS, MEM "
          "and DISK, and what\nits executor uses now from its slave's /monitor/statistics: "
          "RSS/LIMIT (resident memory\nagainst the limit) and TIME (user and system CPU time); "
          "'-' for a task that has ended\nor whose slave does not answer within --timeout (a "
          "line on stderr names the slave).\nLive tasks only, unless --all. Filters combine "
          "(all must match). Exit status 0 (also\nwhen no task matches), or 1 with one line on "
          "stderr saying why.\nWith --watch, follows the master's event stream instead: a "
          "header once subscribed, then\nTIME (UTC), FRAMEWORK, TASK, NAME, STATE and HOST of "
          "each task state change as it\nhappens (the filters apply), until interrupted "
          "(status 0); status 1 when the master\nrefuses SUBSCRIBE or the stream ends.\n",
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
  if (flags.watch) return watch(flags, states);
  auto master = cli::leadingMaster(*flags.master, flags.timeout);
  if (!master) return cli::fail(kProgram, master.error().message);
  auto state = cli::getJson(*master, "/master/state", flags.timeout, "the master");
  if (!state) return cli::fail(kProgram, state.error().message);

  struct SlaveEntry {
    std::string hostname;
    std::string pid;
  };
  std::map<std::string, SlaveEntry> slaves;  // by slave id
  for (const json::Value& slave : array((*state)["slaves"])) {
    slaves[text(slave["id"])] = {text(slave["hostname"]), text(slave["pid"])};
  }

  // A listed task, and the executor whose usage its row shows.
  struct Listed {
    Row row;
    std::string slaveId;
    std::pair<std::string, std::string> executor;  // (framework id, executor id)
    bool live = false;
  };
  std::vector<Listed> listed;
  auto add = [&](const json::Value& framework, const json::Value& task) {
    const std::string frameworkId = text(framework["id"]);
    const std::string slaveId = text(task["slave_id"]);
    auto known = slaves.find(slaveId);
    const std::string host = known != slaves.end() ? known->second.hostname : slaveId;
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
    // A command task's executor has the task's id on the slave.
    std::string executorId = text(task["executor_id"]);
    if (executorId.empty()) executorId = text(task["id"]);
    listed.push_back({{frameworkId, text(task["id"]), text(task["name"]), taskState, host,
                       text(framework["user"]), formatNumber(scalar("cpus")),
                       formatMegabytes(scalar("mem")), formatMegabytes(scalar("disk"))},
                      slaveId,
                      {frameworkId, executorId},
                      !cli::isTerminal(taskState)});
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

  // The usage of live tasks: one request to each of their slaves. A task
  // that has ended, or whose slave does not answer, shows "-".
  std::vector<UsageQuery> queries;
  std::map<std::string, size_t> queryOf;  // by slave id
  for (const Listed& task : listed) {
    if (!task.live || queryOf.contains(task.slaveId)) continue;
    auto known = slaves.find(task.slaveId);
    if (known == slaves.end()) continue;
    auto pid = process::UPID::parse(known->second.pid);
    if (!pid) continue;
    queryOf[task.slaveId] = queries.size();
    queries.push_back({*pid, "slave " + task.slaveId + " (" + known->second.hostname + ")"});
  }
  askSlaves(queries, flags.timeout);
  for (const UsageQuery& query : queries) {
    if (!query.usage) {
      std::cerr << kProgram << ": " << query.usage.error().message
                << "; its tasks show '-' for RSS/LIMIT and TIME" << std::endl;
    }
  }

  std::vector<Row> rows;
  for (Listed& task : listed) {
    Usage usage{"-", "-"};
    auto query = queryOf.find(task.slaveId);
    if (task.live && query != queryOf.end() && queries[query->second].usage) {
      const SlaveUsage& measured = *queries[query->second].usage;
      if (auto found = measured.find(task.executor); found != measured.end()) {
        usage = found->second;
      }
    }
    task.row.push_back(usage.memory);
    task.row.push_back(usage.cpuTime);
    rows.push_back(std::move(task.row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a[0], a[1]) < std::tie(b[0], b[1]);
  });
  printTable({"FRAMEWORK", "TASK", "NAME", "STATE", "HOST", "USER", "CPUS", "MEM", "DISK",
              "RSS/LIMIT", "TIME"},
             rows);
  return cli::kExitSuccess;
}
