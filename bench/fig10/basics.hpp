// Small things every benchmark process here needs: wall-clock time as the
// coordinator compares it across processes, scalar resources, and a stop
// handler for the signals a user or a harness sends.
#pragma once

#include <string>

#include "mesos.pb.h"

namespace fig10 {

// Seconds since the epoch (every process of a run shares the clock).
double wallTime();

// A SCALAR resource `name` of `value`.
mesos::Resource scalar(const std::string& name, double value);
// The sum of the offer's SCALAR resources called `name`.
double scalarOf(const mesos::Offer& offer, const std::string& name);

// Runs `handler` on SIGINT, SIGTERM and SIGHUP; SIGPIPE is ignored.
void onStopSignals(void (*handler)(int));

}  // namespace fig10
