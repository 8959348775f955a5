// The master's documents about the whole cluster: /state, /state-summary,
// /slaves and /frameworks.
//
// /state, /slaves and /frameworks are assembled from the registry's JSON
// fragments (each entity's, rendered once per change of it and shared), in
// steps of stateChunk_ entries between other events: the master's work per
// request is a pass over the entities' shared fragments, not a rendering.
// Requests for /state that arrive while one renders share its result, and
// one that arrives when nothing changed since the last gets that.
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

// A JSON document under assembly (master/pieces.hpp).
class Document {
 public:
  void add(const Fragment& piece) { pieces_.add(piece); }
  void add(std::string_view text) { pieces_.append(text); }
  // An element of the list being written: a comma before all but the first.
  void element(const Fragment& piece) {
    next();
    pieces_.add(piece);
  }
  // Starts an element made of several pieces (added next).
  void next() {
    if (!first_) pieces_.append(",");
    first_ = false;
  }
  // The next element will be a list's first.
  void startList() { first_ = true; }
  Pieces& pieces() { return pieces_; }

  // An answer whose body is the pieces in order, handed over as they are:
  // the transport writes them without joining them (process/http.hpp,
  // Response::pieces). Leaves the document empty.
  Response response() {
    Response response = Response::ok(std::string());
    response.pieces = pieces_.take();
    return response;
  }

 private:
  Pieces pieces_;
  bool first_ = true;
};

// `object`'s members without the braces ("a":1,"b":2), to continue an
// object whose first members are already written.
std::string members(const Object& object) {
  std::string out = json::stringify(object);
  return out.substr(1, out.size() - 2);
}

std::string idList(const std::vector<std::string>& ids) {
  return json::stringify(json::Array(ids.begin(), ids.end()));
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

// Every request that waits for a render gets the same future, so the
// answer (a list of a few hundred thousand shared fragments at 50,000
// slaves) exists once however many clients asked for it.
struct Master::StateRender {
  uint64_t version = 0;  // the registry's when the render started
  process::Promise<Response> response;
  Document document;
};

Future<Response> Master::stateEndpoint(const Request&) {
  if (lastState_ && lastState_->first == registry_.version() && stateCaching_) {
    return lastState_->second;
  }
  if (stateRender_) return stateRender_->response.future();
  auto render = std::make_shared<StateRender>();
  stateRender_ = render;
  render->version = registry_.version();
  Future<Response> future = render->response.future();
  render->document.add(std::string("{\"slaves\":["));

  std::vector<Pass> passes;
  passes.push_back(slaveChunkPass(&render->document.pieces()));
  passes.push_back({registry_.frameworkIds(), [this, render](const std::string& id) {
                      const Framework* f = framework(id);
                      if (f == nullptr) return false;
                      render->document.next();
                      registry_.frameworkPieces(*f, &render->document.pieces(), unreachableTasksJson(*f));
                      return true;
                    }});
  passes.back().start = [render] {
    render->document.add(std::string("],\"frameworks\":["));
    render->document.startList();
  };
  passes.push_back({registry_.completedFrameworkIds(), [this, render](const std::string& id) {
                      const Framework* f = registry_.completedFramework(id);
                      if (f == nullptr) return false;
                      render->document.next();
                      registry_.frameworkPieces(*f, &render->document.pieces(), unreachableTasksJson(*f));
                      return true;
                    }});
  passes.back().start = [render] {
    render->document.add(std::string("],\"completed_frameworks\":["));
    render->document.startList();
  };
  renderInSteps(std::move(passes), [this, render] {
    // Tasks of frameworks that have not re-registered since a failover.
    std::vector<std::string> unregistered = registry_.unregisteredFrameworkIds();
    render->document.add(std::string("],\"orphan_tasks\":["));
    render->document.startList();
    for (const std::string& id : unregistered) {
      for (const auto& [taskId, task] : registry_.unregisteredTasks(id)) {
        render->document.element(registry_.taskJson(*task));
      }
    }
    render->document.add("],\"unregistered_frameworks\":" + idList(unregistered) +
                         ",\"recovered_slaves\":[],");
    Object head = stateHead();
    head["total_resources"] = json::fromResources(registry_.clusterTotal());
    head["used_resources"] = json::fromResources(registry_.usedTotal());
    head["offered_resources"] = json::fromResources(registry_.offeredTotal());
    render->document.add(members(head) + "}");
    render->response.set(render->document.response());
    lastState_.emplace(render->version, render->response.future());
    if (stateRender_ == render) stateRender_.reset();
  });
  return future;
}

Future<Response> Master::slavesEndpoint(const Request&) {
  auto document = std::make_shared<Document>();
  document->add(std::string("{\"slaves\":["));
  std::vector<Pass> passes;
  passes.push_back(slaveChunkPass(&document->pieces()));
  auto promise = std::make_shared<process::Promise<Response>>();
  renderInSteps(std::move(passes), [document, promise] {
    document->add(std::string("],\"recovered_slaves\":[]}"));
    promise->set(document->response());
  });
  return promise->future();
}

Future<Response> Master::frameworksEndpoint(const Request&) {
  auto document = std::make_shared<Document>();
  document->add(std::string("{\"frameworks\":["));
  std::vector<Pass> passes;
  passes.push_back({registry_.frameworkIds(), [this, document](const std::string& id) {
                      const Framework* f = framework(id);
                      if (f == nullptr) return false;
                      document->next();
                      registry_.frameworkPieces(*f, &document->pieces(), unreachableTasksJson(*f));
                      return true;
                    }});
  passes.push_back({registry_.completedFrameworkIds(), [this, document](const std::string& id) {
                      const Framework* f = registry_.completedFramework(id);
                      if (f == nullptr) return false;
                      document->next();
                      registry_.frameworkPieces(*f, &document->pieces(), unreachableTasksJson(*f));
                      return true;
                    }});
  passes.back().start = [document] {
    document->add(std::string("],\"completed_frameworks\":["));
    document->startList();
  };
  auto promise = std::make_shared<process::Promise<Response>>();
  renderInSteps(std::move(passes), [this, document, promise] {
    document->add("],\"unregistered_frameworks\":" + idList(registry_.unregisteredFrameworkIds()) +
                  "}");
    promise->set(document->response());
  });
  return promise->future();
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
    Document slaves, frameworks;
    std::unordered_map<std::string, SlaveSummary> completedBySlave;
  };
  auto render = std::make_shared<Render>();
  std::vector<Pass> passes;
  passes.push_back({registry_.frameworkIds(), [this, render](const std::string& id) {
                      const Framework* f = framework(id);
                      if (f == nullptr) return false;
                      TaskCounts counts;
                      std::unordered_set<std::string> slaves;
                      for (const auto& [taskId, task] : f->tasks) {
                        counts.count(task->task.state());
                        slaves.insert(task->slave->id.value());
                      }
                      for (const CompletedTask& task : f->completed) {
                        counts.count(task.state);
                        slaves.insert(task.slaveId);
                        SlaveSummary& summary = render->completedBySlave[task.slaveId];
                        summary.tasks.count(task.state);
                        summary.frameworkIds.insert(id);
                      }
                      Object object = registry_.frameworkSummaryObject(*f);
                      counts.render(object);
                      object["slave_ids"] = sortedArray(slaves);
                      render->frameworks.next();
                      render->frameworks.add(json::stringify(object));
                      return true;
                    }});
  passes.push_back(slavePass([this, render](const Slave& s) {
    const std::string& id = s.id.value();
    TaskCounts counts;
    std::unordered_set<std::string> frameworks;
    if (auto it = render->completedBySlave.find(id); it != render->completedBySlave.end()) {
      counts.add(it->second.tasks);
      frameworks = std::move(it->second.frameworkIds);
      render->completedBySlave.erase(it);
    }
    for (const TaskRecord* task : s.tasks) {
      // Only registered frameworks' tasks, as in their own entries.
      if (!task->framework->registered) continue;
      frameworks.insert(task->framework->id.value());
      counts.count(task->task.state());
    }
    Object object = registry_.slaveObject(s);
    counts.render(object);
    object["framework_ids"] = sortedArray(frameworks);
    render->slaves.next();
    render->slaves.add(json::stringify(object));
    return true;
  }));
  renderInSteps(std::move(passes), [this, render] {
    Object head;
    head["hostname"] = info_.hostname();
    head["cluster"] = flags_.cluster;
    Document document;
    document.add("{" + members(head) + ",\"slaves\":[");
    for (const Fragment& piece : render->slaves.pieces().take()) document.add(piece);
    document.add(std::string("],\"frameworks\":["));
    for (const Fragment& piece : render->frameworks.pieces().take()) document.add(piece);
    document.add(std::string("]}"));
    render->response.set(document.response());
  });
  return render->response.future();
}

}  // namespace mesos::internal::master
