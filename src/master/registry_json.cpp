// The registry's JSON: each entity as /state shows it (Apache Mesos's
// shapes for the fields we have), cached per entity until it changes.
#include <algorithm>

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

}  // namespace

const Fragment& Registry::taskJson(const TaskRecord& task) const {
  if (!task.json || !caching_) task.json = text(json::stringify(json::fromTask(task.task)));
  return task.json;
}


namespace {

// A slave's /state fields that change only when it re-registers.
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
  return object;
}

// Those that change with its tasks and offers, and its connection.
Object slaveUsageObject(const Slave& s) {
  Object object;
  object["used_resources"] = json::fromResources(s.used);
  object["offered_resources"] = json::fromResources(s.offered);
  // False while its connection is broken (offered nothing until it
  // re-registers).
  object["active"] = s.active;
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
  // What was kept, when it shows no slave added after `began`.
  if (joined.json && caching_ && joined.addedAt <= began) {
    for (size_t slot = chunk * kSlaveChunk; slot < end; ++slot) shown += slots_[slot] ? 1 : 0;
    if (joined.json->empty()) return 0;
    if (!*first) pieces->append(",");
    *first = false;
    pieces->add(joined.json);
    return shown;
  }
  size_t size = 0;
  for (size_t slot = chunk * kSlaveChunk; slot < end; ++slot) {
    if (const Slave* s = slots_[slot]) {
      renderSlave(*s);
      size += s->json->size() + s->usageJson->size() + 1;
    }
  }
  std::string text;
  text.reserve(size);  // kept for as long as the chunk: no slack
  uint64_t addedAt = 0;
  bool complete = true;  // every slave in it shown: worth keeping
  for (size_t slot = chunk * kSlaveChunk; slot < end; ++slot) {
    const Slave* s = slots_[slot];
    if (s == nullptr) continue;
    if (s->addedAt > began) {
      complete = false;
      continue;
    }
    if (!text.empty()) text += ',';
    text += *s->json;
    text += *s->usageJson;
    addedAt = std::max(addedAt, s->addedAt);
    shown++;
  }
  auto fragment = std::make_shared<const std::string>(std::move(text));
  if (complete) joined = {fragment, addedAt};
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
  object["pid"] = f.pid.toString();
  object["used_resources"] = json::fromResources(f.used);
  object["offered_resources"] = json::fromResources(f.offered);
  Array capabilities;
  for (const FrameworkInfo::Capability& capability : f.info.capabilities()) {
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
  object["role"] = f.info.role();
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
      if (info.has_command()) executor["command"] = json::fromProto(info.command());
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
      size_t size = 0;
      for (size_t j = i; j < end; ++j) size += f.completed[j].json->size() + 1;
      std::string text;
      text.reserve(size);
      for (size_t j = i; j < end; ++j) {
        if (j > i) text += ',';
        text += *f.completed[j].json;
      }
      joined = std::make_shared<const std::string>(std::move(text));
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
      size_t begin = chunk * kTaskChunk;
      size_t end = std::min(f.taskSlots.size(), begin + kTaskChunk);
      size_t size = 0;
      for (size_t slot = begin; slot < end; ++slot) {
        if (const TaskRecord* task = f.taskSlots[slot]) size += taskJson(*task)->size() + 1;
      }
      std::string text;
      text.reserve(size);  // kept for as long as the chunk: no slack
      for (size_t slot = begin; slot < end; ++slot) {
        const TaskRecord* task = f.taskSlots[slot];
        if (task == nullptr) continue;
        if (!text.empty()) text += ',';
        text += *task->json;
      }
      joined = std::make_shared<const std::string>(std::move(text));
    }
    if (joined->empty()) continue;
    if (!first) pieces->append(",");
    first = false;
    pieces->add(joined);
  }
}

void Registry::frameworkPieces(const Framework& f, Pieces* pieces) const {
  pieces->add(frameworkFields(f));
  pieces->append(",\"tasks\":[");
  tasksPieces(f, pieces);
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
