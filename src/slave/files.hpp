// Files: the "files" actor, which serves sandbox files over HTTP the way
// Apache Mesos does, but only below directories attached to it:
//
//   GET /files/browse?path=P      -> [{"path","nlink","size","mtime","mode","uid","gid"}, ...]
//   GET /files/read?path=P&offset=N&length=L -> {"data": "...", "offset": N}
//       (no offset: {"data": "", "offset": <file size>}; at most 64 KiB a read)
//   GET /files/download?path=P    -> the raw file
//   GET /files/debug              -> {virtual path: real path}
//
// A path is a virtual path: an attached name followed by components inside
// the attached directory. Paths with ".." are refused (400), paths that are
// not below an attached name are not found (404), and paths that resolve
// (through symbolic links) outside their attached directory are forbidden
// (403). One Files actor serves a whole runtime; slaves attach each
// executor's sandbox under its real path.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "mesos/result.hpp"
#include "process/actor.hpp"

namespace mesos::internal::slave {

class Files : public process::Actor {
 public:
  Files() : Actor("files") {}

  // Serves `path` (a file or directory) as `name` (a virtual path, e.g. the
  // real path itself). Fails when `path` does not exist.
  Result<void> attach(std::string path, std::string name);
  void detach(std::string name);

 protected:
  void initialize() override;

 private:
  struct Resolved {
    int status = 200;  // 200, or the HTTP error to answer
    std::string message;
    std::string path;  // the real path, when status is 200
  };
  Resolved resolve(const std::string& virtualPath) const;

  process::Future<process::http::Response> browse(const process::http::Request& request);
  process::Future<process::http::Response> read(const process::http::Request& request);
  process::Future<process::http::Response> download(const process::http::Request& request);
  process::Future<process::http::Response> debug(const process::http::Request& request);

  std::map<std::string, std::string> paths_;  // normalized virtual name -> real path
};

}  // namespace mesos::internal::slave
