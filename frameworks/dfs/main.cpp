// mesos-dfs: the command line of the block store (docs/frameworks/dfs.md).
//
//   mesos-dfs put <local file> <name> [--block_size --replication --nodes|--master]
//   mesos-dfs ls [prefix]
//   mesos-dfs stat <name>
//   mesos-dfs cat <name> [--host=H]
//   mesos-dfs rm <name>
//   mesos-dfs generate --output=<file> [--lines --words_per_line --vocabulary --seed
//                                       --answers=<file>]
//   mesos-dfs serve --port=P [--ip=A]   (this machine's copies, for --peer_port readers)
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <gflags/gflags.h>
#include <httplib.h>

#include "dfs/dfs.hpp"
#include "dfs/generate.hpp"
#include "dfs/nodes.hpp"

DEFINE_string(root, "", "The store's root directory (default: $MESOS_DFS_ROOT)");
DEFINE_string(nodes, "", "put: the nodes, host:rack,... (or use --master)");
DEFINE_string(master, "", "put: take the nodes from this master's /master/state (host:port)");
DEFINE_uint64(block_size, 64ull << 20, "put: the block size in bytes");
DEFINE_uint32(replication, 3, "put: copies of each block");
DEFINE_string(writer, "", "put: the writer's host (its node gets every first copy)");
DEFINE_uint64(seed, 0, "put: seed of the replica placement; generate: seed of the text");
DEFINE_bool(overwrite, false, "put: replace an existing file");
DEFINE_string(host, "", "cat: read as this host (counts remote reads)");
DEFINE_string(output, "", "generate: the text file to write");
DEFINE_string(answers, "", "generate: also write the word counts (word<TAB>count, sorted)");
DEFINE_uint64(lines, 10000, "generate: lines of text");
DEFINE_uint32(words_per_line, 8, "generate: average words per line");
DEFINE_uint32(vocabulary, 1000, "generate: distinct words");
DEFINE_string(ip, "0.0.0.0", "serve: the address to listen on");
DEFINE_int32(port, 0, "serve: the port to listen on");
DEFINE_int32(peer_port, -1, "cat: read copies missing under the root from `mesos-dfs serve` on "
                            "their holders at this port (default: $MESOS_DFS_PEER_PORT, else none)");

namespace dfs = mesos::frameworks::dfs;

namespace {

int fail(const std::string& message) {
  std::cerr << "mesos-dfs: " << message << "\n";
  return 1;
}

void printStat(const dfs::FileInfo& file) {
  std::cout << "name " << file.name << "\nlength " << file.length << "\nrecords " << file.records
            << "\nblock_size " << file.blockSize << "\nreplication " << file.replication
            << "\nnodes " << dfs::formatNodes(file.nodes) << "\ncreated " << file.created
            << "\nblocks " << file.blocks.size() << "\n";
  for (const dfs::BlockInfo& block : file.blocks) {
    std::cout << "  block " << block.index << " offset " << block.offset << " length "
              << block.length << " records " << block.records << " hosts ";
    for (size_t i = 0; i < block.hosts.size(); ++i) {
      std::cout << (i ? "," : "") << block.hosts[i] << "(" << file.rackOf(block.hosts[i]) << ")";
    }
    std::cout << "\n";
  }
}

int generate() {
  if (FLAGS_output.empty()) return fail("generate needs --output=<file>");
  std::ofstream out(FLAGS_output, std::ios::binary | std::ios::trunc);
  if (!out) return fail("cannot write '" + FLAGS_output + "'");
  dfs::TextOptions options;
  options.lines = FLAGS_lines;
  options.wordsPerLine = FLAGS_words_per_line;
  options.vocabulary = FLAGS_vocabulary;
  options.seed = FLAGS_seed == 0 ? 1 : FLAGS_seed;
  dfs::TextAnswers answers = dfs::generateText(out, options);
  out.close();
  if (!out) return fail("writing '" + FLAGS_output + "' failed");
  if (!FLAGS_answers.empty()) {
    std::ofstream counts(FLAGS_answers, std::ios::trunc);
    for (const auto& [word, count] : answers.wordCounts) counts << word << '\t' << count << '\n';
    if (!counts) return fail("cannot write '" + FLAGS_answers + "'");
  }
  std::cout << "generated " << FLAGS_output << ": " << answers.lines << " lines, "
            << answers.words << " words (" << answers.wordCounts.size() << " distinct), "
            << answers.bytes << " bytes\n";
  return 0;
}

// Serves <root>/nodes/<host>/blocks/<id> as GET /blocks/<host>/<id> until
// SIGTERM or SIGINT.
int serve(const std::string& root) {
  if (FLAGS_port <= 0) return fail("serve needs --port=<port>");
  // SIGTERM and SIGINT stop the server: a thread waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  httplib::Server server;
  server.Get("/health", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  server.Get(R"(/blocks/([^/]+)/([^/]+))", [root](const httplib::Request& request,
                                                 httplib::Response& response) {
    const std::string host = request.matches[1], block = request.matches[2];
    if (host[0] == '.' || block[0] == '.') {
      response.status = 400;
      return;
    }
    std::ifstream in(root + "/nodes/" + host + "/blocks/" + block, std::ios::binary);
    if (!in) {
      response.status = 404;
      return;
    }
    std::ostringstream data;
    data << in.rdbuf();
    response.set_content(data.str(), "application/octet-stream");
  });
  if (!server.bind_to_port(FLAGS_ip.c_str(), FLAGS_port)) {
    return fail("cannot listen on " + FLAGS_ip + ":" + std::to_string(FLAGS_port) +
                "; choose another --port");
  }
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    server.stop();
  });
  std::cout << "serving the blocks under " << root << "/nodes on " << FLAGS_ip << ":" << FLAGS_port
            << std::endl;
  server.listen_after_bind();
  if (waiter.joinable()) {
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "the block store of the bundled frameworks\n"
      "  mesos-dfs put <local file> <name>   (--nodes=host:rack,... or --master=host:port)\n"
      "  mesos-dfs ls [prefix] | stat <name> | cat <name> | rm <name>\n"
      "  mesos-dfs generate --output=<file> [--answers=<file>]\n"
      "  mesos-dfs serve --port=P   (serves this machine's copies to --peer_port readers)\n"
      "The root is --root or $MESOS_DFS_ROOT.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc < 2) return fail("no command; use put, ls, stat, cat, rm or generate (--help)");
  const std::string command = argv[1];
  if (command == "generate") return generate();

  std::string root = FLAGS_root;
  if (root.empty() && std::getenv("MESOS_DFS_ROOT") != nullptr) root = std::getenv("MESOS_DFS_ROOT");
  if (root.empty()) return fail("no store root; pass --root=<dir> or set MESOS_DFS_ROOT");
  dfs::Store store(root);
  if (FLAGS_peer_port >= 0) store.setPeerPort(static_cast<uint16_t>(FLAGS_peer_port));
  if (command == "serve") return serve(root);

  if (command == "put") {
    if (argc != 4) return fail("usage: mesos-dfs put <local file> <name>");
    dfs::PutOptions options;
    if (!FLAGS_nodes.empty()) {
      auto nodes = dfs::parseNodes(FLAGS_nodes);
      if (!nodes) return fail("--nodes: " + nodes.error());
      options.nodes = *nodes;
    } else if (!FLAGS_master.empty()) {
      auto nodes = dfs::nodesFromMaster(FLAGS_master);
      if (!nodes) return fail(nodes.error());
      options.nodes = *nodes;
    } else {
      return fail("put needs the nodes: --nodes=host:rack,... or --master=host:port");
    }
    options.blockSize = FLAGS_block_size;
    options.replication = FLAGS_replication;
    if (options.replication > options.nodes.size()) {
      options.replication = static_cast<uint32_t>(options.nodes.size());
    }
    options.writer = FLAGS_writer;
    options.seed = FLAGS_seed;
    options.overwrite = FLAGS_overwrite;
    auto file = store.putFile(argv[3], argv[2], options);
    if (!file) return fail(file.error());
    std::cout << "put " << file->name << ": " << file->length << " bytes, " << file->records
              << " records, " << file->blocks.size() << " blocks x" << file->replication
              << " on " << dfs::formatNodes(file->nodes) << "\n";
    return 0;
  }
  if (command == "ls") {
    auto files = store.list(argc > 2 ? argv[2] : "");
    if (!files) return fail(files.error());
    for (const dfs::FileInfo& file : *files) {
      std::cout << file.name << '\t' << file.length << '\t' << file.blocks.size() << " blocks\tx"
                << file.replication << '\t' << file.created << "\n";
    }
    return 0;
  }
  if (argc != 3) return fail("usage: mesos-dfs " + command + " <name>");
  const std::string name = argv[2];
  if (command == "stat") {
    auto file = store.stat(name);
    if (!file) return fail(file.error());
    printStat(*file);
    return 0;
  }
  if (command == "cat") {
    auto file = store.stat(name);
    if (!file) return fail(file.error());
    const std::string host =
        FLAGS_host.empty() && !file->blocks.empty() && !file->blocks[0].hosts.empty()
            ? file->blocks[0].hosts[0]
            : FLAGS_host;
    for (const dfs::BlockInfo& block : file->blocks) {
      auto read = store.readBlock(*file, block, FLAGS_host.empty() ? block.hosts[0] : host);
      if (!read) return fail(read.error());
      std::cout << read->data;
    }
    std::cout.flush();
    if (!FLAGS_host.empty()) {
      std::cerr << "remote block reads: " << store.remoteReads() << " of "
                << file->blocks.size() << "\n";
    }
    return std::cout ? 0 : 1;
  }
  if (command == "rm") {
    auto done = store.remove(name);
    if (!done) return fail(done.error());
    std::cout << "removed " << name << "\n";
    return 0;
  }
  return fail("unknown command '" + command + "'; use put, ls, stat, cat, rm, generate or serve");
}
