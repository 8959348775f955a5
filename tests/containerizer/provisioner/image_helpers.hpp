// Helpers of the image tests: a scratch directory, running programs, a
// tiny tar writer for hand-made layers, a docker-registry process on
// loopback, and a test image built from busybox-static with umoci.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/free_port.hpp"

namespace mesos::internal::slave::provisioner::testing {

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh directory under $TMPDIR (or /tmp), removed with what it holds.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/mesos-images-XXXXXX";
    path_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Ran {
  int status = -1;  // exit status, or -1 when it did not exit
  std::string out;
  std::string err;
};

// Runs `argv` with stdout and stderr kept apart (through files in `scratch`).
inline Ran run(const std::vector<std::string>& argv, const std::string& scratch) {
  std::string outPath = scratch + "/.out", errPath = scratch + "/.err";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Ran ran;
  ran.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  ran.out = readText(outPath);
  ran.err = readText(errPath);
  return ran;
}

// Whether `program` is on the PATH (or is an existing absolute path).
inline bool haveProgram(const std::string& program) {
  if (!program.empty() && program[0] == '/') return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// One entry of a hand-made tar: type '0' file, '2' symlink, '1' hard link,
// '5' directory, '3' character device.
struct TarEntry {
  TarEntry(std::string name, char type = '0', std::string data = "", std::string link = "",
           int mode = 0644)
      : name(std::move(name)),
        type(type),
        data(std::move(data)),
        link(std::move(link)),
        mode(mode) {}

  std::string name;
  char type = '0';
  std::string data;  // a file's contents
  std::string link;  // a link's target
  int mode = 0644;
};

// A POSIX ustar archive of `entries` (names up to 100 bytes).
inline std::string tarOf(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const TarEntry& entry : entries) {
    char header[512] = {0};
    std::snprintf(header, 100, "%s", entry.name.c_str());
    std::snprintf(header + 100, 8, "%07o", entry.mode);
    std::snprintf(header + 108, 8, "%07o", 0);
    std::snprintf(header + 116, 8, "%07o", 0);
    std::snprintf(header + 124, 12, "%011o", static_cast<unsigned>(entry.data.size()));
    std::snprintf(header + 136, 12, "%011o", 1700000000u);
    header[156] = entry.type;
    std::snprintf(header + 157, 100, "%s", entry.link.c_str());
    std::memcpy(header + 257, "ustar", 6);
    std::memcpy(header + 263, "00", 2);
    std::snprintf(header + 329, 8, "%07o", 0);
    std::snprintf(header + 337, 8, "%07o", 0);
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    std::snprintf(header + 148, 8, "%06o", sum);
    header[155] = ' ';
    out.append(header, 512);
    out += entry.data;
    out.append((512 - entry.data.size() % 512) % 512, '\0');
  }
  out.append(1024, '\0');
  return out;
}

// The mount points of this process's mount namespace at or below `dir`,
// deepest last.
inline std::vector<std::string> mountsBelow(const std::string& dir) {
  std::vector<std::string> found;
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (point == dir || point.rfind(dir + "/", 0) == 0) found.push_back(point);
  }
  return found;
}

// Detaches what a failed test left mounted at or below `dir` (deepest
// first), so that removing `dir` does not go through a mount.
inline void unmountBelow(const std::string& dir) {
  std::vector<std::string> mounts = mountsBelow(dir);
  for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) ::umount2(it->c_str(), MNT_DETACH);
}

// Docker's registry (Debian's docker-registry) serving a directory on a
// loopback port, for as long as this object lives.
class Registry {
 public:
  static constexpr char kProgram[] = "/usr/bin/docker-registry";

  // Starts it; the failure (if any) is in error().
  explicit Registry(const std::string& scratch) : storage_(scratch + "/registry") {
    std::filesystem::create_directories(storage_);
    port_ = freePort();
    std::string config = scratch + "/registry.yml";
    writeText(config,
              "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n"
              "    rootdirectory: " +
                  storage_ +
                  "\n  delete:\n    enabled: true\n"
                  "http:\n  addr: 127.0.0.1:" +
                  std::to_string(port_) + "\n");
    log_ = scratch + "/registry.log";
    pid_ = ::fork();
    if (pid_ == 0) {
      int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execl(kProgram, kProgram, "serve", config.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // A bounded wait around a real process: until its port accepts.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (accepts()) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        error_ = "docker-registry exited: " + readText(log_);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    error_ = "docker-registry did not listen within 20 s: " + readText(log_);
  }

  ~Registry() { stop(); }

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

  const std::string& error() const { return error_; }
  std::string hostPort() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string url() const { return "http://" + hostPort(); }
  const std::string& storage() const { return storage_; }
  std::string log() const { return readText(log_); }

 private:
  bool accepts() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port_);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    ::close(fd);
    return ok;
  }

  std::string storage_;
  std::string log_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string error_;
};

// The tools the registry tests need; the first one missing, or "".
inline std::string missingImageTool() {
  for (const char* tool : {Registry::kProgram, "/bin/busybox", "umoci", "skopeo"}) {
    if (!haveProgram(tool)) return tool;
  }
  return "";
}

// An OCI layout at <scratch>/oci holding two images built from busybox:
//   base:   one layer: /bin/busybox and links to it, /etc/os-release naming
//           the test image, /etc/removed
//   latest: base plus a layer that deletes /etc/removed (a whiteout), with
//           entrypoint, cmd, env, user and working directory set.
// Returns "" or what failed.
inline std::string buildTestImages(const std::string& scratch) {
  std::string layout = scratch + "/oci";
  auto step = [&](const std::vector<std::string>& argv) -> std::string {
    Ran ran = run(argv, scratch);
    if (ran.status == 0) return "";
    std::string command;
    for (const std::string& arg : argv) command += arg + " ";
    return command + "failed: " + ran.err + ran.out;
  };
  auto unpack = [&](const std::string& tag, const std::string& bundle) {
    std::vector<std::string> argv = {"umoci", "unpack", "--image", layout + ":" + tag, bundle};
    if (::geteuid() != 0) argv.insert(argv.begin() + 2, "--rootless");
    return step(argv);
  };
  std::string failure;
  if (!(failure = step({"umoci", "init", "--layout", layout})).empty()) return failure;
  if (!(failure = step({"umoci", "new", "--image", layout + ":empty"})).empty()) return failure;
  std::string first = scratch + "/bundle1";
  if (!(failure = unpack("empty", first)).empty()) {
    return failure;
  }
  std::string rootfs = first + "/rootfs";
  std::filesystem::create_directories(rootfs + "/bin");
  std::filesystem::copy_file("/bin/busybox", rootfs + "/bin/busybox");
  for (const char* tool : {"sh", "cat", "ls", "echo", "id"}) {
    std::filesystem::create_symlink("busybox", rootfs + "/bin/" + tool);
  }
  writeText(rootfs + "/etc/os-release", "NAME=\"mesos test image\"\nID=mesos-test\n");
  writeText(rootfs + "/etc/removed", "deleted by the second layer\n");
  if (!(failure = step({"umoci", "repack", "--image", layout + ":base", first})).empty()) {
    return failure;
  }
  std::string second = scratch + "/bundle2";
  if (!(failure = unpack("base", second)).empty()) {
    return failure;
  }
  std::filesystem::remove(second + "/rootfs/etc/removed");
  if (!(failure = step({"umoci", "repack", "--image", layout + ":latest", second})).empty()) {
    return failure;
  }
  return step({"umoci", "config", "--image", layout + ":latest", "--config.entrypoint=/bin/sh",
               "--config.cmd=-c", "--config.cmd=cat /etc/os-release", "--config.env=GREETING=hi",
               "--config.user=1000:1000", "--config.workingdir=/tmp"});
}

// Copies the layout's `tag` to `destination` (a skopeo transport: docker://,
// docker-archive:, ...). Returns "" or what failed.
inline std::string copyImage(const std::string& scratch, const std::string& tag,
                             const std::string& destination) {
  Ran ran = run({"skopeo", "--insecure-policy", "copy", "--dest-tls-verify=false",
                 "oci:" + scratch + "/oci:" + tag, destination},
                scratch);
  if (ran.status == 0) return "";
  return "skopeo copy to " + destination + " failed: " + ran.err + ran.out;
}

}  // namespace mesos::internal::slave::provisioner::testing
