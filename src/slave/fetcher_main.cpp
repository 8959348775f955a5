// mesos-fetcher: fetches a task's URIs into its sandbox, for the slave
// (fetcher.hpp starts it; docs/fetcher.md tells what it does):
//
//   mesos-fetcher [--status_fd=N] < PLAN
//
// PLAN is the fetch plan as JSON (fetcher_plan.hpp encodePlan()). The URIs
// are fetched in order; the first failure stops it. Progress and failures
// are written to stderr (the sandbox's stderr when the slave runs it).
// With --status_fd, the open file N (the slave's) holds, while a URI is
// fetched, "uri:" and that URI, and after a failure "error:" and the one
// line that says which URI failed and why ("Failed to fetch 'URI': cause").
// When the plan names a user to run as ("run_as"), everything but the use
// of the cache is done with that user's rights (fetcher_identity.hpp).
// Exits 0 when every URI is in place, 1 after a failure, 2 on bad usage.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "slave/fetcher_archive.hpp"
#include "slave/fetcher_cache.hpp"
#include "slave/fetcher_download.hpp"
#include "slave/fetcher_identity.hpp"
#include "slave/fetcher_io.hpp"
#include "slave/fetcher_plan.hpp"

namespace mesos::internal::slave::fetcher {
namespace {

// What the slave reads back after the helper ends (see the top comment).
class StatusChannel {
 public:
  explicit StatusChannel(int fd) : fd_(fd) {}

  void set(const std::string& text) const {
    if (fd_ < 0) return;
    if (::ftruncate(fd_, 0) != 0) return;
    ssize_t n = ::pwrite(fd_, text.data(), text.size(), 0);
    (void)n;
  }

 private:
  int fd_;
};

class Helper {
 public:
  explicit Helper(FetchPlan plan) : plan_(std::move(plan)) {}

  // Fetches every URI; the error is the first failure's whole message.
  Result<void> run(const StatusChannel& status) {
    if (!plan_.runAs.empty()) {
      auto identity = Identity::of(plan_.runAs);
      if (!identity) return Error{"Failed to fetch: " + identity.error().message};
      identity_ = std::move(identity).value();
      if (auto user = identity_.asUser(); !user) {
        return Error{"Failed to fetch: " + user.error().message};
      }
    }
    sandbox_ = UniqueFd(::open(plan_.sandbox.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (sandbox_.get() < 0) {
      return Error{"Failed to fetch: cannot open the sandbox '" + plan_.sandbox +
                   "': " + std::strerror(errno)};
    }
    for (const CommandInfo::URI& uri : plan_.uris) {
      status.set("uri:" + uri.value());
      if (auto fetched = fetch(uri); !fetched) {
        return Error{"Failed to fetch '" + uri.value() + "': " + fetched.error().message};
      }
    }
    return {};
  }

 private:
  Result<void> fetch(const CommandInfo::URI& uri) {
    auto output = outputPath(uri);
    if (!output) return output.error();
    auto source = resolveSource(uri, plan_);
    if (!source) return source.error();

    size_t slash = output->rfind('/');
    std::string directory = slash == std::string::npos ? "" : output->substr(0, slash);
    std::string name = output->substr(slash + 1);
    std::string destination = plan_.sandbox + "/" + *output;
    auto dir = openDirectoryBelow(sandbox_.get(), directory, plan_.sandbox);
    if (!dir) return dir.error();
    mode_t mode = uri.executable() ? 0755 : 0644;
    std::fprintf(stderr, "mesos-fetcher: fetching '%s' into '%s'\n", uri.value().c_str(),
                 destination.c_str());

    uint64_t size = 0;
    Result<void> placed;
    if (uri.cache() && plan_.cacheSize > 0 && !plan_.cacheDirectory.empty()) {
      placed = fetchThroughCache(uri, *source, dir->get(), name, mode, destination, &size);
    } else {
      placed = replaceFileAt(dir->get(), name, mode, [&](int fd) -> Result<void> {
        auto downloaded = download(*source, fd, destination, plan_.hadoopHome.value_or(""));
        if (!downloaded) return downloaded.error();
        size = *downloaded;
        return {};
      });
    }
    if (!placed) return placed.error();
    std::fprintf(stderr, "mesos-fetcher: fetched '%s' (%s)\n", uri.value().c_str(),
                 humanBytes(size).c_str());

    // As in Apache Mesos: an executable is never extracted.
    ArchiveKind kind = archiveKind(name);
    if (!uri.executable() && uri.extract() && kind != ArchiveKind::kNone) {
      return extract(plan_.sandbox, sandbox_.get(), *output, kind);
    }
    return {};
  }

  Result<void> fetchThroughCache(const CommandInfo::URI& uri, const FetchSource& source, int dir,
                                 const std::string& name, mode_t mode,
                                 const std::string& destination, uint64_t* size) {
    // The cache is the slave's: used as root. What goes into it is read
    // with the user's rights, and what comes out is copied as the user.
    auto entry = identity_.rooted([&]() -> Result<Cache::Entry> {
      if (!cache_) {
        auto opened = Cache::open(plan_.cacheDirectory, plan_.cacheSize);
        if (!opened) return opened.error();
        cache_.emplace(std::move(opened).value());
      }
      return cache_->get(cacheKey(plan_.user, uri.value()), [&](int fd) -> Result<void> {
        return identity_.unrooted([&]() -> Result<void> {
          auto downloaded =
              download(source, fd, cache_->directory(), plan_.hadoopHome.value_or(""));
          if (!downloaded) return downloaded.error();
          return {};
        });
      });
    });
    if (!entry) return entry.error();
    if (entry->hit) {
      std::fprintf(stderr, "mesos-fetcher: '%s' is in the cache\n", uri.value().c_str());
    } else if (!entry->kept) {
      std::fprintf(stderr, "mesos-fetcher: '%s' is not kept in the cache: %s\n",
                   uri.value().c_str(), entry->note.c_str());
    }
    return replaceFileAt(dir, name, mode, [&](int fd) -> Result<void> {
      auto copied = copyContents(entry->file.get(), fd, destination);
      if (!copied) return copied.error();
      *size = *copied;
      return {};
    });
  }

  FetchPlan plan_;
  Identity identity_;  // as whom it fetches (fetcher_identity.hpp)
  UniqueFd sandbox_;
  std::optional<Cache> cache_;
};

std::optional<std::string> readAll(int fd) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

int usage(const char* problem) {
  std::fprintf(stderr,
               "mesos-fetcher: %s\n"
               "usage: mesos-fetcher [--status_fd=N] < PLAN (the fetch plan as JSON)\n",
               problem);
  return 2;
}

}  // namespace
}  // namespace mesos::internal::slave::fetcher

int main(int argc, char** argv) {
  using namespace mesos::internal::slave;
  using namespace mesos::internal::slave::fetcher;

  int statusFd = -1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help") {
      usage("fetches a task's URIs into its sandbox");
      return 0;
    }
    if (arg.rfind("--status_fd=", 0) != 0) return usage(("unknown argument '" + arg + "'").c_str());
    char* end = nullptr;
    long value = std::strtol(arg.c_str() + 12, &end, 10);
    if (end == arg.c_str() + 12 || *end != '\0' || value < 0 ||
        ::fcntl(static_cast<int>(value), F_GETFD) < 0) {
      return usage(
          ("--status_fd: '" + arg.substr(12) + "' is not an open file descriptor").c_str());
    }
    statusFd = static_cast<int>(value);
  }
  StatusChannel status(statusFd);

  auto fail = [&](const std::string& message) {
    status.set("error:" + message);
    std::fprintf(stderr, "mesos-fetcher: %s\n", message.c_str());
    return 1;
  };
  std::optional<std::string> text = readAll(STDIN_FILENO);
  if (!text)
    return fail(std::string("Failed to fetch: cannot read the plan: ") + std::strerror(errno));
  auto plan = decodePlan(*text);
  if (!plan) return fail("Failed to fetch: " + plan.error().message);

  initializeDownloads();
  Helper helper(std::move(plan).value());
  if (auto done = helper.run(status); !done) return fail(done.error().message);
  status.set("");
  return 0;
}
