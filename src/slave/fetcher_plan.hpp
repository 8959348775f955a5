// The fetcher's plan: which URIs (CommandInfo.uris) go into which sandbox,
// for which user, through which cache. The slave builds one (fetcher.hpp)
// and hands it to the mesos-fetcher helper as JSON on its stdin; the helper
// (fetcher_main.cpp) decodes it and follows the rules below. Everything here
// is pure: no I/O, usable from an actor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

struct FetchPlan {
  std::vector<CommandInfo::URI> uris;  // fetched in this order
  std::string sandbox;                 // absolute path of an existing directory
  // Whose files these are: half of the cache key (entries are shared only
  // between fetches of the same user). May be empty.
  std::string user;
  // When not empty, the helper (started as root) fetches as this user:
  // it reads local files, runs hadoop and writes and extracts into the
  // sandbox (which must be the user's) with the user's rights, and uses
  // only the cache as root (fetcher_identity.hpp).
  std::string runAs;
  // The cache (--fetcher_cache_dir, one directory per slave) and its bound
  // in bytes (--fetcher_cache_size). URIs with `cache` set bypass the cache
  // when the directory is empty or the size is 0.
  std::string cacheDirectory;
  uint64_t cacheSize = 0;
  // --frameworks_home: where relative URIs are found. Unset: they fail.
  std::optional<std::string> frameworksHome;
  // --hadoop_home: URIs of other schemes (hdfs://, s3a://, ...) are fetched
  // with <hadoop_home>/bin/hadoop fs -copyToLocal. Unset: they fail.
  std::optional<std::string> hadoopHome;
};

// The plan as one JSON object, and back. decodePlan() fails naming the field
// that is missing or of the wrong type.
std::string encodePlan(const FetchPlan& plan);
Result<FetchPlan> decodePlan(std::string_view text);

// Where a URI's bytes come from.
struct FetchSource {
  enum class Kind {
    kLocal,   // a file on this machine: `location` is its absolute path
    kHttp,    // http:// or https://: `location` is the URI
    kHadoop,  // another scheme, through hadoop: `location` is the URI
  };
  Kind kind;
  std::string location;
};

// Classifies `uri.value()`: an absolute path or file:///path is local; a
// relative path is local below `plan.frameworksHome` (and may not climb out
// of it with ".."); http:// and https:// are downloaded; any other scheme
// goes through hadoop when `plan.hadoopHome` is set. Fails with a message
// naming the problem: an unsupported scheme (named), a relative path
// without --frameworks_home, file:// with a host.
Result<FetchSource> resolveSource(const CommandInfo::URI& uri, const FetchPlan& plan);

// The fetched file's path relative to the sandbox: `uri.output_file()` when
// set, else the last component of the URI's path (without its query or
// fragment). Normalized ("./a//b" -> "a/b"). Fails, saying why, when it is
// absolute, empty, ".", or climbs out of the sandbox with "..", or when no
// file name can be taken from the URI ("http://host/", ".../..").
Result<std::string> outputPath(const CommandInfo::URI& uri);

// `path` (relative) normalized, when it names something strictly inside
// the directory it is relative to: no absolute path, no ".." component, not
// empty after removing "." and empty components. The error says which rule
// it breaks ("'../x' climbs out with '..'").
Result<std::string> containedPath(const std::string& path);

// The archive kinds the fetcher extracts, by the file name's extension:
// .tar; .tar.gz/.tgz; .tar.bz2/.tbz2/.tbz; .tar.xz/.txz; .zip; and .gz alone
// (one compressed file, decompressed next to itself without the suffix).
enum class ArchiveKind { kNone, kTar, kZip, kGzip };
ArchiveKind archiveKind(const std::string& fileName);

// The cache key of a URI fetched for `user`: user and URI both count.
std::string cacheKey(const std::string& user, const std::string& uri);

}  // namespace mesos::internal::slave
