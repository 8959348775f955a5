#include "slave/fetcher_plan.hpp"

#include <cctype>
#include <cstdio>

#include "common/json.hpp"
#include "common/strings.hpp"

namespace mesos::internal::slave {

namespace {

// "http" for "http://x/y"; nullopt when the text has no "scheme://" prefix.
std::optional<std::string> schemeOf(const std::string& text) {
  size_t colon = text.find("://");
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  if (!std::isalpha(static_cast<unsigned char>(text[0]))) return std::nullopt;
  for (size_t i = 1; i < colon; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return std::nullopt;
  }
  std::string scheme = text.substr(0, colon);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme;
}

// The path part of "scheme://authority/path?query#fragment" ("" when none).
std::string pathOf(const std::string& uri) {
  size_t start = uri.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t slash = uri.find('/', start);
  if (slash == std::string::npos) return "";
  size_t end = uri.find_first_of("?#", slash);
  return uri.substr(slash, end == std::string::npos ? std::string::npos : end - slash);
}

Result<std::string> getString(const json::Value& object, const std::string& field, bool required) {
  const json::Value& value = object[field];
  if (value.isNull()) {
    if (required) return Error{"fetch plan: '" + field + "' is missing"};
    return std::string();
  }
  if (!value.isString()) return Error{"fetch plan: '" + field + "' is not a string"};
  return value.string();
}

Result<std::optional<bool>> getBool(const json::Value& object, const std::string& field) {
  const json::Value& value = object[field];
  if (value.isNull()) return std::optional<bool>();
  if (!value.isBool()) return Error{"fetch plan: '" + field + "' is not a boolean"};
  return std::optional<bool>(value.boolean());
}

}  // namespace

std::string encodePlan(const FetchPlan& plan) {
  json::Array uris;
  for (const CommandInfo::URI& uri : plan.uris) {
    // Only the fields that are set: an unset `extract` means its default.
    json::Object entry{{"value", uri.value()}};
    if (uri.has_executable()) entry["executable"] = uri.executable();
    if (uri.has_extract()) entry["extract"] = uri.extract();
    if (uri.has_cache()) entry["cache"] = uri.cache();
    if (uri.has_output_file()) entry["output_file"] = uri.output_file();
    uris.push_back(std::move(entry));
  }
  json::Object object{{"uris", std::move(uris)},
                      {"sandbox", plan.sandbox},
                      {"user", plan.user},
                      {"cache_directory", plan.cacheDirectory},
                      {"cache_size", plan.cacheSize}};
  if (!plan.runAs.empty()) object["run_as"] = plan.runAs;
  if (plan.frameworksHome) object["frameworks_home"] = *plan.frameworksHome;
  if (plan.hadoopHome) object["hadoop_home"] = *plan.hadoopHome;
  return json::stringify(object);
}

Result<FetchPlan> decodePlan(std::string_view text) {
  auto parsed = json::parse(text);
  if (!parsed) return Error{"fetch plan: " + parsed.error().message};
  const json::Value& object = *parsed;
  if (!object.isObject()) return Error{"fetch plan: not a JSON object"};

  FetchPlan plan;
  auto sandbox = getString(object, "sandbox", true);
  if (!sandbox) return sandbox.error();
  plan.sandbox = *sandbox;
  auto user = getString(object, "user", false);
  if (!user) return user.error();
  plan.user = *user;
  auto runAs = getString(object, "run_as", false);
  if (!runAs) return runAs.error();
  plan.runAs = *runAs;
  auto cacheDirectory = getString(object, "cache_directory", false);
  if (!cacheDirectory) return cacheDirectory.error();
  plan.cacheDirectory = *cacheDirectory;
  const json::Value& cacheSize = object["cache_size"];
  if (!cacheSize.isNull()) {
    if (!cacheSize.isInteger() || cacheSize.integer() < 0) {
      return Error{"fetch plan: 'cache_size' is not a byte count"};
    }
    plan.cacheSize = static_cast<uint64_t>(cacheSize.integer());
  }
  for (const char* field : {"frameworks_home", "hadoop_home"}) {
    if (object[field].isNull()) continue;
    auto value = getString(object, field, true);
    if (!value) return value.error();
    (std::string(field) == "frameworks_home" ? plan.frameworksHome : plan.hadoopHome) = *value;
  }

  const json::Value& uris = object["uris"];
  if (!uris.isNull() && !uris.isArray()) return Error{"fetch plan: 'uris' is not an array"};
  if (uris.isArray()) {
    for (const json::Value& entry : uris.array()) {
      if (!entry.isObject()) return Error{"fetch plan: a URI is not an object"};
      CommandInfo::URI uri;
      auto value = getString(entry, "value", true);
      if (!value) return value.error();
      uri.set_value(*value);
      for (const char* field : {"executable", "extract", "cache"}) {
        auto flag = getBool(entry, field);
        if (!flag) return flag.error();
        if (!flag->has_value()) continue;
        std::string name = field;
        if (name == "executable") uri.set_executable(**flag);
        if (name == "extract") uri.set_extract(**flag);
        if (name == "cache") uri.set_cache(**flag);
      }
      if (!entry["output_file"].isNull()) {
        auto output = getString(entry, "output_file", true);
        if (!output) return output.error();
        uri.set_output_file(*output);
      }
      plan.uris.push_back(std::move(uri));
    }
  }
  return plan;
}

Result<std::string> containedPath(const std::string& path) {
  if (path.empty()) return Error{"the path is empty"};
  if (path.find('\0') != std::string::npos) return Error{"the path holds a NUL character"};
  if (path[0] == '/')
    return Error{"'" + path + "' is absolute; it must be relative to the sandbox"};
  std::string normalized;
  for (const std::string& part : strings::split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return Error{"'" + path + "' climbs out with '..'"};
    if (!normalized.empty()) normalized += '/';
    normalized += part;
  }
  if (normalized.empty()) return Error{"'" + path + "' names the sandbox itself, not a file in it"};
  return normalized;
}

Result<FetchSource> resolveSource(const CommandInfo::URI& uri, const FetchPlan& plan) {
  const std::string& value = uri.value();
  if (value.empty()) return Error{"the URI is empty"};
  if (value.find('\0') != std::string::npos) return Error{"the URI holds a NUL character"};
  if (value[0] == '/') return FetchSource{FetchSource::Kind::kLocal, value};

  std::optional<std::string> scheme = schemeOf(value);
  if (!scheme) {
    // A relative path: only below --frameworks_home.
    if (!plan.frameworksHome || plan.frameworksHome->empty()) {
      return Error{"'" + value +
                   "' is a relative path, and the slave has no --frameworks_home to find it in"};
    }
    auto inside = containedPath(value);
    if (!inside) return Error{"relative URI: " + inside.error().message};
    std::string home = *plan.frameworksHome;
    while (home.size() > 1 && home.back() == '/') home.pop_back();
    return FetchSource{FetchSource::Kind::kLocal, home + "/" + *inside};
  }
  if (*scheme == "file") {
    std::string rest = value.substr(7);
    if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
    if (rest.empty() || rest[0] != '/') {
      return Error{"file URI '" + value + "' names a host; only file:///path (this machine) works"};
    }
    return FetchSource{FetchSource::Kind::kLocal, rest};
  }
  if (*scheme == "http" || *scheme == "https") return FetchSource{FetchSource::Kind::kHttp, value};
  if (plan.hadoopHome && !plan.hadoopHome->empty()) {
    return FetchSource{FetchSource::Kind::kHadoop, value};
  }
  return Error{"unsupported URI scheme '" + *scheme +
               "' (the fetcher takes local paths, file://, http:// and https://; other schemes "
               "need the slave's --hadoop_home)"};
}

Result<std::string> outputPath(const CommandInfo::URI& uri) {
  if (uri.has_output_file()) {
    auto inside = containedPath(uri.output_file());
    if (!inside) return Error{"output_file " + inside.error().message};
    return *inside;
  }
  const std::string& value = uri.value();
  std::string path = schemeOf(value) ? pathOf(value) : value;
  std::string name = path.substr(path.rfind('/') + 1);
  if (name.empty() || name == "." || name == "..") {
    return Error{"no file name can be taken from '" + value + "' (set output_file)"};
  }
  return name;
}

ArchiveKind archiveKind(const std::string& fileName) {
  auto endsWith = [&](std::string_view suffix) {
    if (fileName.size() <= suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i) {
      char c = fileName[fileName.size() - suffix.size() + i];
      if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
    }
    return true;
  };
  for (std::string_view suffix :
       {".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz"}) {
    if (endsWith(suffix)) return ArchiveKind::kTar;
  }
  if (endsWith(".zip")) return ArchiveKind::kZip;
  if (endsWith(".gz")) return ArchiveKind::kGzip;
  return ArchiveKind::kNone;
}

std::string cacheKey(const std::string& user, const std::string& uri) {
  // A user name holds no newline, so the pair reads back unambiguously.
  return user + "\n" + uri;
}

}  // namespace mesos::internal::slave
