// Offer operations on resources (docs/reservations.md,
// docs/persistent-volumes.md): what RESERVE, UNRESERVE, CREATE and DESTROY
// take from a pool of resources and what they put back, checked. The master
// applies them to what it offered and to a slave's total; the slave applies
// the checkpointed result to what it was started with.
#pragma once

#include <string>

#include "mesos.pb.h"
#include "mesos/resources.hpp"
#include "mesos/result.hpp"

namespace mesos::operations {

// What an operation consumes from the pool and what it produces in its
// place. LAUNCH and LAUNCH_GROUP convert nothing (empty both).
struct Conversion {
  Resources consumed;
  Resources converted;
};

// The conversion of one RESERVE, UNRESERVE, CREATE or DESTROY, checked on its
// own (not against a pool): RESERVE's resources are dynamically reserved on
// top, without a volume; UNRESERVE's are dynamically reserved and not
// volumes; CREATE's volumes have a persistence id, a container path, mode RW
// and a reservation; DESTROY's are volumes. The error names the resource
// and what is wrong.
Result<Conversion> conversion(const Offer::Operation& operation);

// `pool` with the conversion applied, or an error naming what the pool
// lacks.
Result<Resources> apply(const Resources& pool, const Conversion& conversion);

// A slave's total after `conversion` of resources it holds (their
// allocation roles do not matter: a total has none).
Resources convertTotal(const Resources& total, const Conversion& conversion);

// A resource's form without what operations made of it: its dynamic
// reservations popped and its volume removed; what the slave was started
// with.
Resource stripped(const Resource& resource);

// What a slave checkpoints of its total: dynamically reserved resources and
// persistent volumes.
Resources checkpointable(const Resources& total);

// The slave's total from what it was started with (`declared`: --resources,
// statically reserved at most) and what it checkpointed: each checkpointed
// resource replaces its stripped form. Fails when `declared` no longer holds
// them (the slave was restarted with fewer resources).
Result<Resources> applyCheckpointed(const Resources& declared, const Resources& checkpointed);

// The persistence ids of the volumes in `resources`, for one role.
bool hasVolume(const Resources& resources, const std::string& role, const std::string& id);

}  // namespace mesos::operations
