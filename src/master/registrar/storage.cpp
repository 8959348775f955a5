#include "master/registrar/storage.hpp"

namespace mesos::internal::master::registrar {

process::Future<Result<Storage::Contents>> Storage::peek() {
  return Result<Contents>(Error{describe() + " is not read ahead"});
}

Result<std::unique_ptr<Storage>> createStorage(const StorageConfig& config) {
  if (config.kind == "in_memory") return inMemoryStorage();
  if (config.kind == "file") {
    if (!config.workDir) return Error{"--registry=file needs --work_dir"};
    return fileStorage(*config.workDir + "/registry");
  }
  if (config.kind == "zookeeper") {
    if (!config.zk) return Error{"--registry=zookeeper needs --zk"};
    return zookeeperStorage(*config.zk, config.zkPath, config.zkUrl);
  }
  if (config.kind == "replicated_log") {
    return Error{"--registry=replicated_log: this master keeps its registry in ZooKeeper "
                 "(--registry=zookeeper, the default with --zk), in files under --work_dir "
                 "(--registry=file) or in memory (--registry=in_memory); Apache Mesos's "
                 "replicated log is not implemented"};
  }
  return Error{"--registry=" + config.kind +
               ": unknown; use zookeeper, file or in_memory (docs/high-availability.md)"};
}

}  // namespace mesos::internal::master::registrar
