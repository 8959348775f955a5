// The master's documents about the whole cluster: /state, /state-summary,
// /slaves and /frameworks. Each is rendered in steps (renderInSteps), a
// bounded number of slaves or frameworks per event, so that a cluster of
// tens of thousands of slaves does not hold the master up.
#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "common/json.hpp"
#include "common/state_json.hpp"
#include "master/master.hpp"

namespace mesos::internal::master {

using json::Object;
using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

// A JSON array built element by element, as its text.
struct ArrayText {
  std::string text;  // the elements, separated by commas

  void add(const json::Value& value) {
    if (!text.empty()) text += ',';
    text += json::stringify(value);
  }
};

// `head`, with the arrays as further members: the text of the object
// {head..., "name": [elements], ...}.
std::string withArrays(const Object& head,
                       const std::vector<std::pair<const char*, const ArrayText*>>& arrays) {
  std::string text = json::stringify(head);
  text.pop_back();  // the closing brace
  bool first = head.empty();
  for (const auto& [name, array] : arrays) {
    if (!first) text += ',';
    first = false;
    text += json::stringify(json::Value(name));
    text += ":[";
    text += array->text;
    text += ']';
  }
  text += '}';
  return text;
}

// How many tasks are in each state: the TASK_* counts of /state-summary.
class TaskCounts {
 public:
  void count(TaskState state) {
    size_t index = static_cast<size_t>(state);
    if (index < counts_.size()) counts_[index]++;
  }
  void add(const TaskCounts& that) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += that.counts_[i];
  }
  // "TASK_STAGING": n, ... for every state there is (zeros included).
  void render(Object& object) const {
    for (int state = TaskState_MIN; state <= TaskState_MAX; ++state) {
      if (!TaskState_IsValid(state)) continue;
      object[TaskState_Name(static_cast<TaskState>(state))] = counts_[static_cast<size_t>(state)];
    }
  }

 private:
  static_assert(TaskState_MAX < 32, "TaskCounts holds states 0..31");
  std::array<uint64_t, 32> counts_{};
};

// What /state-summary learns about one slave from the frameworks' completed
// tasks before it renders the slave.
struct SlaveSummary {
  TaskCounts tasks;
  std::unordered_set<std::string> frameworkIds;
};

json::Array sortedArray(const std::unordered_set<std::string>& ids) {
  std::vector<std::string> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  return json::Array(sorted.begin(), sorted.end());
}

}  // namespace

Future<Response> Master::stateEndpoint(const Request&) {
  struct Render {
    process::Promise<Response> response;
    Object head;
    ArrayText slaves, frameworks, completed;
    Resources total, used, offered;
  };
  auto render = std::make_shared<Render>();
  render->head = stateHead();
  std::vector<Pass> passes;
  passes.push_back({slaveIds(), [this, render](const std::string& id) {
                      Slave* s = slave(id);
                      if (s == nullptr) return false;
                      Object object = slaveJson(*s);
                      render->total += s->total;
                      render->used += s->used;
                      for (const std::string& offerId : s->offers) {
                        auto it = offers_.find(offerId);
                        if (it != offers_.end()) render->offered += it->second.resources;
                      }
                      render->slaves.add(object);
                      return true;
                    }});
  passes.push_back({frameworkIds(), [this, render](const std::string& id) {
                      Framework* f = framework(id);
                      if (f == nullptr) return false;
                      render->frameworks.add(frameworkJson(*f));
                      return true;
                    }});
  passes.push_back({completedFrameworkIds(), [this, render](const std::string& id) {
                      const Framework* f = completedFramework(id);
                      if (f == nullptr) return false;
                      render->completed.add(completedFrameworkJson(*f));
                      return true;
                    }});
  renderInSteps(std::move(passes), [render] {
    render->head["total_resources"] = json::fromResources(render->total);
    render->head["used_resources"] = json::fromResources(render->used);
    render->head["offered_resources"] = json::fromResources(render->offered);
    ArrayText none;
    render->response.set(Response::ok(withArrays(render->head,
                                                 {{"slaves", &render->slaves},
                                                  {"recovered_slaves", &none},
                                                  {"frameworks", &render->frameworks},
                                                  {"completed_frameworks", &render->completed},
                                                  {"orphan_tasks", &none},
                                                  {"unregistered_frameworks", &none}})));
  });
  return render->response.future();
}

Future<Response> Master::slavesEndpoint(const Request&) {
  struct Render {
    process::Promise<Response> response;
    ArrayText slaves;
  };
  auto render = std::make_shared<Render>();
  std::vector<Pass> passes;
  passes.push_back({slaveIds(), [this, render](const std::string& id) {
                      Slave* s = slave(id);
                      if (s == nullptr) return false;
                      render->slaves.add(slaveJson(*s));
                      return true;
                    }});
  renderInSteps(std::move(passes), [render] {
    ArrayText none;
    render->response.set(Response::ok(
        withArrays(Object(), {{"slaves", &render->slaves}, {"recovered_slaves", &none}})));
  });
  return render->response.future();
}

Future<Response> Master::frameworksEndpoint(const Request&) {
  struct Render {
    process::Promise<Response> response;
    ArrayText frameworks, completed;
  };
  auto render = std::make_shared<Render>();
  std::vector<Pass> passes;
  passes.push_back({frameworkIds(), [this, render](const std::string& id) {
                      Framework* f = framework(id);
                      if (f == nullptr) return false;
                      render->frameworks.add(frameworkJson(*f));
                      return true;
                    }});
  passes.push_back({completedFrameworkIds(), [this, render](const std::string& id) {
                      const Framework* f = completedFramework(id);
                      if (f == nullptr) return false;
                      render->completed.add(completedFrameworkJson(*f));
                      return true;
                    }});
  renderInSteps(std::move(passes), [render] {
    ArrayText none;
    render->response.set(Response::ok(withArrays(Object(),
                                                 {{"frameworks", &render->frameworks},
                                                  {"completed_frameworks", &render->completed},
                                                  {"unregistered_frameworks", &none}})));
  });
  return render->response.future();
}

// /state-summary: counts, not lists. Two passes, neither rendering a task:
// the registered frameworks first (each framework's counts over its live
// and completed tasks, rendered at once; its completed tasks' counts are
// also kept by slave), then the slaves (each slave's live tasks counted
// from its own table, plus the completed ones kept for it). The cost of a
// step is bounded by the tasks of the entries it visits.
Future<Response> Master::stateSummaryEndpoint(const Request&) {
  struct Render {
    process::Promise<Response> response;
    Object head;
    ArrayText slaves, frameworks;
    std::unordered_map<std::string, SlaveSummary> completedBySlave;
  };
  auto render = std::make_shared<Render>();
  render->head["hostname"] = info_.hostname();
  render->head["cluster"] = flags_.cluster;
  std::vector<Pass> passes;
  passes.push_back({frameworkIds(), [this, render](const std::string& id) {
                      Framework* f = framework(id);
                      if (f == nullptr) return false;
                      TaskCounts counts;
                      std::unordered_set<std::string> slaves;
                      for (const auto& [taskId, task] : f->tasks) {
                        counts.count(task->task.state());
                        slaves.insert(task->task.slave_id().value());
                      }
                      for (const Task& task : f->completedTasks) {
                        counts.count(task.state());
                        slaves.insert(task.slave_id().value());
                        SlaveSummary& summary = render->completedBySlave[task.slave_id().value()];
                        summary.tasks.count(task.state());
                        summary.frameworkIds.insert(id);
                      }
                      Object object = frameworkSummaryJson(*f);
                      counts.render(object);
                      object["slave_ids"] = sortedArray(slaves);
                      render->frameworks.add(object);
                      return true;
                    }});
  passes.push_back({slaveIds(), [this, render](const std::string& id) {
                      Slave* s = slave(id);
                      if (s == nullptr) return false;
                      TaskCounts counts;
                      std::unordered_set<std::string> frameworks;
                      if (auto it = render->completedBySlave.find(id);
                          it != render->completedBySlave.end()) {
                        counts.add(it->second.tasks);
                        frameworks = std::move(it->second.frameworkIds);
                        render->completedBySlave.erase(it);
                      }
                      for (const auto& [frameworkId, tasks] : s->tasks) {
                        // Only registered frameworks' tasks, as in their own entries.
                        if (tasks.empty() || frameworks_.count(frameworkId) == 0) continue;
                        frameworks.insert(frameworkId);
                        for (const auto& [taskId, task] : tasks) counts.count(task->task.state());
                      }
                      Object object = slaveJson(*s);
                      counts.render(object);
                      object["framework_ids"] = sortedArray(frameworks);
                      render->slaves.add(object);
                      return true;
                    }});
  renderInSteps(std::move(passes), [render] {
    render->response.set(Response::ok(withArrays(
        render->head, {{"slaves", &render->slaves}, {"frameworks", &render->frameworks}})));
  });
  return render->response.future();
}

}  // namespace mesos::internal::master
