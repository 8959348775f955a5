// The scheduler driver as Apache Mesos's example frameworks make it: with
// MESOS_AUTHENTICATE set in the environment (to anything), the framework
// authenticates with the master as DEFAULT_PRINCIPAL with DEFAULT_SECRET
// (and registers with that principal); without it, it does not
// authenticate.
#pragma once

#include <memory>
#include <string>

#include "mesos/scheduler.hpp"

namespace mesos::frameworks {

// The driver for `scheduler` (borrowed; it must outlive the driver). With
// MESOS_AUTHENTICATE set but DEFAULT_PRINCIPAL or DEFAULT_SECRET missing,
// prints "<program>: ..." naming the missing variable and exits with
// status 1.
std::unique_ptr<MesosSchedulerDriver> schedulerDriver(Scheduler* scheduler,
                                                      FrameworkInfo framework,
                                                      const std::string& master,
                                                      const std::string& program,
                                                      bool implicitAcknowledgements = true);

}  // namespace mesos::frameworks
