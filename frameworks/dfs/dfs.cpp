#include "dfs/dfs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "common/time.hpp"

namespace mesos::frameworks::dfs {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kMaxNameLength = 200;

// splitmix64: a small, fast, well-mixed generator (placement only).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string rackName(const std::string& rack) { return rack.empty() ? "default" : rack; }

// A file name for `name`: bytes outside [A-Za-z0-9._-] become %XX.
std::string encodeName(const std::string& name) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A token no other put on this root uses (time, pid and randomness).
std::string freshToken() {
  std::random_device device;
  uint64_t value = mix(static_cast<uint64_t>(
                           std::chrono::steady_clock::now().time_since_epoch().count()) ^
                       (static_cast<uint64_t>(::getpid()) << 32) ^ device());
  std::ostringstream out;
  out << std::hex << value;
  return out.str();
}

// Writes `data` to `path` through a temporary file and a rename, creating
// the directories. Empty on success, else the error.
std::string writeAtomically(const std::string& path, const std::string& data) {
  std::error_code error;
  fs::create_directories(fs::path(path).parent_path(), error);
  if (error) return "cannot create " + fs::path(path).parent_path().string() + ": " + error.message();
  std::string temporary = path + ".tmp-" + freshToken();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      fs::remove(temporary, error);
      return "cannot write " + temporary + " (disk full or not writable?)";
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    return "cannot rename into " + path + ": " + error.message();
  }
  return "";
}

std::optional<std::string> readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return buffer.str();
}

json toJson(const FileInfo& file) {
  json nodes = json::array();
  for (const Node& node : file.nodes) nodes.push_back({{"host", node.host}, {"rack", node.rack}});
  json blocks = json::array();
  for (const BlockInfo& block : file.blocks) {
    blocks.push_back({{"index", block.index},
                      {"id", block.id},
                      {"offset", block.offset},
                      {"length", block.length},
                      {"records", block.records},
                      {"hosts", block.hosts}});
  }
  return {{"name", file.name},         {"length", file.length},
          {"records", file.records},   {"block_size", file.blockSize},
          {"replication", file.replication}, {"nodes", nodes},
          {"blocks", blocks},          {"created", file.created}};
}

FileInfo fromJson(const json& value) {
  FileInfo file;
  file.name = value.at("name").get<std::string>();
  file.length = value.at("length").get<uint64_t>();
  file.records = value.at("records").get<uint64_t>();
  file.blockSize = value.at("block_size").get<uint64_t>();
  file.replication = value.at("replication").get<uint32_t>();
  file.created = value.value("created", "");
  for (const json& node : value.at("nodes")) {
    file.nodes.push_back({node.at("host").get<std::string>(), node.at("rack").get<std::string>()});
  }
  for (const json& entry : value.at("blocks")) {
    BlockInfo block;
    block.index = entry.at("index").get<uint32_t>();
    block.id = entry.at("id").get<std::string>();
    block.offset = entry.at("offset").get<uint64_t>();
    block.length = entry.at("length").get<uint64_t>();
    block.records = entry.at("records").get<uint64_t>();
    block.hosts = entry.at("hosts").get<std::vector<std::string>>();
    file.blocks.push_back(std::move(block));
  }
  return file;
}

}  // namespace

Result<std::vector<Node>> parseNodes(const std::string& text) {
  std::vector<Node> nodes;
  std::set<std::string> seen;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) continue;
    Node node;
    size_t colon = item.find(':');
    node.host = item.substr(0, colon);
    if (colon != std::string::npos) node.rack = item.substr(colon + 1);
    if (node.host.empty()) {
      return Result<std::vector<Node>>::failure("node '" + item +
                                                "' has no host; write host:rack");
    }
    if (!seen.insert(node.host).second) {
      return Result<std::vector<Node>>::failure("node '" + node.host + "' is listed twice");
    }
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) {
    return Result<std::vector<Node>>::failure(
        "no nodes given; pass host:rack,... (e.g. 127.0.0.2:r1,127.0.0.3:r2)");
  }
  return nodes;
}

std::string formatNodes(const std::vector<Node>& nodes) {
  std::string out;
  for (const Node& node : nodes) {
    if (!out.empty()) out += ',';
    out += node.host;
    if (!node.rack.empty()) out += ":" + node.rack;
  }
  return out;
}

std::string FileInfo::rackOf(const std::string& host) const {
  for (const Node& node : nodes) {
    if (node.host == host) return rackName(node.rack);
  }
  return "";
}

std::vector<std::string> placeReplicas(const std::vector<Node>& nodes, size_t first,
                                       uint32_t replication, uint64_t seed) {
  std::vector<bool> used(nodes.size(), false);
  std::vector<std::string> hosts;
  used[first] = true;
  hosts.push_back(nodes[first].host);
  std::string secondRack;
  uint64_t state = mix(seed ^ (first * 0x100000001b3ull));
  // Picks a random unused node satisfying `want`, else a random unused one.
  auto pick = [&](const std::function<bool(size_t)>& want) {
    size_t preferred = 0, others = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!used[i]) ++(want(i) ? preferred : others);
    }
    const bool usePreferred = preferred > 0;
    state = mix(state);
    size_t skip = state % (usePreferred ? preferred : others);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (used[i] || want(i) != usePreferred) continue;
      if (skip-- == 0) {
        used[i] = true;
        hosts.push_back(nodes[i].host);
        return rackName(nodes[i].rack);
      }
    }
    return std::string();
  };
  const std::string firstRack = rackName(nodes[first].rack);
  while (hosts.size() < replication && hosts.size() < nodes.size()) {
    if (hosts.size() == 1) {
      secondRack = pick([&](size_t i) { return rackName(nodes[i].rack) != firstRack; });
    } else if (hosts.size() == 2) {
      pick([&](size_t i) { return rackName(nodes[i].rack) == secondRack; });
    } else {
      pick([](size_t) { return true; });
    }
  }
  return hosts;
}

Store::Store(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (const char* port = std::getenv("MESOS_DFS_PEER_PORT"); port != nullptr) {
    peerPort_ = static_cast<uint16_t>(std::strtoul(port, nullptr, 10));
  }
}

std::string Store::metaPath(const std::string& name) const {
  return root_ + "/meta/" + encodeName(name) + ".json";
}

std::string Store::blockPath(const std::string& host, const std::string& blockId) const {
  return root_ + "/nodes/" + encodeName(host) + "/blocks/" + blockId;
}

Result<FileInfo> Store::putFile(const std::string& name, const std::string& path,
                                const PutOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Result<FileInfo>::failure("cannot read the local file '" + path +
                                     "': check the path and its permissions");
  }
  return put(name, in, options);
}

Result<FileInfo> Store::put(const std::string& name, std::istream& input,
                            const PutOptions& options) {
  using R = Result<FileInfo>;
  if (root_.empty()) return R::failure("no store root given; pass --root or set MESOS_DFS_ROOT");
  if (name.empty() || name.size() > kMaxNameLength || name.find('\0') != std::string::npos) {
    return R::failure("bad file name '" + name + "': give 1 to 200 bytes, no NUL");
  }
  if (options.nodes.empty()) return R::failure("no nodes to place blocks on; pass --nodes");
  if (options.blockSize == 0) return R::failure("block size 0; give a positive --block_size");
  if (options.replication == 0 || options.replication > options.nodes.size()) {
    return R::failure("replication " + std::to_string(options.replication) + " with " +
                      std::to_string(options.nodes.size()) +
                      " nodes; give a --replication between 1 and the number of nodes");
  }
  std::error_code error;
  std::optional<FileInfo> previous;
  if (fs::exists(metaPath(name), error)) {
    if (!options.overwrite) {
      return R::failure("'" + name + "' already exists; remove it first or overwrite it");
    }
    auto old = stat(name);
    if (old) previous = std::move(old.value());
  }

  std::optional<size_t> writer;
  for (size_t i = 0; i < options.nodes.size(); ++i) {
    if (options.nodes[i].host == options.writer) writer = i;
  }

  FileInfo file;
  file.name = name;
  file.blockSize = options.blockSize;
  file.replication = options.replication;
  file.nodes = options.nodes;
  file.created = utcTimestamp();
  const std::string token = freshToken();

  std::vector<std::string> written;  // paths, removed on failure
  auto abandon = [&](const std::string& message) {
    std::error_code ignored;
    for (const std::string& path : written) fs::remove(path, ignored);
    return R::failure(message);
  };
  auto flush = [&](std::string& data, uint64_t records) -> std::string {
    BlockInfo block;
    block.index = static_cast<uint32_t>(file.blocks.size());
    char suffix[16];
    std::snprintf(suffix, sizeof(suffix), "%06u", block.index);
    block.id = token + "-" + suffix;
    block.offset = file.length;
    block.length = data.size();
    block.records = records;
    size_t first = writer ? *writer : block.index % options.nodes.size();
    block.hosts = placeReplicas(options.nodes, first, options.replication,
                                options.seed + block.index);
    for (const std::string& host : block.hosts) {
      std::string path = blockPath(host, block.id);
      std::string problem = writeAtomically(path, data);
      if (!problem.empty()) return problem;
      written.push_back(path);
    }
    file.length += data.size();
    file.records += records;
    file.blocks.push_back(std::move(block));
    data.clear();
    return "";
  };

  std::string data;
  uint64_t records = 0;
  std::string line;
  while (std::getline(input, line)) {
    if (!data.empty() && data.size() + line.size() + 1 > options.blockSize) {
      std::string problem = flush(data, records);
      if (!problem.empty()) return abandon(problem);
      records = 0;
    }
    data += line;
    data += '\n';
    ++records;
  }
  if (input.bad()) return abandon("reading the input of '" + name + "' failed");
  if (!data.empty()) {
    std::string problem = flush(data, records);
    if (!problem.empty()) return abandon(problem);
  }

  std::string problem = writeAtomically(metaPath(name), toJson(file).dump(1) + "\n");
  if (!problem.empty()) return abandon(problem);
  if (previous) {
    for (const BlockInfo& block : previous->blocks) {
      for (const std::string& host : block.hosts) fs::remove(blockPath(host, block.id), error);
    }
  }
  return file;
}

Result<FileInfo> Store::stat(const std::string& name) const {
  auto text = readWhole(metaPath(name));
  if (!text) {
    return Result<FileInfo>::failure("no such file '" + name + "' in the store at " + root_ +
                                     " (mesos-dfs ls lists them; put it first)");
  }
  try {
    return fromJson(json::parse(*text));
  } catch (const std::exception& e) {
    return Result<FileInfo>::failure("the metadata of '" + name + "' (" + metaPath(name) +
                                     ") is corrupt: " + e.what());
  }
}

Result<std::vector<FileInfo>> Store::list(const std::string& prefix) const {
  std::vector<FileInfo> files;
  std::error_code error;
  fs::directory_iterator it(root_ + "/meta", error);
  if (error) return files;  // an empty (new) store
  for (const auto& entry : it) {
    const std::string path = entry.path().string();
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) continue;
    auto text = readWhole(path);
    if (!text) continue;  // removed meanwhile
    try {
      FileInfo file = fromJson(json::parse(*text));
      if (file.name.compare(0, prefix.size(), prefix) == 0) files.push_back(std::move(file));
    } catch (const std::exception& e) {
      return Result<std::vector<FileInfo>>::failure("corrupt metadata " + path + ": " + e.what());
    }
  }
  std::sort(files.begin(), files.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
  return files;
}

Result<Done> Store::remove(const std::string& name) {
  auto file = stat(name);
  if (!file) return Result<Done>::failure(file.error());
  std::error_code error;
  if (!fs::remove(metaPath(name), error) || error) {
    return Result<Done>::failure("cannot remove " + metaPath(name) + ": " + error.message());
  }
  for (const BlockInfo& block : file->blocks) {
    for (const std::string& host : block.hosts) fs::remove(blockPath(host, block.id), error);
  }
  return Done{};
}

Result<BlockRead> Store::readCopy(const std::string& host, const std::string& blockId) const {
  auto data = readWhole(blockPath(host, blockId));
  if (!data && peerPort_ != 0) {
    httplib::Client client(host, peerPort_);
    client.set_connection_timeout(5);
    client.set_read_timeout(60);
    const std::string path = "/blocks/" + encodeName(host) + "/" + blockId;
    auto answer = client.Get(path.c_str());
    if (answer && answer->status == 200) data = std::move(answer->body);
  }
  if (!data) {
    return Result<BlockRead>::failure(
        "no copy at " + blockPath(host, blockId) +
        (peerPort_ != 0 ? " nor at http://" + host + ":" + std::to_string(peerPort_) : ""));
  }
  BlockRead read;
  read.data = std::move(*data);
  read.source = host;
  return read;
}

Result<BlockRead> Store::readBlock(const std::string& name, uint32_t index,
                                   const std::string& host) const {
  auto file = stat(name);
  if (!file) return Result<BlockRead>::failure(file.error());
  if (index >= file->blocks.size()) {
    return Result<BlockRead>::failure("'" + name + "' has " +
                                      std::to_string(file->blocks.size()) + " blocks, not block " +
                                      std::to_string(index));
  }
  return readBlock(*file, file->blocks[index], host);
}

Result<BlockRead> Store::readBlock(const FileInfo& file, const BlockInfo& block,
                                   const std::string& host) const {
  std::string problems;
  if (std::find(block.hosts.begin(), block.hosts.end(), host) != block.hosts.end()) {
    auto read = readCopy(host, block.id);
    if (read) {
      ++localReads_;
      return read;
    }
    problems = read.error();
  }
  // A holder in the reader's rack first, then the others.
  const std::string rack = file.rackOf(host);
  std::vector<std::string> order;
  for (const std::string& holder : block.hosts) {
    if (holder != host && !rack.empty() && file.rackOf(holder) == rack) order.push_back(holder);
  }
  for (const std::string& holder : block.hosts) {
    if (holder != host && std::find(order.begin(), order.end(), holder) == order.end()) {
      order.push_back(holder);
    }
  }
  for (const std::string& holder : order) {
    auto read = readCopy(holder, block.id);
    if (!read) {
      problems += (problems.empty() ? "" : "; ") + read.error();
      continue;
    }
    read->remote = true;
    read->rackLocal = !rack.empty() && file.rackOf(holder) == rack;
    ++remoteReads_;
    std::string line = host + " " + file.name + " " + std::to_string(block.index) + " " +
                       holder + " " + std::to_string(read->data.size()) + "\n";
    int fd = ::open((root_ + "/remote-reads.log").c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      // One write() of a short line with O_APPEND: lines of concurrent
      // readers do not interleave.
      [[maybe_unused]] ssize_t n = ::write(fd, line.data(), line.size());
      ::close(fd);
    }
    return read;
  }
  return Result<BlockRead>::failure("block " + std::to_string(block.index) + " of '" + file.name +
                                    "' has no readable copy: " + problems);
}

Result<std::string> Store::readAll(const std::string& name, const std::string& host) const {
  auto file = stat(name);
  if (!file) return Result<std::string>::failure(file.error());
  std::string out;
  for (const BlockInfo& block : file->blocks) {
    auto read = readBlock(*file, block, host);
    if (!read) return Result<std::string>::failure(read.error());
    out += read->data;
  }
  return out;
}

uint64_t Store::remoteReadsLogged() const {
  auto text = readWhole(root_ + "/remote-reads.log");
  if (!text) return 0;
  return static_cast<uint64_t>(std::count(text->begin(), text->end(), '\n'));
}

}  // namespace mesos::frameworks::dfs
