// What a job asks for, in PBS's `-l` syntax, and the parsing of it. Shared
// by mesos-qsub (which checks a request before sending it) and the server
// (which checks it again: it is the authority on what it queues).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mesos::frameworks::torque {

// A job's resource request. A job runs on `nodes` distinct nodes (one per
// slave), using `ppn` cpus on each; `memMb` is the whole job's memory
// (split evenly among its nodes); `walltimeSeconds` bounds its run time.
struct ResourceRequest {
  int nodes = 1;
  int ppn = 1;
  int64_t memMb = 0;  // 0: not asked (the job gets no memory of its own)
  std::optional<int64_t> walltimeSeconds;

  // The memory each node gives the job, in MB (rounded up).
  int64_t memPerNodeMb() const { return (memMb + nodes - 1) / nodes; }
};

// Either a value or an error message naming the problem and the fix.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;

  static Parsed failure(std::string message) { return Parsed{std::nullopt, std::move(message)}; }
  bool ok() const { return value.has_value(); }
};

// Parses the `-l` lists of one job (each "key=value,key=value"; later keys
// override earlier ones), starting from the defaults of ResourceRequest.
// Keys: nodes=N[:ppn=C], ppn=C, mem=SIZE (b, kb, mb, gb, tb; bare numbers
// are bytes, as in PBS), walltime=[[HH:]MM:]SS or a number of seconds.
// On failure the error names the entry and what is expected.
Parsed<ResourceRequest> parseResourceLists(const std::vector<std::string>& lists);

// "[[HH:]MM:]SS" or seconds -> seconds; nullopt when malformed.
std::optional<int64_t> parseWalltime(const std::string& text);

// A PBS size ("512mb", "2gb", "1048576") -> MB rounded up; nullopt when
// malformed.
std::optional<int64_t> parseSizeMb(const std::string& text);

// Seconds -> "HH:MM:SS" (hours may exceed 99).
std::string formatDuration(int64_t seconds);

}  // namespace mesos::frameworks::torque
