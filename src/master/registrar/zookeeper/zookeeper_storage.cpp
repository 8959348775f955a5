// --registry=zookeeper (the default with --zk): the registry in the
// ZooKeeper ensemble the masters elect their leader in. The node
// "<path>/registry" holds the header; its children "shard-<n>" the shards,
// made when first written, and "written" which of them exist (bit i of
// byte i / 8 for shard i), so that a new leader reads only those: with a
// few agents, recovery is three round trips instead of a read of every
// shard. A registry without "written" (made before it existed) is read
// whole. The named nodes, "maintenance" (the maintenance schedule and
// machines, docs/maintenance.md) and "settings" (quota and weights,
// docs/quota.md), are made when first written and set in the first fenced
// transaction of a write.
//
// Fencing: recover() writes the header node again, which moves its version
// on; every later write is a transaction that first checks the header is
// still at that version. A deposed leader's writes therefore fail once a
// new leader has recovered, and the new leader reads every write that
// succeeded before. Writes are transactions of at most kTransactionBytes
// (ZooKeeper refuses requests over its jute.maxbuffer, 1 MB by default).
//
// Read ahead: a standby peek()s the registry (every shard with its
// version); once elected, after the fencing write, one transaction checks
// that every shard is still at the version it read (and the list of
// written shards unchanged), and the shards are taken from what it read
// instead of being read again. A change since, or any error, and they are
// all read.
#include <glog/logging.h>
#include <zookeeper/zookeeper.h>

#include <cstdio>
#include <optional>
#include <set>

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
    recovering_ = true;
    auto promise = std::make_shared<Promise<Result<Contents>>>();
    auto fail = [promise](const Error& error) {
      promise->set(Result<Contents>(error));
    };
    // Usually the registry is there: its header is read at once, and the
    // path made only when it is not.
    process::dispatch(zk_, &ZooKeeper::getVersioned, root_)
        .then(actor_, [this, promise, fail, shards](const Result<ZooKeeper::Versioned>& node) {
          if (node) return takeOver(promise, node.value(), shards);
          if (node.error().code != ZNONODE) return fail(node.error());
          process::dispatch(zk_, &ZooKeeper::createPath, root_)
              .then(actor_, [this, promise, fail, shards](const Result<Nothing>& made) {
                if (!made) return fail(made.error());
                process::dispatch(zk_, &ZooKeeper::getVersioned, root_)
                    .then(actor_, [this, promise, fail, shards](
                                      const Result<ZooKeeper::Versioned>& node) {
                      if (!node) return fail(node.error());
                      takeOver(promise, node.value(), shards);
                    });
              });
        });
    return promise->future();
  }

  Future<Result<Contents>> peek() override {
    auto promise = std::make_shared<Promise<Result<Contents>>>();
    process::dispatch(zk_, &ZooKeeper::get, root_)
        .then(actor_, [this, promise](const Result<std::string>& header) {
          registry::Header parsed;
          if (!header || !parsed.ParseFromString(header.value()) || parsed.format() != 1 ||
              parsed.shards() == 0 || parsed.shards() > 65536) {
            promise->set(Result<Contents>(Error{"no registry to read ahead at " + root_}));
            return;
          }
          const uint32_t count = parsed.shards();
          process::dispatch(zk_, &ZooKeeper::get, root_ + "/written")
              .then(actor_, [this, promise, count](const Result<std::string>& written) {
                if (!written) {
                  // Without the list (an old registry), every shard is read
                  // at recovery anyway.
                  promise->set(Result<Contents>(written.error()));
                  return;
                }
                std::string list = written.value();
                list.resize((count + 7) / 8, '\0');
                peekShards(promise, count, std::move(list));
              });
        });
    return promise->future();
  }

  Future<Result<Nothing>> write(std::vector<std::pair<uint32_t, std::string>> shards,
                                Nodes nodes) override {
    // Shards written for the first time are made (empty) first, outside
    // the transactions, which stay safe to repeat: an empty shard says
    // nothing, and only a fenced transaction marks it written.
    std::vector<uint32_t> fresh;
    for (const auto& [index, content] : shards) {
      if (!isWritten(index)) fresh.push_back(index);
    }
    std::vector<std::string> freshNodes;
    for (const auto& [name, content] : nodes) {
      if (!made_.count(name)) freshNodes.push_back(name);
    }
    if (fresh.empty() && freshNodes.empty()) {
      return transact(std::move(shards), std::move(nodes));
    }
    auto promise = std::make_shared<Promise<Result<Nothing>>>();
    auto left = std::make_shared<size_t>(fresh.size() + freshNodes.size());
    auto failed = std::make_shared<std::optional<Error>>();
    auto kept = std::make_shared<std::vector<std::pair<uint32_t, std::string>>>(std::move(shards));
    auto keptNodes = std::make_shared<Nodes>(std::move(nodes));
    std::vector<std::string> paths;
    for (uint32_t index : fresh) paths.push_back(shardPath(index));
    for (const std::string& name : freshNodes) paths.push_back(nodePath(name));
    for (const std::string& path : paths) {
      process::dispatch(zk_, &ZooKeeper::create, path, std::string(), 0)
          .then(actor_, [this, promise, left, failed, kept,
                         keptNodes](const Result<std::string>& made) {
            if (!made && made.error().code != ZNODEEXISTS && !*failed) *failed = made.error();
            if (--*left > 0) return;
            if (*failed) {
              promise->set(Result<Nothing>(**failed));
              return;
            }
            for (const auto& [name, content] : *keptNodes) made_.insert(name);
            transact(std::move(*kept), std::move(*keptNodes))
                .then(actor_, [promise](const Result<Nothing>& done) { promise->set(done); });
          });
    }
    return promise->future();
  }

 private:
  // What peek() read: the list of written shards, and each written shard's
  // content and version.
  struct Peeked {
    std::string written;
    std::vector<std::optional<ZooKeeper::Versioned>> shards;
  };

  // Reads the listed shards: one already read is asked only for its
  // version, and read again when that moved on.
  void peekShards(std::shared_ptr<Promise<Result<Contents>>> promise, uint32_t count,
                  std::string written) {
    auto peeked = std::make_shared<Peeked>(Peeked{std::move(written), {}});
    peeked->shards.resize(count);
    if (peeked_ && peeked_->shards.size() == count) {
      for (uint32_t i = 0; i < count; ++i) peeked->shards[i] = std::move(peeked_->shards[i]);
    }
    peeked_.reset();
    auto isListed = [peeked](uint32_t i) {
      return (static_cast<uint8_t>(peeked->written[i / 8]) >> (i % 8)) & 1;
    };
    uint32_t reads = 0;
    for (uint32_t i = 0; i < count; ++i) {
      if (isListed(i)) {
        ++reads;
      } else {
        peeked->shards[i].reset();
      }
    }
    auto left = std::make_shared<uint32_t>(reads);
    auto failed = std::make_shared<std::optional<Error>>();
    auto finish = [this, promise, peeked, failed, count] {
      if (*failed) {
        promise->set(Result<Contents>(**failed));
        return;
      }
      Contents contents{std::vector<std::string>(count), {}};
      for (uint32_t i = 0; i < count; ++i) {
        if (peeked->shards[i]) contents.shards[i] = peeked->shards[i]->data;
      }
      if (!recovering_) peeked_ = std::move(*peeked);  // else too late to be of use
      promise->set(Result<Contents>(std::move(contents)));
    };
    if (reads == 0) return finish();
    auto read = [this, peeked, left, failed, finish](uint32_t i) {
      process::dispatch(zk_, &ZooKeeper::getVersioned, shardPath(i))
          .then(actor_, [i, peeked, left, failed, finish](const Result<ZooKeeper::Versioned>& got) {
            if (got) {
              peeked->shards[i] = got.value();
            } else if (!*failed) {
              *failed = got.error();
            }
            if (--*left == 0) finish();
          });
    };
    for (uint32_t i = 0; i < count; ++i) {
      if (!isListed(i)) continue;
      if (!peeked->shards[i]) {
        read(i);
        continue;
      }
      process::dispatch(zk_, &ZooKeeper::version, shardPath(i))
          .then(actor_, [i, peeked, left, failed, finish, read](const Result<int32_t>& version) {
            if (version && version.value() == peeked->shards[i]->version) {
              if (--*left == 0) finish();
              return;
            }
            if (!version) {
              if (!*failed) *failed = version.error();
              if (--*left == 0) finish();
              return;
            }
            read(i);
          });
    }
  }

  // After the fencing write: whether every shard peek() read is still as
  // it read it (one transaction of version checks); then they are the
  // contents, else every shard is read.
  void checkPeeked(std::shared_ptr<Promise<Result<Contents>>> promise, uint32_t count,
                   Nodes nodes) {
    std::optional<Peeked> peeked = std::move(peeked_);
    peeked_.reset();
    if (!peeked || written_.empty() || peeked->written != written_ ||
        peeked->shards.size() != count) {
      return readShards(promise, count, std::move(nodes));
    }
    std::vector<ZooKeeper::Op> checks;
    for (uint32_t i = 0; i < count; ++i) {
      if (!isWritten(i)) continue;
      if (!peeked->shards[i]) return readShards(promise, count, std::move(nodes));
      checks.push_back(ZooKeeper::Op{ZooKeeper::Op::Kind::kCheck, shardPath(i), "",
                                     peeked->shards[i]->version});
    }
    if (checks.empty()) return readShards(promise, count, std::move(nodes));
    auto kept = std::make_shared<Peeked>(std::move(*peeked));
    process::dispatch(zk_, &ZooKeeper::multi, std::move(checks))
        .then(actor_, [this, promise, count, kept, nodes](const Result<Nothing>& same) {
          if (!same) {
            LOG(INFO) << "The registry at " << root_ << " changed since this master read it "
                      << "ahead (" << same.error().message << "); reading it again";
            return readShards(promise, count, nodes);
          }
          Contents contents{std::vector<std::string>(count), nodes, true};
          for (uint32_t i = 0; i < count; ++i) {
            if (kept->shards[i]) contents.shards[i] = std::move(kept->shards[i]->data);
          }
          promise->set(Result<Contents>(std::move(contents)));
        });
  }

  bool isWritten(uint32_t index) const {
    return written_.empty() || (index / 8 < written_.size() &&
                                (static_cast<uint8_t>(written_[index / 8]) >> (index % 8)) & 1);
  }

  // The shards' writes in transactions of at most kTransactionBytes each,
  // every one fenced; the first also records shards written for the first
  // time in "written".
  Future<Result<Nothing>> transact(std::vector<std::pair<uint32_t, std::string>> shards,
                                   Nodes nodes) {
    std::string written = written_;
    for (const auto& [index, content] : shards) {
      if (isWritten(index)) continue;
      written[index / 8] = static_cast<char>(written[index / 8] | (1 << (index % 8)));
    }
    std::vector<std::vector<ZooKeeper::Op>> transactions;
    size_t bytes = kTransactionBytes;
    for (auto& [index, content] : shards) {
      if (bytes + content.size() > kTransactionBytes) {
        transactions.push_back({ZooKeeper::Op{ZooKeeper::Op::Kind::kCheck, root_, "", fence_}});
        bytes = 0;
      }
      bytes += content.size();
      transactions.back().push_back(
          ZooKeeper::Op{ZooKeeper::Op::Kind::kSet, shardPath(index), std::move(content), -1});
    }
    for (auto& [name, content] : nodes) {
      if (transactions.empty()) {
        transactions.push_back({ZooKeeper::Op{ZooKeeper::Op::Kind::kCheck, root_, "", fence_}});
      }
      transactions.front().push_back(
          ZooKeeper::Op{ZooKeeper::Op::Kind::kSet, nodePath(name), std::move(content), -1});
    }
    auto promise = std::make_shared<Promise<Result<Nothing>>>();
    if (transactions.empty()) {
      promise->set(Result<Nothing>(Nothing{}));
      return promise->future();
    }
    if (written != written_) {
      transactions.front().push_back(
          ZooKeeper::Op{ZooKeeper::Op::Kind::kSet, root_ + "/written", written, -1});
    }
    auto left = std::make_shared<size_t>(transactions.size());
    auto failed = std::make_shared<std::optional<Error>>();
    for (auto& ops : transactions) {
      process::dispatch(zk_, &ZooKeeper::multi, std::move(ops))
          .then(actor_, [this, promise, left, failed, written](const Result<Nothing>& done) {
            if (!done && !*failed) {
              *failed = done.error().code == ZBADVERSION
                            ? Error{"another master took the registry at " + root_ +
                                    " over (its header moved on): this master no longer leads"}
                            : done.error();
            }
            if (--*left > 0) return;
            if (!*failed) written_ = written;
            promise->set(*failed ? Result<Nothing>(**failed) : Result<Nothing>(Nothing{}));
          });
    }
    return promise->future();
  }

  std::string shardPath(uint32_t index) const {
    char name[32];
    std::snprintf(name, sizeof(name), "/shard-%04u", index);
    return root_ + name;
  }
  std::string nodePath(const std::string& name) const { return root_ + "/" + name; }

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
    // The list of written shards is read right behind the write, in the
    // same session: ZooKeeper answers it after the write, so every earlier
    // owner's write that succeeded is in it.
    const bool made = node.data.empty();
    const uint32_t count = header.shards();
    auto fenced = std::make_shared<std::optional<Result<int32_t>>>();
    auto listed = std::make_shared<std::optional<Result<std::string>>>();
    auto both = [this, promise, fenced, listed, made, count] {
      if (!*fenced || !*listed) return;
      const Result<int32_t>& set = **fenced;
      if (!set) {
        promise->set(Result<Contents>(
            set.error().code == ZBADVERSION
                ? Error{"another master took the registry at " + root_ +
                        " over while this one recovered it"}
                : set.error()));
        return;
      }
      fence_ = set.value();
      const Result<std::string>& written = **listed;
      if (written) {
        written_ = written.value();
        written_.resize((count + 7) / 8, '\0');
      } else if (written.error().code == ZNONODE) {
        // A new registry has no shards yet; one made before "written"
        // existed is read whole (written_ empty: every shard counts).
        written_ = made ? std::string((count + 7) / 8, '\0') : std::string();
        if (made) {
          process::dispatch(zk_, &ZooKeeper::create, root_ + "/written", written_, 0)
              .then(actor_, [this, promise, count](const Result<std::string>& created) {
                if (!created && created.error().code != ZNODEEXISTS) {
                  promise->set(Result<Contents>(created.error()));
                  return;
                }
                readNodes(promise, count, 0, {});
              });
          return;
        }
      } else {
        promise->set(Result<Contents>(written.error()));
        return;
      }
      readNodes(promise, count, 0, {});
    };
    process::dispatch(zk_, &ZooKeeper::set, root_, header.SerializeAsString(), node.version)
        .then(actor_, [fenced, both](const Result<int32_t>& set) {
          *fenced = set;
          both();
        });
    process::dispatch(zk_, &ZooKeeper::get, root_ + "/written")
        .then(actor_, [listed, both](const Result<std::string>& got) {
          *listed = got;
          both();
        });
  }

  // Reads the named nodes from kNodeNames[next] on (each missing until
  // first written), one after the other, then the shards.
  void readNodes(std::shared_ptr<Promise<Result<Contents>>> promise, uint32_t count, size_t next,
                 Nodes nodes) {
    if (next == std::size(kNodeNames)) return checkPeeked(promise, count, std::move(nodes));
    std::string name = kNodeNames[next];
    process::dispatch(zk_, &ZooKeeper::get, nodePath(name))
        .then(actor_, [this, promise, count, next, name,
                       nodes = std::move(nodes)](const Result<std::string>& got) mutable {
          if (!got && got.error().code != ZNONODE) {
            promise->set(Result<Contents>(got.error()));
            return;
          }
          if (got) {
            made_.insert(name);
            nodes[name] = got.value();
          } else {
            made_.erase(name);
          }
          readNodes(promise, count, next + 1, std::move(nodes));
        });
  }

  // Reads every written shard at once, making the ones missing; the others
  // are empty.
  void readShards(std::shared_ptr<Promise<Result<Contents>>> promise, uint32_t count,
                  Nodes nodes) {
    auto contents = std::make_shared<Contents>(
        Contents{std::vector<std::string>(count), std::move(nodes)});
    uint32_t reads = 0;
    for (uint32_t i = 0; i < count; ++i) reads += isWritten(i) ? 1 : 0;
    if (reads == 0) {
      promise->set(Result<Contents>(std::move(*contents)));
      return;
    }
    auto left = std::make_shared<uint32_t>(reads);
    auto failed = std::make_shared<std::optional<Error>>();
    auto finish = [promise, contents, left, failed] {
      if (--*left > 0) return;
      promise->set(*failed ? Result<Contents>(**failed)
                           : Result<Contents>(std::move(*contents)));
    };
    for (uint32_t i = 0; i < count; ++i) {
      if (!isWritten(i)) continue;
      std::string path = shardPath(i);
      process::dispatch(zk_, &ZooKeeper::get, path)
          .then(actor_, [this, path, i, contents, failed, finish](const Result<std::string>& got) {
            if (got) {
              contents->shards[i] = got.value();
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
  std::set<std::string> made_;  // the named nodes that exist
  // "written" as this owner last wrote or read it; empty: every shard is
  // written (a registry made before the list existed).
  std::string written_;
  std::optional<Peeked> peeked_;  // the last peek(), until recover()
  bool recovering_ = false;       // recover() was called
};

}  // namespace

std::unique_ptr<Storage> zookeeperStorage(process::Pid<ZooKeeper> zk, std::string path,
                                          std::string url) {
  return std::make_unique<ZooKeeperStorage>(std::move(zk), std::move(path), std::move(url));
}

}  // namespace mesos::internal::master::registrar
