#include "slave/cors.hpp"

#include <set>

#include <glog/logging.h>

#include "slave/slave.hpp"

namespace mesos::internal::slave {

std::vector<std::string> masterOrigins(const process::UPID& master,
                                       const std::optional<MasterInfo>& detected,
                                       const std::optional<std::string>& masterFlag) {
  const std::string port = std::to_string(master.address.port);
  std::set<std::string> hosts = {master.address.ipString()};
  if (detected && !detected->hostname().empty()) hosts.insert(detected->hostname());
  if (masterFlag && masterFlag->find("://") == std::string::npos) {
    std::string address = masterFlag->substr(masterFlag->find('@') + 1);
    size_t colon = address.rfind(':');
    // Only when it names this master (its port); a name that resolved
    // elsewhere since is not it.
    if (colon != std::string::npos && colon > 0 && address.substr(colon + 1) == port) {
      hosts.insert(address.substr(0, colon));
    }
  }
  std::vector<std::string> origins;
  for (const std::string& host : hosts) {
    origins.push_back("http://" + host + ":" + port);
    origins.push_back("https://" + host + ":" + port);
  }
  return origins;
}

void Slave::allowMasterOrigins() {
  if (!allowedOrigins_ || !master_) return;
  std::vector<std::string> origins = masterOrigins(*master_, detected_, flags_.master);
  std::string shown;
  for (const std::string& origin : origins) shown += (shown.empty() ? "" : ", ") + origin;
  VLOG(1) << "Pages of " << shown << " (the master's web UI) may read this slave's endpoints";
  allowedOrigins_->setLearned(std::move(origins));
}

}  // namespace mesos::internal::slave
