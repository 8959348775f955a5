// /tasks: a page of the tasks the master knows (live, and the completed ones
// it keeps for registered and completed frameworks), ordered by start time.
//
//   /master/tasks?limit=100&offset=0&order=desc&framework_id=F&task_id=T
//
// The master keeps no index of tasks by start time, so a page looks at
// every task once, in steps (a slave's live tasks, or a framework's
// completed ones, per visit), keeping only the offset + limit tasks that
// come first: memory O(offset + limit), time O(tasks * log(offset + limit))
// spread over the steps. With framework_id it looks at that framework's
// tasks only.
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <tuple>

#include "common/json.hpp"
#include "common/state_json.hpp"
#include "master/master.hpp"

namespace mesos::internal::master {

using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

constexpr uint64_t kDefaultTaskLimit = 100;

// Where a task falls in the order: its start time (the timestamp of its
// first status update), then, for tasks that have none yet (staging, so
// the newest), their launch order; then ids, so that the order is total and
// pages do not overlap.
struct TaskKey {
  double start = 0;
  uint64_t launch = 0;
  std::string frameworkId;
  std::string taskId;

  auto tie() const { return std::tie(start, launch, frameworkId, taskId); }
};

TaskKey keyOf(const Task& task, uint64_t launchOrder) {
  TaskKey key;
  if (task.statuses_size() > 0) {
    key.start = task.statuses(0).timestamp();
  } else {
    key.start = std::numeric_limits<double>::infinity();
    key.launch = launchOrder;
  }
  key.frameworkId = task.framework_id().value();
  key.taskId = task.task_id().value();
  return key;
}

TaskKey keyOf(const CompletedTask& task, const std::string& frameworkId) {
  TaskKey key;
  key.start = task.start;
  key.frameworkId = frameworkId;
  key.taskId = task.id;
  return key;
}

// The tasks of a page being gathered: the first `wanted` in the order.
class Page {
 public:
  Page(bool ascending, uint64_t wanted, std::optional<std::string> taskId)
      : ascending_(ascending), wanted_(wanted), taskId_(std::move(taskId)),
        kept_(Later{ascending}) {}

  // `json` is only asked for when the task is kept.
  template <typename Json>
  void consider(TaskKey key, Json json) {
    if (wanted_ == 0) return;
    if (taskId_ && key.taskId != *taskId_) return;
    if (kept_.size() == wanted_) {
      if (!before(ascending_, key, kept_.top().key)) return;
      kept_.pop();
    }
    kept_.push(Entry{std::move(key), json()});
  }

  // {"tasks": [those from `offset` on, in order]}
  std::string render(uint64_t offset) {
    std::vector<Entry> entries;
    entries.reserve(kept_.size());
    while (!kept_.empty()) {
      entries.push_back(kept_.top());
      kept_.pop();
    }
    std::reverse(entries.begin(), entries.end());  // the heap gave the last first
    std::string out = "{\"tasks\":[";
    for (size_t i = offset; i < entries.size(); ++i) {
      if (i > offset) out += ',';
      out += *entries[i].json;
    }
    return out + "]}";
  }

 private:
  struct Entry {
    TaskKey key;
    Fragment json;
  };
  static bool before(bool ascending, const TaskKey& a, const TaskKey& b) {
    return ascending ? a.tie() < b.tie() : b.tie() < a.tie();
  }
  // Heap order: the entry that comes last on top.
  struct Later {
    bool ascending;
    bool operator()(const Entry& a, const Entry& b) const {
      return before(ascending, a.key, b.key);
    }
  };

  bool ascending_;
  uint64_t wanted_;
  std::optional<std::string> taskId_;
  std::priority_queue<Entry, std::vector<Entry>, Later> kept_;
};

// A non-negative integer query parameter; `fallback` when absent.
Result<uint64_t> count(const std::map<std::string, std::string>& query, const std::string& name,
                       uint64_t fallback) {
  auto it = query.find(name);
  if (it == query.end()) return fallback;
  const std::string& text = it->second;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return Error{"'" + name + "' must be a non-negative integer, not '" + text + "'"};
  }
  return value;
}

}  // namespace

Future<Response> Master::tasksEndpoint(const Request& request) {
  std::map<std::string, std::string> query = request.queryParameters();
  auto limit = count(query, "limit", kDefaultTaskLimit);
  if (!limit) return Response::badRequest(limit.error().message + "\n");
  auto offset = count(query, "offset", 0);
  if (!offset) return Response::badRequest(offset.error().message + "\n");
  bool ascending = false;
  if (auto order = query.find("order"); order != query.end()) {
    if (order->second != "asc" && order->second != "desc") {
      return Response::badRequest("'order' must be 'asc' or 'desc', not '" + order->second +
                                  "'\n");
    }
    ascending = order->second == "asc";
  }
  std::optional<std::string> frameworkId, taskId;
  if (auto it = query.find("framework_id"); it != query.end()) frameworkId = it->second;
  if (auto it = query.find("task_id"); it != query.end()) taskId = it->second;

  uint64_t wanted = *limit > std::numeric_limits<uint64_t>::max() - *offset
                        ? std::numeric_limits<uint64_t>::max()
                        : *offset + *limit;
  struct Render {
    process::Promise<Response> response;
    std::optional<Page> page;
  };
  auto render = std::make_shared<Render>();
  render->page.emplace(ascending, *limit == 0 ? 0 : wanted, taskId);

  auto live = [this, render](const TaskRecord& task) {
    render->page->consider(keyOf(task.task, task.launchOrder),
                           [this, &task] { return registry_.taskJson(task); });
  };
  auto completed = [render](const Framework& f) {
    for (const CompletedTask& task : f.completed) {
      render->page->consider(keyOf(task, f.id.value()), [&task] { return task.json; });
    }
  };
  // A live framework's tasks: what it runs and what it completed.
  auto visitFramework = [this, live, completed](const std::string& id) {
    Framework* f = framework(id);
    if (f == nullptr) return false;
    for (const auto& [taskId, task] : f->tasks) live(*task);
    completed(*f);
    return true;
  };
  auto visitCompletedFramework = [this, completed](const std::string& id) {
    const Framework* f = registry_.completedFramework(id);
    if (f == nullptr) return false;
    completed(*f);
    return true;
  };

  std::vector<Pass> passes;
  if (*limit == 0) {
    // Nothing to gather.
  } else if (frameworkId) {
    passes.push_back({{*frameworkId}, visitFramework});
    passes.push_back({{*frameworkId}, visitCompletedFramework});
  } else {
    // Live tasks slave by slave (bounded work per visit), then what the
    // frameworks completed.
    passes.push_back(slavePass([live](const Slave& s) {
      for (const TaskRecord* task : s.tasks) {
        if (task->framework->registered) live(*task);
      }
      return true;
    }));
    passes.push_back({registry_.frameworkIds(), [this, completed](const std::string& id) {
                        Framework* f = framework(id);
                        if (f == nullptr) return false;
                        completed(*f);
                        return true;
                      }});
    passes.push_back({registry_.completedFrameworkIds(), visitCompletedFramework});
  }
  uint64_t from = *offset;
  renderInSteps(std::move(passes), [render, from] {
    render->response.set(Response::ok(render->page->render(from)));
  });
  return render->response.future();
}

}  // namespace mesos::internal::master
