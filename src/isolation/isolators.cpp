#include "isolation/isolators.hpp"

#include <functional>
#include <set>
#include <sstream>

#include "isolation/posix/posix_isolator.hpp"

namespace mesos::internal::isolation {

namespace {

using mesos::isolation::Isolator;
using Factory = std::function<Result<std::unique_ptr<Isolator>>(const IsolationOptions&)>;

struct Entry {
  const char* name;
  Factory make;
};

// One line per isolator.
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"posix/cpu",
       [](const IsolationOptions&) -> Result<std::unique_ptr<Isolator>> {
         return std::unique_ptr<Isolator>(new PosixIsolator(PosixIsolator::Kind::kCpu));
       }},
      {"posix/mem",
       [](const IsolationOptions&) -> Result<std::unique_ptr<Isolator>> {
         return std::unique_ptr<Isolator>(new PosixIsolator(PosixIsolator::Kind::kMem));
       }},
  };
  return entries;
}

// Names that stand for several isolators.
const std::vector<std::pair<std::string, std::vector<std::string>>>& aliases() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> entries = {
      {"posix", {"posix/cpu", "posix/mem"}},
  };
  return entries;
}

const Entry* find(const std::string& name) {
  for (const Entry& entry : table()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<std::string>> expandIsolation(const std::string& isolation) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::stringstream list(isolation);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) continue;
    std::vector<std::string> expanded = {item};
    for (const auto& [alias, members] : aliases()) {
      if (item == alias) expanded = members;
    }
    for (const std::string& name : expanded) {
      if (find(name) == nullptr) {
        std::string known;
        for (const Entry& entry : table()) known += (known.empty() ? "" : ", ") + std::string(entry.name);
        for (const auto& [alias, members] : aliases()) known += ", " + alias;
        return Error{"--isolation: unknown isolator '" + name + "' (known: " + known + ")"};
      }
      if (seen.insert(name).second) names.push_back(name);
    }
  }
  if (names.empty()) return Error{"--isolation: names no isolator (e.g. posix/cpu,posix/mem)"};
  return names;
}

Result<std::vector<std::unique_ptr<Isolator>>> createIsolators(const IsolationOptions& options) {
  auto names = expandIsolation(options.isolation);
  if (!names) return names.error();
  std::vector<std::unique_ptr<Isolator>> isolators;
  for (const std::string& name : *names) {
    auto isolator = find(name)->make(options);
    if (!isolator) return Error{"--isolation: " + name + ": " + isolator.error().message};
    isolators.push_back(std::move(isolator).value());
  }
  return isolators;
}

}  // namespace mesos::internal::isolation
