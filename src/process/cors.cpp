#include "process/cors.hpp"

namespace process::http {

namespace {

std::string trim(const std::string& text) {
  size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t");
  return text.substr(start, end - start + 1);
}

}  // namespace

AllowedOrigins::AllowedOrigins(std::vector<std::string> listed) {
  for (std::string& origin : listed) {
    if (origin == "*") any_ = true;
    listed_.insert(std::move(origin));
  }
}

Result<std::vector<std::string>> AllowedOrigins::parse(const std::string& text) {
  std::vector<std::string> origins;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string origin = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (origin.empty()) continue;
    if (origin != "*") {
      size_t scheme = origin.find("://");
      bool web = origin.rfind("http://", 0) == 0 || origin.rfind("https://", 0) == 0;
      if (!web || scheme + 3 >= origin.size() ||
          origin.find_first_of("/?#@ ", scheme + 3) != std::string::npos) {
        return Error{"'" + origin + "' is not an origin: write scheme://host[:port] (e.g. "
                     "http://ui.example.com:8080, no path), or '*' for any"};
      }
      while (!origin.empty() && origin.back() == '/') origin.pop_back();
    }
    origins.push_back(std::move(origin));
  }
  return origins;
}

void AllowedOrigins::setLearned(std::vector<std::string> origins) {
  std::lock_guard<std::mutex> lock(mutex_);
  learned_ = std::set<std::string>(origins.begin(), origins.end());
}

bool AllowedOrigins::allows(const std::string& origin) const {
  if (origin.empty()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return any_ || listed_.count(origin) != 0 || learned_.count(origin) != 0;
}

bool isPreflight(const Request& request) {
  return request.method == "OPTIONS" && !request.header("access-control-request-method").empty();
}

Response preflightAnswer(const Request& request, const std::string& origin) {
  Response answer{204, "", "", {}};
  allowOrigin(&answer, origin);
  answer.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, HEAD, OPTIONS");
  const std::string& asked = request.header("access-control-request-headers");
  if (!asked.empty()) answer.headers.emplace_back("Access-Control-Allow-Headers", asked);
  answer.headers.emplace_back("Access-Control-Max-Age", "86400");
  return answer;
}

void allowOrigin(Response* response, const std::string& origin) {
  response->headers.emplace_back("Access-Control-Allow-Origin", origin);
  response->headers.emplace_back("Vary", "Origin");
}

}  // namespace process::http
