// Offer operations at the master (docs/reservations.md,
// docs/persistent-volumes.md, docs/task-groups.md) against stand-in
// schedulers and slaves, on the paused clock: RESERVE, UNRESERVE, CREATE,
// DESTROY, LAUNCH and LAUNCH_GROUP in one ACCEPT, checked as a whole.
#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class OperationsTest : public MasterFixture {
 protected:
  void SetUp() override { start(); }

  Offer lastOffer(Peer& scheduler) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offers";
    CHECK_GT(offers.back().offers_size(), 0);
    return offers.back().offers(0);
  }

  static std::vector<TaskStatus> statuses(Peer& scheduler, const std::string& taskId) {
    std::vector<TaskStatus> out;
    for (const auto& m : scheduler.received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == taskId) out.push_back(m.update().status());
    }
    return out;
  }

  // `text` (the --resources syntax) dynamically reserved for `role` by
  // `principal`.
  static Resources reserved(const std::string& text, const std::string& role,
                            const std::string& principal) {
    Resources out;
    const Resources plain = Resources::parse(text).value();
    for (Resource resource : plain) {
      resource.set_role(role);
      resource.mutable_reservation()->set_principal(principal);
      out += resource;
    }
    return out;
  }

  // A persistent volume `id` at `path` on `mb` of disk reserved as above.
  static Resource volume(const std::string& id, const std::string& path, double mb,
                         const std::string& role, const std::string& principal) {
    Resource disk = *reserved("disk:" + std::to_string(mb), role, principal).begin();
    disk.mutable_disk()->mutable_persistence()->set_id(id);
    disk.mutable_disk()->mutable_volume()->set_container_path(path);
    disk.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
    return disk;
  }

  static Offer::Operation reserve(const Resources& resources) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::RESERVE);
    *operation.mutable_reserve()->mutable_resources() = resources.proto();
    return operation;
  }
  static Offer::Operation unreserve(const Resources& resources) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::UNRESERVE);
    *operation.mutable_unreserve()->mutable_resources() = resources.proto();
    return operation;
  }
  static Offer::Operation create(const Resource& volume) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::CREATE);
    *operation.mutable_create()->add_volumes() = volume;
    return operation;
  }
  static Offer::Operation destroy(const Resource& volume) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::DESTROY);
    *operation.mutable_destroy()->add_volumes() = volume;
    return operation;
  }
  static Offer::Operation launch(const std::vector<TaskInfo>& tasks) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::LAUNCH);
    for (const TaskInfo& task : tasks) *operation.mutable_launch()->add_task_infos() = task;
    return operation;
  }

  void accept(Peer& scheduler, const FrameworkID& frameworkId, const OfferID& offerId,
              const std::vector<Offer::Operation>& operations, double refuseSeconds = 0) {
    scheduler::Call call;
    *call.mutable_framework_id() = frameworkId;
    call.set_type(scheduler::Call::ACCEPT);
    *call.mutable_accept()->add_offer_ids() = offerId;
    for (const auto& operation : operations) *call.mutable_accept()->add_operations() = operation;
    call.mutable_accept()->mutable_filters()->set_refuse_seconds(refuseSeconds);
    scheduler.post(master(), call);
    runtime_->settle();
  }

  // A framework of role "eng" with principal "ops", and a slave.
  void cluster(const std::string& resources = "cpus:4;mem:4096;disk:1000") {
    s_ = &scheduler("scheduler(1)");
    a_ = &slave("slave(1)");
    FrameworkInfo info = frameworkInfo("test", "eng");
    info.set_principal("ops");
    frameworkId_ = registerFramework(*s_, info);
    slaveId_ = registerSlave(*a_, resources);
  }

  // Every offer the scheduler got since, summed.
  Resources offeredNow() { return Resources(lastOffer(*s_).resources()); }

  // POST `path` with a form body, as `auth` (an Authorization header line,
  // or nothing).
  HttpResponse post(const std::string& path, const std::string& body,
                    const std::string& auth = "") {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write("POST " + path + " HTTP/1.1\r\nHost: test\r\n" + auth +
                           "Content-Type: application/x-www-form-urlencoded\r\n"
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << path;
    runtime_->settle();
    return response ? *response : HttpResponse{};
  }

  // A form field holding `resources` as a JSON array (URL-encoded).
  static std::string field(const std::string& name, const Resources& resources) {
    std::string array = "[";
    for (const Resource& resource : resources) {
      if (array.size() > 1) array += ",";
      array += toJson(resource);
    }
    array += "]";
    std::string encoded;
    for (char c : array) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        encoded += c;
      } else {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
        encoded += hex;
      }
    }
    return name + "=" + encoded;
  }

  Peer* s_ = nullptr;
  Peer* a_ = nullptr;
  FrameworkID frameworkId_;
  SlaveID slaveId_;
};

TEST_F(OperationsTest, ReserveAndLaunchOnTheReservationInOneAccept) {
  cluster();
  Offer offer = lastOffer(*s_);
  Resources wanted = reserved("cpus:2;mem:1024", "eng", "ops");
  TaskInfo task = commandTask("t1", slaveId_, "cpus:1;mem:512");
  *task.mutable_resources() = reserved("cpus:1;mem:512", "eng", "ops").proto();
  accept(*s_, frameworkId_, offer.id(), {reserve(wanted), launch({task})});

  // The slave checkpoints the reservation before it runs the task on it.
  auto checkpoints = a_->received<CheckpointResourcesMessage>();
  ASSERT_EQ(1u, checkpoints.size());
  EXPECT_TRUE(Resources(checkpoints[0].resources()) == wanted)
      << Resources(checkpoints[0].resources()).toString();
  auto order = a_->order();
  auto at = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  EXPECT_LT(at("mesos.internal.CheckpointResourcesMessage"), at("mesos.internal.RunTaskMessage"));
  ASSERT_EQ(1u, a_->count<RunTaskMessage>());

  // What the task does not use comes back, the reserved part still
  // reserved for "eng" by "ops".
  advance(1s);
  Resources again = offeredNow();
  EXPECT_TRUE(again.contains(reserved("cpus:1;mem:512", "eng", "ops"))) << again.toString();
  EXPECT_EQ(3, again.scalar("cpus"));
  auto metrics = get("/metrics/snapshot");
  EXPECT_EQ(1, metrics["master/operations/finished"].number());
}

// /master/state shows a slave's reservations as they are after each
// operation, not as they were when it was last rendered.
TEST_F(OperationsTest, TheStateShowsReservationsAsSoonAsTheyChange) {
  cluster();
  auto slaveState = [&] {
    json::Value slaves = get("/master/state")["slaves"];
    return slaves.isArray() && slaves.array().size() == 1 ? slaves.array().at(0) : json::Value();
  };
  auto number = [](const json::Value& value) { return value.isNumber() ? value.number() : -1; };
  json::Value before = slaveState();  // rendered (and kept) with nothing reserved
  ASSERT_TRUE(before["reserved_resources"].isObject());
  EXPECT_TRUE(before["reserved_resources"].object().empty());

  accept(*s_, frameworkId_, lastOffer(*s_).id(),
         {reserve(reserved("cpus:1;disk:100", "eng", "ops"))});
  json::Value s = slaveState();
  EXPECT_EQ(1, number(s["reserved_resources"]["eng"]["cpus"])) << json::stringify(s);
  EXPECT_EQ(100, number(s["reserved_resources"]["eng"]["disk"])) << json::stringify(s);
  EXPECT_EQ(3, number(s["unreserved_resources"]["cpus"])) << json::stringify(s);

  advance(1s);
  accept(*s_, frameworkId_, lastOffer(*s_).id(),
         {unreserve(reserved("cpus:1;disk:100", "eng", "ops"))});
  ASSERT_EQ(2u, a_->count<CheckpointResourcesMessage>());
  s = slaveState();
  EXPECT_TRUE(s["reserved_resources"].isObject() && s["reserved_resources"].object().empty())
      << json::stringify(s);
  EXPECT_EQ(4, number(s["unreserved_resources"]["cpus"])) << json::stringify(s);
}

TEST_F(OperationsTest, InvalidOperationsRefuseTheWholeAcceptNamingEveryProblem) {
  cluster();
  Offer offer = lastOffer(*s_);
  TaskInfo task = commandTask("t1", slaveId_, "cpus:1;mem:512");
  accept(*s_, frameworkId_, offer.id(),
         {reserve(reserved("cpus:1", "prod", "ops")),            // not the framework's role
          reserve(reserved("mem:512", "eng", "mallory")),        // another principal
          unreserve(Resources::parse("cpus:1").value()),         // not reserved
          launch({task})});
  auto got = statuses(*s_, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_ERROR, got[0].state());
  const std::string& message = got[0].message();
  EXPECT_NE(std::string::npos, message.find("nothing in it applied")) << message;
  EXPECT_NE(std::string::npos, message.find("role 'prod'")) << message;
  EXPECT_NE(std::string::npos, message.find("'mallory'")) << message;
  EXPECT_NE(std::string::npos, message.find("not dynamically reserved")) << message;
  EXPECT_EQ(0u, a_->count<CheckpointResourcesMessage>());
  EXPECT_EQ(0u, a_->count<RunTaskMessage>());
  // The offer came back whole and unreserved, unfiltered.
  advance(1s);
  Resources again = offeredNow();
  EXPECT_TRUE(again == Resources::parse("cpus:4;mem:4096;disk:1000").value()) << again.toString();
  EXPECT_EQ(3, get("/metrics/snapshot")["master/operations/error"].number());
}

TEST_F(OperationsTest, AnOperationOfUnknownTypeIsRefusedByName) {
  cluster();
  Offer offer = lastOffer(*s_);
  Offer::Operation unknown = launch({commandTask("t1", slaveId_)});
  unknown.clear_type();
  Offer::Operation good = launch({commandTask("t2", slaveId_)});
  accept(*s_, frameworkId_, offer.id(), {good, unknown});
  // The unknown operation's task is not launched silently, nor the other.
  EXPECT_EQ(0u, a_->count<RunTaskMessage>());
  auto got = statuses(*s_, "t2");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_ERROR, got[0].state());
  EXPECT_NE(std::string::npos, got[0].message().find("operation 2 (UNKNOWN): unknown operation"))
      << got[0].message();
}

TEST_F(OperationsTest, VolumesAreCreatedOnceDestroyedWhenUnusedAndNeverUnreserved) {
  cluster();
  Resource vol = volume("data", "data", 100, "eng", "ops");
  // Reserve disk and create a volume on it in one call.
  accept(*s_, frameworkId_, lastOffer(*s_).id(),
         {reserve(reserved("disk:500", "eng", "ops")), create(vol)});
  auto checkpoints = a_->received<CheckpointResourcesMessage>();
  ASSERT_EQ(1u, checkpoints.size());
  Resources checkpointed(checkpoints[0].resources());
  EXPECT_TRUE(checkpointed.contains(Resources(vol))) << checkpointed.toString();
  EXPECT_EQ(500, checkpointed.scalar("disk"));

  advance(1s);
  Resources offered = offeredNow();
  ASSERT_TRUE(offered.contains(Resources(vol))) << offered.toString();

  // A second volume of the same id is refused; so is unreserving a volume.
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {create(volume("data", "other", 50, "eng", "ops"))});
  advance(1s);
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {unreserve(Resources(vol))});
  EXPECT_EQ(1u, a_->count<CheckpointResourcesMessage>());

  // A task on the volume: while it runs, DESTROY is refused.
  advance(1s);
  TaskInfo task = commandTask("writer", slaveId_, "cpus:1;mem:128");
  *task.add_resources() = vol;
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {launch({task})});
  ASSERT_EQ(1u, a_->count<RunTaskMessage>());
  advance(1s);
  TaskInfo probe = commandTask("probe", slaveId_, "cpus:0.1;mem:16");
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {destroy(vol), launch({probe})});
  auto refused = statuses(*s_, "probe");
  ASSERT_EQ(1u, refused.size());
  EXPECT_NE(std::string::npos, refused[0].message().find("volume 'data' is in use by a task"))
      << refused[0].message();

  // The task ends; the volume is offered again, and DESTROY frees the disk.
  a_->post(master(), update(frameworkId_, slaveId_, "writer", TASK_FINISHED, *a_));
  runtime_->settle();
  advance(1s);
  offered = offeredNow();
  ASSERT_TRUE(offered.contains(Resources(vol))) << offered.toString();
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {destroy(vol)});
  checkpoints = a_->received<CheckpointResourcesMessage>();
  ASSERT_EQ(2u, checkpoints.size());
  Resources after(checkpoints[1].resources());
  EXPECT_EQ(500, after.scalar("disk")) << after.toString();
  for (const Resource& resource : after) EXPECT_FALSE(resource.disk().has_persistence());
}

TEST_F(OperationsTest, ATaskGroupLaunchesWhole) {
  cluster();
  ExecutorInfo executor;
  executor.set_type(ExecutorInfo::DEFAULT);
  executor.mutable_executor_id()->set_value("group-executor");
  *executor.mutable_resources() = Resources::parse("cpus:0.1;mem:32").value().proto();
  Offer::Operation group;
  group.set_type(Offer::Operation::LAUNCH_GROUP);
  *group.mutable_launch_group()->mutable_executor() = executor;
  *group.mutable_launch_group()->mutable_task_group()->add_tasks() =
      commandTask("a", slaveId_, "cpus:1;mem:128");
  *group.mutable_launch_group()->mutable_task_group()->add_tasks() =
      commandTask("b", slaveId_, "cpus:1;mem:128");
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {group});
  auto runs = a_->received<RunTaskGroupMessage>();
  ASSERT_EQ(1u, runs.size());
  EXPECT_EQ(2, runs[0].task_group().tasks_size());
  EXPECT_EQ("group-executor", runs[0].executor().executor_id().value());
  EXPECT_EQ(frameworkId_.value(), runs[0].executor().framework_id().value());
  EXPECT_EQ(0u, a_->count<RunTaskMessage>());
  auto state = get("/state");
  EXPECT_EQ(2u, state["frameworks"].array().at(0)["tasks"].array().size());

  // A group with one task too big: none of it runs, every task hears why.
  advance(1s);
  *group.mutable_launch_group()->mutable_task_group()->mutable_tasks(0) =
      commandTask("c", slaveId_, "cpus:1;mem:128");
  *group.mutable_launch_group()->mutable_task_group()->mutable_tasks(1) =
      commandTask("d", slaveId_, "cpus:100;mem:128");
  group.mutable_launch_group()->mutable_executor()->mutable_executor_id()->set_value("other");
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {group});
  EXPECT_EQ(1u, a_->count<RunTaskGroupMessage>());
  for (const std::string id : {"c", "d"}) {
    auto got = statuses(*s_, id);
    ASSERT_EQ(1u, got.size()) << id;
    EXPECT_EQ(TASK_ERROR, got[0].state());
    EXPECT_EQ(TaskStatus::REASON_TASK_GROUP_INVALID, got[0].reason());
    EXPECT_NE(std::string::npos, got[0].message().find("task 'd'")) << got[0].message();
  }
}

TEST_F(OperationsTest, ADefaultExecutorRunsOnlyGroupsAndACustomOneNeedsACommand) {
  cluster();
  TaskInfo task = commandTask("t1", slaveId_);
  task.clear_command();
  task.mutable_executor()->mutable_executor_id()->set_value("e");
  task.mutable_executor()->set_type(ExecutorInfo::DEFAULT);
  TaskInfo noCommand = commandTask("t2", slaveId_);
  noCommand.clear_command();
  noCommand.mutable_executor()->mutable_executor_id()->set_value("f");
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {launch({task, noCommand})});
  auto first = statuses(*s_, "t1");
  ASSERT_EQ(1u, first.size());
  EXPECT_NE(std::string::npos, first[0].message().find("DEFAULT runs only task groups"));
  auto second = statuses(*s_, "t2");
  ASSERT_EQ(1u, second.size());
  EXPECT_NE(std::string::npos, second[0].message().find("needs a CommandInfo"));
}

TEST_F(OperationsTest, ASlaveThatCheckpointedAReservationIsOfferedIt) {
  s_ = &scheduler("scheduler(1)");
  a_ = &slave("slave(1)");
  FrameworkInfo info = frameworkInfo("test", "eng");
  info.set_principal("ops");
  frameworkId_ = registerFramework(*s_, info);
  RegisterSlaveMessage message;
  message.mutable_slave()->set_hostname("a.example");
  *message.mutable_slave()->mutable_resources() =
      Resources::parse("cpus:4;mem:4096;disk:1000").value().proto();
  Resources kept = reserved("cpus:1;disk:200", "eng", "ops");
  *message.mutable_checkpointed_resources() = kept.proto();
  message.set_version("1.0.0");
  a_->post(master(), message);
  runtime_->settle();
  Resources offered = offeredNow();
  EXPECT_TRUE(offered.contains(kept)) << offered.toString();
  EXPECT_EQ(4, offered.scalar("cpus"));
  EXPECT_EQ(1000, offered.scalar("disk"));
}

TEST_F(OperationsTest, OperationFeedbackNeedsTheV1Api) {
  cluster();
  Offer::Operation operation = reserve(reserved("cpus:1", "eng", "ops"));
  operation.mutable_id()->set_value("op-1");
  TaskInfo task = commandTask("t1", slaveId_, "cpus:1;mem:64");
  accept(*s_, frameworkId_, lastOffer(*s_).id(), {operation, launch({task})});
  auto got = statuses(*s_, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_NE(std::string::npos, got[0].message().find("needs the v1 scheduler API"));
  EXPECT_EQ(0u, a_->count<CheckpointResourcesMessage>());
}

TEST_F(OperationsTest, AnOperatorReservesAndMakesVolumesOfFreeResources) {
  cluster();
  const std::string slave = "slaveId=" + slaveId_.value() + "&";
  // The framework holds the whole slave in an offer: the operator's
  // reservation takes it back first.
  Resources wanted = reserved("cpus:1;disk:300", "eng", "ops");
  HttpResponse reserve = post("/master/reserve", slave + field("resources", wanted));
  EXPECT_EQ(202, reserve.status) << reserve.body;
  EXPECT_EQ(1u, s_->count<RescindResourceOfferMessage>());
  auto checkpoints = a_->received<CheckpointResourcesMessage>();
  ASSERT_EQ(1u, checkpoints.size());
  EXPECT_TRUE(Resources(checkpoints[0].resources()) == wanted);
  advance(1s);
  EXPECT_TRUE(offeredNow().contains(wanted)) << offeredNow().toString();

  // More than the slave has: 409; offered to nobody else meanwhile.
  EXPECT_EQ(409, post("/master/reserve",
                      slave + field("resources", reserved("cpus:100", "eng", "ops"))).status);
  // Malformed: 400, naming the field.
  HttpResponse bad = post("/master/reserve", slave + "resources=%5B%7B");
  EXPECT_EQ(400, bad.status);
  EXPECT_NE(std::string::npos, bad.body.find("'resources'")) << bad.body;
  EXPECT_EQ(400, post("/master/reserve", "slaveId=nope&" + field("resources", wanted)).status);

  // A volume on the reservation, once; then destroyed, then unreserved.
  Resource vol = volume("db", "db", 100, "eng", "ops");
  EXPECT_EQ(202, post("/master/create-volumes", slave + field("volumes", Resources(vol))).status);
  HttpResponse twice = post("/master/create-volumes", slave + field("volumes", Resources(vol)));
  EXPECT_EQ(409, twice.status);
  EXPECT_NE(std::string::npos, twice.body.find("exists already")) << twice.body;
  EXPECT_EQ(202, post("/master/destroy-volumes", slave + field("volumes", Resources(vol))).status);
  EXPECT_EQ(202, post("/master/unreserve", slave + field("resources", wanted)).status);
  checkpoints = a_->received<CheckpointResourcesMessage>();
  ASSERT_EQ(4u, checkpoints.size());
  EXPECT_EQ(0, checkpoints.back().resources_size());
  advance(1s);
  EXPECT_TRUE(offeredNow() == Resources::parse("cpus:4;mem:4096;disk:1000").value())
      << offeredNow().toString();
}

// As Apache Mesos: a slave that does not declare HIERARCHICAL_ROLE holds
// no reservation or volume of a hierarchical role, one without
// RESERVATION_REFINEMENT no refined reservation; the operator is told why.
TEST_F(OperationsTest, ASlaveWithoutTheRoleCapabilitiesHoldsNoHierarchicalOrRefinedReservation) {
  Peer& old = slave("old");
  SlaveID oldId =
      registerSlave(old, "cpus:4;mem:4096;disk:1000", {SlaveInfo::Capability::AGENT_DRAINING});
  const std::string atOld = "slaveId=" + oldId.value() + "&";
  HttpResponse hierarchical =
      post("/master/reserve", atOld + field("resources", reserved("cpus:1", "eng/web", "ops")));
  EXPECT_EQ(409, hierarchical.status);
  EXPECT_NE(std::string::npos, hierarchical.body.find("which does not declare HIERARCHICAL_ROLE"))
      << hierarchical.body;
  // eng's reservation is fine there; a volume of eng/web on it is not.
  Resources eng = reserved("disk:300", "eng", "ops");
  ASSERT_EQ(202, post("/master/reserve", atOld + field("resources", eng)).status);
  Resource volume = *eng.begin();
  volume.mutable_disk()->mutable_persistence()->set_id("db");
  volume.mutable_disk()->mutable_volume()->set_container_path("db");
  volume.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
  Resource::ReservationInfo web;
  web.set_type(Resource::ReservationInfo::DYNAMIC);
  web.set_role("eng/web");
  web.set_principal("ops");
  HttpResponse volumeRefused =
      post("/master/create-volumes",
           atOld + field("volumes", Resources(Resources::pushReservation(volume, web))));
  EXPECT_EQ(409, volumeRefused.status);
  EXPECT_NE(std::string::npos, volumeRefused.body.find("create volume 'db' for hierarchical role"))
      << volumeRefused.body;

  // A slave that takes hierarchical roles but not refinement.
  Peer& half = slave("half");
  SlaveID halfId = registerSlave(
      half, "cpus:4;mem:4096",
      {SlaveInfo::Capability::HIERARCHICAL_ROLE, SlaveInfo::Capability::AGENT_DRAINING});
  const std::string atHalf = "slaveId=" + halfId.value() + "&";
  Resources engCpu = reserved("cpus:1", "eng", "ops");
  ASSERT_EQ(202, post("/master/reserve", atHalf + field("resources", engCpu)).status);
  EXPECT_EQ(
      202, post("/master/reserve", atHalf + field("resources", reserved("cpus:1", "eng/db", "ops")))
               .status);
  HttpResponse refined = post(
      "/master/reserve",
      atHalf + field("resources", Resources(Resources::pushReservation(*engCpu.begin(), web))));
  EXPECT_EQ(409, refined.status);
  EXPECT_NE(std::string::npos, refined.body.find("which does not declare RESERVATION_REFINEMENT"))
      << refined.body;
  EXPECT_NE(std::string::npos, refined.body.find("refining the reservation of 'eng'"))
      << refined.body;
  // Neither refusal reached a slave.
  EXPECT_EQ(1u, old.count<CheckpointResourcesMessage>());
  EXPECT_EQ(2u, half.count<CheckpointResourcesMessage>());
}

TEST_F(OperationsTest, TheAclsSayWhoReservesForWhichRole) {
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.http_credentials =
      R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                          {"principal": "alice", "secret": "alice-secret"}]})";
  flags_.security.acls = R"({"reserve_resources": [
      {"principals": {"values": ["ops"]}, "roles": {"values": ["eng"]}},
      {"principals": {"type": "ANY"}, "roles": {"type": "NONE"}}]})";
  start();
  a_ = &slave("slave(1)");
  slaveId_ = registerSlave(*a_, "cpus:4;mem:4096");
  const std::string slave = "slaveId=" + slaveId_.value() + "&";
  const std::string ops = "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
  const std::string alice = "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
  EXPECT_EQ(401, post("/master/reserve", slave + field("resources", reserved("cpus:1", "eng", "ops")))
                     .status);
  HttpResponse refused =
      post("/master/reserve", slave + field("resources", reserved("cpus:1", "eng", "alice")), alice);
  EXPECT_EQ(403, refused.status);
  EXPECT_NE(std::string::npos, refused.body.find("reserve_resources")) << refused.body;
  // The reservation's principal must be the one who asks.
  EXPECT_EQ(409, post("/master/reserve",
                      slave + field("resources", reserved("cpus:1", "eng", "alice")), ops)
                     .status);
  EXPECT_EQ(202, post("/master/reserve",
                      slave + field("resources", reserved("cpus:1", "eng", "ops")), ops)
                     .status);
  EXPECT_EQ(403, post("/master/reserve",
                      slave + field("resources", reserved("cpus:1", "prod", "ops")), ops)
                     .status);
  EXPECT_EQ(1u, a_->count<CheckpointResourcesMessage>());
}

}  // namespace
}  // namespace mesos::test
