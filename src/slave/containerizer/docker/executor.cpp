// mesos-docker-executor: the executor the slave runs for a task whose
// ContainerInfo is DOCKER (docs/docker-containerizer.md). It runs that one
// task as a Docker container named --container: pulls the image when
// DockerInfo.force_pull_image asks or the daemon lacks it, then `docker run`
// attached, so that the container's stdout and stderr are this executor's
// (the sandbox's stdout and stderr files). It reports TASK_STARTING, then
// TASK_RUNNING once `docker inspect` shows the container running, then
// TASK_FINISHED (exit code 0), TASK_FAILED (the exit code, or why docker
// could not run it) or TASK_KILLED, and exits once the slave acknowledged
// the last update. A kill or a shutdown is `docker stop -t GRACE`.
//
// Structure: DockerExecutorProcess (an actor) owns the task's state and
// reports its updates. The docker program's runs block, so they happen on
// threads of their own (a Worker for the task's run, a short thread per
// stop), which answer the actor by dispatch.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "common/json.hpp"
#include "exec/executor_process.hpp"
#include "exec/health_check.hpp"
#include "exec/health_checker.hpp"
#include "exec/forwarding_executor.hpp"
#include "mesos/executor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"
#include "slave/containerizer/docker/docker.hpp"

namespace mesos::internal {

namespace {

using namespace std::chrono_literals;

struct DockerExecutorFlags : flags::FlagSet {
  DockerExecutorFlags() {
    add(&docker, "docker", "The docker program (a path, or a name searched in PATH)",
        std::string("docker"));
    add(&docker_socket, "docker_socket", "The Docker daemon's unix socket",
        std::string("/var/run/docker.sock"));
    add(&container, "container", "The name of the task's container (mesos-<container id>)", std::string());
    add(&sandbox_directory, "sandbox_directory",
        "The task's sandbox on the host, mounted into the container at --mapped_directory",
        std::string());
    add(&mapped_directory, "mapped_directory", "Where the container sees its sandbox",
        std::string(docker::kMappedSandbox));
    add(&stop_timeout, "stop_timeout",
        "How long a stopped container gets between SIGTERM and SIGKILL (docker stop -t), "
        "unless the task's kill policy or the kill names a grace period",
        flags::Duration(0s));
    add(&launcher_dir, "launcher_dir", "The slave's --launcher_dir (not used)",
        std::string());
    add(&task_environment, "task_environment",
        "Variables for the container, as a JSON object of strings; the task's own "
        "CommandInfo.environment is set over them");
    add(&acknowledgement_timeout, "acknowledgement_timeout",
        "How long to wait for the slave to acknowledge the task's last status update before "
        "exiting anyway; for a checkpointing framework, MESOS_RECOVERY_TIMEOUT more",
        flags::Duration(5s));
  }

  Result<void> validate() const override {
    if (container.empty()) return Error{"--container is required (e.g. mesos-<container id>)"};
    if (container.rfind(docker::kNamePrefix, 0) != 0) {
      return Error{"--container: '" + container + "' does not start with " +
                   docker::kNamePrefix};
    }
    if (sandbox_directory.empty() || sandbox_directory[0] != '/') {
      return Error{"--sandbox_directory must be an absolute path"};
    }
    if (mapped_directory.empty() || mapped_directory[0] != '/') {
      return Error{"--mapped_directory must be an absolute path"};
    }
    if (stop_timeout < flags::Duration::zero()) return Error{"--stop_timeout may not be negative"};
    return {};
  }

  std::string docker;
  std::string docker_socket;
  std::string container;
  std::string sandbox_directory;
  std::string mapped_directory;
  flags::Duration stop_timeout;
  std::string launcher_dir;
  std::optional<std::string> task_environment;
  flags::Duration acknowledgement_timeout;
};

Result<std::map<std::string, std::string>> parseTaskEnvironment(const std::string& text) {
  auto parsed = json::parse(text);
  if (!parsed || !parsed->isObject()) {
    return Error{"--task_environment is not a JSON object"};
  }
  std::map<std::string, std::string> variables;
  for (const auto& [name, value] : parsed->object()) {
    if (!value.isString()) {
      return Error{"--task_environment: the value of '" + name + "' is not a string"};
    }
    variables[name] = value.string();
  }
  return variables;
}

// `docker stop -t` takes whole seconds: a part of one counts as one.
std::chrono::seconds wholeSeconds(std::chrono::nanoseconds grace) {
  auto seconds = std::chrono::ceil<std::chrono::seconds>(grace);
  return seconds < 0s ? 0s : seconds;
}

}  // namespace

class DockerExecutorProcess : public process::Actor {
 public:
  struct Options {
    docker::Endpoint endpoint;
    std::string container;
    std::string sandbox;
    std::string mappedDirectory;
    std::chrono::nanoseconds stopTimeout;
    std::chrono::nanoseconds shutdownGracePeriod;
    std::map<std::string, std::string> taskEnvironment;
    ExecutorID executorId;
    process::Duration acknowledgementTimeout;
  };

  DockerExecutorProcess(MesosExecutorDriver* driver, Options options)
      : Actor(process::generateId("docker-executor")),
        driver_(driver),
        options_(std::move(options)),
        killed_(std::make_shared<std::atomic<bool>>(false)) {}

  void launch(const TaskInfo& task) {
    if (launched_) {
      update(task.task_id(), TASK_FAILED,
             "Attempted to run multiple tasks using a \"docker\" executor");
      return;
    }
    launched_ = true;
    task_ = task;
    if (task.has_health_check()) {
      auto check = parseHealthCheck(task.health_check());
      if (!check) {
        finish(TASK_FAILED, "Task '" + task.task_id().value() +
                                "' has an invalid health check: " + check.error().message);
        return;
      }
      healthCheck_ = std::move(check).value();
    }
    docker::RunSpec spec;
    spec.name = options_.container;
    spec.container = task.container();
    spec.command = task.command();
    spec.resources = Resources(task.resources());
    spec.sandbox = options_.sandbox;
    spec.mappedDirectory = options_.mappedDirectory;
    spec.environment = options_.taskEnvironment;
    auto run = docker::runArguments(options_.endpoint, spec);
    if (!run) {
      finish(TASK_FAILED, "Cannot run the task's container: " + run.error().message,
             TaskStatus::REASON_CONTAINER_LAUNCH_FAILED);
      return;
    }
    update(task.task_id(), TASK_STARTING);
    active_ = true;
    const process::Pid<DockerExecutorProcess> self(this->self());
    std::thread(work, self, options_.endpoint, options_.container, task.container().docker(),
                std::move(run).value(), killed_)
        .detach();
  }

  // `grace`: the kill's own (a v1 KILL's), else the task's kill policy,
  // else --stop_timeout.
  void kill(const TaskID& taskId, std::optional<std::chrono::nanoseconds> grace) {
    if (!launched_ || taskId.value() != task_.task_id().value()) {
      LOG(WARNING) << "Ignoring a kill for unknown task " << taskId.value();
      return;
    }
    if (!grace && task_.has_kill_policy() && task_.kill_policy().has_grace_period()) {
      grace = std::chrono::nanoseconds(task_.kill_policy().grace_period().nanoseconds());
    }
    stop(grace.value_or(options_.stopTimeout));
  }

  void shutdown() {
    LOG(INFO) << "Shutting down";
    if (!active_) {
      if (!terminalSent_) driver_->stop();
      return;
    }
    stop(shutdownGrace());
  }

  void stopSignal(int signal) {
    LOG(INFO) << "Got signal " << signal << " (" << strsignal(signal)
              << "); stopping the container and exiting";
    signalled_ = true;
    if (!active_) {
      driver_->stop();
      return;
    }
    stop(shutdownGrace());
  }

  // The worker saw the container running, as process `pid` (0: unknown).
  void running(pid_t pid) {
    if (!active_ || runningSent_) return;
    runningSent_ = true;
    update(task_.task_id(), TASK_RUNNING);
    if (healthCheck_ && !killed_->load()) startHealthChecks(pid);
  }

  // A health event (HealthChecker): a change goes out as TASK_RUNNING with
  // `healthy`; too many failures in a row stop the container.
  void healthChanged(const HealthChecker::Event& event) {
    if (!active_ || killed_->load()) return;
    if (event.changed) {
      LOG(INFO) << "Task " << task_.task_id().value() << " is "
                << (event.healthy ? "healthy" : "unhealthy")
                << (event.message.empty() ? "" : ": " + event.message);
      update(task_.task_id(), TASK_RUNNING, event.message,
             TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, event.healthy);
    }
    if (event.kill) {
      healthKill_ = "Task killed after " + std::to_string(event.consecutiveFailures) +
                    " failed health check(s) in a row (" + event.message + ")";
      LOG(WARNING) << healthKill_;
      kill(task_.task_id(), std::nullopt);
    }
  }

  // The worker's end: the container (or docker) exited with `code`;
  // `failure`: docker could not run it, and why.
  void ended(int code, std::string failure) {
    if (!active_) return;
    active_ = false;
    stopHealthChecks();
    if (killed_->load() && !healthKill_.empty()) {
      finish(TASK_KILLED, healthKill_, TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED);
    } else if (killed_->load()) {
      finish(TASK_KILLED, "Container stopped");
    } else if (!failure.empty()) {
      finish(TASK_FAILED, failure, TaskStatus::REASON_CONTAINER_LAUNCH_FAILED);
    } else if (code == 0) {
      finish(TASK_FINISHED, "Container exited with status 0");
    } else {
      finish(TASK_FAILED, "Container exited with status " + std::to_string(code),
             TaskStatus::REASON_COMMAND_EXECUTOR_FAILED);
    }
  }

 private:
  // On a thread of its own: pull if needed, run, await the end.
  static void work(process::Pid<DockerExecutorProcess> self, docker::Endpoint endpoint,
                   std::string name, ContainerInfo::DockerInfo info,
                   std::vector<std::string> runArgv, std::shared_ptr<std::atomic<bool>> killed) {
    auto fail = [&](const std::string& message) {
      process::dispatch(self, &DockerExecutorProcess::ended, -1, message);
    };
    bool present = false;
    if (!info.force_pull_image()) {
      auto inspected = docker::run(docker::imagePresentArguments(endpoint, info.image()));
      if (!inspected) return fail(inspected.error().message);
      present = inspected->succeeded();
    }
    if (!present && !killed->load()) {
      LOG(INFO) << "Pulling image '" << info.image() << "'";
      auto pulled = docker::run(docker::pullArguments(endpoint, info.image()));
      if (!pulled) return fail("Failed to pull image '" + info.image() + "': " +
                               pulled.error().message);
      if (!pulled->succeeded()) {
        return fail("Failed to pull image '" + info.image() + "': " + pulled->reason());
      }
    }
    if (killed->load()) return fail("");
    LOG(INFO) << "Running container " << name;
    auto started = docker::spawn(runArgv, false);
    if (!started) return fail(started.error().message);
    const pid_t pid = started->pid;
    int status = 0;
    bool exited = false;
    // Until the container runs (or docker run ends first): bounded polling
    // of a real daemon, which tells nothing when a container starts.
    for (int attempt = 0; !exited; ++attempt) {
      pid_t waited = ::waitpid(pid, &status, WNOHANG);
      if (waited == pid) {
        exited = true;
        break;
      }
      auto inspected = docker::run(docker::inspectArguments(endpoint, name));
      if (inspected && inspected->succeeded()) {
        auto state = docker::parseInspect(inspected->out);
        if (state && (state->running || state->pid != 0)) {
          process::dispatch(self, &DockerExecutorProcess::running, state->pid);
          break;
        }
      }
      std::this_thread::sleep_for(attempt < 20 ? 50ms : 500ms);
    }
    while (!exited) {
      if (::waitpid(pid, &status, 0) == pid) exited = true;
      else if (errno != EINTR) break;
    }
    auto inspected = docker::run(docker::inspectArguments(endpoint, name));
    if (inspected && inspected->succeeded()) {
      if (auto state = docker::parseInspect(inspected->out); state) {
        if (!state->error.empty() && state->exitCode != 0) {
          return fail("Docker could not run the container: " + state->error);
        }
        process::dispatch(self, &DockerExecutorProcess::ended, state->exitCode, std::string());
        return;
      }
    }
    // No container: docker run failed before making one; its reason is in
    // the sandbox's stderr.
    docker::Output output;
    output.status = status;
    return fail("docker run " + output.reason().substr(std::strlen("docker ")) +
                " without making a container (its reason is in the sandbox's stderr)");
  }

  // The task's health check (docs/health-checks.md) in the container: a
  // COMMAND through `docker exec`, HTTP and TCP from this process but in
  // the container's network namespace unless it shares the host's.
  void startHealthChecks(pid_t pid) {
    HealthCheckSpec spec = *healthCheck_;
    if (spec.type == HealthCheck::COMMAND) {
      const std::vector<std::string> argv =
          docker::execArguments(options_.endpoint, options_.container, spec.command);
      CommandInfo exec;
      exec.set_shell(false);
      exec.set_value(argv.front());
      for (const std::string& argument : argv) exec.add_arguments(argument);
      *exec.mutable_environment() = spec.command.environment();  // given to docker by name
      spec.command = std::move(exec);
    }
    ProbeContext context{options_.sandbox, currentEnvironment(), ""};
    const ContainerInfo::DockerInfo& docker = task_.container().docker();
    if (spec.type != HealthCheck::COMMAND && docker.network() != ContainerInfo::DockerInfo::HOST) {
      if (pid <= 0) {
        LOG(WARNING) << "No pid of container " << options_.container << " (docker inspect): its "
                     << "health checks probe this executor's network, not the container's";
      } else {
        context.networkNamespace = "/proc/" + std::to_string(pid) + "/ns/net";
      }
    }
    const process::Pid<DockerExecutorProcess> self(this->self());
    healthChecker_ = runtime().spawn<HealthChecker>(
        std::move(spec), std::move(context), [self](const HealthChecker::Event& event) {
          process::dispatch(self, &DockerExecutorProcess::healthChanged, event);
        });
  }

  void stopHealthChecks() {
    if (healthChecker_) process::dispatch(healthChecker_.pid(), &HealthChecker::stop);
  }

  void stop(std::chrono::nanoseconds grace) {
    killed_->store(true);
    stopHealthChecks();
    if (!active_) return;
    LOG(INFO) << "Stopping container " << options_.container << " (grace "
              << wholeSeconds(grace).count() << "s)";
    std::thread([argv = docker::stopArguments(options_.endpoint, options_.container,
                                              wholeSeconds(grace))] {
      auto stopped = docker::run(argv);
      if (!stopped) {
        LOG(ERROR) << "docker stop: " << stopped.error().message;
      } else if (!stopped->succeeded()) {
        // Not made yet (killed while pulling) or gone: the worker ends it.
        LOG(WARNING) << "docker stop: " << stopped->reason();
      }
    }).detach();
  }

  // A shutdown's grace: --stop_timeout, but at most a second less than the
  // slave gives this executor to shut down.
  std::chrono::nanoseconds shutdownGrace() const {
    std::chrono::nanoseconds grace = options_.shutdownGracePeriod - 1s;
    if (grace < 0s) grace = 0s;
    return std::min(grace, options_.stopTimeout);
  }

  void finish(TaskState state, const std::string& message,
              std::optional<TaskStatus::Reason> reason = std::nullopt) {
    terminalSent_ = true;
    update(task_.task_id(), state, message, reason);
    if (signalled_) {
      driver_->stop();
    } else {
      driver_->stopWhenAcknowledged(options_.acknowledgementTimeout);
    }
  }

  void update(const TaskID& taskId, TaskState state, const std::string& message = "",
              std::optional<TaskStatus::Reason> reason = std::nullopt,
              std::optional<bool> healthy = std::nullopt) {
    TaskStatus status;
    *status.mutable_task_id() = taskId;
    *status.mutable_executor_id() = options_.executorId;
    status.set_state(state);
    status.set_source(TaskStatus::SOURCE_EXECUTOR);
    if (!message.empty()) status.set_message(message);
    if (reason) status.set_reason(*reason);
    if (healthy) status.set_healthy(*healthy);
    driver_->sendStatusUpdate(status);
  }

  MesosExecutorDriver* const driver_;
  const Options options_;
  const std::shared_ptr<std::atomic<bool>> killed_;  // a kill or shutdown came

  bool launched_ = false;
  TaskInfo task_;
  bool active_ = false;        // the worker runs: a terminal update is to come
  bool runningSent_ = false;
  bool terminalSent_ = false;
  bool signalled_ = false;
  std::optional<HealthCheckSpec> healthCheck_;
  process::Spawned<HealthChecker> healthChecker_;
  std::string healthKill_;  // why a failed health check killed the task
};

using DockerExecutor = ForwardingExecutor<DockerExecutorProcess>;

}  // namespace mesos::internal

int main(int argc, char** argv) {
  using namespace mesos;
  using namespace mesos::internal;

  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  process::blockStopSignals();

  DockerExecutorFlags flags;
  auto load = flags.load("MESOS_DOCKER_EXECUTOR_", argc, argv);
  if (!load) {
    std::cerr << argv[0] << ": " << load.error().message << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage(argv[0]);
    return 0;
  }
  std::map<std::string, std::string> taskEnvironment;
  if (flags.task_environment) {
    auto parsed = parseTaskEnvironment(*flags.task_environment);
    if (!parsed) {
      std::cerr << argv[0] << ": " << parsed.error().message << std::endl;
      return 1;
    }
    taskEnvironment = std::move(parsed).value();
  }

  const std::map<std::string, std::string> variables = currentEnvironment();
  auto environment = parseExecutorEnvironment(variables);
  if (!environment) {
    std::cerr << argv[0] << ": " << environment.error().message << std::endl;
    return 1;
  }
  process::Duration acknowledgementTimeout =
      std::chrono::duration_cast<process::Duration>(flags.acknowledgement_timeout);
  if (environment->checkpoint) acknowledgementTimeout += environment->recoveryTimeout;

  const docker::Endpoint endpoint{flags.docker, flags.docker_socket};
  DockerExecutor executor("docker");
  MesosExecutorDriver driver(&executor, variables);
  process::Spawned<DockerExecutorProcess> process =
      process::Runtime::global().spawn<DockerExecutorProcess>(
          &driver,
          DockerExecutorProcess::Options{
              endpoint, flags.container, flags.sandbox_directory, flags.mapped_directory,
              flags.stop_timeout,
              std::chrono::duration_cast<std::chrono::nanoseconds>(
                  environment->shutdownGracePeriod),
              std::move(taskEnvironment), environment->executorId, acknowledgementTimeout});
  executor.attach(process.pid());
  std::thread([pid = process.pid()] {
    int signal = process::awaitStopSignal();
    process::dispatch(pid, &DockerExecutorProcess::stopSignal, signal);
  }).detach();

  const Status status = driver.run();
  LOG(INFO) << "Executor driver ended in " << Status_Name(status);
  process.reset();
  // The container must not outlive its executor: stop it if it still runs
  // (the slave removes it later, --docker_remove_delay).
  auto inspected = docker::run(docker::inspectArguments(endpoint, flags.container));
  if (inspected && inspected->succeeded()) {
    if (auto state = docker::parseInspect(inspected->out); state && state->running) {
      LOG(WARNING) << "Stopping container " << flags.container << ", which still runs";
      (void)docker::run(docker::stopArguments(endpoint, flags.container,
                                              wholeSeconds(flags.stop_timeout)));
    }
  }
  return status == DRIVER_STOPPED ? 0 : 1;
}
