// A job run without Mesos, as Hadoop's own daemons would run it on a cluster
// of their own: `slots` worker threads in this process run the maps (each on
// a node holding its block, so every read is local) and then the reduces,
// which fetch the map outputs over HTTP from this process. It is §6.2's
// baseline ("the job alone"), and a way to try a job without a cluster.
// No attempt is retried: the first failure fails the job.
#pragma once

#include <nlohmann/json.hpp>

#include "mapreduce/job.hpp"

namespace mesos::frameworks::mapreduce {

struct LocalOptions {
  std::string dfsRoot;
  uint32_t slots = 4;
};

// The job's report, in the JobTracker's shape (id "local-1"): state
// "succeeded" or "failed" (with "error"), seconds, counts, output. Fails
// only when the job cannot start (bad spec, input or output).
Result<nlohmann::json> runLocally(const JobSpec& spec, const LocalOptions& options);

}  // namespace mesos::frameworks::mapreduce
