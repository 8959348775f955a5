#include "slave/flags.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <sstream>

#include "slave/containerizer/isolators/isolators.hpp"
#include "process/runtime.hpp"
#include "slave/environment.hpp"
#include "slave/executor_token.hpp"
#include "slave/images.hpp"

namespace mesos::internal::slave {

using namespace std::chrono_literals;

// The directory of this program when mesos-executor is beside it (a build
// tree), else <prefix>/libexec/mesos when it runs from <prefix>/bin or
// <prefix>/sbin (an installed prefix, docs/sdk.md).
std::string defaultLauncherDir() {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  if (::access((dir + "/mesos-executor").c_str(), X_OK) == 0) return dir;
  std::string installed = dir + "/../libexec/mesos";
  if (::access((installed + "/mesos-executor").c_str(), X_OK) == 0) return installed;
  return dir;
}

Result<process::UPID> parseMaster(const std::string& text) {
  if (text.rfind("zk://", 0) == 0 || text.rfind("file://", 0) == 0) {
    return Error{"--master: '" + text + "' is a ZooKeeper or file URL, not host:port"};
  }
  std::string id = "master";
  std::string address = text;
  if (size_t at = text.find('@'); at != std::string::npos) {
    id = text.substr(0, at);
    address = text.substr(at + 1);
  }
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Error{"--master: '" + text + "' is not host:port or master@ip:port"};
  }
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  if (!process::Address::parseIp(host)) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* result = nullptr;
    int error = ::getaddrinfo(host.c_str(), nullptr, &hints, &result);
    if (error != 0 || result == nullptr) {
      return Error{"--master: cannot resolve host '" + host + "': " + ::gai_strerror(error)};
    }
    auto* in = reinterpret_cast<sockaddr_in*>(result->ai_addr);
    uint32_t ip = ntohl(in->sin_addr.s_addr);
    ::freeaddrinfo(result);
    host = std::to_string((ip >> 24) & 0xff) + "." + std::to_string((ip >> 16) & 0xff) + "." +
           std::to_string((ip >> 8) & 0xff) + "." + std::to_string(ip & 0xff);
  }
  auto upid = process::UPID::parse(id + "@" + host + ":" + port);
  if (!upid) return Error{"--master: " + upid.error().message};
  return *upid;
}

Flags::Flags() {
  add(&master, "master",
      "The master to register with: host:port or master@ip:port, or the masters' group in "
      "ZooKeeper: zk://host:port[,host:port...]/path, or file:///path naming a file that holds "
      "either (required)");
  secret("master", Secrecy::kUrlPassword);
  add(&ip, "ip",
      "IP address to listen on; 0.0.0.0 listens on every interface (default: $LIBPROCESS_IP, "
      "else this host's address)");
  add(&port, "port", "Port to listen on", uint16_t{5051});
  add(&advertise_ip, "advertise_ip",
      "IP address to advertise in the slave's pid, for a master that reaches it through another "
      "address (default: $LIBPROCESS_ADVERTISE_IP, else the --ip address; with --ip=0.0.0.0, "
      "this host's address)");
  add(&advertise_port, "advertise_port",
      "Port to advertise in the slave's pid (default: $LIBPROCESS_ADVERTISE_PORT, else --port)");
  add(&hostname, "hostname",
      "Hostname the slave reports to the master (default: the machine's hostname)");
  add(&work_dir, "work_dir", "Directory for executor sandboxes and slave state",
      std::string("/tmp/mesos"));
  add(&resources, "resources",
      "Total resources, e.g. 'cpus:4;mem:2048;disk:10000;ports:[31000-32000]'; resources not "
      "named are detected from the machine");
  add(&default_role, "default_role",
      "Role of the resources --resources gives without one, and of the detected ones; '*' "
      "(the default) leaves them unreserved, any other role reserves them for its frameworks",
      std::string("*"));
  add(&attributes, "attributes", "Attributes of the machine, e.g. 'rack:a;zone:b'");
  add(&isolation, "isolation",
      "Isolators for executors' containers, comma-separated (docs/isolation.md): posix/cpu, "
      "posix/mem (measure, enforce nothing; 'posix' stands for both), cgroups/cpu, cgroups/mem, "
      "cgroups/pids ('cgroups' stands for cgroups/cpu,cgroups/mem; 'cgroups/all' for all "
      "three), lxc (each executor in an LXC container with CPU shares and a memory limit; not "
      "with cgroups/*)",
      std::string("posix/cpu,posix/mem"));
  add(&cgroups_hierarchy, "cgroups_hierarchy",
      "Where the cgroup hierarchies are mounted (cgroup v1: one directory per controller; "
      "cgroup v2: the unified mount)",
      std::string("/sys/fs/cgroup"));
  add(&cgroups_root, "cgroups_root",
      "Name of the cgroup, below the slave's own, that holds the containers' cgroups",
      std::string("mesos"));
  add(&cgroups_enable_cfs, "cgroups_enable_cfs",
      "Cap each container's CPU at its cpus with the CFS quota (cgroups/cpu), besides the shares",
      false);
  add(&cgroups_limit_swap, "cgroups_limit_swap",
      "Limit memory plus swap, not only memory, to the container's mem (cgroups/mem)", false);
  add(&container_disk_watch_interval, "container_disk_watch_interval",
      "How often the disk/du isolator measures each container's sandbox",
      mesos::flags::Duration(std::chrono::seconds(15)));
  add(&enforce_container_disk_quota, "enforce_container_disk_quota",
      "With disk/du: kill a container whose sandbox uses more than its disk resource "
      "(its tasks fail with REASON_CONTAINER_LIMITATION_DISK); with disk/xfs: make its disk "
      "resource the hard limit of its sandbox's XFS project (a write past it fails)",
      false);
  add(&xfs_project_range, "xfs_project_range",
      "The XFS project ids disk/xfs gives containers' sandboxes, as [first-last]",
      std::string("[5000-10000]"));
  add(&network_cni_config_dir, "network_cni_config_dir",
      "Directory of the CNI network configurations network/cni reads (one network per .conf, "
      ".conflist or .json file; docs/cni.md)",
      std::string());
  add(&network_cni_plugins_dir, "network_cni_plugins_dir",
      "Where network/cni finds the CNI plugins: directories separated by ':', searched in "
      "order (also the plugins' CNI_PATH)",
      std::string());
  add(&network_cni_root_dir_persist, "network_cni_root_dir_persist",
      "Keep network/cni's per-container state under --work_dir (isolators/network/cni) instead "
      "of /run/mesos, so that it survives a reboot and the networks are left then too",
      false);
  add(&containerizers, "containerizers",
      "Containerizers to use, comma-separated, in the order they are tried: mesos (the "
      "slave's own containers) and docker (tasks whose ContainerInfo is DOCKER run as Docker "
      "containers; docs/docker-containerizer.md)",
      std::string("mesos"));
  add(&docker, "docker",
      "The docker program the Docker containerizer runs (a path, or a name searched in PATH)",
      std::string("docker"));
  add(&docker_socket, "docker_socket",
      "The unix socket of the Docker daemon the Docker containerizer talks to",
      std::string("/var/run/docker.sock"));
  add(&docker_stop_timeout, "docker_stop_timeout",
      "How long a Docker container that is killed gets between SIGTERM and SIGKILL "
      "(docker stop -t), unless the task's kill policy names a grace period",
      mesos::flags::Duration(0s));
  add(&docker_remove_delay, "docker_remove_delay",
      "How long after its executor ended a task's Docker container is removed (docker rm)",
      mesos::flags::Duration(6h));
  add(&docker_kill_orphans, "docker_kill_orphans",
      "At start-up, remove the Docker containers named mesos-* that no recovered executor "
      "owns (turn off when several slaves share one Docker daemon)",
      true);
  add(&launcher_dir, "launcher_dir",
      "Directory holding mesos-executor, the executor that runs command tasks",
      defaultLauncherDir());
  add(&executor_secret_key, "executor_secret_key",
      "Path of a file whose contents are the key that signs the token each executor is given "
      "(MESOS_EXECUTOR_AUTHENTICATION_TOKEN) and presents with its messages; without it the "
      "slave makes a key and keeps it in --work_dir/meta/executor_secret_key");
  add(&authenticate_http_executors, "authenticate_http_executors",
      "Take no message from an executor that does not present its token (executors built on "
      "Apache Mesos's libraries or mesos-go present none); without it, an executor that "
      "registered with its token must present it with every later message",
      false);
  add(&executor_registration_timeout, "executor_registration_timeout",
      "How long an executor may take to register before it is killed and its tasks fail",
      mesos::flags::Duration(1min));
  add(&executor_shutdown_grace_period, "executor_shutdown_grace_period",
      "How long an executor asked to shut down gets before SIGTERM, and then before SIGKILL",
      mesos::flags::Duration(5s));
  add(&registration_backoff_factor, "registration_backoff_factor",
      "Initial bound of the random wait between registration attempts; doubles each attempt "
      "up to 1mins",
      mesos::flags::Duration(1s));
  add(&zk_session_timeout, "zk_session_timeout",
      "ZooKeeper session timeout, with --master=zk://...", mesos::flags::Duration(10s));
  add(&switch_user, "switch_user",
      "Run each executor and its tasks as the CommandInfo.user, else the FrameworkInfo.user, "
      "when the slave runs as root; the sandbox is given to that user, and a user this machine "
      "does not have fails the task",
      true);
  add(&recover, "recover",
      "What a restarted slave does with the executors of checkpointing frameworks an earlier "
      "run left: 'reconnect' (take them over and re-register with the master under the same "
      "slave id) or 'cleanup' (kill them all and register as a new slave)",
      std::string("reconnect"));
  add(&recovery_timeout, "recovery_timeout",
      "How long the executors of checkpointing frameworks wait for a restarted slave to "
      "reconnect before they exit",
      mesos::flags::Duration(15min));
  add(&strict, "strict",
      "Whether an unreadable checkpoint (corrupt, truncated, missing) stops the slave from "
      "starting (naming the file); false recovers what it can and says what it skipped",
      true);
  add(&executor_reregistration_timeout, "executor_reregistration_timeout",
      "How long a restarted slave waits for the executors it reconnects to to re-register "
      "before it kills them",
      mesos::flags::Duration(2s));
  add(&gc_delay, "gc_delay",
      "How long the sandboxes of finished executors are kept before they are removed (sooner "
      "when the disk fills up: see --gc_disk_headroom)",
      mesos::flags::Duration(std::chrono::hours(24 * 7)));
  add(&disk_watch_interval, "disk_watch_interval",
      "How often the disk holding --work_dir is measured, to remove old sandboxes sooner as it "
      "fills up",
      mesos::flags::Duration(1min));
  add(&gc_disk_headroom, "gc_disk_headroom",
      "Fraction of the disk kept free: sandboxes are kept for --gc_delay * max(0, 1 - "
      "gc_disk_headroom - disk usage)",
      0.1);
  add(&fetcher_cache_size, "fetcher_cache_size",
      "Bound on the bytes the fetcher cache keeps (URIs fetched with cache=true); the least "
      "recently used files go first when it is full. 0B: nothing is cached",
      mesos::flags::Bytes{2ULL * 1024 * 1024 * 1024});
  add(&fetcher_cache_dir, "fetcher_cache_dir",
      "Directory of the fetcher cache; the slave keeps its files in slaves/<its id> below it",
      std::string("/tmp/mesos/fetch"));
  add(&hadoop_home, "hadoop_home",
      "Hadoop installation used to fetch URIs of schemes other than file, http and https "
      "(hdfs://, s3a://, ...) with <hadoop_home>/bin/hadoop; unset, such URIs fail");
  add(&frameworks_home, "frameworks_home",
      "Directory that relative paths among a task's URIs are resolved against; unset, such URIs "
      "fail");
  add(&image_providers, "image_providers",
      "Image formats containers may be started from (ContainerInfo.mesos.image), "
      "comma-separated: docker. Needs the filesystem/linux isolator; add docker/runtime for the "
      "images' entrypoint, environment, working directory and user. Unset: no images");
  add(&image_provisioner_backend, "image_provisioner_backend",
      "How a container's root filesystem is made from its image's layers: overlay, copy or "
      "bind (single-layer images only). Unset: overlay where the kernel has it, else copy",
      std::string());
  add(&docker_registry, "docker_registry",
      "Where Docker images whose name gives no registry come from: a registry's URL "
      "(https://host[:port], or http:// for a registry without TLS) or an absolute path to a "
      "directory of 'docker save' or OCI tarballs named <repository>:<tag>.tar",
      std::string("https://registry-1.docker.io"));
  add(&docker_store_dir, "docker_store_dir",
      "Directory of the image store: the layers of every image pulled, shared by all "
      "containers",
      std::string("/tmp/mesos/store/docker"));
  add(&docker_config, "docker_config",
      "Registry credentials, in the format of Docker's config.json (auths): a path to the "
      "file, or the JSON itself");
  add(&image_gc_config, "image_gc_config",
      "Automatic garbage collection of the image store (--docker_store_dir): Apache Mesos's "
      "ImageGcConfig as JSON, inline or in a file (file:///PATH or an absolute path), e.g. "
      "'{\"image_disk_headroom\": 0.1, \"image_disk_watch_interval\": {\"nanoseconds\": "
      "3600000000000}, \"excluded_images\": [{\"type\": \"DOCKER\", \"docker\": "
      "{\"name\": \"busybox:1.36\"}}]}'. Every image_disk_watch_interval, when less than "
      "image_disk_headroom of the store's file system is free, the images no container uses "
      "and excluded_images does not name are removed with the layers only they used. Needs "
      "--image_providers. Unset: the store is never collected automatically");
  add(&executor_environment_variables, "executor_environment_variables",
      "The environment executors start from, as a JSON object of names and string values "
      "('{\"PATH\":\"/bin:/usr/bin\"}'), inline or file:///PATH; the slave's MESOS_* "
      "variables and the executor's CommandInfo.environment are added to it. Unset: PATH, "
      "LD_LIBRARY_PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, LC_*, TZ and TMPDIR of the slave's "
      "own environment");
  add(&http_allowed_origins, "http_allowed_origins",
      "Origins (scheme://host:port, comma-separated; '*' for any) whose web pages may read this "
      "slave's endpoints from a browser (CORS). The master the slave is registered with is "
      "always allowed, so that its web UI can show sandboxes");
  security.addTo(*this, authentication::Daemon::kAgent);
  addAuthenticationFlags();
}

std::vector<std::string> Flags::containerizerList() const {
  std::vector<std::string> names;
  std::stringstream list(containerizers);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

Result<void> Flags::validate() const {
  if (auto ok = process::Runtime::checkAddressFlags(ip, advertise_ip, advertise_port); !ok) {
    return ok.error();
  }
  if (auto names = isolation::expandIsolation(isolation); !names) return names.error();
  const std::vector<std::string> names = containerizerList();
  if (names.empty()) return Error{"--containerizers is empty (e.g. --containerizers=mesos)"};
  for (auto it = names.begin(); it != names.end(); ++it) {
    if (*it != "mesos" && *it != "docker") {
      return Error{"--containerizers: '" + *it + "' is not mesos or docker"};
    }
    if (std::find(names.begin(), it, *it) != it) {
      return Error{"--containerizers names '" + *it + "' twice"};
    }
  }
  if (docker.empty()) return Error{"--docker may not be empty (e.g. --docker=docker)"};
  if (docker_socket.empty() || docker_socket[0] != '/') {
    return Error{"--docker_socket: '" + docker_socket + "' is not an absolute path"};
  }
  if (docker_stop_timeout < mesos::flags::Duration::zero()) {
    return Error{"--docker_stop_timeout may not be negative (e.g. 10secs)"};
  }
  if (docker_remove_delay < mesos::flags::Duration::zero()) {
    return Error{"--docker_remove_delay may not be negative (e.g. 6hrs)"};
  }
  if (executor_secret_key) {
    if (auto key = loadExecutorSecretKey(*executor_secret_key, work_dir); !key) return key.error();
  }
  if (container_disk_watch_interval <= mesos::flags::Duration::zero()) {
    return Error{"--container_disk_watch_interval must be positive (e.g. 15secs)"};
  }
  if (executor_registration_timeout <= mesos::flags::Duration::zero()) {
    return Error{"--executor_registration_timeout must be positive (e.g. 1mins)"};
  }
  if (executor_shutdown_grace_period < mesos::flags::Duration::zero()) {
    return Error{"--executor_shutdown_grace_period may not be negative (e.g. 5secs)"};
  }
  if (zk_session_timeout <= mesos::flags::Duration::zero()) {
    return Error{"--zk_session_timeout must be positive"};
  }
  if (registration_backoff_factor <= mesos::flags::Duration::zero()) {
    return Error{"--registration_backoff_factor must be positive (e.g. 1secs)"};
  }
  if (recover != "reconnect" && recover != "cleanup") {
    return Error{"--recover: '" + recover + "' is not 'reconnect' or 'cleanup'"};
  }
  if (recovery_timeout <= mesos::flags::Duration::zero()) {
    return Error{"--recovery_timeout must be positive (e.g. 15mins)"};
  }
  if (executor_reregistration_timeout <= mesos::flags::Duration::zero()) {
    return Error{"--executor_reregistration_timeout must be positive (e.g. 2secs)"};
  }
  if (gc_delay < mesos::flags::Duration::zero()) {
    return Error{"--gc_delay may not be negative (e.g. 1weeks)"};
  }
  if (disk_watch_interval <= mesos::flags::Duration::zero()) {
    return Error{"--disk_watch_interval must be positive (e.g. 1mins)"};
  }
  if (!(gc_disk_headroom >= 0.0 && gc_disk_headroom <= 1.0)) {
    return Error{"--gc_disk_headroom must be between 0.0 and 1.0 (e.g. 0.1)"};
  }
  if (work_dir.empty()) {
    return Error{"--work_dir may not be empty (e.g. --work_dir=/var/lib/mesos)"};
  }
  if (fetcher_cache_dir.empty() || fetcher_cache_dir[0] != '/') {
    return Error{"--fetcher_cache_dir: '" + fetcher_cache_dir +
                 "' is not an absolute path (e.g. --fetcher_cache_dir=/tmp/mesos/fetch)"};
  }
  if (image_providers) {
    std::stringstream names(*image_providers);
    std::string name;
    while (std::getline(names, name, ',')) {
      std::string lower;
      for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower != "docker") {
        return Error{"--image_providers: '" + name + "' is not supported (docker is)"};
      }
    }
    auto isolators = isolation::expandIsolation(isolation);
    if (std::find(isolators->begin(), isolators->end(), "filesystem/linux") == isolators->end()) {
      return Error{"--image_providers needs the filesystem/linux isolator: add it to --isolation"};
    }
    if (docker_store_dir.empty() || docker_store_dir[0] != '/') {
      return Error{"--docker_store_dir: '" + docker_store_dir + "' is not an absolute path"};
    }
  }
  if (image_gc_config) {
    if (auto gc = parseImageGcConfig(*image_gc_config); !gc) return gc.error();
  }
  if (!image_provisioner_backend.empty() && image_provisioner_backend != "overlay" &&
      image_provisioner_backend != "copy" && image_provisioner_backend != "bind") {
    return Error{"--image_provisioner_backend: '" + image_provisioner_backend +
                 "' is not overlay, copy or bind"};
  }
  if (http_allowed_origins) {
    auto origins = process::http::AllowedOrigins::parse(*http_allowed_origins);
    if (!origins) return Error{"--http_allowed_origins: " + origins.error().message};
  }
  if (executor_environment_variables) {
    auto parsed = parseExecutorEnvironmentVariables(*executor_environment_variables);
    if (!parsed) return parsed.error();
  }
  for (const auto& [name, value] : {std::pair{"hadoop_home", &hadoop_home},
                                    std::pair{"frameworks_home", &frameworks_home}}) {
    if (value->has_value() && (value->value().empty() || value->value()[0] != '/')) {
      return Error{std::string("--") + name + ": '" + value->value() +
                   "' is not an absolute path to a directory"};
    }
  }
  if (auto guard = security.guard(authentication::Daemon::kAgent, true); !guard) return guard.error();
  if (auto authentication = validateAuthentication(); !authentication) {
    return authentication.error();
  }
  return {};
}

}  // namespace mesos::internal::slave
