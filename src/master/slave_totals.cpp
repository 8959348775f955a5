// A slave's total resources (Slave::total) change only here.
//
// Invariants:
//  - At (re-)registration the total is the slave's declared resources with
//    the reservations and volumes it checkpointed (withCheckpointed()).
//  - Afterwards only a conversion changes it (convert(): RESERVE, UNRESERVE,
//    CREATE, DESTROY of an ACCEPT or of an operator), of resources that were
//    offered to the framework or, for an operator, free (the allocator took
//    them out of its free pool first: updateAvailable). A conversion never
//    touches resources in use, so what tasks and executors use stays within
//    the total; and it changes reservations and volumes, never amounts, so
//    the cluster's total stays the sum of what slaves declared.
//  - The allocator hears of each conversion (updateAllocation,
//    updateAvailable) from the code that applies it, before the resources
//    converted can come back to it.
//  - The slave is told what to checkpoint (checkpointOn(): its dynamic
//    reservations and volumes) after the conversions of a call and before
//    any task of that call that may use them; again when it re-registers
//    reporting something else.
#include <glog/logging.h>

#include "common/operations.hpp"
#include "master/master.hpp"

namespace mesos::internal::master {

void Master::withCheckpointed(Slave& s,
                              const google::protobuf::RepeatedPtrField<Resource>& checkpointed) {
  if (checkpointed.empty()) return;
  if (auto valid = Resources::validate(checkpointed); !valid) {
    LOG(WARNING) << "Slave " << s.id.value()
                 << " checkpointed invalid resources; ignoring them: " << valid.error().message;
    return;
  }
  auto total = operations::applyCheckpointed(s.total, Resources(checkpointed));
  if (!total) {
    LOG(WARNING) << "Slave " << s.id.value()
                 << ": ignoring its checkpointed resources: " << total.error().message;
    return;
  }
  registry_.setTotal(s, *total);
}

void Master::convert(Slave& slave, const operations::Conversion& conversion) {
  registry_.setTotal(slave, operations::convertTotal(slave.total, conversion));
}

void Master::checkpointOn(Slave& slave) {
  CheckpointResourcesMessage checkpoint;
  for (const Resource& resource : operations::checkpointable(slave.total)) {
    *checkpoint.add_resources() = resource;
  }
  send(slave.pid, std::move(checkpoint));
}

}  // namespace mesos::internal::master
