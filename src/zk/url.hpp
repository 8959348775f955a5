// ZooKeeper URLs as Mesos daemons and drivers take them (--zk, --master):
//
//   zk://[user:password@]host:port[,host:port...][/path]
//   file:///absolute/path   (a file holding such a URL, e.g. kept out of
//                            process listings because of its password)
//
// The path names the group of masters (Apache Mesos's layout: each master
// a znode "<path>/json.info_<seq>"); without one it is "/". The credentials,
// when given, are a ZooKeeper "digest" identity added to the session and
// the ACL of the znodes it creates.
#pragma once

#include <optional>
#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::zk {

struct Url {
  struct Credentials {
    std::string user;
    std::string password;
  };

  std::string servers;  // "host:port,host:port": what zookeeper_init() takes
  std::string path;     // absolute, no trailing slash (except "/" itself)
  std::optional<Credentials> credentials;

  // The URL again, the password masked: safe for logs.
  std::string toString() const;
};

// Parses `text` (surrounding whitespace ignored). A file:// URL is read and
// its content parsed (it must be a zk:// URL). The error names the problem.
Result<Url> parseUrl(const std::string& text);

}  // namespace mesos::internal::zk
