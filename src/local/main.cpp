// mesos-local: a whole cluster in one process: a master and --num_slaves
// slaves on one runtime (one port), for trying frameworks out.
//
//   mesos-local [--num_slaves=N] [--num_masters=N --zk=zk://HOST:PORT/PATH] [--ip=IP] [--port=5050] [--advertise_ip=IP] [--work_dir=DIR]
//               [--resources=cpus:2;mem:2048;...] [--allocator=drf|priority|lottery|PATH.so]
//
// Frameworks connect to --ip:--port as to any master. SIGINT or SIGTERM stops
// everything, executors included.
#include <iostream>
#include <vector>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "local/cluster.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"

namespace {

using namespace std::chrono_literals;

struct LocalFlags : mesos::flags::FlagSet {
  LocalFlags() {
    add(&num_slaves, "num_slaves", "Number of slaves to run", uint32_t{1});
    add(&num_masters, "num_masters",
        "Number of masters to run; more than one needs --zk (they elect a leader there)",
        uint32_t{1});
    add(&zk, "zk",
        "ZooKeeper URL of the masters' group (zk://host:port[,...]/path or file:///path); the "
        "slaves and frameworks find the leader there");
    add(&zk_session_timeout, "zk_session_timeout", "The masters' ZooKeeper session timeout",
        mesos::flags::Duration(10s));
    add(&ip, "ip", "IP address to listen on; 0.0.0.0 listens on every interface",
        std::string("127.0.0.1"));
    add(&port, "port", "Port of the master (and of the slaves: one runtime)", uint16_t{5050});
    add(&advertise_ip, "advertise_ip",
        "IP address to advertise in the master's and slaves' pids (default: the --ip address; "
        "with --ip=0.0.0.0, this host's address)");
    add(&advertise_port, "advertise_port", "Port to advertise in the pids (default: --port)");
    add(&work_dir, "work_dir", "Directory for the slaves' sandboxes",
        std::string("/tmp/mesos-local"));
    add(&resources, "resources", "Resources of each slave",
        std::string("cpus:2;mem:2048;disk:4096;ports:[31000-32000]"));
    add(&allocation_interval, "allocation_interval", "The master's allocation interval",
        mesos::flags::Duration(1s));
    add(&allocator, "allocator",
        "The master's allocator: drf, priority, lottery or the path of a module .so",
        std::string("drf"));
    add(&launcher_dir, "launcher_dir",
        "Directory holding mesos-executor (default: found next to this binary)");
    add(&acls, "acls",
        "The master's ACLs, as its --acls (JSON, inline or file://); tasks run as root only "
        "when a run_tasks rule names \"root\" (docs/security.md)");
  }
  mesos::Result<void> validate() const override {
    if (num_slaves == 0) return mesos::Error{"--num_slaves must be at least 1"};
    if (num_masters == 0) return mesos::Error{"--num_masters must be at least 1"};
    if (num_masters > 1 && !zk) {
      return mesos::Error{"--num_masters=" + std::to_string(num_masters) +
                          " needs --zk (the masters elect their leader through ZooKeeper)"};
    }
    if (auto ok = process::Runtime::checkIp("--ip", ip, false); !ok) return ok.error();
    if (advertise_ip) {
      if (auto ok = process::Runtime::checkIp("--advertise_ip", *advertise_ip, true); !ok) {
        return ok.error();
      }
    }
    if (advertise_port && *advertise_port == 0) {
      return mesos::Error{"--advertise_port: 0 is not a port peers can reach; give the port they "
                          "connect to (1-65535)"};
    }
    return {};
  }
  uint32_t num_slaves;
  uint32_t num_masters;
  std::optional<std::string> zk;
  std::optional<std::string> acls;
  mesos::flags::Duration zk_session_timeout;
  std::string ip;
  uint16_t port;
  std::optional<std::string> advertise_ip;
  std::optional<uint16_t> advertise_port;
  std::string work_dir;
  std::string resources;
  mesos::flags::Duration allocation_interval;
  std::string allocator;
  std::optional<std::string> launcher_dir;
};

}  // namespace

int main(int argc, char** argv) {
  LocalFlags flags;
  auto extra = flags.load("MESOS_LOCAL_", argc, argv);
  if (!extra) {
    std::cerr << "mesos-local: " << extra.error().message << " (see --help)" << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage("mesos-local");
    return 0;
  }
  if (!extra->empty()) {
    std::cerr << "mesos-local: unexpected argument '" << extra->front() << "'" << std::endl;
    return 1;
  }
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;

  process::blockStopSignals();

  process::Runtime::Options options;
  options.ip = flags.ip;
  options.port = flags.port;
  options.advertiseIp = flags.advertise_ip;
  options.advertisePort = flags.advertise_port;
  mesos::internal::master::MasterFlags masterFlags;
  masterFlags.allocation_interval = flags.allocation_interval;
  masterFlags.allocator = flags.allocator;
  masterFlags.zk = flags.zk;
  masterFlags.zk_session_timeout = flags.zk_session_timeout;
  masterFlags.security.acls = flags.acls;
  if (auto valid = masterFlags.validate(); !valid) {
    std::cerr << "mesos-local: " << valid.error().message << std::endl;
    return 1;
  }
  auto cluster =
      mesos::internal::local::LocalCluster::start(options, masterFlags, flags.num_masters);
  if (!cluster) {
    std::cerr << "mesos-local: " << cluster.error().message << std::endl;
    return 1;
  }
  for (uint32_t i = 0; i < flags.num_slaves; ++i) {
    std::vector<std::string> slaveFlags = {"--work_dir=" + flags.work_dir,
                                           "--resources=" + flags.resources};
    if (flags.launcher_dir) slaveFlags.push_back("--launcher_dir=" + *flags.launcher_dir);
    auto slave = (*cluster)->addSlave(slaveFlags);
    if (!slave) {
      std::cerr << "mesos-local: " << slave.error().message << std::endl;
      return 1;
    }
  }
  if (flags.zk) {
    std::cout << "mesos-local: " << flags.num_masters << " master(s) electing a leader at "
              << *flags.zk << ", " << flags.num_slaves << " slave(s); frameworks use --master="
              << *flags.zk << "; state at http://" << (*cluster)->runtime().address()
              << "/master/state" << std::endl;
  } else {
    std::cout << "mesos-local: master at " << (*cluster)->master() << " with "
              << flags.num_slaves << " slave(s); state at http://"
              << (*cluster)->runtime().address() << "/master/state" << std::endl;
  }
  int signal = process::awaitStopSignal();
  LOG(INFO) << "Received signal " << signal << "; stopping";
  cluster.value().reset();
  return 0;
}
