#include "slave/fetcher_download.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "slave/fetcher_io.hpp"

extern char** environ;

namespace mesos::internal::slave::fetcher {

namespace {

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

Result<uint64_t> copyLocal(const std::string& path, int fd, const std::string& destination) {
  UniqueFd source(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (source.get() < 0) return systemError("cannot open '" + path + "'", errno);
  struct stat stats {};
  if (::fstat(source.get(), &stats) != 0) return systemError("cannot read '" + path + "'", errno);
  if (S_ISDIR(stats.st_mode)) return Error{"'" + path + "' is a directory, not a file"};
  if (!S_ISREG(stats.st_mode)) return Error{"'" + path + "' is not a regular file"};
  return copyContents(source.get(), fd, destination);
}

// One HTTP transfer's state, shared with libcurl's callbacks.
struct Transfer {
  int fd = -1;
  std::string destination;
  std::string url;
  long status = 0;
  std::string statusLine;  // of the last response (redirects come first)
  uint64_t received = 0;
  std::optional<Error> error;  // why a callback stopped the transfer
  std::chrono::steady_clock::time_point lastReport = std::chrono::steady_clock::now();
};

bool successful(long status) { return status >= 200 && status < 300; }

size_t onHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    size_t space = line.find(' ');
    transfer->statusLine = space == std::string::npos ? line : line.substr(space + 1);
    transfer->status = std::strtol(transfer->statusLine.c_str(), nullptr, 10);
    return size * count;
  }
  std::string lower = line;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (successful(transfer->status) && lower.rfind("content-length:", 0) == 0) {
    uint64_t length = std::strtoull(line.c_str() + 15, nullptr, 10);
    auto available = availableBytes(transfer->fd);
    if (!available) {
      transfer->error = available.error();
      return 0;
    }
    if (length > *available) {
      transfer->error =
          Error{"it is " + std::to_string(length) + " bytes and the file system of '" +
                transfer->destination + "' has " + std::to_string(*available) + " free"};
      return 0;
    }
  }
  return size * count;
}

size_t onData(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t bytes = size * count;
  // An error page's body is not the file: it is not written.
  if (!successful(transfer->status)) return bytes;
  if (auto written = writeChecked(transfer->fd, data, bytes, transfer->destination); !written) {
    transfer->error = written.error();
    return 0;
  }
  transfer->received += bytes;
  return bytes;
}

int onProgress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  auto clock = std::chrono::steady_clock::now();
  if (clock - transfer->lastReport < std::chrono::seconds(1) || now <= 0) return 0;
  transfer->lastReport = clock;
  if (total > 0) {
    std::fprintf(stderr, "mesos-fetcher: '%s': %s of %s (%d%%)\n", transfer->url.c_str(),
                 humanBytes(static_cast<uint64_t>(now)).c_str(),
                 humanBytes(static_cast<uint64_t>(total)).c_str(),
                 static_cast<int>(now * 100 / total));
  } else {
    std::fprintf(stderr, "mesos-fetcher: '%s': %s\n", transfer->url.c_str(),
                 humanBytes(static_cast<uint64_t>(now)).c_str());
  }
  return 0;
}

Result<uint64_t> downloadHttp(const std::string& url, int fd, const std::string& destination) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Error{"cannot start libcurl"};
  Transfer transfer;
  transfer.fd = fd;
  transfer.destination = destination;
  transfer.url = url;
  char message[CURL_ERROR_SIZE] = {0};
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "mesos-fetcher");
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, onData);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, onProgress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);

  CURLcode code = curl_easy_perform(handle);
  if (transfer.error) return *transfer.error;
  if (code != CURLE_OK) {
    return Error{message[0] != '\0' ? std::string(message) : curl_easy_strerror(code)};
  }
  if (!successful(transfer.status)) {
    return Error{"the server answered " + (transfer.statusLine.empty()
                                               ? std::to_string(transfer.status)
                                               : transfer.statusLine)};
  }
  return transfer.received;
}

// `hadoop fs -cat URI`, its output written into `fd`.
Result<uint64_t> downloadHadoop(const std::string& uri, int fd, const std::string& destination,
                                const std::string& hadoopHome) {
  std::string program = hadoopHome + "/bin/hadoop";
  int pipes[2];
  if (::pipe2(pipes, O_CLOEXEC) != 0) return systemError("cannot make a pipe", errno);
  UniqueFd readEnd(pipes[0]);
  UniqueFd writeEnd(pipes[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, writeEnd.get(), STDOUT_FILENO);
  std::vector<std::string> args = {program, "fs", "-cat", uri};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return systemError("cannot run '" + program + "'", error);
  writeEnd.reset();

  std::optional<Error> failure;
  uint64_t total = 0;
  std::vector<char> buffer(1 << 16);
  for (;;) {
    ssize_t n = ::read(readEnd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failure = systemError("cannot read from hadoop", errno);
      break;
    }
    if (n == 0) break;
    if (auto written = writeChecked(fd, buffer.data(), static_cast<size_t>(n), destination);
        !written) {
      failure = written.error();
      break;
    }
    total += static_cast<uint64_t>(n);
  }
  if (failure) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (failure) return *failure;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error{"'" + program + " fs -cat' " +
                 (WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                    : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                 " (its messages are in the sandbox's stderr)"};
  }
  return total;
}

}  // namespace

void initializeDownloads() { curl_global_init(CURL_GLOBAL_DEFAULT); }

Result<uint64_t> download(const FetchSource& source, int fd, const std::string& destination,
                          const std::string& hadoopHome) {
  switch (source.kind) {
    case FetchSource::Kind::kLocal:
      return copyLocal(source.location, fd, destination);
    case FetchSource::Kind::kHttp:
      return downloadHttp(source.location, fd, destination);
    case FetchSource::Kind::kHadoop:
      return downloadHadoop(source.location, fd, destination, hadoopHome);
  }
  return Error{"unknown source"};
}

}  // namespace mesos::internal::slave::fetcher
