#include "slave/machine.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "slave/constants.hpp"

namespace mesos::internal::slave {

namespace {

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::optional<double> parseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<uint64_t> parseUnsigned(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) return std::nullopt;
  return value;
}

Result<Value::Ranges> parseRanges(const std::string& name, const std::string& text) {
  // text is "[a-b,c-d]".
  Value::Ranges ranges;
  std::string inner = trim(text.substr(1, text.size() - 2));
  if (inner.empty()) return ranges;
  std::stringstream items(inner);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trim(item);
    size_t dash = item.find('-');
    std::optional<uint64_t> begin;
    std::optional<uint64_t> end;
    if (dash == std::string::npos) {
      begin = end = parseUnsigned(item);
    } else {
      begin = parseUnsigned(trim(item.substr(0, dash)));
      end = parseUnsigned(trim(item.substr(dash + 1)));
    }
    if (!begin || !end || *begin > *end) {
      return Error{"attribute '" + name + "': bad range '" + item +
                   "' (expected begin-end with begin <= end)"};
    }
    Value::Range* range = ranges.add_range();
    range->set_begin(*begin);
    range->set_end(*end);
  }
  return ranges;
}

// Apache Mesos's rules for a role name, and no parentheses (they delimit
// the role in --resources).
Result<void> validateRole(const std::string& role) {
  if (role.empty()) return Error{"a role may not be empty (the default is '*')"};
  if (role == "." || role == "..") return Error{"'" + role + "' is not a valid role"};
  if (role.front() == '-') return Error{"role '" + role + "' may not start with '-'"};
  for (char c : role) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '/' || c == '\\' || c == '(' || c == ')') {
      return Error{"role '" + role + "' may not contain spaces, control characters, '/', '\\', "
                   "'(' or ')'"};
    }
  }
  return {};
}

}  // namespace

MachineFacts measureMachine(const std::string& workDir) {
  MachineFacts facts;
  long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  facts.cpus = cores > 0 ? static_cast<double>(cores)
                         : static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));

  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemTotal:", 0) == 0) {
      std::istringstream fields(line.substr(9));
      double kb = 0;
      fields >> kb;
      facts.memMB = kb / 1024;
      break;
    }
  }
  if (facts.memMB == 0) {
    long pages = ::sysconf(_SC_PHYS_PAGES);
    long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) {
      facts.memMB = static_cast<double>(pages) * static_cast<double>(pageSize) / (1024 * 1024);
    }
  }

  // The work directory may not exist yet: measure the nearest existing parent.
  std::string path = workDir.empty() ? "/" : workDir;
  struct statvfs fs {};
  while (::statvfs(path.c_str(), &fs) != 0) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos || path == "/") {
      path = "/";
      if (::statvfs(path.c_str(), &fs) != 0) fs = {};
      break;
    }
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  facts.diskMB = static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize) / (1024 * 1024);
  return facts;
}

Result<Resources> slaveResources(const std::optional<std::string>& flag, const MachineFacts& facts,
                                 const std::string& defaultRole) {
  if (auto valid = validateRole(defaultRole); !valid) {
    return Error{"--default_role: " + valid.error().message};
  }
  Resources given;
  if (flag && !trim(*flag).empty()) {
    auto parsed = Resources::parse(*flag, defaultRole);
    if (!parsed) return Error{"--resources: " + parsed.error().message};
    given = *parsed;
    for (const Resource& resource : given) {
      if (auto valid = validateRole(resource.role()); !valid) {
        return Error{"--resources: " + resource.name() + ": " + valid.error().message};
      }
    }
  }

  auto named = [&](const std::string& name) {
    for (const Resource& resource : given) {
      if (resource.name() == name) return true;
    }
    return false;
  };

  std::string detected;
  auto append = [&](const std::string& entry) {
    if (!detected.empty()) detected += ";";
    detected += entry;
  };
  auto number = [](double value) {
    std::ostringstream out;
    out.precision(3);
    out << std::fixed << std::floor(value * 1000) / 1000;
    return out.str();
  };

  if (!named("cpus")) append("cpus:" + number(facts.cpus));
  if (!named("mem")) {
    double mem = facts.memMB >= 2048 ? facts.memMB - kMemReserveMB : facts.memMB / 2;
    append("mem:" + number(std::floor(mem)));
  }
  if (!named("disk")) {
    double disk = facts.diskMB >= 10240 ? facts.diskMB - kDiskReserveMB : facts.diskMB / 2;
    append("disk:" + number(std::floor(disk)));
  }
  if (!named("ports")) append(std::string("ports:") + kDefaultPorts);

  auto defaults = Resources::parse(detected, defaultRole);
  if (!defaults) return Error{"detected resources '" + detected + "': " + defaults.error().message};
  return given + *defaults;
}

Result<google::protobuf::RepeatedPtrField<Attribute>> parseAttributes(const std::string& text) {
  google::protobuf::RepeatedPtrField<Attribute> attributes;
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0) {
      return Error{"--attributes: '" + entry + "' is not name:value (e.g. 'rack:a;zone:b')"};
    }
    std::string name = trim(entry.substr(0, colon));
    std::string value = trim(entry.substr(colon + 1));
    if (value.empty()) {
      return Error{"--attributes: '" + name + "' has no value (e.g. 'rack:a')"};
    }
    Attribute attribute;
    attribute.set_name(name);
    if (value.front() == '[' && value.back() == ']') {
      auto ranges = parseRanges(name, value);
      if (!ranges) return Error{"--attributes: " + ranges.error().message};
      attribute.set_type(Value::RANGES);
      *attribute.mutable_ranges() = *ranges;
    } else if (value.front() == '{' && value.back() == '}') {
      attribute.set_type(Value::SET);
      std::stringstream items(value.substr(1, value.size() - 2));
      std::string item;
      while (std::getline(items, item, ',')) {
        item = trim(item);
        if (!item.empty()) attribute.mutable_set()->add_item(item);
      }
    } else if (auto scalar = parseNumber(value)) {
      attribute.set_type(Value::SCALAR);
      attribute.mutable_scalar()->set_value(*scalar);
    } else {
      attribute.set_type(Value::TEXT);
      attribute.mutable_text()->set_value(value);
    }
    *attributes.Add() = std::move(attribute);
  }
  return attributes;
}

}  // namespace mesos::internal::slave
