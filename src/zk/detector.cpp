#include "zk/detector.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <glog/logging.h>

#include "process/dispatch.hpp"

namespace mesos::internal::zk {

using process::Future;
using process::Promise;

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

}  // namespace

Result<std::variant<Url, std::string>> masterSource(const std::string& input) {
  std::string text = trimmed(input);
  if (text.rfind("file://", 0) == 0) {
    std::string path = text.substr(7);
    std::ifstream file(path);
    if (!file) return Error{"cannot read the master's file '" + path + "'"};
    std::stringstream content;
    content << file.rdbuf();
    text = trimmed(content.str());
    if (text.empty()) return Error{"the master's file '" + path + "' is empty"};
    if (text.rfind("file://", 0) == 0) {
      return Error{"the master's file '" + path + "' names another file; give zk:// or host:port"};
    }
  }
  if (text.rfind("zk://", 0) == 0) {
    auto url = parseUrl(text);
    if (!url) return url.error();
    return std::variant<Url, std::string>(*url);
  }
  return std::variant<Url, std::string>(text);
}

bool sameMaster(const std::optional<MasterInfo>& a, const std::optional<MasterInfo>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->id() == b->id() && a->pid() == b->pid();
}

MasterInfo masterInfoOf(const process::UPID& pid) {
  MasterInfo info;
  info.set_id(pid.toString());
  info.set_pid(pid.toString());
  info.set_ip(htonl(pid.address.ip));
  info.set_port(pid.address.port);
  info.set_hostname(pid.address.ipString());
  info.mutable_address()->set_ip(pid.address.ipString());
  info.mutable_address()->set_port(pid.address.port);
  return info;
}

Result<process::UPID> masterPid(const MasterInfo& info) {
  auto parsed = process::UPID::parse(info.pid());
  if (!parsed) return Error{"the leading master's pid '" + info.pid() + "': " +
                            parsed.error().message};
  return process::UPID(parsed->id, parsed->address);
}

std::unique_ptr<MasterDetector> MasterDetector::standalone(const process::UPID& master) {
  std::unique_ptr<MasterDetector> detector(new MasterDetector());
  detector->fixed_ = masterInfoOf(master);
  return detector;
}

std::unique_ptr<MasterDetector> MasterDetector::zookeeper(process::Runtime& runtime,
                                                          const Url& url,
                                                          std::chrono::milliseconds timeout) {
  std::unique_ptr<MasterDetector> detector(new MasterDetector());
  detector->zk_ = runtime.spawn<ZooKeeper>(process::generateId("zookeeper"), url, timeout);
  detector->process_ = runtime.spawn<DetectorProcess>(detector->zk_.pid(), url.path);
  return detector;
}

std::unique_ptr<MasterDetector> MasterDetector::zookeeper(process::Runtime& runtime,
                                                          const process::Pid<ZooKeeper>& zk,
                                                          const std::string& path) {
  std::unique_ptr<MasterDetector> detector(new MasterDetector());
  detector->process_ = runtime.spawn<DetectorProcess>(zk, path);
  return detector;
}

MasterDetector::~MasterDetector() = default;

Future<std::optional<MasterInfo>> MasterDetector::detect(
    const std::optional<MasterInfo>& previous) {
  if (fixed_) {
    if (sameMaster(previous, fixed_)) return Future<std::optional<MasterInfo>>();  // never
    return Future<std::optional<MasterInfo>>(fixed_);
  }
  return process::dispatch(process_.pid(), &DetectorProcess::detect, previous);
}

DetectorProcess::DetectorProcess(process::Pid<ZooKeeper> zk, std::string path)
    : Actor(process::generateId("detector")), zk_(std::move(zk)), path_(std::move(path)) {}

void DetectorProcess::initialize() {
  process::Pid<DetectorProcess> me(self());
  // An expired session took the leader's node with everything else this
  // session saw: no leader is known until the group is read again.
  std::function<void(ZooKeeper::Session, int64_t)> listener =
      [me](ZooKeeper::Session session, int64_t) {
        if (session != ZooKeeper::Session::kExpired) return;
        process::dispatch(me, &DetectorProcess::expired);
      };
  process::dispatch(zk_, &ZooKeeper::listen, std::move(listener));
  watch();
}

void DetectorProcess::watch() {
  process::dispatch(zk_, &ZooKeeper::leader, path_)
      .then(self(), [this](const Result<ZooKeeper::Leading>& leading) { found(leading); });
}

void DetectorProcess::found(const Result<ZooKeeper::Leading>& leading) {
  if (!leading.ok()) {
    // The session is being replaced, or the servers refuse us: read again
    // soon (and say so now and then).
    if (failures_++ % 30 == 0) {
      LOG(WARNING) << "Cannot read the masters' group " << path_ << " in ZooKeeper: "
                   << leading.error().message << "; trying again";
    }
    delay(std::chrono::milliseconds(std::min(1000, 50 * failures_)), [this] { watch(); });
    return;
  }
  failures_ = 0;
  read_ = true;
  update(leading->leader);
  leading->changed.then(self(), [this] { watch(); });
}

void DetectorProcess::expired() { update(std::nullopt); }

void DetectorProcess::update(const std::optional<MasterInfo>& leader) {
  if (!announced_ || !sameMaster(leader, leader_)) {
    LOG(INFO) << "Leading master: "
              << (leader ? leader->pid() + " (" + leader->id() + ")" : std::string("none"));
    announced_ = true;
  }
  leader_ = leader;
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& [previous, promise] : waiting) {
    if (sameMaster(previous, leader_)) {
      waiting_.emplace_back(std::move(previous), std::move(promise));
    } else {
      promise->set(leader_);
    }
  }
}

Future<std::optional<MasterInfo>> DetectorProcess::detect(std::optional<MasterInfo> previous) {
  if (read_ && !sameMaster(previous, leader_)) return Future<std::optional<MasterInfo>>(leader_);
  auto promise = std::make_shared<Promise<std::optional<MasterInfo>>>();
  waiting_.emplace_back(std::move(previous), promise);
  return promise->future();
}

}  // namespace mesos::internal::zk
