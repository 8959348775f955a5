// Finding the leading master, for slaves, scheduler drivers and standby
// masters: a master named once ("host:port"), or the leader of the masters'
// group in ZooKeeper (zk/masters.hpp), followed as it changes.
//
//   auto detector = MasterDetector::create(text, runtime);   // zk://, file://, host:port
//   detector->detect(std::nullopt).then(self(), ...);        // the first leader
//   detector->detect(current).then(self(), ...);             // the next change
//
// detect() may be called from any thread or actor; its future completes on
// the detector's actor (consume it with then()).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "process/runtime.hpp"
#include "process/upid.hpp"
#include "zk/url.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::internal::zk {

// Apache Mesos's default ZooKeeper session timeout for detectors.
inline constexpr std::chrono::milliseconds kDetectorSessionTimeout{10000};

// What a --master value names: a ZooKeeper URL, or a master's address as
// given ("host:port", "master@ip:port"; for the caller's own parser). A
// "file:///path" is read and its content taken instead (Apache's
// convention; either form). Fails on a malformed zk:// URL or a file that
// cannot be read.
Result<std::variant<Url, std::string>> masterSource(const std::string& text);

// The same master: same id and pid (an empty optional is "no leader").
bool sameMaster(const std::optional<MasterInfo>& a, const std::optional<MasterInfo>& b);

// MasterInfo for a master known only by its pid (no ZooKeeper).
MasterInfo masterInfoOf(const process::UPID& pid);
// The pid a detected leader's MasterInfo names, by id and address only.
Result<process::UPID> masterPid(const MasterInfo& info);

class DetectorProcess;

class MasterDetector {
 public:
  // A master named once: detect() gives it, then never completes again.
  static std::unique_ptr<MasterDetector> standalone(const process::UPID& master);
  // The leader of the group at url.path, through a ZooKeeper session of its
  // own (spawned on `runtime`).
  static std::unique_ptr<MasterDetector> zookeeper(
      process::Runtime& runtime, const Url& url,
      std::chrono::milliseconds sessionTimeout = kDetectorSessionTimeout);
  // Through a session someone else owns (a master's contender shares it).
  static std::unique_ptr<MasterDetector> zookeeper(process::Runtime& runtime,
                                                   const process::Pid<ZooKeeper>& zk,
                                                   const std::string& path);

  ~MasterDetector();

  // Completes once the leading master is not `previous`: with the leader,
  // or none while no master leads (none also after the ZooKeeper session
  // expired, until the group is read again).
  process::Future<std::optional<MasterInfo>> detect(const std::optional<MasterInfo>& previous);

 private:
  MasterDetector() = default;
  std::optional<MasterInfo> fixed_;  // standalone
  process::Spawned<ZooKeeper> zk_;   // when the session is the detector's own
  process::Spawned<DetectorProcess> process_;
};

class DetectorProcess : public process::Actor {
 public:
  DetectorProcess(process::Pid<ZooKeeper> zk, std::string path);
  process::Future<std::optional<MasterInfo>> detect(std::optional<MasterInfo> previous);
  void expired();

 protected:
  void initialize() override;

 private:
  void watch();
  void found(const Result<ZooKeeper::Leading>& leading);
  void update(const std::optional<MasterInfo>& leader);

  const process::Pid<ZooKeeper> zk_;
  const std::string path_;
  bool read_ = false;       // the group was read at least once
  bool announced_ = false;  // the leader was said in the log
  std::optional<MasterInfo> leader_;
  std::vector<std::pair<std::optional<MasterInfo>,
                        std::shared_ptr<process::Promise<std::optional<MasterInfo>>>>>
      waiting_;
  int failures_ = 0;  // reads in a row that failed
};

}  // namespace mesos::internal::zk
