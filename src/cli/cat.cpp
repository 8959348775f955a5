// mesos-cat: prints a file of a task's sandbox (its stdout by default),
// read through the slave's /files/read, as Apache Mesos's tool of that
// name does.
//
//   mesos-cat --master=HOST:PORT --framework=ID --task=ID [--file=stdout]
//
// docs/cli.md describes it.
#include <string>

#include "cli/common.hpp"

namespace {

namespace cli = mesos::cli;

constexpr const char* kProgram = "mesos-cat";

}  // namespace

int main(int argc, char** argv) {
  cli::SandboxFileFlags flags;
  if (auto done = cli::loadFlags(
          flags, kProgram, "mesos-cat --master=MASTER --framework=ID --task=ID [--file=stdout]",
          "Prints a file of a task's sandbox, read through its slave's /files/read. Exit status "
          "0, or 1\nwith one line on stderr saying why (an unknown framework or task, a missing "
          "file, a master\nor slave that does not answer).\n",
          argc, argv)) {
    return *done;
  }
  cli::quietLogging(argv[0]);
  auto opened = cli::openSandboxFile(flags);
  if (!opened) return cli::fail(kProgram, opened.error().message);
  // What the file holds now; a file that grows meanwhile is for mesos-tail.
  const int64_t size = opened->size;
  for (int64_t offset = 0; offset < size;) {
    auto data = opened->file.read(offset, size - offset);
    if (!data) return cli::fail(kProgram, data.error().message);
    if (data->empty()) break;  // truncated meanwhile
    if (!cli::writeOut(*data)) return cli::kExitFailure;
    offset += static_cast<int64_t>(data->size());
  }
  return cli::kExitSuccess;
}
