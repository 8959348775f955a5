// MasterFixture: a real master (with the allocator its flags name) in a
// runtime with a paused clock, and stand-in schedulers and slaves (Peer
// actors) that record what the master sends them. The master tests derive
// from it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "common/uuid.hpp"
#include "master/master.hpp"
#include "support/net.hpp"
#include "support/peer.hpp"

namespace mesos::test {

using namespace mesos::internal;  // the wire messages

class MasterFixture : public ::testing::Test {
 protected:
  // On the paused clock a batch window would hold every batch after the
  // first until a test advances the clock: tests of the window set it.
  MasterFixture() { flags_.operator_event_stream_batch_window = flags::Duration::zero(); }

  void TearDown() override {
    peers_.clear();
    master_.reset();
    runtime_.reset();
  }

  // Starts the master with flags_ (tests adjust them first).
  void start() {
    process::Runtime::Options options = runtimeOptions_;
    options.pauseClock = true;
    runtime_ = std::move(process::Runtime::create(options)).value();
    auto allocator = internal::master::createAllocator(flags_);
    ASSERT_TRUE(allocator.ok()) << allocator.error().message;
    master_ = runtime_->spawn<internal::master::Master>(flags_, std::move(allocator).value());
    runtime_->setDelegate("master");
    runtime_->settle();
  }

  process::UPID master() const { return master_.pid(); }

  // A stand-in scheduler, recording everything a master sends schedulers.
  Peer& scheduler(const std::string& id) {
    auto peer = std::make_unique<Peer>(id);
    peer->accept<FrameworkRegisteredMessage, FrameworkReregisteredMessage, FrameworkErrorMessage,
                 ResourceOffersMessage, RescindResourceOfferMessage, StatusUpdateMessage,
                 LostSlaveMessage, ExitedExecutorMessage, ExecutorToFrameworkMessage,
                 UpdateOperationStatusMessage>();
    peers_.push_back(runtime_->spawn(std::move(peer)));
    return *peers_.back().get();
  }

  // A stand-in slave, recording everything a master sends slaves.
  Peer& slave(const std::string& id) {
    auto peer = std::make_unique<Peer>(id);
    peer->accept<SlaveRegisteredMessage, SlaveReregisteredMessage, RunTaskMessage, KillTaskMessage,
                 StatusUpdateAcknowledgementMessage, ShutdownFrameworkMessage,
                 ShutdownExecutorMessage, FrameworkToExecutorMessage, ShutdownMessage,
                 DrainSlaveMessage, CheckpointResourcesMessage, RunTaskGroupMessage,
                 UpdateFrameworkMessage>();
    peers_.push_back(runtime_->spawn(std::move(peer)));
    return *peers_.back().get();
  }

  static FrameworkInfo frameworkInfo(const std::string& name = "test",
                                     const std::string& role = "*") {
    FrameworkInfo info;
    info.set_user("tester");
    info.set_name(name);
    info.set_role(role);
    return info;
  }

  FrameworkID registerFramework(Peer& scheduler, const FrameworkInfo& info = frameworkInfo()) {
    RegisterFrameworkMessage message;
    message.mutable_framework()->CopyFrom(info);
    scheduler.post(master(), message);
    runtime_->settle();
    auto registered = scheduler.received<FrameworkRegisteredMessage>();
    CHECK(!registered.empty()) << "framework did not register";
    return registered.back().framework_id();
  }

  // What our slaves declare (slave/protobufs.cpp).
  static inline const std::vector<SlaveInfo::Capability::Type> kSlaveCapabilities = {
      SlaveInfo::Capability::MULTI_ROLE, SlaveInfo::Capability::HIERARCHICAL_ROLE,
      SlaveInfo::Capability::RESERVATION_REFINEMENT, SlaveInfo::Capability::AGENT_DRAINING};

  // Registers `slave`, declaring `capabilities` (by default what our slaves
  // declare).
  SlaveID registerSlave(
      Peer& slave, const std::string& resources = "cpus:4;mem:4096",
      const std::vector<SlaveInfo::Capability::Type>& capabilities = kSlaveCapabilities) {
    RegisterSlaveMessage message;
    message.mutable_slave()->set_hostname(slave.id() + ".example");
    *message.mutable_slave()->mutable_resources() = Resources::parse(resources).value().proto();
    message.set_version("1.0.0");
    for (SlaveInfo::Capability::Type type : capabilities) {
      message.add_agent_capabilities()->set_type(type);
    }
    slave.post(master(), message);
    runtime_->settle();
    auto registered = slave.received<SlaveRegisteredMessage>();
    CHECK(!registered.empty()) << "slave did not register";
    return registered.back().slave_id();
  }

  static TaskInfo commandTask(const std::string& id, const SlaveID& slaveId,
                              const std::string& resources = "cpus:1;mem:512",
                              const std::string& command = "true") {
    TaskInfo task;
    task.set_name("task " + id);
    task.mutable_task_id()->set_value(id);
    task.mutable_slave_id()->CopyFrom(slaveId);
    *task.mutable_resources() = Resources::parse(resources).value().proto();
    task.mutable_command()->set_value(command);
    return task;
  }

  void launch(Peer& scheduler, const FrameworkID& frameworkId, const std::vector<OfferID>& offers,
              const std::vector<TaskInfo>& tasks, double refuseSeconds = 5) {
    LaunchTasksMessage message;
    message.mutable_framework_id()->CopyFrom(frameworkId);
    for (const auto& offer : offers) message.add_offer_ids()->CopyFrom(offer);
    for (const auto& task : tasks) message.add_tasks()->CopyFrom(task);
    message.mutable_filters()->set_refuse_seconds(refuseSeconds);
    scheduler.post(master(), message);
    runtime_->settle();
  }

  // A status update as `slave` sends it (with a uuid, so it wants an
  // acknowledgement).
  static StatusUpdateMessage update(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                    const std::string& taskId, TaskState state, Peer& slave) {
    StatusUpdateMessage message;
    StatusUpdate* u = message.mutable_update();
    u->mutable_framework_id()->CopyFrom(frameworkId);
    u->mutable_slave_id()->CopyFrom(slaveId);
    u->set_timestamp(1);
    u->set_uuid(randomUuid());
    u->mutable_status()->mutable_task_id()->set_value(taskId);
    u->mutable_status()->set_state(state);
    u->mutable_status()->set_uuid(u->uuid());
    message.set_pid(slave.self().toString());
    return message;
  }

  void advance(process::Duration d) {
    runtime_->clock().advance(d);
    runtime_->settle();
  }

  // GET `path` from the master's runtime, parsed.
  json::Value get(const std::string& path) {
    std::string body;
    EXPECT_EQ(200, httpGet(runtime_->address(), path, &body)) << path;
    auto parsed = json::parse(body);
    EXPECT_TRUE(parsed.ok()) << path << ": " << body;
    return parsed.ok() ? *parsed : json::Value();
  }

  internal::master::MasterFlags flags_;
  process::Runtime::Options runtimeOptions_;  // start() pauses its clock
  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<internal::master::Master> master_;
  std::vector<process::Spawned<Peer>> peers_;
};

}  // namespace mesos::test
