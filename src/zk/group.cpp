// Group membership on the ZooKeeper actor (zk/zookeeper.hpp).
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "zk/zookeeper.hpp"

namespace mesos::internal::zk {

using process::Future;
using process::Nothing;
using process::Promise;

namespace {

// The sequence of a child named "<label>_<10 digits>", if it is one.
std::optional<uint64_t> sequenceOf(const std::string& name, const std::string& label) {
  std::string prefix = label + "_";
  if (name.size() != prefix.size() + 10 || name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  uint64_t sequence = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
    sequence = sequence * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return sequence;
}

}  // namespace

struct ZooKeeper::Joining {
  std::string path, label, data, token;
  Promise<Result<Member>> promise;
  int attempts = 0;
};

Future<Result<ZooKeeper::Members>> ZooKeeper::members(std::string path, std::string label) {
  return children(path).then(self(), [path, label](const Result<Children>& listed) {
    if (!listed.ok()) return Result<Members>(listed.error());
    Members members;
    members.changed = listed->changed;
    for (const std::string& name : listed->names) {
      if (auto sequence = sequenceOf(name, label)) {
        members.members.push_back({*sequence, path + "/" + name});
      }
    }
    std::sort(members.members.begin(), members.members.end(),
              [](const Member& a, const Member& b) { return a.sequence < b.sequence; });
    return Result<Members>(std::move(members));
  });
}

Future<Result<ZooKeeper::Member>> ZooKeeper::join(std::string path, std::string label,
                                                   std::string data, std::string token) {
  auto joining = std::make_shared<Joining>();
  joining->path = std::move(path);
  joining->label = std::move(label);
  joining->data = std::move(data);
  joining->token = std::move(token);
  Future<Result<Member>> future = joining->promise.future();
  createPath(joining->path).then(self(), [this, joining](const Result<Nothing>& made) {
    if (!made.ok()) {
      joining->promise.set(Result<Member>(made.error()));
      return;
    }
    joinStep(joining);
  });
  return future;
}

// Looks for a member whose data holds the token; creates one when there is
// none. A creation whose answer was lost looks again.
void ZooKeeper::joinStep(std::shared_ptr<Joining> joining) {
  if (++joining->attempts > 10) {
    joining->promise.set(Result<Member>(
        Error{"ZooKeeper: cannot join the group at " + joining->path + ": the connection was "
              "lost ten times in a row while joining", ZCONNECTIONLOSS}));
    return;
  }
  members(joining->path, joining->label)
      .then(self(), [this, joining](const Result<Members>& listed) {
        if (!listed.ok()) {
          joining->promise.set(Result<Member>(listed.error()));
          return;
        }
        // Every member's data, then the decision.
        struct Look {
          std::vector<Member> members;
          std::vector<std::optional<std::string>> data;
          size_t pending = 0;
        };
        auto look = std::make_shared<Look>();
        look->members = listed->members;
        look->data.resize(look->members.size());
        look->pending = look->members.size();
        auto decide = [this, joining, look] {
          for (size_t i = 0; i < look->members.size(); ++i) {
            if (look->data[i] && look->data[i]->find(joining->token) != std::string::npos) {
              joining->promise.set(Result<Member>(look->members[i]));
              return;
            }
          }
          create(joining->path + "/" + joining->label + "_", joining->data,
                 ZOO_EPHEMERAL | ZOO_SEQUENCE)
              .then(self(), [this, joining](const Result<std::string>& made) {
                if (made.ok()) {
                  std::string name = made->substr(made->rfind('/') + 1);
                  joining->promise.set(
                      Result<Member>(Member{sequenceOf(name, joining->label).value_or(0), *made}));
                } else if (made.error().code == ZCONNECTIONLOSS ||
                           made.error().code == ZOPERATIONTIMEOUT) {
                  joinStep(joining);  // was it made?
                } else {
                  joining->promise.set(Result<Member>(made.error()));
                }
              });
        };
        if (look->pending == 0) {
          decide();
          return;
        }
        for (size_t i = 0; i < look->members.size(); ++i) {
          get(look->members[i].path).then(self(), [look, i, decide](const Result<std::string>& d) {
            if (d.ok()) look->data[i] = *d;  // a member gone meanwhile is not ours
            if (--look->pending == 0) decide();
          });
        }
      });
}

}  // namespace mesos::internal::zk
