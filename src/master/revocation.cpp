// Revocation: the allocator asks for resources to be freed for a framework
// below its guarantee; the master rescinds offers and kills tasks.
#include <glog/logging.h>

#include "master/master.hpp"

namespace mesos::internal::master {

void Master::revoke(const allocator::Revocation& revocation) {
  LOG(INFO) << "Revocation of " << revocation.amount.toString() << " from framework "
            << revocation.frameworkId.value() << " on slave " << revocation.slaveId.value()
            << " requested";
}

}  // namespace mesos::internal::master
