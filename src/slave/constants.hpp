// Fixed numbers of the slave's behaviour that are not flags.
#pragma once

#include <chrono>
#include <cstddef>

namespace mesos::internal::slave {

// Status updates not yet acknowledged by the master are sent again after
// this interval, doubling up to the maximum (as Apache Mesos does).
constexpr std::chrono::seconds kStatusUpdateRetryIntervalMin{10};
constexpr std::chrono::minutes kStatusUpdateRetryIntervalMax{10};

// A checkpoint the disk did not take (full) is written again this often,
// until it is.
constexpr std::chrono::seconds kCheckpointRetryInterval{10};

// Registration attempts back off from --registration_backoff_factor, doubling
// up to this bound.
constexpr std::chrono::minutes kRegistrationBackoffMax{1};

// How many finished executors per framework, and finished frameworks, the
// slave remembers for /state and for the sandbox browser.
constexpr size_t kMaxCompletedExecutorsPerFramework = 150;
constexpr size_t kMaxCompletedFrameworks = 50;
constexpr size_t kMaxCompletedTasksPerExecutor = 200;

// Resources the slave keeps for itself when it detects memory and disk.
constexpr double kMemReserveMB = 1024;     // when the machine has 2 GB or more
constexpr double kDiskReserveMB = 5120;    // when the disk has 10 GB or more

// Ports offered when --resources names none.
constexpr const char* kDefaultPorts = "[31000-32000]";

// When the slave stops, its executors' containers get SIGTERM, then SIGKILL
// when an executor has not exited after this long (or
// --executor_shutdown_grace_period when shorter); the slave then waits at
// most kTeardownKillWait for the executors to be gone.
constexpr std::chrono::seconds kTeardownGracePeriod{3};
constexpr std::chrono::seconds kTeardownKillWait{2};

// The command executor's binary name, looked up in --launcher_dir.
constexpr const char* kCommandExecutor = "mesos-executor";
// The Docker containerizer's executor: a command task whose ContainerInfo is
// DOCKER runs under it (docs/docker-containerizer.md).
constexpr const char* kDockerExecutor = "mesos-docker-executor";
// The default executor's (ExecutorInfo.type DEFAULT: task groups).
constexpr const char* kDefaultExecutor = "mesos-default-executor";
// What a command executor holds on top of its task (as in Apache Mesos):
// its container's limits leave the task its whole share. The master does
// not count it (command executors are the slave's business), a small
// overcommit.
constexpr const char* kCommandExecutorResources = "cpus:0.1;mem:32";
// The launch helper (containerizer_main.cpp), looked up the same way: an
// executor whose isolators ask it to join cgroups starts as this program.
constexpr const char* kLaunchHelper = "mesos-containerizer";

}  // namespace mesos::internal::slave
