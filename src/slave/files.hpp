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
// executor's sandbox under its real path, naming the user it runs as.
//
// With a guard (setGuard(): the slave's --authenticate_http_readonly and
// --acls), every route is in the readonly realm, /files/debug is subject to
// get_endpoints rules, and a path inside a sandbox is served only to a
// principal that access_sandboxes rules let reach its user's sandboxes
// (403 otherwise).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "authentication/http/endpoint_guard.hpp"
#include "mesos/result.hpp"
#include "process/actor.hpp"

namespace mesos::internal::slave {

class Files : public process::Actor {
 public:
  Files() : Actor("files") {}

  // Serves `path` (a file or directory) as `name` (a virtual path, e.g. the
  // real path itself); `user`: whose sandbox it is (access_sandboxes rules
  // name users), nullopt for no one's. Fails when `path` does not exist.
  Result<void> attach(std::string path, std::string name, std::optional<std::string> user);
  void detach(std::string name);
  // Puts the routes behind `guard` (none: open). The first slave of a
  // runtime sets it.
  void setGuard(std::shared_ptr<const authentication::EndpointGuard> guard);

 protected:
  void initialize() override;

 private:
  struct Resolved {
    int status = 200;  // 200, or the HTTP error to answer
    std::string message;
    std::string path;  // the real path, when status is 200
  };
  // `principal`: who asks (403 when access_sandboxes refuses it).
  Resolved resolve(const std::string& virtualPath,
                   const std::optional<std::string>& principal) const;
  // `handler` behind the guard, when there is one, as `path`.
  authentication::RouteHandler guarded(std::string path,
                                       process::Future<process::http::Response> (
                                           Files::*handler)(const process::http::Request&));

  process::Future<process::http::Response> browse(const process::http::Request& request);
  process::Future<process::http::Response> read(const process::http::Request& request);
  process::Future<process::http::Response> download(const process::http::Request& request);
  process::Future<process::http::Response> debug(const process::http::Request& request);

  struct Attached {
    std::string path;                 // the real path
    std::optional<std::string> user;  // whose sandbox
  };
  std::map<std::string, Attached> paths_;  // by normalized virtual name
  std::shared_ptr<const authentication::EndpointGuard> guard_;
};

}  // namespace mesos::internal::slave
