#include "master/scheduler_stream.hpp"

#include <chrono>

#include <glog/logging.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using process::UPID;
using Event = v1::scheduler::Event;

SchedulerStream::SchedulerStream(UPID master, std::shared_ptr<process::http::Pipe> pipe,
                                 Encoding encoding, process::Duration heartbeat)
    : Actor(process::generateId("scheduler-stream")),
      master_(std::move(master)),
      pipe_(std::move(pipe)),
      encoding_(encoding),
      heartbeat_(heartbeat) {}

const char* SchedulerStream::mediaType(Encoding encoding) {
  return encoding == Encoding::kJson ? "application/json" : "application/x-protobuf";
}

void SchedulerStream::initialize() {
  on(&SchedulerStream::registered);
  on(&SchedulerStream::reregistered);
  on(&SchedulerStream::offers);
  on(&SchedulerStream::rescind);
  on(&SchedulerStream::inverseOffers);
  on(&SchedulerStream::rescindInverse);
  on(&SchedulerStream::update);
  on(&SchedulerStream::operationStatus);
  on(&SchedulerStream::executorMessage);
  on(&SchedulerStream::lostSlave);
  on(&SchedulerStream::exitedExecutor);
  on(&SchedulerStream::error);
  process::Pid<SchedulerStream> self(this->self());
  pipe_->onReaderGone([self] { process::dispatch(self, &SchedulerStream::close, std::string()); });
}

void SchedulerStream::finalize() { pipe_->close(); }

void SchedulerStream::close(const std::string& error) {
  if (!error.empty()) {
    Event event;
    event.set_type(Event::ERROR);
    event.mutable_error()->set_message(error);
    emit(event);
  }
  pipe_->close();
  terminate();
}

bool SchedulerStream::fromMaster(const UPID& from, const char* what) const {
  if (from == master_) return true;
  LOG(WARNING) << "Dropping " << what << " from " << from << " to " << self()
               << ": only the master " << master_ << " sends it";
  return false;
}

void SchedulerStream::registered(const UPID& from, const FrameworkRegisteredMessage& message) {
  if (fromMaster(from, "FrameworkRegisteredMessage")) {
    subscribed(message.framework_id(), message.master_info());
  }
}

void SchedulerStream::reregistered(const UPID& from,
                                   const FrameworkReregisteredMessage& message) {
  if (fromMaster(from, "FrameworkReregisteredMessage")) {
    subscribed(message.framework_id(), message.master_info());
  }
}

void SchedulerStream::subscribed(const FrameworkID& frameworkId, const MasterInfo& masterInfo) {
  Event event;
  event.set_type(Event::SUBSCRIBED);
  Event::Subscribed* subscribed = event.mutable_subscribed();
  *subscribed->mutable_framework_id() = evolve<v1::FrameworkID>(frameworkId);
  subscribed->set_heartbeat_interval_seconds(
      std::chrono::duration<double>(heartbeat_).count());
  *subscribed->mutable_master_info() = evolve<v1::MasterInfo>(masterInfo);
  if (!emit(event) || subscribed_) return;
  subscribed_ = true;
  delay(heartbeat_, [this] { heartbeat(); });
}

void SchedulerStream::heartbeat() {
  Event event;
  event.set_type(Event::HEARTBEAT);
  if (emit(event)) delay(heartbeat_, [this] { heartbeat(); });
}

void SchedulerStream::offers(const UPID& from, const ResourceOffersMessage& message) {
  if (!fromMaster(from, "ResourceOffersMessage")) return;
  Event event;
  event.set_type(Event::OFFERS);
  for (const Offer& offer : message.offers()) {
    *event.mutable_offers()->add_offers() = evolve<v1::Offer>(offer);
  }
  emit(event);
}

void SchedulerStream::rescind(const UPID& from, const RescindResourceOfferMessage& message) {
  if (!fromMaster(from, "RescindResourceOfferMessage")) return;
  Event event;
  event.set_type(Event::RESCIND);
  *event.mutable_rescind()->mutable_offer_id() = evolve<v1::OfferID>(message.offer_id());
  emit(event);
}

void SchedulerStream::inverseOffers(const UPID& from, const InverseOffersMessage& message) {
  if (!fromMaster(from, "InverseOffersMessage")) return;
  Event event;
  event.set_type(Event::INVERSE_OFFERS);
  for (const InverseOffer& offer : message.inverse_offers()) {
    *event.mutable_inverse_offers()->add_inverse_offers() = evolve<v1::InverseOffer>(offer);
  }
  emit(event);
}

void SchedulerStream::rescindInverse(const UPID& from,
                                     const RescindInverseOfferMessage& message) {
  if (!fromMaster(from, "RescindInverseOfferMessage")) return;
  Event event;
  event.set_type(Event::RESCIND_INVERSE_OFFER);
  *event.mutable_rescind_inverse_offer()->mutable_inverse_offer_id() =
      evolve<v1::OfferID>(message.inverse_offer_id());
  emit(event);
}

// The status carries the update's uuid exactly when the scheduler must
// acknowledge it (an update the master made itself has none).
void SchedulerStream::update(const UPID& from, const StatusUpdateMessage& message) {
  if (!fromMaster(from, "StatusUpdateMessage")) return;
  Event event;
  event.set_type(Event::UPDATE);
  v1::TaskStatus* status = event.mutable_update()->mutable_status();
  *status = evolve<v1::TaskStatus>(message.update().status());
  if (!status->has_agent_id() && message.update().has_slave_id()) {
    *status->mutable_agent_id() = evolve<v1::AgentID>(message.update().slave_id());
  }
  if (message.update().has_uuid()) {
    status->set_uuid(message.update().uuid());
  } else {
    status->clear_uuid();
  }
  emit(event);
}

void SchedulerStream::operationStatus(const UPID& from,
                                      const UpdateOperationStatusMessage& message) {
  if (!fromMaster(from, "UpdateOperationStatusMessage")) return;
  Event event;
  event.set_type(Event::UPDATE_OPERATION_STATUS);
  *event.mutable_update_operation_status()->mutable_status() =
      evolve<v1::OperationStatus>(message.status());
  emit(event);
}

void SchedulerStream::executorMessage(const UPID&, const ExecutorToFrameworkMessage& message) {
  Event event;
  event.set_type(Event::MESSAGE);
  Event::Message* out = event.mutable_message();
  *out->mutable_agent_id() = evolve<v1::AgentID>(message.slave_id());
  *out->mutable_executor_id() = evolve<v1::ExecutorID>(message.executor_id());
  out->set_data(message.data());
  emit(event);
}

void SchedulerStream::lostSlave(const UPID& from, const LostSlaveMessage& message) {
  if (!fromMaster(from, "LostSlaveMessage")) return;
  Event event;
  event.set_type(Event::FAILURE);
  *event.mutable_failure()->mutable_agent_id() = evolve<v1::AgentID>(message.slave_id());
  emit(event);
}

void SchedulerStream::exitedExecutor(const UPID& from, const ExitedExecutorMessage& message) {
  if (!fromMaster(from, "ExitedExecutorMessage")) return;
  Event event;
  event.set_type(Event::FAILURE);
  Event::Failure* failure = event.mutable_failure();
  *failure->mutable_agent_id() = evolve<v1::AgentID>(message.slave_id());
  *failure->mutable_executor_id() = evolve<v1::ExecutorID>(message.executor_id());
  failure->set_status(message.status());
  emit(event);
}

void SchedulerStream::error(const UPID& from, const FrameworkErrorMessage& message) {
  if (fromMaster(from, "FrameworkErrorMessage")) close(message.message());
}

bool SchedulerStream::emit(const Event& event) {
  std::string record =
      encoding_ == Encoding::kJson ? toJson(event) : event.SerializeAsString();
  return pipe_->write(std::to_string(record.size()) + "\n" + record);
}

}  // namespace mesos::internal::master
