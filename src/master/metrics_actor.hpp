// MetricsActor: serves GET /metrics/snapshot by asking the master and the
// allocator for their counters (each on its own actor). The master "master"
// has "metrics"; another master sharing the runtime (mesos-local
// --num_masters) has "metrics-<its id>" (/metrics-<id>/snapshot). The master
// answers /<its id>/metrics/snapshot too, through snapshot().
#pragma once

#include <string>

#include "allocator/allocator_actor.hpp"
#include "authentication/http/endpoint_guard.hpp"
#include "process/actor.hpp"

namespace mesos::internal::master {

class Master;

class MetricsActor : public process::Actor {
 public:
  // `guard`: the master's, which /metrics/snapshot answers behind (none:
  // open).
  MetricsActor(process::Pid<Master> master, process::Pid<allocator::AllocatorActor> allocator,
               std::shared_ptr<const authentication::EndpointGuard> guard = nullptr);

  // The snapshot's JSON: the master's counters and the allocator's. Also
  // reached through the master's own /master/metrics/snapshot route.
  process::Future<process::http::Response> snapshot(const process::http::Request& request);
  static std::string idFor(const std::string& masterId) {
    return masterId == "master" ? "metrics" : "metrics-" + masterId;
  }

 protected:
  void initialize() override;

 private:
  process::Pid<Master> master_;
  process::Pid<allocator::AllocatorActor> allocator_;
  std::shared_ptr<const authentication::EndpointGuard> guard_;
};

}  // namespace mesos::internal::master
