// Cross-origin reads from browsers (CORS): which web pages, besides the
// runtime's own, may read its HTTP answers. A runtime with a policy
// (Runtime::setCorsPolicy()) answers a request whose Origin the policy
// allows with "Access-Control-Allow-Origin: <that origin>" (and "Vary:
// Origin"), and a preflight (OPTIONS with Access-Control-Request-Method)
// from it with 204 and the methods and headers it may use; a preflight from
// any other origin gets 403 and no such header, so the browser keeps the
// page from reading. A runtime without a policy adds nothing.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mesos/result.hpp"
#include "process/http.hpp"

namespace process::http {

using mesos::Error;
using mesos::Result;

class CorsPolicy {
 public:
  virtual ~CorsPolicy() = default;
  // Whether a page of `origin` (the Origin header: "http://host:port") may
  // read the answers. Called on the transport's threads.
  virtual bool allows(const std::string& origin) const = 0;
};

// Origins given by the operator (e.g. --http_allowed_origins), and others
// the owner learns as it runs (a slave adds its master's). Thread-safe.
class AllowedOrigins : public CorsPolicy {
 public:
  // `listed`: origins as parse() returns them; "*" allows any.
  explicit AllowedOrigins(std::vector<std::string> listed = {});

  // A comma-separated list of origins ("http://ui.example:8080,
  // https://x.example") or "*": each scheme://host[:port], without a
  // path; blanks around entries ignored, an empty text allows none. Fails
  // with one line naming the entry and what it should look like.
  static Result<std::vector<std::string>> parse(const std::string& text);

  // Replaces the learned origins.
  void setLearned(std::vector<std::string> origins);

  bool allows(const std::string& origin) const override;

 private:
  mutable std::mutex mutex_;
  std::set<std::string> listed_;
  std::set<std::string> learned_;
  bool any_ = false;
};

// Whether `request` is a CORS preflight.
bool isPreflight(const Request& request);
// The answer to a preflight from an allowed `origin`: 204, the methods
// GET, POST, HEAD, OPTIONS, the headers it asked for, valid for a day.
Response preflightAnswer(const Request& request, const std::string& origin);
// Marks `response` readable by pages of `origin`.
void allowOrigin(Response* response, const std::string& origin);

}  // namespace process::http
