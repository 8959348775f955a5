#include "master/registrar/registrar.hpp"

#include <glog/logging.h>
#include <google/protobuf/io/coded_stream.h>

#include <limits>

namespace mesos::internal::master::registrar {

using process::Future;
using process::Nothing;
using process::Promise;

namespace {

uint64_t micros(std::chrono::steady_clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

// Appends `bytes` as one element of Shard.agents (field 1, length-delimited).
void appendAgent(std::string* out, const std::string& bytes) {
  out->push_back(static_cast<char>((1 << 3) | 2));
  uint64_t length = bytes.size();
  while (length >= 0x80) {
    out->push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  out->push_back(static_cast<char>(length));
  out->append(bytes);
}

// Splits a shard (its agents' bytes, each as one Shard.agents element) into
// its agents, parsed, with their bytes as stored. False when it does not
// parse.
bool parseShard(const std::string& content,
                std::vector<std::pair<registry::Agent, std::string>>* out) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(content.data()),
                                            static_cast<int>(content.size()));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  while (in.CurrentPosition() < static_cast<int>(content.size())) {
    uint32_t length = 0;
    registry::Agent agent;
    std::string bytes;
    if (in.ReadTag() != ((1 << 3) | 2) || !in.ReadVarint32(&length) ||
        !in.ReadString(&bytes, static_cast<int>(length)) || !agent.ParseFromString(bytes) ||
        !agent.IsInitialized()) {
      return false;
    }
    out->emplace_back(std::move(agent), std::move(bytes));
  }
  return true;
}

}  // namespace

Registrar::Registrar(std::string id, std::unique_ptr<Storage> storage,
                     std::chrono::milliseconds fetchTimeout, std::chrono::milliseconds storeTimeout)
    : Actor(std::move(id)),
      storage_(std::move(storage)),
      fetchTimeout_(fetchTimeout),
      storeTimeout_(storeTimeout) {}

void Registrar::initialize() { storage_->attach(self()); }

Future<Result<std::vector<registry::Agent>>> Registrar::recover() {
  using Agents = std::vector<registry::Agent>;
  auto promise = std::make_shared<Promise<Result<Agents>>>();
  if (recovered_) {
    promise->set(Result<Agents>(Error{"the registry was recovered already"}));
    return promise->future();
  }
  auto start = std::chrono::steady_clock::now();
  delay(fetchTimeout_, [this, promise] {
    if (promise->set(Result<Agents>(Error{
            "reading the registry (" + storage_->describe() + ") took longer than " +
            std::to_string(fetchTimeout_.count()) + " ms (--registry_fetch_timeout)"}))) {
      failed_ = Error{"the registry could not be read"};
    }
  });
  storage_->recover(kShards).then(self(), [this, promise,
                                           start](const Result<Storage::Contents>& read) {
    if (!promise->future().isPending()) return;  // timed out
    if (!read) {
      failed_ = read.error();
      promise->set(Result<Agents>(Error{"cannot read the registry (" + storage_->describe() +
                                        "): " + read.error().message}));
      return;
    }
    const Nodes& nodes = read.value().nodes;
    if (auto it = nodes.find(kMaintenanceNode);
        it != nodes.end() && !it->second.empty() && !maintenance_.ParseFromString(it->second)) {
      failed_ = Error{"corrupt maintenance node"};
      promise->set(Result<Agents>(
          Error{"the maintenance schedule in the registry (" + storage_->describe() +
                ") is corrupt: it does not parse; refusing to lead from it (restore it, or "
                "remove that node or file to start without maintenance)"}));
      return;
    }
    if (auto it = nodes.find(kSettingsNode);
        it != nodes.end() && !it->second.empty() && !settings_.ParseFromString(it->second)) {
      failed_ = Error{"corrupt settings node"};
      promise->set(Result<Agents>(
          Error{"the quota and weights in the registry (" + storage_->describe() +
                ", node \"settings\") are corrupt: they do not parse; refusing to lead from "
                "them (restore it, or remove that node or file to start without quota and "
                "weights set at run time)"}));
      return;
    }
    shards_ = static_cast<uint32_t>(read.value().shards.size());
    shardIds_.assign(shards_, {});
    shardBytes_.assign(shards_, 0);
    Agents agents;
    uint32_t reused = 0;  // shards read ahead, unchanged
    for (uint32_t i = 0; i < shards_; ++i) {
      // Each agent's bytes are kept as read (a shard is their
      // concatenation as Shard.agents): nothing is serialized again. A
      // shard read ahead as it is now is not parsed again.
      const std::string& content = read.value().shards[i];
      std::vector<std::pair<registry::Agent, std::string>> parsed;
      if (prefetched_ && i < prefetched_->contents.size() && prefetched_->contents[i] == content) {
        parsed = std::move(prefetched_->agents[i]);
        if (!content.empty()) ++reused;
      } else if (!parseShard(content, &parsed)) {
        prefetched_.reset();
        failed_ = Error{"corrupt shard"};
        promise->set(Result<Agents>(
            Error{"shard " + std::to_string(i) + " of the registry (" + storage_->describe() +
                  ") is corrupt: it does not parse as a list of agents; refusing to lead from "
                  "it (restore it, or remove the registry to start empty)"}));
        return;
      }
      for (auto& [agent, bytes] : parsed) {
        if (!agent.info().has_id() || agent.info().id().value().empty()) continue;
        agents.push_back(agent);
        put(std::move(agent), std::move(bytes));
      }
    }
    prefetched_.reset();
    stats_->shardsReadAhead = reused;
    stats_->unchangedSinceReadAhead = read.value().unchangedSincePeek;
    dirty_.clear();  // as stored
    nodesDirty_.clear();
    recovered_ = true;
    stats_->recoveryUs = micros(std::chrono::steady_clock::now() - start);
    LOG(INFO) << "Recovered the registry (" << storage_->describe() << "): " << stats_->admitted
              << " admitted, " << stats_->unreachable << " unreachable and " << stats_->gone
              << " gone agents, " << stats_->bytes << " bytes in " << shards_ << " shards, in "
              << stats_->recoveryUs / 1000.0 << " ms"
              << (read.value().unchangedSincePeek
                      ? " (unchanged since this master read it ahead)"
                      : reused > 0 ? " (" + std::to_string(reused) + " shards as read ahead)"
                                   : std::string());
    promise->set(Result<Agents>(std::move(agents)));
  });
  return promise->future();
}

Future<Result<size_t>> Registrar::prefetch() {
  auto promise = std::make_shared<Promise<Result<size_t>>>();
  if (recovered_) {
    promise->set(Result<size_t>(Error{"the registry was recovered already"}));
    return promise->future();
  }
  storage_->peek().then(self(), [this, promise](const Result<Storage::Contents>& read) {
    if (recovered_) {
      promise->set(Result<size_t>(Error{"the registry was recovered meanwhile"}));
      return;
    }
    std::optional<Prefetched> before = std::move(prefetched_);
    prefetched_.reset();
    if (!read) {
      promise->set(Result<size_t>(read.error()));
      return;
    }
    // Only the shards that changed since the last read are parsed.
    Prefetched prefetched{read.value().shards, {}};
    prefetched.agents.resize(prefetched.contents.size());
    size_t count = 0;
    for (size_t i = 0; i < prefetched.contents.size(); ++i) {
      if (before && i < before->contents.size() && before->contents[i] == prefetched.contents[i]) {
        prefetched.agents[i] = std::move(before->agents[i]);
      } else if (!parseShard(prefetched.contents[i], &prefetched.agents[i])) {
        promise->set(Result<size_t>(Error{"shard " + std::to_string(i) + " does not parse"}));
        return;
      }
      count += prefetched.agents[i].size();
    }
    prefetched_ = std::move(prefetched);
    promise->set(Result<size_t>(count));
  });
  return promise->future();
}

Future<Result<bool>> Registrar::admit(SlaveInfo info, double time) {
  return enqueue([this, info = std::move(info), time] {
    auto it = entries_.find(info.id().value());
    if (it != entries_.end()) {
      const registry::Agent& known = it->second.agent;
      if (known.state() == registry::Agent::GONE) return false;
      if (known.state() == registry::Agent::ADMITTED &&
          known.info().SerializeAsString() == info.SerializeAsString()) {
        return false;
      }
    }
    registry::Agent agent;
    if (it != entries_.end()) agent = it->second.agent;  // keeps drain state
    agent.set_state(registry::Agent::ADMITTED);
    *agent.mutable_info() = info;
    agent.set_since(time);
    put(std::move(agent));
    return true;
  });
}

Future<Result<bool>> Registrar::markUnreachable(SlaveID id, double time) {
  return enqueue([this, id = std::move(id), time] {
    auto it = entries_.find(id.value());
    if (it == entries_.end() || it->second.agent.state() != registry::Agent::ADMITTED) {
      return false;
    }
    registry::Agent agent = it->second.agent;
    agent.set_state(registry::Agent::UNREACHABLE);
    agent.set_since(time);
    put(std::move(agent));
    return true;
  });
}

Future<Result<bool>> Registrar::markGone(SlaveID id, double time) {
  return enqueue([this, id = std::move(id), time] {
    registry::Agent agent;
    if (auto it = entries_.find(id.value()); it != entries_.end()) {
      if (it->second.agent.state() == registry::Agent::GONE) return false;
      agent = it->second.agent;
    } else {
      *agent.mutable_info()->mutable_id() = id;
      agent.mutable_info()->set_hostname("");
    }
    agent.set_state(registry::Agent::GONE);
    agent.set_since(time);
    agent.clear_drain();
    put(std::move(agent));
    return true;
  });
}

Future<Result<bool>> Registrar::remove(std::vector<SlaveID> ids) {
  return enqueue([this, ids = std::move(ids)] {
    bool changed = false;
    for (const SlaveID& id : ids) {
      if (entries_.count(id.value()) == 0) continue;
      erase(id.value());
      changed = true;
    }
    return changed;
  });
}

Future<Result<bool>> Registrar::setMaintenance(registry::Maintenance maintenance) {
  return enqueue([this, maintenance = std::move(maintenance)] {
    if (maintenance.SerializeAsString() == maintenance_.SerializeAsString()) return false;
    maintenance_ = maintenance;
    nodesDirty_.insert(kMaintenanceNode);
    return true;
  });
}

Future<Result<bool>> Registrar::setSettings(registry::Settings settings) {
  return enqueue([this, settings = std::move(settings)] {
    if (settings.SerializeAsString() == settings_.SerializeAsString()) return false;
    settings_ = settings;
    nodesDirty_.insert(kSettingsNode);
    return true;
  });
}

Future<Result<bool>> Registrar::setDrain(SlaveID id, bool deactivated,
                                         std::optional<DrainInfo> drain) {
  return enqueue([this, id = std::move(id), deactivated, drain = std::move(drain)] {
    auto it = entries_.find(id.value());
    if (it == entries_.end() || it->second.agent.state() == registry::Agent::GONE) return false;
    registry::Agent agent = it->second.agent;
    if (deactivated) {
      agent.set_deactivated(true);
    } else {
      agent.clear_deactivated();
    }
    if (drain) {
      *agent.mutable_drain() = *drain;
    } else {
      agent.clear_drain();
    }
    if (agent.SerializeAsString() == it->second.bytes) return false;
    put(std::move(agent));
    return true;
  });
}

Future<Result<bool>> Registrar::enqueue(std::function<bool()> apply) {
  auto promise = std::make_shared<Promise<Result<bool>>>();
  if (failed_) {
    promise->set(Result<bool>(*failed_));
  } else if (!recovered_) {
    promise->set(Result<bool>(Error{"the registry is not recovered yet"}));
  } else {
    waiting_.push_back(Change{std::move(apply), promise});
    stats_->queued = waiting_.size();
    flush();
  }
  return promise->future();
}

void Registrar::flush() {
  if (out_ || waiting_.empty() || failed_) return;
  std::vector<Change> batch(std::make_move_iterator(waiting_.begin()),
                            std::make_move_iterator(waiting_.end()));
  waiting_.clear();
  stats_->queued = 0;
  for (Change& change : batch) change.changed = change.apply();
  if ((dirty_.empty() && nodesDirty_.empty()) || !storage_->durable()) {
    dirty_.clear();
    nodesDirty_.clear();
    for (Change& change : batch) change.promise->set(Result<bool>(change.changed));
    return;
  }
  std::vector<std::pair<uint32_t, std::string>> shards;
  shards.reserve(dirty_.size());
  for (uint32_t shard : dirty_) shards.emplace_back(shard, shardContent(shard));
  dirty_.clear();
  Nodes nodes;
  for (const std::string& name : nodesDirty_) {
    nodes[name] = name == kMaintenanceNode ? maintenance_.SerializeAsString()
                                           : settings_.SerializeAsString();
  }
  nodesDirty_.clear();
  writing_ = std::move(batch);
  out_ = true;
  uint64_t write = ++writeSeq_;
  writeStart_ = std::chrono::steady_clock::now();
  storage_->write(std::move(shards), std::move(nodes))
      .then(self(), [this, write](const Result<Nothing>& result) { written(write, result); });
  delay(storeTimeout_, [this, write] {
    if (!out_ || write != writeSeq_) return;
    written(write, Result<Nothing>(Error{
                       "storing the registry (" + storage_->describe() + ") took longer than " +
                       std::to_string(storeTimeout_.count()) + " ms (--registry_store_timeout)"}));
  });
}

void Registrar::written(uint64_t write, const Result<Nothing>& result) {
  if (!out_ || write != writeSeq_) return;  // timed out before
  out_ = false;
  std::vector<Change> batch = std::move(writing_);
  writing_.clear();
  if (!result) {
    Error error{"cannot store the registry (" + storage_->describe() +
                "): " + result.error().message};
    LOG(ERROR) << error.message;
    for (Change& change : batch) change.promise->set(Result<bool>(error));
    fail(error);
    return;
  }
  stats_->writes++;
  stats_->lastWriteUs = micros(std::chrono::steady_clock::now() - writeStart_);
  for (Change& change : batch) change.promise->set(Result<bool>(change.changed));
  flush();
}

void Registrar::fail(const Error& error) {
  failed_ = error;
  for (Change& change : waiting_) change.promise->set(Result<bool>(error));
  waiting_.clear();
  stats_->queued = 0;
}

void Registrar::put(registry::Agent agent, std::optional<std::string> bytes) {
  const std::string id = agent.info().id().value();
  auto [it, added] = entries_.try_emplace(id);
  Entry& entry = it->second;
  if (added) {
    entry.shard = shardOf(id);
    shardIds_[entry.shard].insert(id);
  } else {
    count(entry.agent, -1);
    shardBytes_[entry.shard] -= entry.bytes.size();
    stats_->bytes -= entry.bytes.size();
  }
  entry.agent = std::move(agent);
  entry.bytes = bytes ? std::move(*bytes) : entry.agent.SerializeAsString();
  count(entry.agent, +1);
  shardBytes_[entry.shard] += entry.bytes.size();
  stats_->bytes += entry.bytes.size();
  dirty_.insert(entry.shard);
}

void Registrar::erase(const std::string& id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  count(it->second.agent, -1);
  shardBytes_[it->second.shard] -= it->second.bytes.size();
  stats_->bytes -= it->second.bytes.size();
  shardIds_[it->second.shard].erase(id);
  dirty_.insert(it->second.shard);
  entries_.erase(it);
}

void Registrar::count(const registry::Agent& agent, int delta) {
  std::atomic<uint64_t>* counter = agent.state() == registry::Agent::ADMITTED ? &stats_->admitted
                                   : agent.state() == registry::Agent::UNREACHABLE
                                       ? &stats_->unreachable
                                       : &stats_->gone;
  *counter += static_cast<uint64_t>(static_cast<int64_t>(delta));
}

uint32_t Registrar::shardOf(const std::string& id) const {
  // FNV-1a: stable across builds and platforms (the shards are stored).
  uint32_t hash = 2166136261u;
  for (unsigned char c : id) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash % shards_;
}

std::string Registrar::shardContent(uint32_t shard) const {
  std::string content;
  content.reserve(shardBytes_[shard] + 6 * shardIds_[shard].size());
  for (const std::string& id : shardIds_[shard]) appendAgent(&content, entries_.at(id).bytes);
  return content;
}

}  // namespace mesos::internal::master::registrar
