// A small block store for the bundled data frameworks (mapreduce, spark).
//
// A file is cut into blocks at line boundaries (a record, one line, never
// straddles two blocks) and each block is copied onto `replication` nodes
// chosen rack-aware as HDFS does. A node is a host name (a slave's
// hostname()) with a rack. Every node has its own data directory under the
// store's root, so that several slaves on one machine still hold distinct
// "local" data:
//
//   <root>/meta/<file>.json                the file's metadata (atomic rename)
//   <root>/nodes/<host>/blocks/<block id>  one node's copy of one block
//   <root>/remote-reads.log                one line per remote read
//
// A copy missing under the root can also be read over HTTP from a
// `mesos-dfs serve` on the holder's machine (setPeerPort()).
//
// A Store is a handle on one root; it holds no state in memory besides its
// counters, so several processes (a CLI, a scheduler, executors on every
// node) may use the same root at once. Writers never overwrite visible data:
// blocks are written first under fresh ids, then the metadata is renamed
// into place; readers see the old file or the new one.
//
// Reading block B "from host H" reads H's copy when H holds one (a local
// read), else a copy on some holder, preferring one in H's rack (a remote
// read: it works, and is counted in this Store and in remote-reads.log).
//
//   namespace dfs = mesos::frameworks::dfs;
//   dfs::Store store("/var/lib/mesos-dfs");
//   dfs::PutOptions options;
//   options.nodes = dfs::parseNodes("10.0.0.2:r1,10.0.0.3:r2").value();
//   auto file = store.putFile("/logs/day1", "/tmp/day1.txt", options);
//   if (!file) { std::cerr << file.error() << "\n"; return 1; }
//   auto block = store.readBlock("/logs/day1", 0, "10.0.0.2");
//
// Thread safety: a Store may be used from several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mesos::frameworks::dfs {

// A value or an error message that names the problem and, where it can,
// the fix (one line, for a user).
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit on purpose
  static Result failure(std::string message) { return Result(Failure{std::move(message)}); }

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // REQUIRES: ok().
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  // REQUIRES: !ok().
  const std::string& error() const { return std::get<1>(state_).message; }

 private:
  struct Failure {
    std::string message;
  };
  explicit Result(Failure failure) : state_(std::move(failure)) {}
  std::variant<T, Failure> state_;
};

// An empty value for operations that return nothing on success.
struct Done {};

// A node of the store: a slave's hostname and its rack ("" for no rack;
// nodes without a rack count as one rack, "default").
struct Node {
  std::string host;
  std::string rack;
};

// "host:rack,host:rack,..." (":rack" optional) into nodes, in order.
// Fails on an empty list, an empty host or a host given twice.
Result<std::vector<Node>> parseNodes(const std::string& text);
// The nodes as "host:rack,...".
std::string formatNodes(const std::vector<Node>& nodes);

struct BlockInfo {
  uint32_t index = 0;   // its position in the file, from 0
  std::string id;       // unique in the store, a file name
  uint64_t offset = 0;  // of its first byte in the file
  uint64_t length = 0;  // bytes
  uint64_t records = 0; // lines
  std::vector<std::string> hosts;  // the nodes holding a copy, first the writer's
};

struct FileInfo {
  std::string name;        // as given to put(), e.g. "/data/words"
  uint64_t length = 0;     // bytes
  uint64_t records = 0;    // lines
  uint64_t blockSize = 0;  // the put's block size
  uint32_t replication = 0;
  std::vector<Node> nodes;          // the nodes the put placed blocks on
  std::vector<BlockInfo> blocks;    // in file order
  std::string created;              // UTC, ISO 8601

  // The rack of `host` among nodes ("" when unknown).
  std::string rackOf(const std::string& host) const;
};

struct PutOptions {
  // Blocks end at the last line end at or before block_size bytes; a block
  // is longer only when a single line is.
  uint64_t blockSize = 64ull << 20;
  // Copies of each block; at most nodes.size().
  uint32_t replication = 3;
  // The nodes to place blocks on. REQUIRES: not empty.
  std::vector<Node> nodes;
  // The host of the writer: when it is one of `nodes`, every block's first
  // copy goes there (as an HDFS client on a datanode). Otherwise first
  // copies go round-robin over the nodes, so blocks spread evenly.
  std::string writer;
  // Seeds the choice of the other copies (placement is deterministic for a
  // given seed, file and node list).
  uint64_t seed = 0;
  // Replace an existing file of that name (else put() fails on it).
  bool overwrite = false;
};

// Where each copy of a block goes, HDFS-style: the first on `first`; the
// second on a node of another rack (any other node when there is one rack);
// the third on another node in the second's rack (else any unused node);
// the rest on unused nodes, chosen with `seed`. Exposed for tests and for
// the docs. REQUIRES: first < nodes.size(), replication <= nodes.size().
std::vector<std::string> placeReplicas(const std::vector<Node>& nodes, size_t first,
                                       uint32_t replication, uint64_t seed);

struct BlockRead {
  std::string data;        // the block's bytes (whole lines)
  std::string source;      // the host whose copy was read
  bool remote = false;     // source != the reader's host
  bool rackLocal = false;  // remote, but from the reader's rack
};

class Store {
 public:
  // A handle on the store under `root` (created on the first put). The peer
  // port starts as $MESOS_DFS_PEER_PORT when that is set.
  explicit Store(std::string root);

  const std::string& root() const { return root_; }

  // For clusters whose machines each keep their own root (docs/frameworks/
  // dfs.md): a copy of a block that is not under this root is read from
  // http://<holder>:<port>/blocks/<holder>/<block id>, as `mesos-dfs serve`
  // serves it on the holder's machine. 0 (the default): the file system only.
  void setPeerPort(uint16_t port) { peerPort_ = port; }
  uint16_t peerPort() const { return peerPort_; }

  // Stores the lines of `input` as the file `name` (a path-like name such as
  // "/data/words"; any characters but NUL, at most 200 bytes). On success
  // returns its metadata; on failure (bad options, an existing file without
  // overwrite, a write error) nothing of it is visible.
  Result<FileInfo> put(const std::string& name, std::istream& input, const PutOptions& options);
  // put() of the local file at `path`.
  Result<FileInfo> putFile(const std::string& name, const std::string& path,
                           const PutOptions& options);

  // The metadata of `name`; fails with "no such file" naming it.
  Result<FileInfo> stat(const std::string& name) const;

  // Every file's metadata, sorted by name; with `prefix`, only names that
  // start with it.
  Result<std::vector<FileInfo>> list(const std::string& prefix = "") const;

  // Removes `name` and its blocks; fails when it does not exist.
  Result<Done> remove(const std::string& name);

  // Reads block `index` of `name` as seen from `host` (see the file
  // comment). Fails when the file or block does not exist or no copy can be
  // read.
  Result<BlockRead> readBlock(const std::string& name, uint32_t index,
                              const std::string& host) const;
  // As above, with the block's metadata from stat() (saves a metadata read);
  // `file` is the stat() of the block's file (for racks).
  Result<BlockRead> readBlock(const FileInfo& file, const BlockInfo& block,
                              const std::string& host) const;

  // Reads the whole file, block after block, from `host`'s point of view.
  Result<std::string> readAll(const std::string& name, const std::string& host) const;

  // The reads this handle has made, local and remote.
  uint64_t localReads() const { return localReads_.load(); }
  uint64_t remoteReads() const { return remoteReads_.load(); }
  // Remote reads of every process on this root (lines of remote-reads.log).
  uint64_t remoteReadsLogged() const;

  // Where `host`'s copy of `block` lives (it may not exist).
  std::string blockPath(const std::string& host, const std::string& blockId) const;

 private:
  std::string metaPath(const std::string& name) const;
  Result<BlockRead> readCopy(const std::string& host, const std::string& blockId) const;

  std::string root_;
  uint16_t peerPort_ = 0;
  mutable std::atomic<uint64_t> localReads_{0};
  mutable std::atomic<uint64_t> remoteReads_{0};
};

}  // namespace mesos::frameworks::dfs
