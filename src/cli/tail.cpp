// mesos-tail: the last lines of a file of a task's sandbox (its stdout by
// default), read through the slave's /files/read; with -f it follows the
// file, polling from the last offset, until the task has ended and the
// file is drained (or until SIGINT, which exits 0). A file that gets
// shorter than what was printed is followed again from its start, with
// "mesos-tail: <file>: file truncated" on stderr, as tail -f does.
//
//   mesos-tail --master=HOST:PORT --framework=ID --task=ID [--file=stdout]
//              [-f|--follow] [-n N|--lines=N]
//
// docs/cli.md describes it.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/common.hpp"

namespace {

using namespace mesos;

constexpr const char* kProgram = "mesos-tail";

struct TailFlags : cli::SandboxFileFlags {
  TailFlags() {
    add(&lines, "lines", "How many of the last lines to print first (also -n N)", 10);
    add(&follow, "follow",
        "Keep printing what is appended to the file (also -f), until the task has ended and "
        "the file is drained, or until interrupted",
        false);
    add(&stop_with_task, "stop_with_task",
        "With --follow, stop once the task is terminal and the file drained; "
        "--no-stop_with_task follows until interrupted",
        true);
    add(&interval, "interval", "With --follow, how often to poll the file when it does not grow",
        std::chrono::milliseconds(500));
  }
  Result<void> validate() const override {
    if (auto checked = SandboxFileFlags::validate(); !checked) return checked;
    if (lines < 0) return Error{"--lines must be 0 or more (e.g. -n 20)"};
    if (interval <= flags::Duration::zero()) {
      return Error{"--interval must be positive (e.g. --interval=500ms)"};
    }
    return {};
  }
  int lines;
  bool follow;
  bool stop_with_task;
  flags::Duration interval;
};

// argv with tail's short options spelled as flags: -f as --follow, -n N and
// -nN as --lines=N. Fails on other short options.
Result<std::vector<std::string>> expandShortOptions(int argc, char** argv) {
  std::vector<std::string> out = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (; i < argc; ++i) out.emplace_back(argv[i]);
      break;
    }
    if (arg == "-f") {
      out.emplace_back("--follow");
    } else if (arg == "-n") {
      if (i + 1 == argc) return Error{"-n needs a number of lines (e.g. -n 20)"};
      out.push_back("--lines=" + std::string(argv[++i]));
    } else if (arg.starts_with("-n")) {
      out.push_back("--lines=" + arg.substr(2));
    } else if (arg.size() > 1 && arg[0] == '-' && arg[1] != '-') {
      return Error{"unknown option '" + arg + "' (short options are -f and -n N; see --help)"};
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

// Where the last `lines` lines of `text` start; `complete` says text starts
// at the beginning of the file. nullopt when text holds fewer lines than
// that and more of the file comes before it.
std::optional<size_t> lastLines(const std::string& text, int lines, bool complete) {
  if (lines == 0) return text.size();
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') end--;  // the last line's own newline
  int found = 0;
  while (end > 0) {
    size_t newline = text.rfind('\n', end - 1);
    if (newline == std::string::npos) break;
    if (++found == lines) return newline + 1;
    end = newline;
  }
  if (complete) return 0;
  return std::nullopt;
}

void exitOnInterrupt(int) { _exit(0); }

}  // namespace

int main(int argc, char** argv) {
  auto expanded = expandShortOptions(argc, argv);
  if (!expanded) return cli::fail(kProgram, expanded.error().message);
  std::vector<const char*> args;
  for (const std::string& arg : *expanded) args.push_back(arg.c_str());

  TailFlags flags;
  if (auto done = cli::loadFlags(
          flags, kProgram,
          "mesos-tail --master=MASTER --framework=ID --task=ID [--file=stdout] [-f] [-n N]",
          "Prints the last lines of a file of a task's sandbox, read through its slave's "
          "/files/read.\nWith -f, keeps printing what the task appends until the task has "
          "ended and the file is\ndrained (or until interrupted: SIGINT exits 0); a file that "
          "gets shorter is followed\nagain from its start, with 'mesos-tail: FILE: file "
          "truncated' on stderr. Exit status 0,\nor 1 with one line on stderr saying why.\n",
          static_cast<int>(args.size()), args.data())) {
    return *done;
  }
  if (flags.follow) {
    // Interrupting is how a follow is ended by hand: not a failure.
    struct sigaction interrupt {};
    interrupt.sa_handler = exitOnInterrupt;
    sigemptyset(&interrupt.sa_mask);
    sigaction(SIGINT, &interrupt, nullptr);
  }
  cli::quietLogging(argv[0]);
  auto opened = cli::openSandboxFile(flags);
  if (!opened) return cli::fail(kProgram, opened.error().message);
  const cli::SandboxFile& file = opened->file;

  // Reads back from the end, a page at a time, until the page holds the
  // lines asked for.
  std::string text;
  int64_t start = opened->size;
  std::optional<size_t> cut = lastLines(text, flags.lines, start == 0);
  while (!cut) {
    int64_t length = std::min(cli::SandboxFile::kMaxRead, start);
    auto page = file.read(start - length, length);
    if (!page) return cli::fail(kProgram, page.error().message);
    start -= length;
    text = *page + text;
    cut = lastLines(text, flags.lines, start == 0);
  }
  if (!cli::writeOut(std::string_view(text).substr(*cut))) return cli::kExitFailure;
  int64_t offset = start + static_cast<int64_t>(text.size());
  if (!flags.follow) return cli::kExitSuccess;

  process::Address master = opened->master;
  bool drained = true;
  for (;;) {
    // Asked before the read: once the task has ended, what the read finds
    // is all the file will hold.
    bool ended = false;
    if (drained && flags.stop_with_task) {
      auto state = cli::taskState(master, *flags.framework, *flags.task, flags.timeout);
      ended = state && cli::isTerminal(*state);
      if (!state) {
        // A failover, perhaps: the file is still read, and the leader
        // asked for again (the next poll asks it).
        if (auto leader = cli::leadingMaster(*flags.master, flags.timeout)) master = *leader;
      }
    }
    int64_t at = offset;
    auto data = file.read(offset, cli::SandboxFile::kMaxRead, &at);
    if (!data) return cli::fail(kProgram, data.error().message);
    if (data->empty() && at < offset) {
      // The file is shorter than what was printed: it was truncated (or
      // replaced). As tail does: say so, and follow it from its start.
      std::cerr << kProgram << ": " << flags.file << ": file truncated" << std::endl;
      offset = 0;
      drained = false;
      continue;
    }
    if (!data->empty()) {
      if (!cli::writeOut(*data)) return cli::kExitFailure;
      offset += static_cast<int64_t>(data->size());
      drained = false;
      if (static_cast<int64_t>(data->size()) == cli::SandboxFile::kMaxRead) continue;
    } else if (ended) {
      return cli::kExitSuccess;
    } else {
      drained = true;
    }
    std::this_thread::sleep_for(flags.interval);
  }
}
