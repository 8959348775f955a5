// Who may do what at the master (docs/security.md): the routes behind HTTP
// authentication, registration and launches checked against the ACLs, what
// /state and its kin show a principal, the v1 scheduler API's principal
// binding, and POST /master/teardown.
#include <glog/logging.h>

#include "common/json.hpp"
#include "common/roles.hpp"
#include "master/master.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::internal::master {

using authentication::Realm;
using authorizer::Action;
using authorizer::describe;
using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

std::optional<std::string> principalOf(const FrameworkInfo& info) {
  if (info.has_principal()) return info.principal();
  return std::nullopt;
}

Response answer(int status, const std::string& message) {
  return Response{status, "text/plain", message + "\n", {}};
}

const std::string* stringAt(const json::Value& value, const std::string& key) {
  const json::Value& field = value[key];
  return field.isString() ? &field.string() : nullptr;
}

}  // namespace

authentication::RouteHandler Master::guarded(
    Realm realm, const std::string& path, Future<Response> (Master::*handler)(const Request&)) {
  return guard_->guard(realm, path,
                       [this, handler](const Request& request) { return (this->*handler)(request); });
}

authentication::RouteHandler Master::viewed(const std::string& path,
                                            Future<Response> (Master::*handler)(const Request&)) {
  return guard_->guard(
      Realm::kReadonly, path, [this, handler](const Request& request) -> Future<Response> {
        const std::optional<std::string>& principal = request.principal;
        bool all = guard_->authorizedForAll(Action::kViewFramework, principal) &&
                   guard_->authorizedForAll(Action::kViewTask, principal) &&
                   guard_->authorizedForAll(Action::kViewExecutor, principal) &&
                   guard_->authorized(Action::kViewFlags, principal, std::nullopt);
        // The shared, cached rendering when there is nothing to hide.
        if (all) return (this->*handler)(request);
        return (this->*handler)(request).then(self(), [this, principal](const Response& response) {
          return filterView(response, principal);
        });
      });
}

// The document is parsed, pruned and written again: costly for a big
// cluster, paid only by principals that may not see everything.
Response Master::filterView(const Response& response,
                            const std::optional<std::string>& principal) {
  if (response.status != 200) return response;
  auto parsed = json::parse(response.flatBody());
  if (!parsed || !parsed->isObject()) return response;
  json::Object document = parsed->object();

  auto frameworkUser = [this](const std::string& id) -> std::optional<std::string> {
    const Framework* f = registry_.framework(id);
    if (f == nullptr) f = registry_.completedFramework(id);
    if (f == nullptr) return std::nullopt;
    return f->info.user();
  };
  // A task's user: its command's (kept in Task.user at launch), else its
  // framework's.
  auto taskVisible = [&](const json::Value& task, const std::optional<std::string>& fallback) {
    std::optional<std::string> user = fallback;
    const std::string* frameworkId = stringAt(task, "framework_id");
    const std::string* taskId = stringAt(task, "id");
    if (!user && frameworkId != nullptr) user = frameworkUser(*frameworkId);
    if (frameworkId != nullptr && taskId != nullptr) {
      const TaskRecord* record = registry_.task(*frameworkId, *taskId);
      if (record != nullptr && record->task.has_user()) user = record->task.user();
    }
    return guard_->authorized(Action::kViewTask, principal, user);
  };
  auto executorVisible = [&](const json::Value& executor, const std::optional<std::string>& user) {
    const std::string* own = stringAt(executor["command"], "user");
    return guard_->authorized(Action::kViewExecutor, principal,
                              own != nullptr ? std::optional<std::string>(*own) : user);
  };
  auto prune = [](json::Value& list, const auto& keep) {
    if (!list.isArray()) return;
    json::Array kept;
    for (json::Value& item : std::get<json::Array>(list.v)) {
      if (keep(item)) kept.push_back(std::move(item));
    }
    list = std::move(kept);
  };
  auto pruneFrameworks = [&](json::Value& list) {
    prune(list, [&](json::Value& framework) {
      std::optional<std::string> user;
      if (const std::string* own = stringAt(framework, "user")) {
        user = *own;
      } else if (const std::string* id = stringAt(framework, "id")) {
        user = frameworkUser(*id);
      }
      if (!guard_->authorized(Action::kViewFramework, principal, user)) return false;
      if (!framework.isObject()) return true;
      json::Object& object = std::get<json::Object>(framework.v);
      for (const char* key : {"tasks", "completed_tasks", "unreachable_tasks"}) {
        if (auto it = object.find(key); it != object.end()) {
          prune(it->second, [&](const json::Value& task) { return taskVisible(task, user); });
        }
      }
      if (auto it = object.find("executors"); it != object.end()) {
        prune(it->second,
              [&](const json::Value& executor) { return executorVisible(executor, user); });
      }
      return true;
    });
  };
  for (const char* key : {"frameworks", "completed_frameworks"}) {
    if (auto it = document.find(key); it != document.end()) pruneFrameworks(it->second);
  }
  for (const char* key : {"tasks", "orphan_tasks"}) {
    if (auto it = document.find(key); it != document.end()) {
      prune(it->second,
            [&](const json::Value& task) { return taskVisible(task, std::nullopt); });
    }
  }
  if (!guard_->authorized(Action::kViewFlags, principal, std::nullopt)) document.erase("flags");

  Response filtered = Response::ok(json::stringify(json::Value(std::move(document))),
                                   response.contentType);
  filtered.headers = response.headers;
  return filtered;
}

std::optional<std::string> Master::authorizeFramework(const FrameworkInfo& info) const {
  std::optional<std::string> principal = principalOf(info);
  // Every role of a MULTI_ROLE framework.
  for (const std::string& role : roles::ofFramework(info)) {
    if (guard_->authorized(Action::kRegisterFramework, principal, role)) continue;
    LOG(WARNING) << "Refusing framework '" << info.name() << "' with " << describe(principal)
                 << ": not authorized to register with role '" << role
                 << "' (ACL register_frameworks)";
    return "Not authorized to register with role '" + role + "' as " + describe(principal) +
           " (ACL register_frameworks)";
  }
  return std::nullopt;
}

Result<void> Master::authorizeTask(const Framework& framework, const TaskInfo& task) const {
  const std::string* user = &framework.info.user();
  if (task.has_command() && task.command().has_user()) {
    user = &task.command().user();
  } else if (task.has_executor() && task.executor().command().has_user()) {
    user = &task.executor().command().user();
  }
  bool root = *user == "root" || user->empty();
  // Without ACLs, a task of another user costs the offer path nothing more.
  if (!root && !guard_->authorizing()) return {};
  std::optional<std::string> principal = principalOf(framework.info);
  if (guard_->authorizing() && !guard_->authorized(Action::kRunTask, principal, *user)) {
    return Error{"Not authorized to run task '" + task.task_id().value() + "' as user '" + *user +
                 "' with " + describe(principal) + " (ACL run_tasks)"};
  }
  // Ours, beyond Apache: root (or no user: the slave's own, root on a slave
  // that runs as root) only by a rule that names it, with or without --acls.
  if (root && !guard_->allowsByName(Action::kRunTask, principal, "root")) {
    return Error{"Not authorized to run task '" + task.task_id().value() + "' as " +
                 (user->empty() ? std::string("the slave's user (no user given)")
                               : std::string("user 'root'")) +
                 " with " + describe(principal) +
                 ": tasks run as root only for principals that a run_tasks rule of --acls names "
                 "\"root\" for (root rule, docs/security.md)"};
  }
  return {};
}

std::optional<Response> Master::checkSchedulerPrincipal(const Request& request,
                                                        v1::scheduler::Call& call) {
  if (!guard_->authenticates(Realm::kFramework) || !request.principal) return std::nullopt;
  const std::string& principal = *request.principal;
  auto mismatch = [&](const std::string& claimed) {
    return answer(400, "Authenticated principal '" + principal + "' does not match principal '" +
                           claimed + "' set in `FrameworkInfo`");
  };
  if (call.type() == v1::scheduler::Call::SUBSCRIBE) {
    v1::FrameworkInfo* info = call.mutable_subscribe()->mutable_framework_info();
    if (info->has_principal() && info->principal() != principal) return mismatch(info->principal());
    if (!info->has_principal()) {
      LOG(INFO) << "Setting FrameworkInfo.principal of subscribing framework '" << info->name()
                << "' to '" << principal << "', the principal it authenticated as";
      info->set_principal(principal);
    }
    // A framework stays bound to the principal it subscribed with.
    if (info->has_id()) {
      const Framework* existing = registry_.framework(info->id().value());
      if (existing != nullptr && existing->info.principal() != principal) {
        return answer(403, "Framework " + info->id().value() + " is bound to principal '" +
                               existing->info.principal() + "', not '" + principal + "'");
      }
    }
    return std::nullopt;
  }
  const Framework* f = registry_.framework(call.framework_id().value());
  if (f != nullptr && f->info.principal() != principal) return mismatch(f->info.principal());
  return std::nullopt;
}

// Apache's answers: 405 for another method, 400 without frameworkId or for
// an unknown framework, 403 when teardown_frameworks refuses, 200 when done.
Future<Response> Master::teardownEndpoint(const Request& request) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/master/teardown";
    return redirect;
  }
  Request form;
  form.query = request.body;
  auto values = form.queryParameters();
  auto id = values.find("frameworkId");
  if (id == values.end()) {
    return answer(400, "Missing 'frameworkId' query parameter in the request body");
  }
  Framework* f = framework(id->second);
  if (f == nullptr) return answer(400, "No framework found with specified ID");
  std::optional<std::string> owner = principalOf(f->info);
  if (!guard_->authorized(Action::kTeardownFramework, request.principal, owner)) {
    LOG(WARNING) << "Refusing to tear down framework " << f->id.value() << " for "
                 << describe(request.principal) << " from " << request.peer
                 << " (ACL teardown_frameworks)";
    return authentication::EndpointGuard::forbidden(
        "Not authorized to tear down framework " + f->id.value() + " as " +
        describe(request.principal) + " (ACL teardown_frameworks)");
  }
  LOG(INFO) << "Tearing down framework " << f->id.value() << " (" << f->info.name()
            << ") at the request of " << describe(request.principal) << " from " << request.peer;
  if (f->active && !isSchedulerStream(f->pid)) {
    FrameworkErrorMessage message;
    message.set_message("Framework has been removed (POST /master/teardown)");
    send(f->pid, std::move(message));
  }
  removeFramework(*f);
  return Response::ok("", "text/plain");
}

}  // namespace mesos::internal::master
