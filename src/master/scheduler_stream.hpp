// The scheduler of a framework subscribed through the v1 HTTP API, as the
// master sees it (docs/scheduler-http-api.md).
#pragma once

#include <memory>
#include <string>

#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/http.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::internal::master {

// An actor in the master's runtime whose pid stands for the scheduler's:
// everything the master (and a slave) sends to the framework's pid comes
// here and goes out as a v1 Event, one RecordIO record ("<length>\n<bytes>")
// per chunk of the SUBSCRIBE call's streamed response. It also sends a
// HEARTBEAT every `heartbeat` once subscribed.
//
// It terminates itself when the client goes away or after an ERROR event
// (the master, which links to it, learns of it through exited()), or when
// told to close(); it never outlives the master's handle on it.
class SchedulerStream : public process::Actor {
 public:
  enum class Encoding { kProtobuf, kJson };

  SchedulerStream(process::UPID master, std::shared_ptr<process::http::Pipe> pipe,
                  Encoding encoding, process::Duration heartbeat);

  // The media type of the events ("application/x-protobuf" or
  // "application/json").
  static const char* mediaType(Encoding encoding);

  // Ends the stream and terminates: an ERROR event saying `error` first,
  // unless it is empty.
  void close(const std::string& error);

 protected:
  void initialize() override;
  void finalize() override;

 private:
  void registered(const process::UPID& from, const FrameworkRegisteredMessage& message);
  void reregistered(const process::UPID& from, const FrameworkReregisteredMessage& message);
  void offers(const process::UPID& from, const ResourceOffersMessage& message);
  void rescind(const process::UPID& from, const RescindResourceOfferMessage& message);
  // Maintenance (docs/maintenance.md): INVERSE_OFFERS, RESCIND_INVERSE_OFFER.
  void inverseOffers(const process::UPID& from, const InverseOffersMessage& message);
  void rescindInverse(const process::UPID& from, const RescindInverseOfferMessage& message);
  void update(const process::UPID& from, const StatusUpdateMessage& message);
  // UPDATE_OPERATION_STATUS (docs/reservations.md#operation-feedback).
  void operationStatus(const process::UPID& from, const UpdateOperationStatusMessage& message);
  void executorMessage(const process::UPID& from, const ExecutorToFrameworkMessage& message);
  void lostSlave(const process::UPID& from, const LostSlaveMessage& message);
  void exitedExecutor(const process::UPID& from, const ExitedExecutorMessage& message);
  void error(const process::UPID& from, const FrameworkErrorMessage& message);

  // SUBSCRIBED, then heartbeats.
  void subscribed(const FrameworkID& frameworkId, const MasterInfo& masterInfo);
  void heartbeat();
  // Writes `event` as one record; false when the client is gone.
  bool emit(const v1::scheduler::Event& event);
  // Only the master speaks for the cluster (a slave may send executor
  // messages).
  bool fromMaster(const process::UPID& from, const char* what) const;

  const process::UPID master_;
  std::shared_ptr<process::http::Pipe> pipe_;
  const Encoding encoding_;
  const process::Duration heartbeat_;
  bool subscribed_ = false;
};

}  // namespace mesos::internal::master
