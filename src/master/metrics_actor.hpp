// MetricsActor: serves GET /metrics/snapshot by asking the master and the
// allocator for their counters (each on its own actor). The master "master"
// has "metrics"; another master sharing the runtime (mesos-local
// --num_masters) has "metrics-<its id>" (/metrics-<id>/snapshot).
#pragma once

#include <string>

#include "allocator/allocator_actor.hpp"
#include "process/actor.hpp"

namespace mesos::internal::master {

class Master;

class MetricsActor : public process::Actor {
 public:
  MetricsActor(process::Pid<Master> master, process::Pid<allocator::AllocatorActor> allocator);
  static std::string idFor(const std::string& masterId) {
    return masterId == "master" ? "metrics" : "metrics-" + masterId;
  }

 protected:
  void initialize() override;

 private:
  process::Future<process::http::Response> snapshot(const process::http::Request& request);

  process::Pid<Master> master_;
  process::Pid<allocator::AllocatorActor> allocator_;
};

}  // namespace mesos::internal::master
