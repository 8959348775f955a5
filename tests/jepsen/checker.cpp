#include "jepsen/checker.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>

namespace mesos::jepsen {

namespace {

// STAGING < STARTING < RUNNING < KILLING < terminal; -1 for the states a
// partition-aware framework may see come and go (they say nothing of order).
int rank(TaskState state, bool partitionAware) {
  switch (state) {
    case TASK_STAGING: return 0;
    case TASK_STARTING: return 1;
    case TASK_RUNNING: return 2;
    case TASK_KILLING: return 3;
    default: return terminal(state, partitionAware) ? 4 : -1;
  }
}

bool onlyForAware(TaskState state) {
  return state == TASK_UNREACHABLE || state == TASK_GONE || state == TASK_GONE_BY_OPERATOR ||
         state == TASK_DROPPED || state == TASK_UNKNOWN;
}

std::string seconds(double time) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f s", time);
  return buffer;
}

std::string name(TaskState state) { return TaskState_Name(state); }

// Checks (a) and (b) for one task's updates (in the order received).
void checkUpdates(const std::string& task, const std::vector<const Update*>& updates, bool aware,
                  std::vector<Violation>* out) {
  std::optional<TaskState> ended;
  uint64_t endedSeq = 0;
  int highest = -1;
  TaskState highestState = TASK_STAGING;
  bool started = false;
  for (const Update* u : updates) {
    if (!aware && onlyForAware(u->state)) {
      out->push_back({task, name(u->state) + " (#" + std::to_string(u->seq) +
                                ") sent to a framework that is not partition-aware"});
    }
    if (ended) {
      if (u->state != *ended) {
        out->push_back({task, name(u->state) + " (#" + std::to_string(u->seq) +
                                  ") after the terminal " + name(*ended) + " (#" +
                                  std::to_string(endedSeq) + ")"});
        return;  // one story per task is enough
      }
      continue;
    }
    int r = rank(u->state, aware);
    if (r >= 0 && r < highest) {
      out->push_back({task, name(u->state) + " (#" + std::to_string(u->seq) + ") after " +
                                name(highestState) + ": out of order"});
    }
    if (r > highest) {
      highest = r;
      highestState = u->state;
    }
    started = started || u->state == TASK_STARTING || u->state == TASK_RUNNING;
    if (terminal(u->state, aware)) {
      ended = u->state;
      endedSeq = u->seq;
    }
  }
  if (ended) return;
  // A partition-aware framework hears TASK_UNKNOWN for a task whose launch
  // never reached a master: the task never existed, which ends it too.
  if (aware && !updates.empty() && updates.back()->state == TASK_UNKNOWN && !started) return;
  out->push_back({task, "no terminal state at the end (last: " +
                            (updates.empty() ? std::string("no update at all")
                                             : name(updates.back()->state)) +
                            ")"});
}

// Whether a nemesis fault on `slave` was under way around `time` (from its
// start to `grace` after the cluster recovered from it).
bool disturbed(const std::vector<Fault>& faults, const std::string& slave, double time,
               double grace) {
  for (const Fault& fault : faults) {
    if (fault.target != slave || fault.start > time) continue;
    double until = fault.recovered > 0 ? fault.recovered : std::numeric_limits<double>::max();
    if (time < until + grace) return true;
  }
  return false;
}

}  // namespace

bool terminal(TaskState state, bool partitionAware) {
  switch (state) {
    case TASK_FINISHED:
    case TASK_FAILED:
    case TASK_KILLED:
    case TASK_ERROR:
    case TASK_DROPPED:
    case TASK_GONE:
    case TASK_GONE_BY_OPERATOR:
      return true;
    case TASK_LOST:
      return !partitionAware;
    default:
      return false;
  }
}

std::map<std::string, TaskState> latestStates(const std::vector<Update>& updates,
                                              const std::string& framework) {
  std::map<std::string, TaskState> latest;
  for (const Update& update : updates) {
    if (update.framework == framework) latest[update.task] = update.state;
  }
  return latest;
}

std::vector<Violation> checkHistory(const History& history,
                                    const std::map<std::string, bool>& aware, double end,
                                    double grace) {
  std::vector<Violation> out;
  const std::vector<Launch> launches = history.launches();
  const std::vector<Update> updates = history.updates();
  const std::vector<Sighting> sightings = history.sightings();
  const std::vector<Fault> faults = history.faults();

  std::map<std::string, std::string> owner;  // task -> framework
  for (const Launch& launch : launches) owner[launch.task] = launch.framework;
  std::map<std::string, std::vector<const Update*>> byTask;
  for (const Update& update : updates) {
    if (!owner.contains(update.task)) {
      out.push_back({update.task, "an update for a task no framework launched"});
      continue;
    }
    byTask[update.task].push_back(&update);
  }

  // (a), (b); and when each task's framework had its terminal state.
  std::map<std::string, double> endedAt;
  for (const auto& [task, framework] : owner) {
    auto found = aware.find(framework);
    bool partitionAware = found != aware.end() && found->second;
    checkUpdates(task, byTask[task], partitionAware, &out);
    for (const Update* u : byTask[task]) {
      if (terminal(u->state, partitionAware)) {
        endedAt[task] = u->time;
        break;
      }
    }
  }

  // (c)
  std::map<std::string, std::set<std::string>> slavesOf;
  std::set<std::string> reported;
  for (const Sighting& s : sightings) {
    slavesOf[s.task].insert(s.slave);
    if (reported.contains(s.task)) continue;
    if (slavesOf[s.task].size() > 1) {
      out.push_back({s.task, "its process ran on two slaves"});
      reported.insert(s.task);
    } else if (s.time >= end) {
      out.push_back({s.task, "its process still ran at the end (" + seconds(s.time) +
                                 ", pid " + std::to_string(s.pid) + ")"});
      reported.insert(s.task);
    } else if (auto ended = endedAt.find(s.task);
               ended != endedAt.end() && s.time > ended->second + grace &&
               !disturbed(faults, s.slave, s.time, grace)) {
      out.push_back({s.task, "its process ran at " + seconds(s.time) + " on " + s.slave +
                                 ", more than " + seconds(grace) +
                                 " after its framework had its terminal state"});
      reported.insert(s.task);
    }
  }
  return out;
}

std::vector<Violation> compareWithMaster(const std::string& framework,
                                         const std::map<std::string, TaskState>& latest,
                                         const MasterView& master, bool partitionAware) {
  std::vector<Violation> out;
  for (const auto& [task, state] : master.active) {
    auto believed = latest.find(task);
    if (believed == latest.end()) {
      out.push_back({task, "the master holds it as " + name(state) + "; " + framework +
                               " never heard of it"});
    } else if (believed->second != state) {
      out.push_back({task, "the master holds it as " + name(state) + "; " + framework +
                               " believes " + name(believed->second)});
    }
  }
  for (const auto& [task, state] : latest) {
    if (terminal(state, partitionAware) || master.active.contains(task)) continue;
    out.push_back({task, framework + " believes " + name(state) +
                             "; the master does not hold it as active"});
  }
  for (const auto& [task, state] : master.completed) {
    auto believed = latest.find(task);
    if (believed != latest.end() && terminal(believed->second, partitionAware) &&
        believed->second != state) {
      out.push_back({task, "the master completed it as " + name(state) + "; " + framework +
                               " got " + name(believed->second)});
    }
  }
  return out;
}

std::string report(const History& history, const std::vector<Violation>& violations) {
  std::string out;
  std::set<std::string> told;
  for (const Violation& v : violations) {
    out += "VIOLATION " + (v.task.empty() ? std::string("cluster") : "task " + v.task) + ": " +
           v.what + "\n";
    if (!v.task.empty() && told.insert(v.task).second) out += history.story(v.task);
  }
  out += "faults:\n";
  for (const Fault& f : history.faults()) {
    out += "    " + seconds(f.start) + " " + f.kind + " " + f.target + ", healed at " +
           seconds(f.healed) + ", " +
           (f.recovered > 0 ? "recovered at " + seconds(f.recovered) : "never recovered") + "\n";
  }
  out += "notes:\n";
  for (const std::string& note : history.notes()) out += "  " + note + "\n";
  return out;
}

}  // namespace mesos::jepsen
