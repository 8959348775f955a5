// mesos-runtime-demo: two actors in two OS processes exchanging messages over
// TCP, printing what they do. It shows the runtime working end to end until
// the master and slave exist (the README's first command runs it).
//
//   mesos-runtime-demo [--count=N] [--interval_ms=MS]
//
// The parent starts itself again as `--role=pong`, which prints its UPID on
// stdout; the parent's ping actor then sends N notes to it and prints each
// reply with its round-trip time.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

DEFINE_string(role, "ping", "ping (starts a pong process and talks to it) or pong");
DEFINE_int32(count, 10, "notes to exchange (0: forever)");
DEFINE_int32(interval_ms, 500, "pause between notes");
DEFINE_string(ip, "127.0.0.1", "address to listen on");

namespace {

using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using process::Actor;
using process::Promise;
using process::UPID;
using Clock = std::chrono::steady_clock;

class Pong : public Actor {
 public:
  Pong() : Actor("pong") {}

 protected:
  void initialize() override { on(&Pong::note); }

 private:
  void note(const UPID& from, const FrameworkToExecutorMessage& message) {
    std::cout << "pong: got '" << message.data() << "' from " << from << ", replying"
              << std::endl;
    ExecutorToFrameworkMessage reply;
    reply.mutable_slave_id()->CopyFrom(message.slave_id());
    reply.mutable_framework_id()->CopyFrom(message.framework_id());
    reply.mutable_executor_id()->CopyFrom(message.executor_id());
    reply.set_data("re: " + message.data());
    send(from, std::move(reply));
  }
};

class Ping : public Actor {
 public:
  Ping(UPID pong, int count, int intervalMs)
      : Actor("ping"), pong_(std::move(pong)), count_(count), intervalMs_(intervalMs) {}

  process::Future<process::Nothing> done() { return done_.future(); }

 protected:
  void initialize() override {
    on(&Ping::reply);
    link(pong_);
    next();
  }

  void exited(const UPID& pid) override {
    std::cout << "ping: lost the connection to " << pid << std::endl;
    done_.set(process::Nothing{});
  }

 private:
  void next() {
    FrameworkToExecutorMessage note;
    note.mutable_slave_id()->set_value("demo");
    note.mutable_framework_id()->set_value("demo");
    note.mutable_executor_id()->set_value("demo");
    note.set_data("note " + std::to_string(++sent_));
    std::cout << "ping: sending '" << note.data() << "' to " << pong_ << std::endl;
    sentAt_ = Clock::now();
    send(pong_, std::move(note));
  }

  void reply(const UPID& from, const ExecutorToFrameworkMessage& message) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - sentAt_);
    std::cout << "ping: got '" << message.data() << "' from " << from << " after " << us.count()
              << " us" << std::endl;
    if (count_ > 0 && sent_ >= count_) {
      done_.set(process::Nothing{});
      return;
    }
    delay(std::chrono::milliseconds(intervalMs_), [this] { next(); });
  }

  UPID pong_;
  int count_;
  int intervalMs_;
  int sent_ = 0;
  Clock::time_point sentAt_;
  Promise<process::Nothing> done_;
};

std::unique_ptr<process::Runtime> startRuntime() {
  process::Runtime::Options options;
  options.ip = FLAGS_ip;
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "mesos-runtime-demo: " << runtime.error().message << std::endl;
    std::exit(1);
  }
  return std::move(runtime).value();
}

int runPong() {
  auto runtime = startRuntime();
  auto pong = runtime->spawn<Pong>();
  std::cout << pong.pid() << std::endl;  // the parent reads this line
  // Serve until the parent closes our stdin.
  char c;
  while (std::cin.get(c)) {
  }
  return 0;
}

int runPing() {
  int toChild[2], fromChild[2];
  PCHECK(pipe(toChild) == 0 && pipe(fromChild) == 0);
  pid_t child = fork();
  PCHECK(child >= 0);
  if (child == 0) {
    dup2(toChild[0], 0);
    dup2(fromChild[1], 1);
    close(toChild[1]);
    close(fromChild[0]);
    std::string ip = "--ip=" + FLAGS_ip;
    execl("/proc/self/exe", "mesos-runtime-demo", "--role=pong", ip.c_str(), nullptr);
    _exit(127);
  }
  close(toChild[0]);
  close(fromChild[1]);
  FILE* childOut = fdopen(fromChild[0], "r");
  char line[256];
  if (fgets(line, sizeof(line), childOut) == nullptr) {
    std::cerr << "mesos-runtime-demo: the pong process did not start" << std::endl;
    return 1;
  }
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  auto pong = UPID::parse(text);
  if (!pong) {
    std::cerr << "mesos-runtime-demo: " << pong.error().message << std::endl;
    return 1;
  }
  std::cout << "ping: pong process " << child << " is " << *pong << std::endl;
  // Echo the child's lines as they come.
  std::thread relay([childOut] {
    char buffer[512];
    while (fgets(buffer, sizeof(buffer), childOut) != nullptr) std::cout << buffer << std::flush;
  });

  int status = 0;
  {
    auto runtime = startRuntime();
    auto ping = runtime->spawn<Ping>(*pong, FLAGS_count, FLAGS_interval_ms);
    ping->done().await(std::chrono::hours(24 * 365));
  }
  close(toChild[1]);
  waitpid(child, &status, 0);
  relay.join();
  std::cout << "ping: done" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("two actors in two processes exchanging messages over TCP");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;  // the demo prints what matters itself
  return FLAGS_role == "pong" ? runPong() : runPing();
}
