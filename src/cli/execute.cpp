// mesos-execute: runs one shell command as a task on the cluster, prints its
// state changes, and exits with the command's exit status (0 when it
// finished; its exit status, or 1, when it failed; 1 when it was killed,
// lost or refused, or when --timeout passed before it could be launched).
// With --task_group it launches a group of tasks (LAUNCH_GROUP, on the
// slave's default executor) and exits 0 once every task finished, 1 as
// soon as the last one ended when any did not.
//
//   mesos-execute --master=HOST:PORT --task_group=file:///PATH [--role...]
//   mesos-execute --master=HOST:PORT --task=file:///PATH [--role...]
//   mesos-execute --master=HOST:PORT --name=NAME --command=CMD
//                 [--resources=cpus:1;mem:128] [--env='{"NAME":"value"}']
//                 [--role=ROLE] [--framework_name=NAME] [--checkpoint]
//                 [--principal=PRINCIPAL [--secret=SECRET]] [--timeout=DURATION]
//                 [--uris=URI,... | --uris='[{"value": URI, "executable": true}, ...]']
//
// docs/mesos-execute.md describes the flags and the messages.
#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/flags.hpp"
#include "common/json.hpp"
#include "common/json_flag.hpp"
#include "common/protobuf_json.hpp"
#include "common/strings.hpp"
#include "common/task_states.hpp"
#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"

namespace {

using namespace mesos;
using mesos::internal::jsonFlagText;

// How long mesos-execute waits for the master before it says so.
constexpr std::chrono::seconds kStillWaitingNotice{5};

struct ExecuteFlags : flags::FlagSet {
  ExecuteFlags() {
    add(&master, "master",
        "The master: host:port or master@ip:port, or zk://host:port[,...]/path (the leader of "
        "the masters' group in ZooKeeper), or file:///path naming a file that holds either");
    add(&name, "name", "Name of the task (and its id)");
    add(&command, "command", "Shell command to run");
    add(&resources, "resources",
        "Resources of the task; one written with a role (cpus(prod):1) is taken only from "
        "what is reserved for that role, which must be --role",
        std::string("cpus:1;mem:128"));
    add(&env, "env",
        "Environment variables of the command, a JSON object of names and values "
        "('{\"NAME\":\"value\"}'), or file:///PATH of a file holding one");
    add(&role, "role",
        "Role to register with; the task takes resources written without a role from "
        "what is reserved for it first, then from unreserved ones",
        std::string("*"));
    add(&framework_name, "framework_name", "Name of the framework",
        std::string("mesos-execute instance"));
    add(&checkpoint, "checkpoint",
        "Register as a checkpointing framework: the task survives a restart of its slave",
        false);
    add(&uris, "uris",
        "Files the slave fetches into the task's sandbox before it runs: a comma-separated "
        "list of absolute paths, file://, http:// and https:// URIs (archives are extracted, "
        "files are not executable), or a JSON array of CommandInfo.URI objects saying so "
        "per file ('[{\"value\":\"/srv/run.sh\",\"executable\":true}]'; fields value, "
        "executable, extract, cache, output_file; docs/fetcher.md)");
    add(&user, "user",
        "User the task runs as (CommandInfo.user; default: the framework's user, the one "
        "running mesos-execute); the slave switches to it when it runs as root");
    add(&principal, "principal",
        "Principal of the framework; with --secret, the principal it authenticates as");
    add(&secret, "secret",
        "Secret to authenticate with (CRAM-MD5) as --principal, for a master that requires "
        "authentication (--authenticate_frameworks)");
    add(&task_group, "task_group",
        "A group of tasks to launch together on one slave's default executor instead of "
        "--command: Apache's JSON of a TaskGroupInfo ({\"tasks\":[{\"name\":...,"
        "\"task_id\":{\"value\":...},\"resources\":[...],\"command\":{\"value\":...}}]}), "
        "inline or in a file given as file:///PATH or /PATH; agent_id need not be set. "
        "Not with --name, --command, --env or --uris");
    add(&task, "task",
        "One task to launch instead of --command: Apache's JSON of a TaskInfo ({\"name\":...,"
        "\"task_id\":{\"value\":...},\"resources\":[...],\"command\":{\"value\":...},"
        "\"container\":{...}}), inline or in a file given as file:///PATH or /PATH; agent_id "
        "need not be set. Not with --name, --command, --env, --uris, --volumes, --networks, "
        "--docker_image or --task_group");
    add(&volumes, "volumes",
        "Volumes of the task's container (a MESOS container; the slave needs the "
        "filesystem/linux isolator): a JSON array of Volume objects, inline or in a file "
        "given as file:///PATH or /PATH ('[{\"container_path\":\"data\",\"host_path\":"
        "\"/srv/data\",\"mode\":\"RO\"}]'; a relative host_path is a directory of the "
        "sandbox, a relative container_path is in the sandbox; docs/isolation.md)");
    add(&docker_image, "docker_image",
        "The Docker image the task runs in, named as the Docker CLI names it (busybox, "
        "busybox:1.36, registry:5000/team/app:v2); the slave needs --image_providers=docker "
        "(docs/container-images.md)");
    add(&containerizer, "containerizer",
        "Which containerizer runs --docker_image: mesos (the slave's own containers) or "
        "docker (a Docker daemon)",
        std::string("mesos"));
    add(&shell, "shell",
        "Run --command with /bin/sh -c; with --no-shell the task gives no command and runs its "
        "image's entrypoint (--docker_image, docker/runtime)",
        true);
    add(&networks, "networks",
        "CNI networks the task's container joins, comma-separated (a MESOS container with one "
        "NetworkInfo per name; the slave needs the network/cni isolator, docs/cni.md)");
    add(&timeout, "timeout",
        "Give up (status 1) when the task has not been launched this long after starting, "
        "e.g. 30secs (default: wait for ever)");
  }
  Result<void> validate() const override {
    if (!master) return Error{"missing --master (e.g. --master=127.0.0.1:5050)"};
    if (task && task_group) return Error{"--task and --task_group: give one"};
    if (task_group || task) {
      if (name || command || env || uris || volumes || networks || docker_image) {
        return Error{
            "--name, --command, --env, --uris, --volumes, --networks and --docker_image describe "
            "one task: not with --task_group or --task (their JSON describes each task)"};
      }
      return {};
    }
    if (!name) return Error{"missing --name (e.g. --name=hello)"};
    if (shell && !command) return Error{"missing --command (e.g. --command='echo hello')"};
    if (!shell && command) {
      return Error{"--no-shell runs the image's entrypoint: not with --command"};
    }
    if (!shell && !docker_image) {
      return Error{"--no-shell runs the image's entrypoint: it needs --docker_image"};
    }
    if (containerizer != "mesos" && containerizer != "docker") {
      return Error{"--containerizer: '" + containerizer + "' is not mesos or docker"};
    }
    if (containerizer == "docker" && volumes) {
      return Error{"--volumes are for --containerizer=mesos"};
    }
    auto parsed = Resources::parse(resources);
    if (!parsed) return Error{"--resources: " + parsed.error().message};
    if (role.empty()) return Error{"--role may not be empty (the default role is '*')"};
    for (const Resource& r : *parsed) {
      if (r.role() == "*" || r.role() == role) continue;
      return Error{"--resources: " + Resources(r).toString() + " is reserved for role '" +
                   r.role() + "', and this framework registers with role '" + role +
                   "' (--role), so no offer to it can hold it: write it without a role, or "
                   "pass --role=" + r.role()};
    }
    if (secret && !principal) return Error{"--secret needs --principal (who the secret is for)"};
    if (timeout && *timeout <= flags::Duration::zero()) {
      return Error{"--timeout must be positive (e.g. --timeout=30secs)"};
    }
    return {};
  }
  std::optional<std::string> master;
  std::optional<std::string> name;
  std::optional<std::string> command;
  std::string resources;
  std::optional<std::string> env;
  std::string role;
  std::string framework_name;
  bool checkpoint;
  std::optional<std::string> uris;
  std::optional<std::string> user;
  std::optional<std::string> principal;
  std::optional<std::string> secret;
  std::optional<std::string> task_group;
  std::optional<std::string> task;
  std::optional<std::string> volumes;
  std::optional<std::string> docker_image;
  std::string containerizer;
  bool shell;
  std::optional<std::string> networks;
  std::optional<flags::Duration> timeout;
};

// The executor mesos-execute gives a task group (Apache's: the slave's
// default executor, with these resources of its own).
constexpr const char* kGroupExecutorId = "default-executor";
constexpr const char* kGroupExecutorResources = "cpus:0.1;mem:32;disk:32";

// The group of --task_group: a TaskGroupInfo in Apache's JSON, inline or
// in a file (file:///PATH or /PATH). Each task's agent_id (slave_id) is
// set at launch. Fails with one line naming the task or the problem.
// A task of --task or --task_group, its slave left for the offer to give
// (a placeholder slave_id: the field is required).
void dropAgent(json::Value& task) {
  if (!task.isObject()) return;
  auto& fields = std::get<json::Object>(task.v);
  fields.erase("agent_id");
  fields["slave_id"] = json::Value(json::Object{{"value", json::Value(std::string())}});
}

// What a task of --task or --task_group must have. `name` names it in the
// error.
Result<void> checkTask(const TaskInfo& task, const std::string& flag) {
  const std::string name = "--" + flag + ": task '" + task.task_id().value() + "'";
  if (task.task_id().value().empty()) return Error{"--" + flag + ": a task has no task_id"};
  if (!task.has_command() || (task.command().value().empty() && task.command().shell())) {
    return Error{name + " has no command ({\"command\":{\"value\":\"...\"}})"};
  }
  return {};
}

// The task of --task: a TaskInfo in Apache's JSON, inline or in a file.
Result<TaskInfo> parseTask(const std::string& value) {
  auto text = jsonFlagText("task", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed || !parsed->isObject()) {
    return Error{"--task: expected a JSON object of a TaskInfo ({\"name\":...,\"task_id\":...})" +
                 (parsed ? std::string() : ": " + parsed.error().message)};
  }
  json::Value document = *parsed;
  dropAgent(document);
  TaskInfo task;
  if (auto read = fromJson(json::stringify(document), &task); !read) {
    return Error{"--task: " + read.error().message};
  }
  if (auto checked = checkTask(task, "task"); !checked) return checked.error();
  if (task.has_executor()) {
    return Error{"--task: task '" + task.task_id().value() +
                 "' names an executor: mesos-execute runs command tasks"};
  }
  return task;
}

Result<TaskGroupInfo> parseTaskGroup(const std::string& value) {
  auto text = jsonFlagText("task_group", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed || !parsed->isObject()) {
    return Error{"--task_group: expected a JSON object of a TaskGroupInfo ({\"tasks\":[...]})" +
                 (parsed ? std::string() : ": " + parsed.error().message)};
  }
  // The slave is the offer's: a placeholder until then (it is required).
  json::Value document = *parsed;
  auto& object = std::get<json::Object>(document.v);
  if (auto tasks = object.find("tasks");
      tasks != object.end() && std::holds_alternative<json::Array>(tasks->second.v)) {
    for (json::Value& task : std::get<json::Array>(tasks->second.v)) dropAgent(task);
  }
  TaskGroupInfo group;
  if (auto read = fromJson(json::stringify(document), &group); !read) {
    return Error{"--task_group: " + read.error().message};
  }
  if (group.tasks_size() == 0) return Error{"--task_group: the group has no tasks"};
  for (const TaskInfo& task : group.tasks()) {
    if (auto checked = checkTask(task, "task_group"); !checked) return checked.error();
    if (task.has_executor()) {
      return Error{"--task_group: task '" + task.task_id().value() +
                   "' names an executor: the group's (the default executor) runs it"};
    }
  }
  return group;
}

// The container of --volumes: a JSON array of Volume objects, inline or in
// a file (file:///PATH or /PATH), in a MESOS ContainerInfo.
Result<ContainerInfo> parseVolumes(const std::string& value) {
  auto text = jsonFlagText("volumes", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed || !parsed->isArray()) {
    return Error{
        "--volumes: expected a JSON array of Volume objects ([{\"container_path\":...,"
        "\"host_path\":...,\"mode\":\"RW\"}])" +
        (parsed ? std::string() : ": " + parsed.error().message)};
  }
  ContainerInfo container;
  json::Value document(
      json::Object{{"type", json::Value(std::string("MESOS"))}, {"volumes", *parsed}});
  if (auto read = fromJson(json::stringify(document), &container); !read) {
    return Error{"--volumes: " + read.error().message};
  }
  return container;
}

// The variables of --env: a JSON object whose values are strings, given
// inline or as file:///PATH. Fails with one line saying what to write.
Result<std::map<std::string, std::string>> parseEnvironment(const std::string& value) {
  const std::string example = " (e.g. --env='{\"FOO\":\"bar\"}')";
  auto text = jsonFlagText("env", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed) {
    return Error{"--env: not JSON (" + parsed.error().message + "); give an object of names "
                 "and values" + example};
  }
  if (!parsed->isObject()) {
    return Error{"--env: expected a JSON object of names and values" + example};
  }
  std::map<std::string, std::string> variables;
  for (const auto& [name, variable] : parsed->object()) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return Error{"--env: '" + name + "' is not a variable name" + example};
    }
    if (!variable.isString()) {
      return Error{"--env: the value of '" + name + "' is not a string" + example};
    }
    variables[name] = variable.string();
  }
  return variables;
}

// The files of --uris: a comma-separated list of URIs, each fetched with
// the fetcher's defaults, or a JSON array of CommandInfo.URI objects
// (Apache Mesos's JSON field names). Fails with one line naming the entry.
Result<std::vector<CommandInfo::URI>> parseUris(const std::string& value) {
  const std::string example =
      " (e.g. --uris='[{\"value\":\"/srv/run.sh\",\"executable\":true}]')";
  std::vector<CommandInfo::URI> uris;
  size_t first = value.find_first_not_of(" \t\n");
  if (first == std::string::npos || value[first] != '[') {
    for (size_t start = 0; start <= value.size();) {
      size_t comma = value.find(',', start);
      std::string uri =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!uri.empty()) uris.emplace_back().set_value(uri);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (uris.empty()) return Error{"--uris: no URI given" + example};
    return uris;
  }
  auto parsed = json::parse(value);
  if (!parsed) return Error{"--uris: not JSON (" + parsed.error().message + ")" + example};
  if (!parsed->isArray() || parsed->array().empty()) {
    return Error{"--uris: expected a non-empty JSON array of objects" + example};
  }
  for (size_t i = 0; i < parsed->array().size(); i++) {
    const json::Value& entry = parsed->array()[i];
    std::string where = "--uris: entry " + std::to_string(i + 1);
    if (!entry.isObject()) return Error{where + " is not an object" + example};
    CommandInfo::URI& uri = uris.emplace_back();
    for (const auto& [key, field] : entry.object()) {
      if (key == "value" || key == "output_file") {
        if (!field.isString() || field.string().empty()) {
          return Error{where + ": '" + key + "' must be a non-empty string" + example};
        }
        key == "value" ? uri.set_value(field.string()) : uri.set_output_file(field.string());
      } else if (key == "executable" || key == "extract" || key == "cache") {
        if (!field.isBool()) return Error{where + ": '" + key + "' must be true or false"};
        if (key == "executable") uri.set_executable(field.boolean());
        if (key == "extract") uri.set_extract(field.boolean());
        if (key == "cache") uri.set_cache(field.boolean());
      } else {
        return Error{where + ": unknown field '" + key +
                     "' (fields: value, executable, extract, cache, output_file)"};
      }
    }
    if (!uri.has_value()) return Error{where + " has no 'value'" + example};
  }
  return uris;
}

double roundScalar(double value) { return std::round(value * 1000) / 1000; }

// What of `offer` the wanted resource `want` may be taken from, in that
// order: written without a role, what is reserved for the framework's
// `role`, then what is unreserved; written with a role (`cpus(prod):1`),
// only what is reserved for that role, as Apache Mesos's mesos-execute
// keeps it (ExecuteFlags::validate() refuses a role other than --role).
std::vector<const Resource*> pool(const Resources& offer, const Resource& want,
                                  const std::string& role) {
  std::vector<const Resource*> candidates;
  auto add = [&](const std::string& from) {
    for (const Resource& r : offer) {
      if (r.role() == from && r.name() == want.name() && r.type() == want.type()) {
        candidates.push_back(&r);
      }
    }
  };
  if (want.role() != "*") {
    add(want.role());
    return candidates;
  }
  if (role != "*") add(role);
  add("*");
  return candidates;
}

// The task's `wanted` resources taken from `offer` (`taken`), and what the
// offer lacks for them (`missing`, in the roles written): the task fits
// when nothing is missing.
struct Picked {
  Resources taken;
  Resources missing;
};

Picked pick(const Resources& offer, const Resources& wanted, const std::string& role) {
  Picked picked;
  for (const Resource& want : wanted) {
    std::vector<const Resource*> candidates = pool(offer, want, role);
    if (want.type() == Value::SCALAR) {
      double need = want.scalar().value();
      for (const Resource* candidate : candidates) {
        if (need <= 0) break;
        double take = std::min(need, candidate->scalar().value());
        Resource part = *candidate;
        part.mutable_scalar()->set_value(roundScalar(take));
        picked.taken += part;
        need = roundScalar(need - take);
      }
      if (need > 0) {
        Resource lacking = want;
        lacking.mutable_scalar()->set_value(need);
        picked.missing += lacking;
      }
      continue;
    }
    bool found = false;
    for (const Resource* candidate : candidates) {
      Resource part = *candidate;  // its role and reservation, the task's values
      part.clear_ranges();
      part.clear_set();
      if (want.has_ranges()) *part.mutable_ranges() = want.ranges();
      if (want.has_set()) *part.mutable_set() = want.set();
      if (Resources(*candidate).contains(Resources(part))) {
        picked.taken += part;
        found = true;
        break;
      }
    }
    if (!found) picked.missing += want;
  }
  if (picked.missing.empty() && !offer.contains(picked.taken)) picked.missing = wanted;
  return picked;
}

// How close `offer` comes to `wanted`: for each scalar the task asks for,
// the share of it the offer has where the task may take it (at most 1).
// Offers compare by their lowest share (the resource they lack most), then
// by the sum of shares.
std::pair<double, double> closeness(const Resources& offer, const Resources& wanted,
                                    const std::string& role) {
  double lowest = 1;
  double sum = 0;
  for (const Resource& want : wanted) {
    if (want.type() != Value::SCALAR || want.scalar().value() <= 0) continue;
    double have = 0;
    for (const Resource* candidate : pool(offer, want, role)) {
      have += candidate->scalar().value();
    }
    double share = std::min(1.0, have / want.scalar().value());
    lowest = std::min(lowest, share);
    sum += share;
  }
  return {lowest, sum};
}

class CommandScheduler : public Scheduler {
 public:
  CommandScheduler(const ExecuteFlags& flags, std::map<std::string, std::string> environment,
                   std::vector<CommandInfo::URI> uris, std::optional<TaskGroupInfo> group,
                   std::optional<TaskInfo> task, std::optional<ContainerInfo> container)
      : flags_(flags),
        group_(std::move(group)),
        task_(std::move(task)),
        resources_(wanted(flags, group_, task_)),
        environment_(std::move(environment)),
        uris_(std::move(uris)),
        container_(std::move(container)) {}

  int exitCode() const { return exitCode_.load(); }

  // Waits until `deadline` for the framework to be registered (or the
  // driver to end). Returns false when the time passed first. Any thread
  // but the driver's.
  bool awaitRegistration(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_until(lock, deadline, [this] { return registered_ || ended_; });
  }

  // Waits until `deadline` for the task to be launched or the driver to
  // end. Returns false when the time passed first. Any thread but the
  // driver's.
  bool awaitLaunch(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_until(lock, deadline, [this] { return launched_ || ended_; });
  }

  // Gives up for --timeout: prints why and sets the exit status to 1.
  void giveUp(flags::Duration timeout) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::cerr << "mesos-execute: ";
    if (!registered_) {
      std::cerr << "not registered with master " << *flags_.master;
    } else {
      std::cerr << "no offer fit " << what();
    }
    std::cerr << " within " << flags::formatDuration(timeout) << " (--timeout); giving up"
              << std::endl;
    exitCode_ = 1;
  }

  // The driver has ended (join() returned): wakes awaitLaunch().
  void ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    changed_.notify_all();
  }

  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    registered_ = true;
    changed_.notify_all();
    std::cout << "Framework registered with " << id.value() << std::endl;
  }
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    std::lock_guard<std::mutex> lock(mutex_);
    bool unfit = false;
    for (const Offer& offer : offers) {
      Resources offered(offer.resources());
      std::optional<Resources> taken;
      if (!launched_) {
        Picked picked = pick(offered, resources_, flags_.role);
        if (picked.missing.empty()) taken = std::move(picked.taken);
      }
      if (taken && group_) {
        launchGroup(driver, offer);
        continue;
      }
      if (!taken) {
        if (!launched_) {
          unfit = true;
          noteUnfit(offer, offered);
        }
        driver->declineOffer(offer.id());
        continue;
      }
      launch(driver, offer, *taken);
    }
    if (unfit && !launched_ && !reportedUnfit_) {
      reportedUnfit_ = true;
      reportUnfit();
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override {
    std::cout << "Received status update " << TaskState_Name(status.state()) << " for task "
              << status.task_id().value()
              << (status.message().empty() ? "" : ": " + status.message()) << std::endl;
    if (status.has_source()) {
      std::cout << "  source: " << TaskStatus::Source_Name(status.source()) << std::endl;
    }
    if (status.has_reason()) {
      std::cout << "  reason: " << TaskStatus::Reason_Name(status.reason()) << std::endl;
    }
    if (group_) {
      groupStatus(driver, status);
      return;
    }
    switch (status.state()) {
      case TASK_FINISHED:
        exitCode_ = 0;
        break;
      case TASK_FAILED: {
        int code = 1;
        std::smatch match;
        static const std::regex kStatus("exited with status (\\d+)");
        if (std::regex_search(status.message(), match, kStatus)) {
          code = std::atoi(match[1].str().c_str());
          if (code == 0) code = 1;
        }
        exitCode_ = code;
        break;
      }
      case TASK_KILLED:
      case TASK_LOST:
      case TASK_ERROR:
        exitCode_ = 1;
        break;
      default:
        return;
    }
    driver->stop();
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver* driver, const std::string& message) override {
    std::cerr << "mesos-execute: " << message << std::endl;
    exitCode_ = 1;
    driver->abort();
  }

 private:
  // What an offer must hold: --resources, --task's, or the group's tasks'
  // and its executor's.
  static Resources wanted(const ExecuteFlags& flags, const std::optional<TaskGroupInfo>& group,
                          const std::optional<TaskInfo>& task) {
    if (task) return Resources(task->resources());
    if (!group) return Resources::parse(flags.resources).value();
    Resources total = Resources::parse(kGroupExecutorResources).value();
    for (const TaskInfo& task : group->tasks()) total += Resources(task.resources());
    return total;
  }

  std::string what() const {
    return group_ ? "task group of " + std::to_string(group_->tasks_size()) + " task(s)"
                  : "task '" + name() + "'";
  }

  // The task's id (--name, or --task's).
  std::string name() const { return task_ ? task_->task_id().value() : *flags_.name; }

  // Each task's resources, and the executor's, taken from `offer`, in one
  // LAUNCH_GROUP. REQUIRES: mutex_ held; the offer holds them all.
  void launchGroup(SchedulerDriver* driver, const Offer& offer) {
    Resources left(offer.resources());
    Offer::Operation operation;
    operation.set_type(Offer::Operation::LAUNCH_GROUP);
    ExecutorInfo* executor = operation.mutable_launch_group()->mutable_executor();
    executor->set_type(ExecutorInfo::DEFAULT);
    executor->mutable_executor_id()->set_value(kGroupExecutorId);
    Resources executorTaken =
        pick(left, Resources::parse(kGroupExecutorResources).value(), flags_.role).taken;
    left -= executorTaken;
    *executor->mutable_resources() = executorTaken.proto();
    for (TaskInfo task : group_->tasks()) {
      *task.mutable_slave_id() = offer.slave_id();
      Resources taken = pick(left, Resources(task.resources()), flags_.role).taken;
      left -= taken;
      *task.mutable_resources() = taken.proto();
      *operation.mutable_launch_group()->mutable_task_group()->add_tasks() = task;
      running_.insert(task.task_id().value());
    }
    driver->acceptOffers({offer.id()}, {operation});
    launched_ = true;
    changed_.notify_all();
    std::cout << "Submitted task group with tasks [";
    for (int i = 0; i < group_->tasks_size(); i++) {
      std::cout << (i > 0 ? ", " : "") << group_->tasks(i).task_id().value();
    }
    std::cout << "] to slave " << offer.slave_id().value() << std::endl;
  }

  // A task of the group changed: the run ends when the last has ended,
  // with 0 only when every task finished.
  void groupStatus(SchedulerDriver* driver, const TaskStatus& status) {
    if (!isTerminalState(status.state())) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_.erase(status.task_id().value()) == 0) return;
    if (status.state() != TASK_FINISHED) failed_ = true;
    if (!running_.empty()) return;
    exitCode_ = failed_ ? 1 : 0;
    driver->stop();
  }

  // REQUIRES: mutex_ held.
  void launch(SchedulerDriver* driver, const Offer& offer, const Resources& taken) {
    if (task_) {
      TaskInfo task = *task_;
      *task.mutable_slave_id() = offer.slave_id();
      *task.mutable_resources() = taken.proto();
      submit(driver, offer, task);
      return;
    }
    TaskInfo task;
    task.set_name(*flags_.name);
    task.mutable_task_id()->set_value(*flags_.name);
    task.mutable_slave_id()->CopyFrom(offer.slave_id());
    if (flags_.shell) {
      task.mutable_command()->set_value(*flags_.command);
    } else {
      task.mutable_command()->set_shell(false);
    }
    if (flags_.user) task.mutable_command()->set_user(*flags_.user);
    for (const CommandInfo::URI& uri : uris_) *task.mutable_command()->add_uris() = uri;
    for (const auto& [name, value] : environment_) {
      auto* variable = task.mutable_command()->mutable_environment()->add_variables();
      variable->set_name(name);
      variable->set_value(value);
    }
    *task.mutable_resources() = taken.proto();
    if (container_) *task.mutable_container() = *container_;
    submit(driver, offer, task);
  }

  // REQUIRES: mutex_ held.
  void submit(SchedulerDriver* driver, const Offer& offer, const TaskInfo& task) {
    driver->launchTasks(offer.id(), {task});
    launched_ = true;
    changed_.notify_all();
    std::cout << "Submitted task '" << name() << "' to slave " << offer.slave_id().value()
              << std::endl;
  }

  // Keeps the offer that comes closest to fitting (see closeness()).
  // REQUIRES: mutex_ held.
  void noteUnfit(const Offer& offer, const Resources& offered) {
    auto score = closeness(offered, resources_, flags_.role);
    if (largest_ && score <= largestScore_) return;
    largest_ = offer;
    largestScore_ = score;
  }

  // REQUIRES: mutex_ held, largest_ set.
  void reportUnfit() {
    Resources offered(largest_->resources());
    Resources missing = pick(offered, resources_, flags_.role).missing;
    std::cout << "No offer fits " << what() << " (" << resources_.toString()
              << "); the largest offer so far, from slave " << largest_->slave_id().value()
              << " (" << largest_->hostname() << "), has " << offered.toString();
    if (!missing.empty()) std::cout << " and lacks " << missing.toString();
    std::cout << ". Waiting for an offer that fits"
              << (flags_.timeout ? " for up to " + flags::formatDuration(*flags_.timeout) : "")
              << "." << std::endl;
  }

  const ExecuteFlags& flags_;
  const std::optional<TaskGroupInfo> group_;
  const std::optional<TaskInfo> task_;
  const Resources resources_;
  const std::map<std::string, std::string> environment_;
  const std::vector<CommandInfo::URI> uris_;
  const std::optional<ContainerInfo> container_;
  std::atomic<int> exitCode_{1};

  std::mutex mutex_;
  std::condition_variable changed_;
  bool registered_ = false;
  bool launched_ = false;
  bool ended_ = false;
  bool reportedUnfit_ = false;
  std::optional<Offer> largest_;
  std::set<std::string> running_;  // the group's tasks not yet ended
  bool failed_ = false;            // one of them did not finish
  std::pair<double, double> largestScore_{0, 0};
};

}  // namespace

int main(int argc, char** argv) {
  ExecuteFlags flags;
  auto extra = flags.load("MESOS_", argc, argv);
  if (!extra) {
    std::cerr << "mesos-execute: " << extra.error().message << " (see --help)" << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage("mesos-execute");
    return 0;
  }
  if (!extra->empty()) {
    std::cerr << "mesos-execute: unexpected argument '" << extra->front()
              << "' (flags look like --name=value; see --help)" << std::endl;
    return 1;
  }
  std::map<std::string, std::string> environment;
  if (flags.env) {
    auto parsed = parseEnvironment(*flags.env);
    if (!parsed) {
      std::cerr << "mesos-execute: " << parsed.error().message << std::endl;
      return 1;
    }
    environment = std::move(parsed).value();
  }
  std::vector<CommandInfo::URI> uris;
  if (flags.uris) {
    auto parsed = parseUris(*flags.uris);
    if (!parsed) {
      std::cerr << "mesos-execute: " << parsed.error().message << std::endl;
      return 1;
    }
    uris = std::move(parsed).value();
  }
  std::optional<TaskGroupInfo> group;
  if (flags.task_group) {
    auto parsed = parseTaskGroup(*flags.task_group);
    if (!parsed) {
      std::cerr << "mesos-execute: " << parsed.error().message << std::endl;
      return 1;
    }
    group = std::move(parsed).value();
  }
  std::optional<TaskInfo> single;
  if (flags.task) {
    auto parsed = parseTask(*flags.task);
    if (!parsed) {
      std::cerr << "mesos-execute: " << parsed.error().message << std::endl;
      return 1;
    }
    single = std::move(parsed).value();
  }
  std::optional<ContainerInfo> container;
  if (flags.volumes) {
    auto parsed = parseVolumes(*flags.volumes);
    if (!parsed) {
      std::cerr << "mesos-execute: " << parsed.error().message << std::endl;
      return 1;
    }
    container = std::move(parsed).value();
  }
  if (flags.docker_image) {
    if (!container) container.emplace();
    if (flags.containerizer == "docker") {
      container->set_type(ContainerInfo::DOCKER);
      container->mutable_docker()->set_image(*flags.docker_image);
    } else {
      container->set_type(ContainerInfo::MESOS);
      Image* image = container->mutable_mesos()->mutable_image();
      image->set_type(Image::DOCKER);
      image->mutable_docker()->set_name(*flags.docker_image);
      }
    }
  if (flags.networks) {
    if (!container) container.emplace().set_type(ContainerInfo::MESOS);
    for (const std::string& network :
         mesos::internal::strings::splitNonEmpty(*flags.networks, ',')) {
      container->add_network_infos()->set_name(network);
    }
    if (container->network_infos_size() == 0) {
      std::cerr << "mesos-execute: --networks names no network (e.g. --networks=apps)" << std::endl;
      return 1;
    }
  }
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;

  CommandScheduler scheduler(flags, std::move(environment), std::move(uris), std::move(group),
                             std::move(single), std::move(container));
  FrameworkInfo framework;
  framework.set_name(flags.framework_name);
  framework.set_role(flags.role);
  framework.set_checkpoint(flags.checkpoint);
  if (flags.principal) framework.set_principal(*flags.principal);
  std::unique_ptr<MesosSchedulerDriver> driver;
  if (flags.secret) {
    Credential credential;
    credential.set_principal(*flags.principal);
    credential.set_secret(*flags.secret);
    driver = std::make_unique<MesosSchedulerDriver>(&scheduler, framework, *flags.master,
                                                    credential);
  } else {
    driver = std::make_unique<MesosSchedulerDriver>(&scheduler, framework, *flags.master);
  }
  if (driver->start() != DRIVER_RUNNING) return 1;  // error() has said why
  // Says once when the master has not answered for a while (an address
  // with nothing behind it looks the same as a slow master), then, with
  // --timeout, gives up when the task has not been launched in time.
  auto started = std::chrono::steady_clock::now();
  std::thread watchdog([&] {
    auto notice = started + kStillWaitingNotice;
    auto deadline = flags.timeout ? std::optional(started + *flags.timeout) : std::nullopt;
    if ((!deadline || notice < *deadline) && !scheduler.awaitRegistration(notice)) {
      std::cerr << "mesos-execute: still waiting for master " << *flags.master
                << " to answer after " << flags::formatDuration(kStillWaitingNotice)
                << (flags.timeout ? "; giving up after " + flags::formatDuration(*flags.timeout)
                                  : " (is it running, and is this the address it advertises? "
                                    "--timeout bounds the wait)")
                << std::endl;
    }
    if (!deadline || scheduler.awaitLaunch(*deadline)) return;
    scheduler.giveUp(*flags.timeout);
    driver->stop();
  });
  driver->join();
  scheduler.ended();
  watchdog.join();
  return scheduler.exitCode();
}
