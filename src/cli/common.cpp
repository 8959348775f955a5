#include "cli/common.hpp"

#include <glog/logging.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <memory>
#include <utility>
#include <variant>

#include "process/runtime.hpp"
#include "sched/master_address.hpp"
#include "zk/detector.hpp"

namespace mesos::cli {

namespace {

const json::Array& arrayOf(const json::Value& value) {
  static const json::Array kEmpty;
  return value.isArray() ? value.array() : kEmpty;
}

std::string stringOf(const json::Value& value) {
  return value.isString() ? value.string() : std::string();
}

// The first line of an error body, for messages.
std::string firstLine(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

std::string transportError(httplib::Error error, flags::Duration timeout) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::ConnectionTimeout:
      return "no connection within " + flags::formatDuration(timeout);
    case httplib::Error::Read:
      return "no answer within " + flags::formatDuration(timeout);
    default:
      return httplib::to_string(error);
  }
}

// Who leads, asked of the master at `address`: itself when its
// master/elected metric says so, else the leader its /state names.
Result<process::Address> askMaster(const process::Address& address, flags::Duration timeout) {
  const std::string where = "the master at " + address.toString();
  auto metrics = httpGet(address, "/metrics/snapshot", timeout);
  if (!metrics) {
    return Error{"cannot reach " + where + " (" + metrics.error().message +
                 "); check the address and that mesos-master runs there"};
  }
  if (metrics->status != 200) {
    return Error{where + " answered /metrics/snapshot with HTTP " +
                 std::to_string(metrics->status) + "; is it a Mesos master?"};
  }
  auto parsed = json::parse(metrics->body);
  if (!parsed || !(*parsed)["master/elected"].isNumber()) {
    return Error{where + " has no master/elected metric; is it a Mesos master?"};
  }
  if ((*parsed)["master/elected"].number() == 1) return address;

  auto state = getJson(address, "/master/state", timeout, "the master");
  if (!state) return state.error();
  const std::string leader = stringOf((*state)["leader"]);
  if (leader.empty()) {
    return Error{where + " is a standby that knows no leading master yet; try again, or give "
                 "the masters' zk:// URL"};
  }
  auto pid = process::UPID::parse(leader);
  if (!pid) return Error{where + " names a leader that is not a pid: " + pid.error().message};
  return pid->address;
}

// The leader of the masters' group at `url`, through a ZooKeeper session of
// a runtime of our own.
Result<process::Address> askZooKeeper(const internal::zk::Url& url, flags::Duration timeout) {
  process::Runtime::Options options;
  options.workers = 1;
  auto runtime = process::Runtime::create(options);
  if (!runtime) return Error{"cannot start a ZooKeeper client: " + runtime.error().message};
  std::optional<MasterInfo> leader;
  {
    auto detector = internal::zk::MasterDetector::zookeeper(**runtime, url);
    auto detected = detector->detect(std::nullopt);
    if (!detected.await(timeout) || !detected.isReady() || !detected.get()) {
      return Error{"no leading master in " + url.toString() + " within " +
                   flags::formatDuration(timeout) +
                   " (--timeout): no master is elected, or ZooKeeper does not answer at " +
                   url.servers};
    }
    leader = detected.get();
  }
  auto pid = internal::zk::masterPid(*leader);
  if (!pid) {
    return Error{"the leading master in " + url.toString() + " has no usable pid: " +
                 pid.error().message};
  }
  return pid->address;
}

// Decodes the JSON string that starts at text[*at] (its opening quote) as
// bytes: \u0000 to \u00ff are one byte each, since a slave writes the
// bytes of a file that are not UTF-8 that way (a JSON parser would make
// two bytes of each).
Result<std::string> decodeBytes(const std::string& text, size_t at) {
  std::string out;
  auto hex = [&](size_t from, uint32_t* value) {
    if (from + 4 > text.size()) return false;
    *value = 0;
    for (size_t i = from; i < from + 4; ++i) {
      char c = text[i];
      uint32_t digit;
      if (c >= '0' && c <= '9') digit = c - '0';
      else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      else return false;
      *value = *value * 16 + digit;
    }
    return true;
  };
  for (size_t i = at + 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= text.size()) break;
    switch (text[i]) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex(i + 1, &cp)) return Error{"a bad \\u escape"};
        i += 4;
        uint32_t low;
        if (cp >= 0xd800 && cp <= 0xdbff && i + 6 < text.size() && text[i + 1] == '\\' &&
            text[i + 2] == 'u' && hex(i + 3, &low) && low >= 0xdc00 && low <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          i += 6;
        }
        if (cp < 0x100) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xc0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xe0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
          out += static_cast<char>(0xf0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        }
        break;
      }
      default: out += text[i]; break;  // \" \\ \/
    }
  }
  return Error{"an unterminated string"};
}

}  // namespace

MasterFlags::MasterFlags() {
  add(&master, "master",
      "The master: host:port, zk://host:port[,...]/path or file:///path (the leader is found)");
  add(&timeout, "timeout", "How long to wait for each answer (and for a leader in ZooKeeper)",
      std::chrono::seconds(5));
}

Result<void> MasterFlags::validate() const {
  if (!master) return Error{"missing --master (e.g. --master=127.0.0.1:5050)"};
  if (timeout <= flags::Duration::zero()) {
    return Error{"--timeout must be positive (e.g. --timeout=5secs)"};
  }
  return {};
}

SandboxFileFlags::SandboxFileFlags() {
  add(&framework, "framework", "The task's framework id");
  add(&task, "task", "The task's id");
  add(&file, "file", "The file, relative to the task's sandbox", std::string("stdout"));
}

Result<void> SandboxFileFlags::validate() const {
  if (auto checked = MasterFlags::validate(); !checked) return checked;
  if (!framework) return Error{"missing --framework (the framework id mesos-ps shows)"};
  if (!task) return Error{"missing --task (the task id mesos-ps shows)"};
  if (file.empty()) return Error{"--file may not be empty (e.g. --file=stderr)"};
  return {};
}

int fail(const std::string& program, const std::string& message) {
  std::cerr << program << ": " << message << std::endl;
  return kExitFailure;
}

std::optional<int> loadFlags(flags::FlagSet& flags, const std::string& program,
                             const std::string& synopsis, const std::string& description,
                             int argc, const char* const* argv,
                             std::vector<std::string>* positional) {
  auto extra = flags.load("MESOS_", argc, argv);
  if (!extra) return fail(program, extra.error().message + " (see --help)");
  if (flags.help()) {
    // The flag parser's list (after a blank line) without its own "Usage:" line.
    std::string list = flags.usage(program);
    list = list.substr(list.find('\n') + 1);
    std::cout << "Usage: " << synopsis << "\n\n" << description << list;
    return kExitSuccess;
  }
  if (positional != nullptr) {
    *positional = std::move(extra).value();
  } else if (!extra->empty()) {
    return fail(program, "unexpected argument '" + extra->front() +
                             "' (flags look like --name=value; see --help)");
  }
  return std::nullopt;
}

void quietLogging(const char* argv0) {
  google::InitGoogleLogging(argv0);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_ERROR;
}

namespace {

std::pair<time_t, time_t> secondsAndMicros(flags::Duration duration) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(duration);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(duration - seconds);
  return {static_cast<time_t>(seconds.count()), static_cast<time_t>(micros.count())};
}

// A client of `address`, each step bounded by `timeout`. With
// LIBPROCESS_SSL_ENABLED the masters and slaves speak HTTPS: so do we,
// presenting the certificate they may require and checking theirs as the
// runtime does (docs/security.md, "TLS").
Result<std::unique_ptr<httplib::Client>> client(const process::Address& address,
                                                flags::Duration timeout) {
  static const Result<process::TlsOptions> tls = process::TlsOptions::fromEnvironment();
  if (!tls) return Error{tls.error().message};
  std::string scheme = tls->enabled ? "https://" : "http://";
  auto out = std::make_unique<httplib::Client>(scheme + address.toString(), tls->certFile,
                                               tls->keyFile);
  if (tls->enabled) {
    out->enable_server_certificate_verification(tls->verifyServerCert);
    if (!tls->caFile.empty() || !tls->caDir.empty()) {
      out->set_ca_cert_path(tls->caFile, tls->caDir);
    }
  }
  auto [seconds, micros] = secondsAndMicros(timeout);
  out->set_connection_timeout(seconds, micros);
  out->set_read_timeout(seconds, micros);
  out->set_write_timeout(seconds, micros);
  return out;
}

}  // namespace

Result<HttpAnswer> httpGet(const process::Address& address, const std::string& target,
                           flags::Duration timeout) {
  auto made = client(address, timeout);
  if (!made) return made.error();
  auto response = (*made)->Get(target);
  if (!response) return Error{transportError(response.error(), timeout)};
  return HttpAnswer{response->status, response->body, response->get_header_value("Location")};
}

Result<HttpAnswer> httpPostStream(const process::Address& address, const std::string& target,
                                  const std::string& body, flags::Duration timeout,
                                  flags::Duration silence,
                                  const std::function<bool(std::string_view)>& onData) {
  auto made = client(address, timeout);
  if (!made) return made.error();
  auto [seconds, micros] = secondsAndMicros(std::max(timeout, silence));
  (*made)->set_read_timeout(seconds, micros);
  HttpAnswer answer;
  bool stopped = false;  // by onData
  httplib::Request request;
  request.method = "POST";
  request.path = target;
  request.headers = {{"Accept", "application/json"}};
  request.body = body;
  request.set_header("Content-Type", "application/json");
  request.response_handler = [&](const httplib::Response& response) {
    answer.status = response.status;
    answer.location = response.get_header_value("Location");
    return true;
  };
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    if (answer.status != 200) {
      if (answer.body.size() < 4096) answer.body.append(data, length);
      return true;
    }
    stopped = !onData(std::string_view(data, length));
    return !stopped;
  };
  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  bool sent = (*made)->send(request, response, error);
  if (stopped) return answer;
  if (!sent) {
    if (error == httplib::Error::Read && answer.status == 200) {
      return Error{"nothing for " + flags::formatDuration(std::max(timeout, silence))};
    }
    return Error{transportError(error, timeout)};
  }
  if (answer.status == 0) answer.status = response.status;
  return answer;
}

Result<json::Value> getJson(const process::Address& address, const std::string& target,
                            flags::Duration timeout, const std::string& what) {
  auto answer = httpGet(address, target, timeout);
  if (!answer) {
    return Error{"cannot reach " + what + " at " + address.toString() + " (" +
                 answer.error().message + ")"};
  }
  const std::string path = target.substr(0, target.find('?'));
  if (answer->status != 200) {
    return Error{what + " at " + address.toString() + " answered " + path + " with HTTP " +
                 std::to_string(answer->status) +
                 (answer->body.empty() ? "" : ": " + firstLine(answer->body))};
  }
  auto parsed = json::parse(answer->body);
  if (!parsed) {
    return Error{what + " at " + address.toString() + " answered " + path +
                 " with something that is not JSON (" + parsed.error().message + ")"};
  }
  return std::move(parsed).value();
}

std::string percentEncode(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0f];
    }
  }
  return out;
}

Result<process::Address> leadingMaster(const std::string& master, flags::Duration timeout) {
  auto source = internal::zk::masterSource(master);
  if (!source) return Error{"bad master '" + master + "': " + source.error().message};
  if (const auto* url = std::get_if<internal::zk::Url>(&*source)) {
    return askZooKeeper(*url, timeout);
  }
  auto pid = internal::parseMasterAddress(std::get<std::string>(*source));
  if (!pid) return pid.error();
  return askMaster(pid->address, timeout);
}

Result<TaskSandbox> locateTask(const process::Address& master, const std::string& frameworkId,
                               const std::string& taskId, flags::Duration timeout) {
  auto state = getJson(master, "/master/state", timeout, "the master");
  if (!state) return state.error();

  const json::Value* framework = nullptr;
  for (const char* list : {"frameworks", "completed_frameworks"}) {
    for (const json::Value& candidate : arrayOf((*state)[list])) {
      if (stringOf(candidate["id"]) == frameworkId) framework = &candidate;
    }
    if (framework != nullptr) break;
  }
  if (framework == nullptr) {
    return Error{"the master at " + master.toString() + " knows no framework '" + frameworkId +
                 "' (mesos-ps --all lists frameworks and tasks by id)"};
  }
  const json::Value* task = nullptr;
  for (const char* list : {"tasks", "completed_tasks"}) {
    for (const json::Value& candidate : arrayOf((*framework)[list])) {
      if (stringOf(candidate["id"]) == taskId) task = &candidate;
    }
    if (task != nullptr) break;
  }
  if (task == nullptr) {
    return Error{"framework " + frameworkId + " has no task '" + taskId +
                 "' that the master knows (mesos-ps --all --framework=" + frameworkId +
                 " lists its tasks)"};
  }

  TaskSandbox sandbox;
  sandbox.frameworkId = frameworkId;
  sandbox.taskId = taskId;
  sandbox.state = stringOf((*task)["state"]);
  sandbox.slaveId = stringOf((*task)["slave_id"]);
  for (const json::Value& slave : arrayOf((*state)["slaves"])) {
    if (stringOf(slave["id"]) != sandbox.slaveId) continue;
    auto pid = process::UPID::parse(stringOf(slave["pid"]));
    if (!pid) return Error{"slave " + sandbox.slaveId + " has a bad pid: " + pid.error().message};
    sandbox.slave = *pid;
    sandbox.slaveHost = stringOf(slave["hostname"]);
  }
  if (!sandbox.slave) {
    return Error{"task " + taskId + " ran on slave " + sandbox.slaveId +
                 ", which the master no longer knows; its sandbox cannot be reached"};
  }

  // A command task has no executor of its own in the master's eyes; on the
  // slave its executor's id is the task's.
  std::string executorId = stringOf((*task)["executor_id"]);
  if (executorId.empty()) executorId = taskId;
  const std::string slaveName = "slave " + sandbox.slaveId;
  auto slaveState =
      getJson(sandbox.slave.address, "/" + sandbox.slave.id + "/state", timeout, slaveName);
  if (!slaveState) return slaveState.error();
  for (const char* frameworks : {"frameworks", "completed_frameworks"}) {
    for (const json::Value& f : arrayOf((*slaveState)[frameworks])) {
      if (stringOf(f["id"]) != frameworkId) continue;
      for (const char* executors : {"executors", "completed_executors"}) {
        for (const json::Value& executor : arrayOf(f[executors])) {
          if (stringOf(executor["id"]) == executorId) {
            sandbox.directory = stringOf(executor["directory"]);
          }
        }
      }
    }
  }
  if (sandbox.directory.empty()) {
    return Error{slaveName + " (" + sandbox.slaveHost + ") has no sandbox of task " + taskId +
                 ": its executor '" + executorId +
                 "' is not in the slave's /state (the task has not reached the slave yet, or "
                 "the slave has forgotten it)"};
  }
  return sandbox;
}

Result<std::string> taskState(const process::Address& master, const std::string& frameworkId,
                              const std::string& taskId, flags::Duration timeout) {
  auto tasks = getJson(master,
                       "/master/tasks?framework_id=" + percentEncode(frameworkId) +
                           "&task_id=" + percentEncode(taskId) + "&limit=1",
                       timeout, "the master");
  if (!tasks) return tasks.error();
  const json::Array& list = arrayOf((*tasks)["tasks"]);
  if (list.empty()) {
    return Error{"the master no longer knows task " + taskId + " of framework " + frameworkId};
  }
  return stringOf(list.front()["state"]);
}

bool isTerminal(const std::string& state) {
  return state == "TASK_FINISHED" || state == "TASK_FAILED" || state == "TASK_KILLED" ||
         state == "TASK_LOST" || state == "TASK_ERROR" || state == "TASK_DROPPED" ||
         state == "TASK_GONE" || state == "TASK_GONE_BY_OPERATOR";
}

Result<std::string> SandboxFile::get(const std::string& query, int64_t* offset) const {
  const std::string where = "slave " + slave_.address.toString();
  auto answer =
      httpGet(slave_.address, "/files/read?path=" + percentEncode(path_) + query, timeout_);
  if (!answer) {
    return Error{"cannot reach " + where + " (" + answer.error().message + ") to read " + path_};
  }
  if (answer->status == 404) {
    return Error{"no file '" + name_ + "' in the task's sandbox (" + path_ + " on " + where + ")"};
  }
  if (answer->status != 200) {
    return Error{where + " refused to read " + path_ + ": HTTP " +
                 std::to_string(answer->status) +
                 (answer->body.empty() ? "" : ": " + firstLine(answer->body))};
  }
  auto parsed = json::parse(answer->body);
  size_t data = answer->body.find("\"data\"");
  if (data != std::string::npos) data = answer->body.find('"', answer->body.find(':', data));
  if (!parsed || !(*parsed)["offset"].isNumber() || !(*parsed)["data"].isString() ||
      data == std::string::npos) {
    return Error{where + " answered /files/read with something that is not {\"data\", "
                 "\"offset\"}"};
  }
  *offset = (*parsed)["offset"].integer();
  auto bytes = decodeBytes(answer->body, data);
  if (!bytes) return Error{where + " answered /files/read with " + bytes.error().message};
  return std::move(bytes).value();
}

Result<int64_t> SandboxFile::size() const {
  int64_t offset = 0;
  auto data = get("", &offset);
  if (!data) return data.error();
  return offset;
}

Result<std::string> SandboxFile::read(int64_t offset, int64_t length, int64_t* at) const {
  int64_t answered = 0;
  auto data = get("&offset=" + std::to_string(offset) +
                      "&length=" + std::to_string(std::min(length, kMaxRead)),
                  &answered);
  if (at != nullptr) *at = answered;
  return data;
}

Result<OpenedFile> openSandboxFile(const SandboxFileFlags& flags) {
  auto master = leadingMaster(*flags.master, flags.timeout);
  if (!master) return master.error();
  auto sandbox = locateTask(*master, *flags.framework, *flags.task, flags.timeout);
  if (!sandbox) return sandbox.error();
  SandboxFile file(sandbox->slave, sandbox->directory + "/" + flags.file, flags.file,
                   flags.timeout);
  auto size = file.size();
  if (!size) return size.error();
  return OpenedFile{*master, *sandbox, file, *size};
}

bool writeOut(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(STDOUT_FILENO, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace mesos::cli
