// Which web pages may read a slave's endpoints from a browser (CORS,
// process/cors.hpp): the origins of --http_allowed_origins, and the master
// the slave is registered with, whose web UI reads each slave's /state and
// sandboxes (/files) from the browser (docs/web-ui.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mesos.pb.h"
#include "process/upid.hpp"

namespace mesos::internal::slave {

// The origins a browser shows for the web UI of `master`: http:// and
// https:// with its ip, with the host name it advertises (`detected`, from
// ZooKeeper) and with the host --master names (`masterFlag`: host:port or
// master@host:port), each with the master's port.
std::vector<std::string> masterOrigins(const process::UPID& master,
                                       const std::optional<MasterInfo>& detected,
                                       const std::optional<std::string>& masterFlag);

}  // namespace mesos::internal::slave
