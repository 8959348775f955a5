// Getting a URI's bytes into a file, for the mesos-fetcher helper: local
// files are copied, http:// and https:// are downloaded with libcurl
// (redirects followed, to http and https only), other schemes are read with
// `<hadoop_home>/bin/hadoop fs -cat`. Progress goes to stderr (the sandbox's
// stderr). Every way stops with an error, rather than filling the disk, when
// the destination's file system has no room left for the next bytes (or,
// when the server announces the size, for all of them up front).
//
// Blocking, with no time bound of its own: the slave kills the helper when
// its time is up (fetcher.hpp).
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "slave/fetcher_plan.hpp"

namespace mesos::internal::slave::fetcher {

// Process-wide set-up of libcurl; call once, first thing in main().
void initializeDownloads();

// Writes the bytes `source` names into `fd` (an empty file open for
// writing) and returns how many. `destination` names the file in errors
// and progress lines; `hadoopHome` is used for FetchSource::Kind::kHadoop.
// The error says what went wrong without naming the URI (the caller does):
// "the server answered 404 Not Found", "transfer closed with 10 bytes
// remaining to read", "'/x' is a directory, not a file".
Result<uint64_t> download(const FetchSource& source, int fd, const std::string& destination,
                          const std::string& hadoopHome);

}  // namespace mesos::internal::slave::fetcher
