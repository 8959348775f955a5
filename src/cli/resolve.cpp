// mesos-resolve: prints the leading master's address ("ip:port"), as
// Apache Mesos's tool of that name does, from a master's address (which is
// asked who leads) or the masters' zk:// URL.
//
//   mesos-resolve [--timeout=5secs] <master>
//
// docs/cli.md describes it.
#include <iostream>
#include <string>
#include <vector>

#include "cli/common.hpp"

namespace {

using namespace mesos;

constexpr const char* kProgram = "mesos-resolve";

struct ResolveFlags : flags::FlagSet {
  ResolveFlags() {
    add(&master, "master", "The master, instead of the <master> argument");
    add(&timeout, "timeout",
        "How long to wait for an answer, and in ZooKeeper for a leader to be elected",
        std::chrono::seconds(5));
  }
  Result<void> validate() const override {
    if (timeout <= flags::Duration::zero()) {
      return Error{"--timeout must be positive (e.g. --timeout=5secs)"};
    }
    return {};
  }
  std::optional<std::string> master;
  flags::Duration timeout;
};

}  // namespace

int main(int argc, char** argv) {
  ResolveFlags flags;
  std::vector<std::string> arguments;
  if (auto done = cli::loadFlags(
          flags, kProgram, "mesos-resolve [options] <master>",
          "Prints the leading master as ip:port. <master> is host:port (that master is asked "
          "who leads),\nzk://host:port[,...]/path (the leader of the masters' group in "
          "ZooKeeper) or file:///path\nnaming a file that holds either. Exit status 0, or 1 "
          "with one line on stderr saying why.\n",
          argc, argv, &arguments)) {
    return *done;
  }
  if (flags.master) arguments.insert(arguments.begin(), *flags.master);
  if (arguments.size() != 1) {
    return cli::fail(kProgram, arguments.empty()
                                   ? "missing <master> (e.g. mesos-resolve 127.0.0.1:5050 or "
                                     "mesos-resolve zk://127.0.0.1:2181/mesos; see --help)"
                                   : "give one <master>, not " + std::to_string(arguments.size()) +
                                         " (see --help)");
  }
  cli::quietLogging(argv[0]);
  auto leader = cli::leadingMaster(arguments.front(), flags.timeout);
  if (!leader) return cli::fail(kProgram, leader.error().message);
  std::cout << leader->toString() << std::endl;
  return cli::kExitSuccess;
}
