// The registry's JSON: each entity as /state shows it (Apache Mesos's
// shapes for the fields we have), cached per entity until it changes.
#include <algorithm>
#include <utility>
#include <vector>

#include "common/roles.hpp"
#include "common/secrets.hpp"
#include "common/state_json.hpp"
#include "master/registry.hpp"

namespace mesos::internal::master {

using json::Array;
using json::Object;

namespace {

Fragment text(std::string value) { return std::make_shared<const std::string>(std::move(value)); }

// Appends `items`, comma-separated.
template <typename Items, typename FragmentOf>
void appendList(const Items& items, FragmentOf fragmentOf, Pieces* pieces) {
  bool first = true;
  for (const auto& item : items) {
    if (!first) pieces->append(",");
    first = false;
    pieces->add(fragmentOf(item));
  }
}

// A chunk's text: elements (each of one or two parts) joined with commas,
// in a string of exactly their size (it is kept as long as the chunk).
class ChunkText {
 public:
  void add(const std::string& part, const std::string* more = nullptr) {
    elements_.push_back({&part, more});
    size_ += part.size() + (more != nullptr ? more->size() : 0) + 1;
  }
  Fragment take() {
    std::string joined;
    joined.reserve(size_);
    for (const auto& [part, more] : elements_) {
      if (!joined.empty()) joined += ',';
      joined += *part;
      if (more != nullptr) joined += *more;
    }
    return text(std::move(joined));
  }

 private:
  std::vector<std::pair<const std::string*, const std::string*>> elements_;
  size_t size_ = 0;
};

}  // namespace

const Fragment& Registry::taskJson(const TaskRecord& task) const {
  if (!task.json || !caching_) task.json = text(json::stringify(json::fromTask(task.task)));
  return task.json;
}


namespace {

// A slave's /state fields that change only when it re-registers or its
// total changes (offer operations: Registry::setTotal).
Object slaveFixedObject(const Slave& s) {
  Object object;
  object["id"] = s.id.value();
  object["pid"] = s.pid.toString();
  object["hostname"] = s.info.hostname();
  object["port"] = s.info.port();
  object["registered_time"] = s.registeredTime;
  object["resources"] = json::fromResources(s.total);
  object["reserved_resources"] = json::reservedResources(s.total);
  object["unreserved_resources"] = json::unreservedResources(s.total);
  object["attributes"] = json::fromAttributes(s.info.attributes());
  object["version"] = s.version;
  Array capabilities;
  for (const SlaveInfo::Capability& capability : s.capabilities) {
    if (!capability.has_type()) continue;  // a value this master does not know
    capabilities.push_back(SlaveInfo::Capability::Type_Name(capability.type()));
  }
  object["capabilities"] = std::move(capabilities);
  return object;
}

// Those that change with its tasks and offers, and its connection.
Object slaveUsageObject(const Slave& s) {
  Object object;
  object["used_resources"] = json::fromResources(s.used);
  object["offered_resources"] = json::fromResources(s.offered);
  // False while its connection is broken (offered nothing until it
  // re-registers).
  object["active"] = s.active && !s.deactivated;
  // Apache's operator state (docs/draining.md).
  object["deactivated"] = s.deactivated;
  if (s.drain) {
    object["drain_info"] = json::fromProto(*s.drain);
    if (s.drainStart > 0) object["estimated_drain_start_time_seconds"] = s.drainStart;
  }
  return object;
}

}  // namespace

void Registry::renderSlave(const Slave& s) const {
  if (!s.json || !caching_) {
    std::string fields = json::stringify(slaveFixedObject(s));
    fields.back() = ',';  // the changing fields follow
    s.json = text(std::move(fields));
  }
  if (!s.usageJson || !caching_) {
    std::string fields = json::stringify(slaveUsageObject(s));
    s.usageJson = text(fields.substr(1));  // after the opening brace
  }
}

size_t Registry::slaveChunkPieces(size_t chunk, uint64_t began, Pieces* pieces,
                                  bool* first) const {
  if (slaveChunks_.size() <= chunk) slaveChunks_.resize(chunk + 1);
  SlaveChunk& joined = slaveChunks_[chunk];
  size_t end = std::min(slots_.size(), (chunk + 1) * kSlaveChunk);
  size_t shown = 0;
  Fragment fragment;
  if (joined.json && caching_ && joined.addedAt <= began) {
    // What was kept: it shows no slave added after `began`.
    for (size_t slot = chunk * kSlaveChunk; slot < end; ++slot) shown += slots_[slot] ? 1 : 0;
    fragment = joined.json;
  } else {
    ChunkText text;
    uint64_t addedAt = 0;
    bool complete = true;  // every slave in it shown: worth keeping
    for (size_t slot = chunk * kSlaveChunk; slot < end; ++slot) {
      const Slave* s = slots_[slot];
      if (s == nullptr) continue;
      if (s->addedAt > began) {
        complete = false;
        continue;
      }
      renderSlave(*s);
      text.add(*s->json, s->usageJson.get());
      addedAt = std::max(addedAt, s->addedAt);
      shown++;
    }
    fragment = text.take();
    if (complete) joined = {fragment, addedAt};
  }
  if (fragment->empty()) return 0;
  if (!*first) pieces->append(",");
  *first = false;
  pieces->add(fragment);
  return shown;
}

Object Registry::slaveObject(const Slave& s) const {
  Object object = slaveFixedObject(s);
  object.merge(slaveUsageObject(s));
  return object;
}

Object Registry::frameworkSummaryObject(const Framework& f) const {
  Object object;
  object["id"] = f.id.value();
  object["name"] = f.info.name();
  if (!f.http) object["pid"] = f.pid.toString();
  object["used_resources"] = json::fromResources(f.used);
  object["offered_resources"] = json::fromResources(f.offered);
  Array capabilities;
  for (const FrameworkInfo::Capability& capability : f.info.capabilities()) {
    if (!capability.has_type()) continue;  // a value this master does not know
    capabilities.push_back(FrameworkInfo::Capability::Type_Name(capability.type()));
  }
  object["capabilities"] = std::move(capabilities);
  object["hostname"] = f.info.hostname();
  object["webui_url"] = f.info.webui_url();
  object["active"] = f.active;
  return object;
}

Fragment Registry::frameworkFields(const Framework& f) const {
  if (f.json && caching_) return f.json;
  Object object = frameworkSummaryObject(f);
  object["user"] = f.info.user();
  // "role" for every framework (a MULTI_ROLE one's first role; ours), and
  // "roles" as Apache Mesos shows a MULTI_ROLE framework's.
  std::vector<std::string> roles = roles::ofFramework(f.info);
  object["role"] = roles::multiRole(f.info) ? (roles.empty() ? std::string("*") : roles.front())
                                            : f.info.role();
  json::Array roleList;
  for (const std::string& role : roles) roleList.push_back(role);
  object["roles"] = std::move(roleList);
  if (f.info.has_principal()) object["principal"] = f.info.principal();
  object["checkpoint"] = f.info.checkpoint();
  object["failover_timeout"] = f.info.failover_timeout();
  object["registered_time"] = f.registeredTime;
  object["reregistered_time"] = f.reregisteredTime;
  object["unregistered_time"] = f.unregisteredTime;
  object["resources"] = json::fromResources(f.used + f.offered);
  if (f.info.has_labels()) object["labels"] = json::fromProto(f.info.labels())["labels"];
  std::string fields = json::stringify(object);
  fields.pop_back();  // the closing brace: the lists follow
  f.json = text(std::move(fields));
  return f.json;
}

const Fragment& Registry::offerJson(const OfferRecord& record) const {
  if (record.json && caching_) return record.json;
  Object offer;
  offer["id"] = record.offer.id().value();
  offer["framework_id"] = record.offer.framework_id().value();
  if (record.offer.has_allocation_info()) {
    Object allocation;
    allocation["role"] = record.offer.allocation_info().role();
    offer["allocation_info"] = std::move(allocation);
  }
  offer["slave_id"] = record.offer.slave_id().value();
  offer["resources"] = json::fromResources(record.resources);
  record.json = text(json::stringify(offer));
  return record.json;
}

// Rendered each time: a framework's executors are few per slave, and they
// live on their slaves.
Fragment Registry::executorsJson(const Framework& f) const {
  std::string out;
  for (const auto& [slaveId, count] : f.executorSlaves) {
    const Slave* s = slave(slaveId);
    if (s == nullptr) continue;
    auto executors = s->executors.find(f.id.value());
    if (executors == s->executors.end()) continue;
    for (const auto& [executorId, info] : executors->second) {
      Object executor;
      executor["executor_id"] = executorId;
      executor["framework_id"] = f.id.value();
      executor["slave_id"] = slaveId;
      executor["name"] = info.name();
      // Variables named like secrets show masked (common/secrets.hpp).
      if (info.has_command()) executor["command"] = json::fromProto(maskEnvironment(info.command()));
      executor["resources"] = json::fromResources(Resources(info.resources()));
      if (!out.empty()) out += ',';
      out += json::stringify(executor);
    }
  }
  return text(std::move(out));
}

void Registry::completedPieces(const Framework& f, Pieces* pieces) const {
  if (!caching_) f.completedChunks.clear();
  size_t i = 0;
  while (i < f.completed.size()) {
    uint64_t chunk = (f.completedSeq + i) / kCompletedChunk;
    size_t end = std::min(f.completed.size(), (chunk + 1) * kCompletedChunk - f.completedSeq);
    Fragment& joined = f.completedChunks[chunk];
    if (!joined) {
      ChunkText text;
      for (size_t j = i; j < end; ++j) text.add(*f.completed[j].json);
      joined = text.take();
    }
    if (i > 0) pieces->append(",");
    pieces->add(joined);
    i = end;
  }
}

void Registry::tasksPieces(const Framework& f, Pieces* pieces) const {
  size_t chunks = (f.taskSlots.size() + kTaskChunk - 1) / kTaskChunk;
  if (f.taskChunks.size() < chunks) f.taskChunks.resize(chunks);
  bool first = true;
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    Fragment& joined = f.taskChunks[chunk];
    if (!joined || !caching_) {
      ChunkText text;
      size_t end = std::min(f.taskSlots.size(), (chunk + 1) * kTaskChunk);
      for (size_t slot = chunk * kTaskChunk; slot < end; ++slot) {
        if (const TaskRecord* task = f.taskSlots[slot]) text.add(*taskJson(*task));
      }
      joined = text.take();
    }
    if (joined->empty()) continue;
    if (!first) pieces->append(",");
    first = false;
    pieces->add(joined);
  }
}

void Registry::frameworkPieces(const Framework& f, Pieces* pieces,
                               std::string_view unreachable) const {
  pieces->add(frameworkFields(f));
  pieces->append(",\"tasks\":[");
  tasksPieces(f, pieces);
  pieces->append("],\"unreachable_tasks\":[");
  pieces->append(unreachable);
  pieces->append("],\"completed_tasks\":[");
  completedPieces(f, pieces);
  pieces->append("],\"offers\":[");
  appendList(
      f.offers,
      [this](const std::string& id) -> const Fragment& { return offerJson(offers_.at(id)); },
      pieces);
  pieces->append("],\"executors\":[");
  pieces->add(executorsJson(f));
  pieces->append("]}");
}

}  // namespace mesos::internal::master
