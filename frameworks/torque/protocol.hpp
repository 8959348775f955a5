// The framework messages between the server and its nodes' executors
// (mesos-torque-mom), as JSON objects with a "type". Framework messages are
// best effort, so each side repeats what matters until it is answered:
//
//   server -> node  {"type":"run", "job":ID, "name", "script", "workdir",
//                    "out", "err", "hosts":[...], "ppn":C, "walltime":S,
//                    "environment":{...}}   repeated until "started" or "done"
//                   {"type":"kill", "job":ID}  repeated until "done"
//                   {"type":"ack", "job":ID}   answers "done"
//   node -> server  {"type":"started", "job":ID}
//                   {"type":"done", "job":ID, "exit_status":N,
//                    "comment":"..."}   repeated until "ack"
//
// A node runs a job at most once: a repeated "run" is answered with
// "started" (or "done" once it ended); a "kill" of a job it does not run
// is answered with "done" (exit status 271, as PBS uses for deleted jobs).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace mesos::frameworks::torque {

// `value` as JSON text. Bytes that are not UTF-8 (a script in Latin-1...)
// become U+FFFD instead of throwing: no dump may throw in a callback.
inline std::string jsonText(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The exit status of a job deleted before it ended by itself (PBS's 271).
constexpr int kDeletedExitStatus = 271;

// The executor of node tasks, found with frameworkProgram().
constexpr const char* kMomProgram = "mesos-torque-mom";

}  // namespace mesos::frameworks::torque
