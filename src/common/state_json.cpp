#include "common/state_json.hpp"

#include <set>

#include "common/build.hpp"
#include "common/protobuf_json.hpp"

namespace mesos::json {

namespace {

std::string formatSet(const mesos::Value::Set& set) {
  std::string text = "{";
  for (int i = 0; i < set.item_size(); ++i) {
    if (i > 0) text += ", ";
    text += set.item(i);
  }
  return text + "}";
}

}  // namespace

std::string formatRanges(const mesos::Value::Ranges& ranges) {
  std::string text = "[";
  for (int i = 0; i < ranges.range_size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ranges.range(i).begin()) + "-" + std::to_string(ranges.range(i).end());
  }
  return text + "]";
}

Value fromResources(const Resources& resources) {
  Object object;
  object["cpus"] = 0.0;
  object["gpus"] = 0.0;
  object["mem"] = 0.0;
  object["disk"] = 0.0;
  // One entry per name: the roles merged. Scalars are summed, as flatten()
  // keeps apart what it cannot merge (a persistent volume and plain disk).
  for (const Resource& resource : resources.flatten()) {
    switch (resource.type()) {
      case mesos::Value::SCALAR: {
        const Value& before = object[resource.name()];
        object[resource.name()] =
            (before.isNumber() ? before.number() : 0.0) + resource.scalar().value();
        break;
      }
      case mesos::Value::RANGES:
        object[resource.name()] = formatRanges(resource.ranges());
        break;
      case mesos::Value::SET:
        object[resource.name()] = formatSet(resource.set());
        break;
      default:
        break;
    }
  }
  return object;
}

Value reservedResources(const Resources& resources) {
  std::set<std::string> roles;
  for (const Resource& resource : resources) {
    if (resource.role() != "*") roles.insert(resource.role());
  }
  Object object;
  for (const std::string& role : roles) object[role] = fromResources(resources.role(role));
  return object;
}

Value unreservedResources(const Resources& resources) {
  return fromResources(resources.role("*"));
}

Object versionInfo() {
  Object object;
  object["version"] = build::version();
  object["build_date"] = build::date();
  object["build_time"] = build::time();
  object["build_user"] = build::user();
  if (build::gitSha()) object["git_sha"] = *build::gitSha();
  if (build::gitBranch()) object["git_branch"] = *build::gitBranch();
  if (build::gitTag()) object["git_tag"] = *build::gitTag();
  return object;
}

Object fromFlags(const flags::FlagSet& flags) {
  Object object;
  for (const auto& [name, value] : flags.values()) object[name] = value;
  return object;
}

Value fromAttributes(const google::protobuf::RepeatedPtrField<Attribute>& attributes) {
  Object object;
  for (const Attribute& attribute : attributes) {
    switch (attribute.type()) {
      case mesos::Value::SCALAR:
        object[attribute.name()] = attribute.scalar().value();
        break;
      case mesos::Value::RANGES:
        object[attribute.name()] = formatRanges(attribute.ranges());
        break;
      case mesos::Value::SET:
        object[attribute.name()] = formatSet(attribute.set());
        break;
      case mesos::Value::TEXT:
        object[attribute.name()] = attribute.text().value();
        break;
    }
  }
  return object;
}

Value fromTask(const internal::Task& task) {
  Object object;
  object["id"] = task.task_id().value();
  object["name"] = task.name();
  object["framework_id"] = task.framework_id().value();
  object["executor_id"] = task.has_executor_id() ? task.executor_id().value() : "";
  object["slave_id"] = task.slave_id().value();
  object["state"] = TaskState_Name(task.state());
  object["resources"] = fromResources(Resources(task.resources()));
  // The role a MULTI_ROLE framework's task runs in (its resources'
  // allocation role), as Apache Mesos shows it.
  if (task.resources_size() > 0 && task.resources(0).has_allocation_info()) {
    object["role"] = task.resources(0).allocation_info().role();
  }
  Array statuses;
  for (const TaskStatus& status : task.statuses()) {
    Object entry;
    entry["state"] = TaskState_Name(status.state());
    entry["timestamp"] = status.timestamp();
    if (status.has_message()) entry["message"] = status.message();
    // The container's networks and addresses, as Apache Mesos shows them.
    if (status.has_container_status()) {
      if (auto container = parse(toJson(status.container_status()))) {
        entry["container_status"] = std::move(container).value();
      }
    }
    statuses.push_back(std::move(entry));
  }
  object["statuses"] = std::move(statuses);
  // The task's ContainerInfo (its image, volumes, networks), in protobuf's
  // JSON form as Apache Mesos shows it.
  if (task.has_container()) {
    if (auto container = parse(toJson(task.container()))) {
      object["container"] = std::move(container).value();
    }
  }
  return object;
}

}  // namespace mesos::json
