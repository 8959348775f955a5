// mesos-qsub: submits a job script to the torque server, as PBS's qsub.
#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "torque/client.hpp"
#include "torque/request.hpp"

extern char** environ;

namespace {

using nlohmann::json;
using namespace mesos::frameworks::torque;

const char* const kUsage = R"(usage: mesos-qsub [options] [SCRIPT]
Submits the shell script SCRIPT (or standard input) to the torque server and
prints the job's id. Lines "#PBS <options>" at the top of the script give
options too; the command line wins.

options:
  -N NAME          the job's name (default: the script's file name, or STDIN)
  -l LIST          resources, comma-separated, may repeat:
                     nodes=N[:ppn=C]  N nodes with C cpus each (default 1:ppn=1)
                     mem=SIZE         the job's memory (b, kb, mb, gb; e.g. 512mb)
                     walltime=T       the longest it may run, HH:MM:SS (then killed)
  -o PATH          stdout: a directory (file NAME.oID there) or a file
                   (default: the current directory)
  -e PATH          stderr: likewise, NAME.eID
  -j oe            stderr into the stdout file
  -d DIR           the directory the job runs in (default: the current one)
  -v VAR[=VALUE],...  variables to give the job (from here when no VALUE)
  -V               give the job this whole environment
  -W block=true    wait for the job and exit with its exit status
  --server=HOST:PORT  the server (default: $MESOS_TORQUE_URL)
  -h, --help       this help

exit status: 0 queued (or, with -W block=true, the job's exit status),
1 the server is unreachable or refused the job, 2 a bad option or request.
)";

struct Options {
  std::string server;
  std::string name;
  std::vector<std::string> resources;
  std::string out, err, workdir;
  bool join = false;
  bool block = false;
  bool wholeEnvironment = false;
  std::vector<std::string> variables;
  std::string script;  // a path, or "" for stdin
  bool scriptGiven = false;
};

// Applies `args` (from the command line, or a #PBS line when `fromScript`)
// to `options`; an error message or "".
std::string applyOptions(const std::vector<std::string>& args, bool fromScript, Options* options) {
  auto value = [&](size_t* i) -> std::optional<std::string> {
    if (*i + 1 >= args.size()) return std::nullopt;
    return args[++*i];
  };
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    std::string flagValue;
    bool missing = false;
    if (!fromScript && takeLongFlag(args, &i, "server", &flagValue, &missing)) {
      if (missing) return "--server needs HOST:PORT";
      options->server = flagValue;
      continue;
    }
    if (arg == "-V") {
      options->wholeEnvironment = true;
      continue;
    }
    if (arg.size() == 2 && arg[0] == '-' &&
        std::string("NloejdvW").find(arg[1]) != std::string::npos) {
      std::optional<std::string> given = value(&i);
      if (!given) return arg + " needs a value (see --help)";
      switch (arg[1]) {
        case 'N':
          options->name = *given;
          break;
        case 'l':
          options->resources.push_back(*given);
          break;
        case 'o':
          options->out = *given;
          break;
        case 'e':
          options->err = *given;
          break;
        case 'j':
          if (*given != "oe" && *given != "n") return "-j " + *given + ": only -j oe and -j n";
          options->join = *given == "oe";
          break;
        case 'd':
          options->workdir = *given;
          break;
        case 'v':
          options->variables.push_back(*given);
          break;
        case 'W':
          if (*given != "block=true" && *given != "block=false") {
            return "-W " + *given + ": only -W block=true is supported";
          }
          options->block = *given == "block=true";
          break;
      }
      continue;
    }
    if (arg.starts_with("-") && arg != "-") {
      return "unknown option " + arg + " (see --help)";
    }
    if (fromScript) return "#PBS " + arg + ": not an option";
    if (options->scriptGiven) return "more than one script given (" + arg + ")";
    options->script = arg == "-" ? "" : arg;
    options->scriptGiven = true;
  }
  return "";
}

// The options on the "#PBS" lines at the top of `script` (before its first
// command), as PBS reads them.
std::vector<std::string> directives(const std::string& script) {
  std::vector<std::string> args;
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    if (line.compare(start, 4, "#PBS") == 0) {
      std::istringstream words(line.substr(start + 4));
      std::string word;
      while (words >> word) args.push_back(word);
    } else if (line[start] != '#') {
      break;
    }
  }
  return args;
}

std::string absolute(const std::string& path, const std::string& cwd) {
  if (path.starts_with("/")) return path;
  return (std::filesystem::path(cwd) / path).lexically_normal().string();
}

std::string currentUser() {
  if (passwd* entry = ::getpwuid(::getuid()); entry != nullptr) return entry->pw_name;
  const char* user = std::getenv("USER");
  return user != nullptr ? user : "unknown";
}

int usage(const std::string& message) {
  std::cerr << "mesos-qsub: " << message << std::endl;
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      std::cout << kUsage;
      return 0;
    }
  }
  Options command;
  if (std::string error = applyOptions(args, false, &command); !error.empty()) return usage(error);

  std::string script;
  if (command.script.empty()) {
    std::stringstream text;
    text << std::cin.rdbuf();
    script = text.str();
  } else {
    std::ifstream file(command.script);
    if (!file) {
      return usage("cannot read the script " + command.script + ": " + std::strerror(errno));
    }
    std::stringstream text;
    text << file.rdbuf();
    script = text.str();
  }
  if (script.find_first_not_of(" \t\r\n") == std::string::npos) {
    return usage("the job script is empty (give a SCRIPT file or pipe one in)");
  }

  // #PBS lines first, then the command line over them.
  Options options;
  if (std::string error = applyOptions(directives(script), true, &options); !error.empty()) {
    return usage("in the script: " + error);
  }
  if (std::string error = applyOptions(args, false, &options); !error.empty()) return usage(error);

  Parsed<ResourceRequest> request = parseResourceLists(options.resources);
  if (!request.ok()) return usage(request.error);

  std::string serverError;
  std::optional<ServerAddress> server = serverAddress(options.server, &serverError);
  if (!server) return usage(serverError);

  char cwdBuffer[PATH_MAX];
  if (::getcwd(cwdBuffer, sizeof(cwdBuffer)) == nullptr)
    return usage("cannot read the current directory");
  std::string cwd = cwdBuffer;
  char hostBuffer[256] = {0};
  ::gethostname(hostBuffer, sizeof(hostBuffer) - 1);

  json body;
  body["name"] = !options.name.empty() ? options.name
                 : options.script.empty()
                     ? std::string("STDIN")
                     : std::filesystem::path(options.script).filename().string();
  body["user"] = currentUser();
  body["host"] = hostBuffer;
  body["script"] = script;
  body["workdir"] = options.workdir.empty() ? cwd : absolute(options.workdir, cwd);
  body["resources"] = options.resources;
  body["join"] = options.join;
  // -o/-e: an existing directory gets NAME.oID inside; anything else is the
  // file itself.
  auto output = [&](const std::string& given, const char* dirKey, const char* pathKey) {
    if (given.empty()) {
      body[dirKey] = cwd;
      return;
    }
    std::string path = absolute(given, cwd);
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      body[dirKey] = path;
    } else {
      body[pathKey] = path;
    }
  };
  output(options.out, "out_dir", "out_path");
  output(options.err, "err_dir", "err_path");

  json environment = json::object();
  if (options.wholeEnvironment) {
    for (char** entry = environ; *entry != nullptr; entry++) {
      std::string text(*entry);
      size_t equals = text.find('=');
      if (equals != std::string::npos)
        environment[text.substr(0, equals)] = text.substr(equals + 1);
    }
  }
  for (const std::string& list : options.variables) {
    std::stringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item.empty()) continue;
      size_t equals = item.find('=');
      if (equals == 0) return usage("-v " + list + ": a variable needs a name");
      if (equals != std::string::npos) {
        environment[item.substr(0, equals)] = item.substr(equals + 1);
      } else if (const char* value = std::getenv(item.c_str()); value != nullptr) {
        environment[item] = value;
      }
    }
  }
  body["environment"] = environment;

  HttpResult submitted = callServer(*server, "POST", "/jobs", body);
  if (!submitted.transportError.empty()) {
    std::cerr << unreachable("mesos-qsub", *server, submitted.transportError) << std::endl;
    return kExitFailure;
  }
  if (submitted.status == 400) {
    std::cerr << "mesos-qsub: " << submitted.errorMessage() << std::endl;
    return kExitUsage;
  }
  if (submitted.status != 201 || !submitted.body.contains("id")) {
    std::cerr << "mesos-qsub: the server refused the job: " << submitted.errorMessage()
              << std::endl;
    return kExitFailure;
  }
  int64_t id = submitted.body["id"].get<int64_t>();
  std::cout << id << std::endl;
  if (!options.block) return 0;

  while (true) {
    HttpResult waited =
        callServer(*server, "GET", "/jobs/" + std::to_string(id) + "/wait?timeout=30", nullptr, 45);
    if (!waited.transportError.empty()) {
      std::cerr << unreachable("mesos-qsub", *server, waited.transportError) << std::endl;
      return kExitFailure;
    }
    if (waited.status != 200) {
      std::cerr << "mesos-qsub: job " << id << ": " << waited.errorMessage() << std::endl;
      return kExitFailure;
    }
    if (waited.body.value("state", "") == "C") {
      int status = waited.body.value("exit_status", -1);
      std::string comment = waited.body.value("comment", "");
      if (!comment.empty()) std::cerr << "mesos-qsub: job " << id << ": " << comment << std::endl;
      return status >= 0 && status < 256 ? status : kExitFailure;
    }
  }
}
