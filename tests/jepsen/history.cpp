#include "jepsen/history.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

namespace mesos::jepsen {

namespace {

int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string seconds(double time) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f s", time);
  return buffer;
}

// A line's time column.
std::string at(double time) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%8.3f s  ", time);
  return buffer;
}

}  // namespace

History::History() : start_(steadyNs()) {}

double History::now() const { return static_cast<double>(steadyNs() - start_) / 1e9; }

void History::launched(Launch launch) {
  std::lock_guard lock(mutex_);
  launches_.push_back(std::move(launch));
}

void History::received(Update update) {
  std::lock_guard lock(mutex_);
  update.seq = ++seq_;
  updates_.push_back(std::move(update));
}

void History::requested(Request request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(request));
}

void History::sighted(std::vector<Sighting> sightings) {
  std::lock_guard lock(mutex_);
  for (Sighting& sighting : sightings) sightings_.push_back(std::move(sighting));
}

void History::faulted(Fault fault) {
  std::lock_guard lock(mutex_);
  faults_.push_back(std::move(fault));
}

void History::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  notes_.push_back(at(now()) + line);
}

std::vector<Launch> History::launches() const {
  std::lock_guard lock(mutex_);
  return launches_;
}

std::vector<Update> History::updates() const {
  std::lock_guard lock(mutex_);
  return updates_;
}

std::vector<Request> History::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<Sighting> History::sightings() const {
  std::lock_guard lock(mutex_);
  return sightings_;
}

std::vector<Fault> History::faults() const {
  std::lock_guard lock(mutex_);
  return faults_;
}

std::vector<std::string> History::notes() const {
  std::lock_guard lock(mutex_);
  return notes_;
}

std::string History::story(const std::string& task) const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<double, std::string>> lines;
  double first = -1, last = -1;
  auto span = [&](double time) {
    if (first < 0 || time < first) first = time;
    last = std::max(last, time);
  };
  for (const Launch& launch : launches_) {
    if (launch.task != task) continue;
    span(launch.time);
    lines.emplace_back(launch.time, "launched by " + launch.framework + " on slave " +
                                        launch.slaveId + ": " + launch.command);
  }
  for (const Update& update : updates_) {
    if (update.task != task) continue;
    span(update.time);
    std::string line = "#" + std::to_string(update.seq) + " " + TaskState_Name(update.state);
    if (update.hasReason) line += " " + TaskStatus::Reason_Name(update.reason);
    line += " from " + TaskStatus::Source_Name(update.source);
    if (!update.message.empty()) line += " (" + update.message + ")";
    lines.emplace_back(update.time, line);
  }
  for (const Request& request : requests_) {
    if (request.task == task) lines.emplace_back(request.time, "framework asks: " + request.what);
  }
  // The first and last time its process was seen on each slave.
  std::map<std::string, std::pair<double, double>> seen;
  for (const Sighting& sighting : sightings_) {
    if (sighting.task != task) continue;
    auto [it, fresh] = seen.try_emplace(sighting.slave, sighting.time, sighting.time);
    if (!fresh) it->second.second = sighting.time;
  }
  for (const auto& [slave, times] : seen) {
    span(times.second);
    lines.emplace_back(times.first, "process first seen on " + slave);
    lines.emplace_back(times.second, "process last seen on " + slave);
  }
  for (const Fault& fault : faults_) {
    if (first < 0 || fault.start > last + 5 || (fault.recovered > 0 && fault.recovered < first)) {
      continue;
    }
    lines.emplace_back(fault.start, "nemesis: " + fault.kind + " " + fault.target +
                                        " (healed at " + seconds(fault.healed) + ")");
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [time, line] : lines) out += "    " + at(time) + line + "\n";
  return out;
}

}  // namespace mesos::jepsen
