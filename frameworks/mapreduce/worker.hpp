// The work of one task attempt, as the TaskTracker (the executor) runs it on
// a thread of its own: a map reads its block from the store as seen from
// this node, applies the job's map function (built in, or a streaming
// command), partitions its pairs by key into the job's R reduces and writes
// one sorted file per partition, which the TaskTracker's HTTP server then
// serves; a reduce fetches its partition from every map's TaskTracker,
// merges by key, applies the reduce function and writes its output part.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <string>

#include "mapreduce/job.hpp"

namespace httplib {
class Server;
}

namespace mesos::frameworks::mapreduce {

// Asks a running attempt to stop: it checks `requested` between steps and
// kills its streaming command's process group (`child`) when there is one.
struct Cancellation {
  std::atomic<bool> requested{false};
  std::atomic<pid_t> child{0};
  void cancel();
};

// The map output of an attempt lives in <outputRoot>/<job>/<attempt>/<r>
// (r = 0 .. reduces - 1, "key<TAB>value" lines sorted by key), written into
// a temporary directory renamed into place, so it is served whole or not at
// all. On success: the outcome (records read, whether the block read was
// remote). On failure: a message for the task's status.
Result<TaskOutcome> runMap(const TaskSpec& task, const std::string& host,
                           const std::string& outputRoot, Cancellation& cancel);

// Fetches partition task.index from every map (task.maps), reduces and
// writes <output>/part-NNNNN (a directory, or a file of the store). When
// some maps' outputs cannot be fetched the outcome is ok with fetchFailed
// naming them (and nothing is written): the JobTracker recomputes those maps.
Result<TaskOutcome> runReduce(const TaskSpec& task, const std::string& host,
                              Cancellation& cancel);

// Runs `command` with /bin/sh -c in a process group of its own, with this
// process's environment plus `environment`, feeding `input` to its stdin
// and collecting its stdout into *output. Fails when it cannot start, exits
// non-zero (the message ends with its stderr's last lines) or is cancelled
// (the whole group is killed).
Result<Done> runFilter(const std::string& command, const std::string& input,
                       const std::map<std::string, std::string>& environment,
                       std::string* output, Cancellation& cancel);

// Whether `part` (a job or attempt id from a request) is safe as one path
// component: not empty, no '/', not starting with '.'.
bool safeComponent(const std::string& part);

// Adds GET /mapout/<job>/<attempt>/<partition> to `server`: the map output
// runMap wrote under `outputRoot`, whole, or 404 (400 for an unsafe id).
void serveMapOutputs(httplib::Server& server, const std::string& outputRoot);

// What a streaming command finds in its environment (as Hadoop Streaming
// passes the job's configuration): MAPREDUCE_JOB, MAPREDUCE_TASK (the
// attempt id), MAPREDUCE_TASK_TYPE (map or reduce), MAPREDUCE_INDEX (the
// block or partition), MAPREDUCE_INPUT (the store file), MAPREDUCE_HOST (the
// node running it).
std::map<std::string, std::string> streamingEnvironment(const TaskSpec& task,
                                                        const std::string& host);

}  // namespace mesos::frameworks::mapreduce
