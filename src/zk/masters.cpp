#include "zk/masters.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <glog/logging.h>

#include <zookeeper/zookeeper.h>

#include "common/json.hpp"
#include "zk/zookeeper.hpp"
#include "process/upid.hpp"

namespace mesos::internal::zk {

using process::Future;

std::string masterInfoJson(const MasterInfo& info) {
  return json::stringify(json::fromProto(info));
}

Result<MasterInfo> parseMasterInfo(const std::string& text) {
  auto parsed = json::parse(text);
  if (!parsed.ok()) return Error{"not JSON: " + parsed.error().message};
  const json::Value& value = *parsed;
  if (!value.isObject()) return Error{"not a JSON object"};
  MasterInfo info;
  if (!value["id"].isString() || value["id"].string().empty()) return Error{"no \"id\" string"};
  info.set_id(value["id"].string());
  if (!value["pid"].isString() || !process::UPID::parse(value["pid"].string())) {
    return Error{"no \"pid\" of the form name@ip:port"};
  }
  info.set_pid(value["pid"].string());
  auto number = [&value](const char* name) -> std::optional<uint32_t> {
    const json::Value& field = value[name];
    if (!field.isInteger() || field.integer() < 0 || field.integer() > UINT32_MAX) {
      return std::nullopt;
    }
    return static_cast<uint32_t>(field.integer());
  };
  auto ip = number("ip");
  auto port = number("port");
  if (!ip || !port) return Error{"no \"ip\" and \"port\" numbers"};
  info.set_ip(*ip);
  info.set_port(*port);
  if (value["hostname"].isString()) info.set_hostname(value["hostname"].string());
  if (value["version"].isString()) info.set_version(value["version"].string());
  const json::Value& address = value["address"];
  if (address.isObject()) {
    if (address["hostname"].isString()) {
      info.mutable_address()->set_hostname(address["hostname"].string());
    }
    if (address["ip"].isString()) info.mutable_address()->set_ip(address["ip"].string());
    info.mutable_address()->set_port(address["port"].isInteger()
                                          ? static_cast<int32_t>(address["port"].integer())
                                          : static_cast<int32_t>(info.port()));
  }
  return info;
}

// The group's path is made where missing (as a contender would), so that
// a detector started before any master can watch it. Members are read in
// order of sequence; one whose data is not MasterInfo JSON is passed over
// (said once per member), so every reader agrees on the same leader.
Future<Result<ZooKeeper::Leading>> ZooKeeper::leader(std::string path) {
  return createPath(path)
      .then(self(),
            [this, path](const Result<process::Nothing>& made) -> Future<Result<Members>> {
              if (!made.ok()) return Result<Members>(made.error());
              return members(path, kMasterLabel);
            })
      .then(self(), [this](const Result<Members>& listed) -> Future<Result<Leading>> {
        if (!listed.ok()) return Result<Leading>(listed.error());
        auto members = std::make_shared<std::vector<Member>>(listed->members);
        return leaderFrom(members, 0, listed->changed);
      });
}

Future<Result<ZooKeeper::Leading>> ZooKeeper::leaderFrom(
    std::shared_ptr<std::vector<Member>> members, size_t next,
    Future<process::Nothing> changed) {
  if (next >= members->size()) return Result<Leading>(Leading{std::nullopt, "", changed});
  std::string member = (*members)[next].path;
  return get(member).then(
      self(), [this, members, next, changed, member](
                  const Result<std::string>& data) -> Future<Result<Leading>> {
        if (!data.ok()) {
          // Gone between the listing and the read: the next one may lead.
          if (data.error().code == ZNONODE) return leaderFrom(members, next + 1, changed);
          return Result<Leading>(data.error());
        }
        Result<MasterInfo> info = parseMasterInfo(*data);
        if (!info.ok()) {
          if (passedOver_.insert(member).second) {
            if (passedOver_.size() > 1000) passedOver_.clear();
            LOG(WARNING) << "Ignoring the member " << member
                         << " of the masters' group: it does not hold MasterInfo JSON ("
                         << info.error().message << ")";
          }
          return leaderFrom(members, next + 1, changed);
        }
        return Result<Leading>(Leading{*info, member, changed});
      });
}

}  // namespace mesos::internal::zk
