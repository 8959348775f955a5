// ACLs: Apache Mesos's access control lists (the JSON of --acls), parsed and
// checked. The local authorizer (local/local_authorizer.hpp) decides with
// them; docs/security.md shows the format with examples.
//
// The document is an object:
//   {"permissive": true,                       (optional, default true)
//    "run_tasks": [{"principals": ENTITY, "users": ENTITY}, ...],
//    "register_frameworks": [{"principals": ENTITY, "roles": ENTITY}], ...}
// where ENTITY is {"values": ["a", "b"]}, {"type": "ANY"} or
// {"type": "NONE"}. Every action's list is kept in order: the first rule
// whose subject and object match a request decides it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mesos/result.hpp"

namespace mesos::internal::authorizer {

// The actions this implementation knows (Apache's names in comments).
enum class Action {
  kRegisterFramework,   // register_frameworks: principals -> roles
  kRunTask,             // run_tasks: principals -> users
  kTeardownFramework,   // teardown_frameworks: principals -> framework_principals
  kViewFramework,       // view_frameworks: principals -> users
  kViewTask,            // view_tasks: principals -> users
  kViewExecutor,        // view_executors: principals -> users
  kViewFlags,           // view_flags: principals -> flags (ANY or NONE)
  kAccessSandbox,       // access_sandboxes: principals -> users
  kAccessMesosLog,      // access_mesos_logs: principals -> logs (ANY or NONE)
  kGetEndpoint,         // get_endpoints: principals -> paths
  kReserveResources,    // reserve_resources: principals -> roles
  kUnreserveResources,  // unreserve_resources: principals -> reserver_principals
  kCreateVolume,        // create_volumes: principals -> roles
  kDestroyVolume,       // destroy_volumes: principals -> creator_principals
  kMarkAgentGone,       // mark_agents_gone: principals -> agents (ANY or NONE)
  // Maintenance (docs/maintenance.md): principals -> machines (ANY or NONE).
  kUpdateMaintenanceSchedule,  // update_maintenance_schedules
  kGetMaintenanceSchedule,     // get_maintenance_schedules
  kStartMaintenance,           // start_maintenances (/machine/down)
  kStopMaintenance,            // stop_maintenances (/machine/up)
  kGetMaintenanceStatus,       // get_maintenance_statuses
  kDrainAgent,          // drain_agents: principals -> agents (ANY or NONE)
  kDeactivateAgent,     // deactivate_agents: principals -> agents (ANY or NONE)
  kReactivateAgent,     // reactivate_agents: principals -> agents (ANY or NONE)
  // Roles (docs/roles.md, docs/quota.md): principals -> roles.
  kGetQuota,            // get_quotas
  kUpdateQuota,         // update_quotas
  kUpdateWeight,        // update_weights
  kViewRole,            // view_roles
};

// The JSON key of an action's list ("run_tasks") and of its object field
// ("users").
std::string_view actionName(Action action);
std::string_view objectName(Action action);

// The endpoints whose access get_endpoints rules may name (Apache's list).
const std::vector<std::string>& authorizableEndpoints();

struct Entity {
  enum class Type { kSome, kAny, kNone };
  Type type = Type::kSome;
  std::vector<std::string> values;  // for kSome

  static Entity any() { return {Type::kAny, {}}; }
  static Entity some(std::string value) { return {Type::kSome, {std::move(value)}}; }
};

struct Rule {
  Entity subjects;  // principals
  Entity objects;   // users, roles, paths... (objectName())
};

struct Acls {
  bool permissive = true;
  std::map<Action, std::vector<Rule>> rules;
  // Apache ACL lists this implementation does not check (update_weights,
  // get_quotas, ...): parsed for their shape, named in a warning at start.
  std::vector<std::string> unchecked;
};

// Parses the ACLs document. On failure the error names what is wrong and
// where: a syntax error by line and column, anything else by its place in
// the document ("run_tasks[1].users: ...").
Result<Acls> parseAcls(std::string_view json);

// The --acls flag's value: the JSON itself (it starts with '{'), or the path
// of a file holding it, as a path or a file:// URL. Errors start with
// "--acls: " and name the file.
Result<Acls> loadAcls(const std::string& flag);

}  // namespace mesos::internal::authorizer
