// --registry=zookeeper (the default with --zk): the registry in the
// ZooKeeper ensemble the masters elect their leader in. The node
// "<path>/registry" holds the header; its children "shard-<n>" the shards
// and "maintenance" the maintenance schedule and machines.
//
// Fencing: recover() writes the header node again, which moves its version
// on; every later write is a transaction that first checks the header is
// still at that version. A deposed leader's writes therefore fail once a
// new leader has recovered, and the new leader reads every write that
// succeeded before. Writes are transactions of at most kTransactionBytes
// (ZooKeeper refuses requests over its jute.maxbuffer, 1 MB by default).
#include <glog/logging.h>
#include <zookeeper/zookeeper.h>

#include <cstdio>

#include "master/registrar/storage.hpp"
#include "process/dispatch.hpp"
#include "registry.pb.h"
#include "zk/zookeeper.hpp"

namespace mesos::internal::master::registrar {

namespace {

using process::Future;
using process::Nothing;
using process::Promise;
using zk::ZooKeeper;

constexpr size_t kTransactionBytes = 512 * 1024;

class ZooKeeperStorage : public Storage {
 public:
  ZooKeeperStorage(process::Pid<ZooKeeper> zk, std::string path, std::string url)
      : zk_(std::move(zk)), root_(std::move(path) + "/registry"), url_(std::move(url)) {}

  std::string describe() const override { return "ZooKeeper " + url_ + " at " + root_; }
  bool durable() const override { return true; }

  Future<Result<Contents>> recover(uint32_t shards) override {
    auto promise = std::make_shared<Promise<Result<Contents>>>();
    auto fail = [promise](const Error& error) { promise->set(Result<Contents>(error)); };
    process::dispatch(zk_, &ZooKeeper::createPath, root_)
        .then(actor_, [this, promise, fail, shards](const Result<Nothing>& made) {
          if (!made) return fail(made.error());
          process::dispatch(zk_, &ZooKeeper::getVersioned, root_)
              .then(actor_, [this, promise, fail, shards](const Result<ZooKeeper::Versioned>& node) {
                if (!node) return fail(node.error());
                takeOver(promise, node.value(), shards);
              });
        });
    return promise->future();
  }

  Future<Result<Nothing>> write(std::vector<std::pair<uint32_t, std::string>> shards,
                                std::optional<std::string> maintenance) override {
    // Transactions of at most kTransactionBytes each, every one fenced.
    std::vector<std::vector<ZooKeeper::Op>> transactions;
    size_t bytes = kTransactionBytes;
    if (maintenance) {
      transactions.push_back({ZooKeeper::Op{ZooKeeper::Op::Kind::kCheck, root_, "", fence_},
                              ZooKeeper::Op{ZooKeeper::Op::Kind::kSet, maintenancePath(),
                                            std::move(*maintenance), -1}});
      bytes = transactions.back().back().data.size();
    }
    for (auto& [index, content] : shards) {
      if (bytes + content.size() > kTransactionBytes) {
        transactions.push_back({ZooKeeper::Op{ZooKeeper::Op::Kind::kCheck, root_, "", fence_}});
        bytes = 0;
      }
      bytes += content.size();
      transactions.back().push_back(
          ZooKeeper::Op{ZooKeeper::Op::Kind::kSet, shardPath(index), std::move(content), -1});
    }
    auto promise = std::make_shared<Promise<Result<Nothing>>>();
    if (transactions.empty()) {
      promise->set(Result<Nothing>(Nothing{}));
      return promise->future();
    }
    auto left = std::make_shared<size_t>(transactions.size());
    auto failed = std::make_shared<std::optional<Error>>();
    for (auto& ops : transactions) {
      process::dispatch(zk_, &ZooKeeper::multi, std::move(ops))
          .then(actor_, [this, promise, left, failed](const Result<Nothing>& done) {
            if (!done && !*failed) {
              *failed = done.error().code == ZBADVERSION
                            ? Error{"another master took the registry at " + root_ +
                                    " over (its header moved on): this master no longer leads"}
                            : done.error();
            }
            if (--*left == 0) {
              promise->set(*failed ? Result<Nothing>(**failed) : Result<Nothing>(Nothing{}));
            }
          });
    }
    return promise->future();
  }

 private:
  std::string shardPath(uint32_t index) const {
    char name[32];
    std::snprintf(name, sizeof(name), "/shard-%04u", index);
    return root_ + name;
  }
  std::string maintenancePath() const { return root_ + "/maintenance"; }

  // Writes the header again at the version read (making it when the
  // registry is new): the version it moves to fences earlier owners off.
  void takeOver(std::shared_ptr<Promise<Result<Contents>>> promise,
                const ZooKeeper::Versioned& node, uint32_t shards) {
    registry::Header header;
    if (node.data.empty()) {
      header.set_format(1);
      header.set_shards(shards);
    } else if (!header.ParseFromString(node.data) || header.format() != 1 ||
               header.shards() == 0 || header.shards() > 65536) {
      promise->set(Result<Contents>(
          Error{"the registry's header at " + root_ +
                " is corrupt or of an unknown format; refusing to start from it"}));
      return;
    }
    process::dispatch(zk_, &ZooKeeper::set, root_, header.SerializeAsString(), node.version)
        .then(actor_, [this, promise, count = header.shards()](const Result<int32_t>& set) {
          if (!set) {
            promise->set(Result<Contents>(
                set.error().code == ZBADVERSION
                    ? Error{"another master took the registry at " + root_ +
                            " over while this one recovered it"}
                    : set.error()));
            return;
          }
          fence_ = set.value();
          readShards(promise, count);
        });
  }

  // Reads every shard and the maintenance node at once, making the ones
  // missing.
  void readShards(std::shared_ptr<Promise<Result<Contents>>> promise, uint32_t count) {
    auto contents =
        std::make_shared<Contents>(Contents{std::vector<std::string>(count), std::string()});
    auto left = std::make_shared<uint32_t>(count + 1);
    auto failed = std::make_shared<std::optional<Error>>();
    auto finish = [promise, contents, left, failed] {
      if (--*left > 0) return;
      promise->set(*failed ? Result<Contents>(**failed) : Result<Contents>(std::move(*contents)));
    };
    for (uint32_t i = 0; i <= count; ++i) {
      // Index `count` is the maintenance node.
      std::string path = i < count ? shardPath(i) : maintenancePath();
      process::dispatch(zk_, &ZooKeeper::get, path)
          .then(actor_, [this, path, i, count, contents, failed,
                         finish](const Result<std::string>& got) {
            if (got) {
              (i < count ? contents->shards[i] : contents->maintenance) = got.value();
              return finish();
            }
            if (got.error().code != ZNONODE) {
              if (!*failed) *failed = got.error();
              return finish();
            }
            process::dispatch(zk_, &ZooKeeper::create, path, std::string(), 0)
                .then(actor_, [failed, finish](const Result<std::string>& made) {
                  if (!made && made.error().code != ZNODEEXISTS && !*failed) {
                    *failed = made.error();
                  }
                  finish();
                });
          });
    }
  }

  process::Pid<ZooKeeper> zk_;
  std::string root_;
  std::string url_;
  int32_t fence_ = -1;
};

}  // namespace

std::unique_ptr<Storage> zookeeperStorage(process::Pid<ZooKeeper> zk, std::string path,
                                          std::string url) {
  return std::make_unique<ZooKeeperStorage>(std::move(zk), std::move(path), std::move(url));
}

}  // namespace mesos::internal::master::registrar
