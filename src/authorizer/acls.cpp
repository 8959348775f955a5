#include "authorizer/acls.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/json.hpp"

namespace mesos::internal::authorizer {

namespace {

struct ActionInfo {
  Action action;
  std::string_view name;
  std::string_view object;
};

constexpr std::array<ActionInfo, 27> kActions{{
    {Action::kRegisterFramework, "register_frameworks", "roles"},
    {Action::kRunTask, "run_tasks", "users"},
    {Action::kTeardownFramework, "teardown_frameworks", "framework_principals"},
    {Action::kViewFramework, "view_frameworks", "users"},
    {Action::kViewTask, "view_tasks", "users"},
    {Action::kViewExecutor, "view_executors", "users"},
    {Action::kViewFlags, "view_flags", "flags"},
    {Action::kAccessSandbox, "access_sandboxes", "users"},
    {Action::kAccessMesosLog, "access_mesos_logs", "logs"},
    {Action::kGetEndpoint, "get_endpoints", "paths"},
    {Action::kReserveResources, "reserve_resources", "roles"},
    {Action::kUnreserveResources, "unreserve_resources", "reserver_principals"},
    {Action::kCreateVolume, "create_volumes", "roles"},
    {Action::kDestroyVolume, "destroy_volumes", "creator_principals"},
    {Action::kMarkAgentGone, "mark_agents_gone", "agents"},
    {Action::kUpdateMaintenanceSchedule, "update_maintenance_schedules", "machines"},
    {Action::kGetMaintenanceSchedule, "get_maintenance_schedules", "machines"},
    {Action::kStartMaintenance, "start_maintenances", "machines"},
    {Action::kStopMaintenance, "stop_maintenances", "machines"},
    {Action::kGetMaintenanceStatus, "get_maintenance_statuses", "machines"},
    {Action::kDrainAgent, "drain_agents", "agents"},
    {Action::kDeactivateAgent, "deactivate_agents", "agents"},
    {Action::kReactivateAgent, "reactivate_agents", "agents"},
    {Action::kGetQuota, "get_quotas", "roles"},
    {Action::kUpdateQuota, "update_quotas", "roles"},
    {Action::kUpdateWeight, "update_weights", "roles"},
    {Action::kViewRole, "view_roles", "roles"},
}};

// Apache's other ACL lists: accepted so that its operators' files load, not
// checked here.
constexpr std::string_view kUnchecked[] = {
    "resize_volumes",
    "launch_nested_containers_as_user", "launch_nested_containers_under_parent_with_user",
    "kill_nested_containers", "wait_nested_containers",
    "launch_nested_container_sessions_as_user",
    "launch_nested_container_sessions_under_parent_with_user", "attach_containers_input",
    "attach_containers_output", "view_containers", "set_log_level", "remove_nested_containers",
    "register_agents",
    "launch_standalone_containers", "kill_standalone_containers",
    "wait_standalone_containers", "remove_standalone_containers",
    "view_standalone_containers", "modify_resource_provider_configs",
    "mark_resource_providers_gone", "view_resource_providers", "prune_images",
    "create_block_disks", "destroy_block_disks", "create_mount_disks", "destroy_mount_disks",
    "destroy_raw_disks"};

const ActionInfo* findAction(std::string_view name) {
  for (const ActionInfo& info : kActions) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const ActionInfo& infoOf(Action action) {
  for (const ActionInfo& info : kActions) {
    if (info.action == action) return info;
  }
  return kActions[0];  // unreachable: every action is listed
}

// "line L, column C" of a byte offset in `text`.
std::string position(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  size_t column = lineStart == std::string_view::npos || offset == 0 ? offset + 1
                                                                     : offset - lineStart;
  if (offset > 0 && text[offset - 1] == '\n') column = 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The JSON parser's error says "... at offset N: what"; this says where in
// lines and columns.
std::string syntaxError(std::string_view text, const std::string& message) {
  static constexpr std::string_view kAt = "at offset ";
  size_t at = message.find(kAt);
  if (at == std::string::npos) return "not valid JSON: " + message;
  size_t digits = at + kAt.size();
  size_t offset = 0;
  size_t i = digits;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') {
    offset = offset * 10 + static_cast<size_t>(message[i] - '0');
    if (offset > text.size()) offset = text.size();
    ++i;
  }
  std::string what = message.substr(i);
  if (what.rfind(": ", 0) == 0) what = what.substr(2);
  return "not valid JSON at " + position(text, offset) + ": " + what;
}

Error at(const std::string& where, const std::string& what) { return Error{where + ": " + what}; }

Result<Entity> parseEntity(const json::Value& value, const std::string& where) {
  if (!value.isObject()) {
    return at(where, "expected an entity: {\"values\": [...]}, {\"type\": \"ANY\"} or "
                     "{\"type\": \"NONE\"}");
  }
  Entity entity;
  bool hasValues = false;
  for (const auto& [key, field] : value.object()) {
    if (key == "type") {
      if (!field.isString()) return at(where + ".type", "expected \"SOME\", \"ANY\" or \"NONE\"");
      const std::string& type = field.string();
      if (type == "ANY") {
        entity.type = Entity::Type::kAny;
      } else if (type == "NONE") {
        entity.type = Entity::Type::kNone;
      } else if (type == "SOME") {
        entity.type = Entity::Type::kSome;
      } else {
        return at(where + ".type", "unknown type \"" + type + "\" (expected SOME, ANY or NONE)");
      }
    } else if (key == "values") {
      if (!field.isArray()) return at(where + ".values", "expected a list of strings");
      hasValues = true;
      size_t index = 0;
      for (const json::Value& item : field.array()) {
        if (!item.isString()) {
          return at(where + ".values[" + std::to_string(index) + "]", "expected a string");
        }
        entity.values.push_back(item.string());
        ++index;
      }
    } else {
      return at(where, "unknown field \"" + key + "\" (an entity has \"values\" or \"type\")");
    }
  }
  if (entity.type != Entity::Type::kSome) {
    entity.values.clear();  // ignored for ANY and NONE, as Apache does
  } else if (!hasValues) {
    return at(where, "names no \"values\" and no \"type\" (use {\"type\": \"ANY\"} for anyone)");
  }
  return entity;
}

Result<Rule> parseRule(const json::Value& value, const std::string& where,
                       std::string_view objectKey) {
  if (!value.isObject()) return at(where, "expected an object");
  const json::Object& object = value.object();
  auto principals = object.find("principals");
  if (principals == object.end()) return at(where, "missing \"principals\"");
  auto subjects = parseEntity(principals->second, where + ".principals");
  if (!subjects) return subjects.error();
  Rule rule;
  rule.subjects = std::move(subjects).value();
  bool hasObject = false;
  for (const auto& [key, field] : object) {
    if (key == "principals") continue;
    if (!objectKey.empty() && key != objectKey) {
      return at(where, "unknown field \"" + key + "\" (expected \"principals\" and \"" +
                           std::string(objectKey) + "\")");
    }
    if (hasObject) return at(where, "more than one object field (\"" + key + "\")");
    auto objects = parseEntity(field, where + "." + key);
    if (!objects) return objects.error();
    rule.objects = std::move(objects).value();
    hasObject = true;
  }
  if (!hasObject) {
    return at(where, objectKey.empty() ? std::string("missing its object field")
                                       : "missing \"" + std::string(objectKey) + "\"");
  }
  return rule;
}

// What Apache's authorizer refuses beyond the shape.
Result<void> checkRule(Action action, const Rule& rule, const std::string& where) {
  std::string field = where + "." + std::string(infoOf(action).object);
  if ((action == Action::kViewFlags || action == Action::kAccessMesosLog ||
       action == Action::kMarkAgentGone || action == Action::kUpdateMaintenanceSchedule ||
       action == Action::kGetMaintenanceSchedule || action == Action::kStartMaintenance ||
       action == Action::kStopMaintenance || action == Action::kGetMaintenanceStatus ||
       action == Action::kDrainAgent || action == Action::kDeactivateAgent ||
       action == Action::kReactivateAgent) &&
      rule.objects.type == Entity::Type::kSome) {
    return at(field, "must be {\"type\": \"ANY\"} or {\"type\": \"NONE\"}");
  }
  if (action == Action::kGetEndpoint && rule.objects.type == Entity::Type::kSome) {
    const auto& allowed = authorizableEndpoints();
    for (const std::string& path : rule.objects.values) {
      if (std::find(allowed.begin(), allowed.end(), path) == allowed.end()) {
        std::string list;
        for (const std::string& p : allowed) list += (list.empty() ? "" : ", ") + p;
        return at(field, "'" + path + "' is not an authorizable path (one of " + list + ")");
      }
    }
  }
  return {};
}

}  // namespace

std::string_view actionName(Action action) { return infoOf(action).name; }
std::string_view objectName(Action action) { return infoOf(action).object; }

const std::vector<std::string>& authorizableEndpoints() {
  static const std::vector<std::string> kPaths{
      "/containers",    "/containerizer/debug", "/files/debug", "/logging/toggle",
      "/metrics/snapshot", "/monitor/statistics"};
  return kPaths;
}

namespace {

// `text` with control characters (a key may hold an escaped newline) as
// \xNN, so that an error stays one line.
std::string printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

Result<Acls> parseDocument(std::string_view text) {
  auto document = json::parse(text);
  if (!document) return Error{syntaxError(text, document.error().message)};
  if (!document->isObject()) return Error{"expected a JSON object at the top"};
  Acls acls;
  for (const auto& [key, value] : document->object()) {
    if (key == "permissive") {
      if (!value.isBool()) return at("permissive", "expected true or false");
      acls.permissive = value.boolean();
      continue;
    }
    const ActionInfo* info = findAction(key);
    bool unchecked = info == nullptr &&
                     std::find(std::begin(kUnchecked), std::end(kUnchecked), key) != std::end(kUnchecked);
    if (info == nullptr && !unchecked) {
      return at(key, "unknown ACL (see docs/security.md for the lists there are)");
    }
    if (!value.isArray()) return at(key, "expected a list of rules");
    std::vector<Rule> rules;
    size_t index = 0;
    for (const json::Value& item : value.array()) {
      std::string where = key + "[" + std::to_string(index++) + "]";
      auto rule = parseRule(item, where, info != nullptr ? info->object : std::string_view());
      if (!rule) return rule.error();
      if (info != nullptr) {
        if (auto checked = checkRule(info->action, *rule, where); !checked) return checked.error();
      }
      rules.push_back(std::move(rule).value());
    }
    if (info != nullptr) {
      acls.rules[info->action] = std::move(rules);
    } else {
      acls.unchecked.push_back(key);
    }
  }
  return acls;
}

}  // namespace

Result<Acls> parseAcls(std::string_view text) {
  auto acls = parseDocument(text);
  if (!acls) return Error{printable(acls.error().message)};
  return acls;
}

Result<Acls> loadAcls(const std::string& flag) {
  size_t start = flag.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && flag[start] == '{') {
    auto acls = parseAcls(flag);
    if (!acls) return Error{"--acls: " + acls.error().message};
    return acls;
  }
  std::string path = flag;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  if (path.empty() || path[0] != '/') {
    return Error{"--acls: expected the ACLs as JSON ({...}), or an absolute path or file:// URL "
                 "of a file holding them, not '" + flag + "'"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{"--acls: cannot read " + path + ": " + std::strerror(errno)};
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto acls = parseAcls(text.str());
  if (!acls) return Error{"--acls: " + path + ": " + acls.error().message};
  return acls;
}

}  // namespace mesos::internal::authorizer
