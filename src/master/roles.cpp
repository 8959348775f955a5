// Roles' weights and quota set at run time (docs/roles.md, docs/quota.md),
// as Apache Mesos 1.9 has them: /weights, /quota (and /quota/<role>), the
// v1 calls GET_WEIGHTS, UPDATE_WEIGHTS, GET_QUOTA, UPDATE_QUOTA, and what
// /roles and GET_ROLES show of each role. A change is checked with Apache's
// rules and messages, authorized, stored in the registry's "settings" node
// (registrar.hpp), and only then made the master's and the allocator's. A
// newly elected master reads them with the agents, before it allocates.
// The --weights and --guarantees flags keep working: a weight set here
// overrides the flag's for its role; quota is separate from --guarantees.
#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "common/json.hpp"
#include "common/protobuf_json.hpp"
#include "common/roles.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using authorizer::Action;
using process::Future;
using process::http::Request;
using process::http::Response;
using registrar::Registrar;

namespace {

using Scalars = std::map<std::string, double>;

Response badRequest(const std::string& message) {
  return Response{400, "text/plain", message + "\n", {}};
}

Response busy(const std::string& what) {
  return Response{503, "text/plain", what + "; try again\n", {}};
}

Scalars scalars(const google::protobuf::Map<std::string, Value::Scalar>& map) {
  Scalars out;
  for (const auto& [name, scalar] : map) out[name] = scalar.value();
  return out;
}

// Apache's rendering of resource quantities: "cpus:1; mem:512".
std::string describe(const Scalars& quantities) {
  std::ostringstream out;
  bool first = true;
  for (const auto& [name, value] : quantities) {
    if (!first) out << "; ";
    first = false;
    out << name << ":" << value;
  }
  return first ? "{}" : out.str();
}

// Whether every quantity of `small` is within `big` (names missing from
// `big` count as zero, or as unlimited with `unlimited`).
bool within(const Scalars& small, const Scalars& big, bool unlimited = false) {
  for (const auto& [name, value] : small) {
    auto it = big.find(name);
    if (it == big.end()) {
      if (unlimited || value <= 0) continue;
      return false;
    }
    if (value > it->second + 1e-9) return false;
  }
  return true;
}

void add(Scalars& into, const Scalars& more) {
  for (const auto& [name, value] : more) into[name] += value;
}

void addScalars(Scalars& into, const Resources& resources) {
  for (const Resource& resource : resources) {
    if (resource.type() == Value::SCALAR) into[resource.name()] += resource.scalar().value();
  }
}

std::string parentOf(const std::string& role) {
  size_t slash = role.rfind('/');
  return slash == std::string::npos ? std::string() : role.substr(0, slash);
}

// Apache's checks of one value: finite, not negative, not absurdly large
// (1 exabyte in megabytes for memory and disk, a trillion for the rest).
std::optional<std::string> invalidValue(const std::string& name, double value) {
  if (!std::isfinite(value)) return "Infinite or NaN values are not supported";
  if (value < 0) return "Negative values are not supported";
  const double limit = name == "mem" || name == "disk" ? 1024.0 * 1024 * 1024 * 1024 : 1e12;
  if (value > limit) return "values greater than " + std::to_string(int64_t(limit)) +
                            " are not supported";
  return std::nullopt;
}

// Apache's quota::validate(QuotaConfig).
std::optional<std::string> invalidConfig(const quota::QuotaConfig& config) {
  if (config.role().empty()) return "'QuotaConfig.role' must be set";
  if (auto valid = roles::validate(config.role()); !valid) {
    return "Invalid 'QuotaConfig.role': " + valid.error().message;
  }
  if (config.role() == "*") {
    return "Invalid 'QuotaConfig.role': setting quota for the default '*' role is not "
           "supported";
  }
  for (const auto& [name, scalar] : config.guarantees()) {
    if (auto invalid = invalidValue(name, scalar.value())) {
      return "Invalid guarantee configuration {'" + name + "': " +
             json::stringify(json::Value(scalar.value())) + "}: " + *invalid;
    }
  }
  for (const auto& [name, scalar] : config.limits()) {
    if (auto invalid = invalidValue(name, scalar.value())) {
      return "Invalid limit configuration {'" + name + "': " +
             json::stringify(json::Value(scalar.value())) + "}: " + *invalid;
    }
  }
  Scalars guarantees = scalars(config.guarantees());
  Scalars limits = scalars(config.limits());
  if (!within(guarantees, limits, true)) {
    return "'QuotaConfig.guarantees' " + describe(guarantees) +
           " is not contained within the 'QuotaConfig.limits' " + describe(limits);
  }
  return std::nullopt;
}

// Apache's QuotaTree check: every role's guarantees (none for a role
// without quota) hold the sum of its direct children's. Deepest first.
std::optional<std::string> invalidTree(const std::map<std::string, quota::QuotaConfig>& quotas) {
  std::map<std::string, Scalars> guarantees;  // every node: quota roles and their ancestors
  for (const auto& [role, config] : quotas) {
    guarantees[role] = scalars(config.guarantees());
    for (std::string parent = parentOf(role); !parent.empty(); parent = parentOf(parent)) {
      guarantees[parent];
    }
  }
  std::map<std::string, Scalars> children;
  for (const auto& [role, own] : guarantees) {
    std::string parent = parentOf(role);
    if (!parent.empty()) add(children[parent], own);
  }
  std::vector<std::string> parents;
  for (const auto& [parent, sum] : children) parents.push_back(parent);
  std::sort(parents.begin(), parents.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  for (const std::string& parent : parents) {
    if (!within(children[parent], guarantees[parent])) {
      return "Invalid quota configuration. Parent role '" + parent + "' with guarantees (" +
             describe(guarantees[parent]) + ") does not contain the sum of its children's" +
             " guarantees (" + describe(children[parent]) + ")";
    }
  }
  return std::nullopt;
}

// The guarantees of the top of the tree: what the cluster must hold.
Scalars totalGuarantees(const std::map<std::string, quota::QuotaConfig>& quotas) {
  Scalars total;
  for (const auto& [role, config] : quotas) {
    if (parentOf(role).empty()) add(total, scalars(config.guarantees()));
  }
  return total;
}

allocator::Quota toAllocator(const quota::QuotaConfig& config) {
  return allocator::Quota{scalars(config.guarantees()), scalars(config.limits())};
}

}  // namespace

double Master::weightOf(const std::string& role) const {
  if (auto it = weights_.find(role); it != weights_.end()) return it->second;
  if (auto it = config_.weights.find(role); it != config_.weights.end()) return it->second;
  return 1.0;
}

registry::Settings Master::currentSettings() const {
  registry::Settings settings;
  for (const auto& [role, config] : quotas_) *settings.add_quotas() = config;
  for (const auto& [role, weight] : weights_) {
    WeightInfo* info = settings.add_weights();
    info->set_role(role);
    info->set_weight(weight);
  }
  return settings;
}

void Master::recoverSettings(const registry::Settings& stored) {
  quotas_.clear();
  weights_.clear();
  std::vector<WeightInfo> weights;
  for (const WeightInfo& info : stored.weights()) {
    if (!info.has_role() || !(info.weight() > 0)) continue;
    weights_[info.role()] = info.weight();
    weights.push_back(info);
  }
  for (const quota::QuotaConfig& config : stored.quotas()) quotas_[config.role()] = config;
  if (quotas_.empty() && weights_.empty()) return;
  LOG(INFO) << "The registry holds the quota of " << quotas_.size() << " roles and the weights of "
            << weights_.size();
  // Queued on the allocator ahead of anything this master asks it later.
  if (!weights.empty()) {
    process::dispatch(allocator_.pid(), &allocator::AllocatorActor::updateWeights, weights);
  }
  for (const auto& [role, config] : quotas_) {
    process::dispatch(allocator_.pid(), &allocator::AllocatorActor::updateQuota, role,
                      toAllocator(config));
  }
}

std::map<std::string, Master::RoleView> Master::roleViews(
    const std::optional<std::string>& principal, bool filter) const {
  std::map<std::string, RoleView> views;
  for (const std::string& role : config_.roles) views[role];
  for (const auto& [role, weight] : config_.weights) views[role];
  for (const auto& [role, priority] : config_.priorities) views[role];
  for (const auto& [role, guarantee] : config_.guarantees) views[role];
  for (const auto& [role, weight] : weights_) views[role];
  for (const auto& [role, config] : quotas_) views[role];
  const_cast<Registry&>(registry_).forEachFramework([&](const Framework& f) {
    if (!roles::multiRole(f.info)) {
      RoleView& view = views[f.info.role().empty() ? "*" : f.info.role()];
      view.frameworks.push_back(f.id.value());
      view.allocated += f.used + f.offered;
      view.offered += f.offered;
      return;
    }
    // A MULTI_ROLE framework is in each of its roles, with what is
    // allocated to that role (a role it left still shows what it holds
    // there).
    std::vector<std::string> named = roles::ofFramework(f.info);
    Resources held = f.used + f.offered;
    for (const Resource& resource : held) {
      const std::string& role = resource.allocation_info().role();
      if (!role.empty() && std::find(named.begin(), named.end(), role) == named.end()) {
        named.push_back(role);
      }
    }
    for (const std::string& role : named) {
      RoleView& view = views[role];
      view.frameworks.push_back(f.id.value());
      view.allocated += held.allocatedOnlyTo(role).unallocated();
      view.offered += f.offered.allocatedOnlyTo(role).unallocated();
    }
  });
  const_cast<Registry&>(registry_).forEachSlave([&](const Slave& s) {
    for (const Resource& resource : s.total) {
      if (resource.role() != "*") views[resource.role()].reserved += Resources(resource);
    }
  });
  for (auto it = views.begin(); it != views.end();) {
    if (filter && !guard_->authorized(Action::kViewRole, principal, it->first)) {
      it = views.erase(it);
      continue;
    }
    std::sort(it->second.frameworks.begin(), it->second.frameworks.end());
    ++it;
  }
  return views;
}

std::map<std::string, double> Master::consumedQuota(
    const std::string& role, const std::map<std::string, RoleView>& views) const {
  Scalars consumed;
  for (auto it = views.lower_bound(role); it != views.end(); ++it) {
    const std::string& name = it->first;
    if (name != role && name.compare(0, role.size() + 1, role + "/") != 0) break;
    addScalars(consumed, it->second.reserved);
    addScalars(consumed, it->second.allocated.role("*"));
  }
  return consumed;
}

quota::QuotaStatus Master::quotaStatus(const std::optional<std::string>& principal) const {
  quota::QuotaStatus status;
  for (const auto& [role, config] : quotas_) {
    if (!guard_->authorized(Action::kGetQuota, principal, role)) continue;
    *status.add_configs() = config;
    // Apache still fills the deprecated list, for pre-1.9 clients.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    quota::QuotaInfo* info = status.add_infos();
#pragma GCC diagnostic pop
    info->set_role(role);
    for (const auto& [name, scalar] : config.guarantees()) {
      Resource* resource = info->add_guarantee();
      resource->set_name(name);
      resource->set_type(Value::SCALAR);
      *resource->mutable_scalar() = scalar;
      resource->set_role("*");
    }
  }
  return status;
}

std::vector<WeightInfo> Master::weightInfos(const std::optional<std::string>& principal) const {
  std::map<std::string, double> weights(config_.weights.begin(), config_.weights.end());
  for (const auto& [role, weight] : weights_) weights[role] = weight;
  std::vector<WeightInfo> infos;
  for (const auto& [role, weight] : weights) {
    if (!guard_->authorized(Action::kViewRole, principal, role)) continue;
    WeightInfo& info = infos.emplace_back();
    info.set_role(role);
    info.set_weight(weight);
  }
  return infos;
}

Future<Response> Master::storeSettings(registry::Settings next) {
  if (recovering_) return busy("The registry is being read");
  if (settingsChanging_) return busy("Another change of quota or weights is being stored");
  settingsChanging_ = true;
  auto promise = std::make_shared<process::Promise<Response>>();
  process::dispatch(registrar_.pid(), &Registrar::setSettings, next)
      .then(self(), [this, next, promise](const Result<bool>& done) {
        settingsChanging_ = false;
        if (!done) {
          registryFailed(done.error());
          promise->set(Response{503, "text/plain",
                                "The registry failed: " + done.error().message + "\n", {}});
          return;
        }
        // Made the master's, and the allocator's: only what changed.
        std::map<std::string, quota::QuotaConfig> quotas;
        for (const quota::QuotaConfig& config : next.quotas()) quotas[config.role()] = config;
        std::vector<std::string> changedQuota;
        std::set<std::string> roles;
        for (const auto& [role, config] : quotas_) roles.insert(role);
        for (const auto& [role, config] : quotas) roles.insert(role);
        for (const std::string& role : roles) {
          auto before = quotas_.find(role);
          auto after = quotas.find(role);
          if (before != quotas_.end() && after != quotas.end() &&
              before->second.SerializeAsString() == after->second.SerializeAsString()) {
            continue;
          }
          process::dispatch(allocator_.pid(), &allocator::AllocatorActor::updateQuota, role,
                            after == quotas.end() ? allocator::Quota{}
                                                  : toAllocator(after->second));
          if (after != quotas.end()) changedQuota.push_back(role);
        }
        quotas_ = std::move(quotas);
        // After the allocator's updateQuota: what the rescinds give back
        // is offered again within the new limits.
        for (const std::string& role : changedQuota) rescindOffersAboveLimits(role);
        std::vector<WeightInfo> changed;
        for (const WeightInfo& info : next.weights()) {
          auto before = weights_.find(info.role());
          if (before == weights_.end() || before->second != info.weight()) changed.push_back(info);
          weights_[info.role()] = info.weight();
        }
        if (!changed.empty()) {
          process::dispatch(allocator_.pid(), &allocator::AllocatorActor::updateWeights, changed);
        }
        promise->set(Response::ok("", "text/plain"));
      });
  return promise->future();
}

void Master::rescindOffersAboveLimits(const std::string& role) {
  auto quota = quotas_.find(role);
  if (quota == quotas_.end() || quota->second.limits().empty()) return;
  const Scalars limits = scalars(quota->second.limits());
  Scalars held = consumedQuota(role, roleViews(std::nullopt, false));
  if (within(held, limits, true)) return;
  auto inSubtree = [&role](const std::string& name) {
    return name == role || name.starts_with(role + "/");
  };
  std::vector<std::string> offers;
  registry_.forEachFramework([&](const Framework& f) {
    const std::vector<std::string> roles = frameworkRoles(f.info);
    for (const std::string& id : f.offers) {
      const OfferRecord* record = offers_.find(id);
      if (record == nullptr) continue;
      bool subtree = record->offer.has_allocation_info()
                         ? inSubtree(record->offer.allocation_info().role())
                         : std::any_of(roles.begin(), roles.end(), inSubtree);
      if (subtree) offers.push_back(id);
    }
  });
  std::sort(offers.begin(), offers.end());
  for (const std::string& id : offers) {
    if (within(held, limits, true)) break;
    const OfferRecord* record = offers_.find(id);
    // Its reservations count as long as they exist: only the unreserved
    // part is freed.
    Scalars freed;
    addScalars(freed, record->resources.role("*"));
    for (const auto& [name, value] : freed) held[name] -= value;
    LOG(INFO) << "Rescinding offer " << id << " (" << record->resources.toString()
              << "): role '" << role << "' holds more than its new quota limits "
              << describe(limits);
    offers_.rescind(id);
  }
}

Future<Response> Master::updateQuota(std::vector<quota::QuotaConfig> configs, bool force,
                                     bool old, const std::optional<std::string>& principal) {
  // `old`: POST /quota, Apache's pre-1.9 request and messages.
  const std::string prefix = old ? "Failed to validate set quota request: " : "Invalid QuotaConfig: ";
  std::map<std::string, quota::QuotaConfig> next = quotas_;
  for (const quota::QuotaConfig& config : configs) {
    if (!config_.roles.empty() && config.role() != "*" &&
        std::find(config_.roles.begin(), config_.roles.end(), config.role()) ==
            config_.roles.end()) {
      return badRequest(old ? prefix + "Unknown role '" + config.role() + "'"
                            : prefix + "'" + config.role() + "' is not on the roles whitelist");
    }
    if (auto invalid = invalidConfig(config)) return badRequest(prefix + *invalid);
    if (old && quotas_.count(config.role())) {
      return badRequest(prefix + "Cannot set quota for role '" + config.role() +
                        "' which already has quota");
    }
    bool empty = config.guarantees().empty() && config.limits().empty();
    if (empty) {
      next.erase(config.role());
    } else {
      next[config.role()] = config;
    }
  }
  // A limit below what the role consumes now needs `force`. Its outstanding
  // offers do not count (Apache's rule): they are rescinded once the limit
  // is stored (rescindOffersAboveLimits()).
  auto views = roleViews(std::nullopt, false);
  for (auto& [name, view] : views) view.allocated -= view.offered;
  if (!old) {
    for (const quota::QuotaConfig& config : configs) {
      Scalars limits = scalars(config.limits());
      Scalars consumed = consumedQuota(config.role(), views);
      if (!within(consumed, limits, true)) {
        if (!force) {
          return badRequest(prefix + "Role '" + config.role() + "' is already consuming '" +
                            describe(consumed) + "'; this is more than the requested limits '" +
                            describe(limits) + "' (use 'force' flag to bypass this check)");
        }
        LOG(INFO) << "Setting the quota limits of role '" << config.role() << "' to "
                  << describe(limits) << ", below what it consumes (" << describe(consumed)
                  << "), as forced";
      }
    }
  }
  if (auto invalid = invalidTree(next)) return badRequest(prefix + *invalid);
  // The capacity of the registered agents, connected or not.
  if (!force) {
    Scalars capacity;
    registry_.forEachSlave([&](const Slave& s) { addScalars(capacity, s.total); });
    Scalars total = totalGuarantees(next);
    if (!within(total, capacity)) {
      std::string what = "otal quota guarantees '" + describe(total) +
                         "' exceed cluster capacity '" + describe(capacity) + "'";
      if (old) {
        return Response{409, "text/plain",
                        "Quota guarantees overcommit the cluster (use 'force' to bypass this "
                        "check): T" + what + "\n",
                        {}};
      }
      return badRequest(prefix + "t" + what + " (use 'force' flag to bypass this check)");
    }
  }
  for (const quota::QuotaConfig& config : configs) {
    if (!guard_->authorized(Action::kUpdateQuota, principal, config.role())) {
      return authentication::EndpointGuard::forbidden(
          "Not authorized to update the quota of role '" + config.role() +
          "' (ACL update_quotas)");
    }
  }
  registry::Settings settings = currentSettings();
  settings.clear_quotas();
  for (const auto& [role, config] : next) *settings.add_quotas() = config;
  return storeSettings(std::move(settings));
}

Future<Response> Master::removeQuota(const std::string& role, const std::string& path,
                                     const std::optional<std::string>& principal) {
  if (!config_.roles.empty() &&
      std::find(config_.roles.begin(), config_.roles.end(), role) == config_.roles.end()) {
    return badRequest("Failed to validate remove quota request for path '" + path +
                      "': Unknown role '" + role + "'");
  }
  if (!quotas_.count(role)) {
    return badRequest("Failed to remove quota for path '" + path + "': Role '" + role +
                      "' has no quota set");
  }
  std::map<std::string, quota::QuotaConfig> next = quotas_;
  next.erase(role);
  if (auto invalid = invalidTree(next)) {
    return badRequest("Failed to remove quota for path '" + path + "': " + *invalid);
  }
  if (!guard_->authorized(Action::kUpdateQuota, principal, role)) {
    return authentication::EndpointGuard::forbidden(
        "Not authorized to remove the quota of role '" + role + "' (ACL update_quotas)");
  }
  registry::Settings settings = currentSettings();
  settings.clear_quotas();
  for (const auto& [name, config] : next) *settings.add_quotas() = config;
  return storeSettings(std::move(settings));
}

Future<Response> Master::updateWeights(std::vector<WeightInfo> weights,
                                       const std::optional<std::string>& principal) {
  const std::string prefix = "Failed to validate update weights request JSON";
  for (const WeightInfo& info : weights) {
    const std::string& role = info.role();
    if (auto valid = roles::validate(role); !valid) {
      return badRequest(prefix + ": Invalid role '" + role + "': " + valid.error().message);
    }
    if (!config_.roles.empty() &&
        std::find(config_.roles.begin(), config_.roles.end(), role) == config_.roles.end()) {
      return badRequest(prefix + ": Unknown role '" + role + "'");
    }
    if (!(info.weight() > 0) || !std::isfinite(info.weight())) {
      return badRequest(prefix + " for role '" + role + "': Invalid weight '" +
                        json::stringify(json::Value(info.weight())) +
                        "': Weights must be positive");
    }
  }
  for (const WeightInfo& info : weights) {
    if (!guard_->authorized(Action::kUpdateWeight, principal, info.role())) {
      return authentication::EndpointGuard::forbidden(
          "Not authorized to update the weight of role '" + info.role() +
          "' (ACL update_weights)");
    }
  }
  registry::Settings settings = currentSettings();
  std::map<std::string, double> next = weights_;
  for (const WeightInfo& info : weights) next[info.role()] = info.weight();
  settings.clear_weights();
  for (const auto& [role, weight] : next) {
    WeightInfo* info = settings.add_weights();
    info->set_role(role);
    info->set_weight(weight);
  }
  return storeSettings(std::move(settings));
}

Future<Response> Master::quotaEndpoint(const Request& request) {
  if (request.method != "GET" && request.method != "POST" && request.method != "DELETE") {
    return Response{405, "text/plain", "Expecting a GET, POST or DELETE request\n",
                    {{"Allow", "GET, POST, DELETE"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/quota";
    return redirect;
  }
  if (recovering_) return busy("The registry is being read");
  if (request.method == "GET") return Response::ok(toJson(quotaStatus(request.principal)));
  if (request.method == "DELETE") {
    // ".../quota/<role>"
    size_t at = request.path.find("/quota/");
    std::string role = at == std::string::npos ? "" : request.path.substr(at + 7);
    if (role.empty() || role.find('/') != std::string::npos) {
      return badRequest("Failed to parse remove quota request for path '" + request.path +
                        "': expected the path to end in /quota/<role>");
    }
    return removeQuota(role, request.path, request.principal);
  }
  quota::QuotaRequest parsed;
  if (auto read = fromJson(request.body, &parsed); !read) {
    return badRequest("Failed to validate set quota request JSON '" + request.body +
                      "': " + read.error().message);
  }
  if (parsed.role().empty()) {
    return badRequest("Failed to create 'QuotaInfo' from set quota request: "
                      "QuotaInfo must specify a role");
  }
  if (parsed.guarantee_size() == 0) {
    return badRequest("Failed to validate set quota request: QuotaInfo with empty 'guarantee'");
  }
  // As Apache's: the guarantee is also the limit.
  quota::QuotaConfig config;
  config.set_role(parsed.role());
  std::set<std::string> names;
  for (const Resource& resource : parsed.guarantee()) {
    if (resource.type() != Value::SCALAR) {
      return badRequest(
          "Failed to validate set quota request: QuotaInfo must not include non-scalar resources");
    }
    if ((resource.has_role() && resource.role() != "*") || resource.reservations_size() > 0) {
      return badRequest(
          "Failed to validate set quota request: QuotaInfo must not contain any ReservationInfo");
    }
    if (resource.has_disk()) {
      return badRequest("Failed to validate set quota request: QuotaInfo must not contain DiskInfo");
    }
    if (!names.insert(resource.name()).second) {
      return badRequest("Failed to validate set quota request: QuotaInfo contains duplicate "
                        "resource name '" + resource.name() + "'");
    }
    (*config.mutable_guarantees())[resource.name()] = resource.scalar();
    (*config.mutable_limits())[resource.name()] = resource.scalar();
  }
  return updateQuota({config}, parsed.force(), true, request.principal);
}

Future<Response> Master::weightsEndpoint(const Request& request) {
  if (request.method != "GET" && request.method != "PUT") {
    return Response{405, "text/plain", "Expecting a GET or a PUT request\n",
                    {{"Allow", "GET, PUT"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/weights";
    return redirect;
  }
  if (recovering_) return busy("The registry is being read");
  if (request.method == "GET") {
    std::string body = "[";
    for (const WeightInfo& info : weightInfos(request.principal)) {
      if (body.size() > 1) body += ",";
      body += toJson(info);
    }
    return Response::ok(body + "]");
  }
  auto parsed = json::parse(request.body);
  if (!parsed) {
    return badRequest("Failed to parse update weights request JSON '" + request.body +
                      "': " + parsed.error().message);
  }
  if (!parsed->isArray()) {
    return badRequest("Failed to convert weights JSON array to protobuf '" + request.body +
                      "': expected a JSON array of WeightInfo");
  }
  std::vector<WeightInfo> weights;
  for (const json::Value& element : parsed->array()) {
    WeightInfo& info = weights.emplace_back();
    if (auto read = fromJson(json::stringify(element), &info); !read) {
      return badRequest("Failed to convert weights JSON array to protobuf '" + request.body +
                        "': " + read.error().message);
    }
  }
  return updateWeights(std::move(weights), request.principal);
}

}  // namespace mesos::internal::master
