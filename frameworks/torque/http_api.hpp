// The server's HTTP/JSON interface, used by mesos-qsub, mesos-qstat and
// mesos-qdel (client.hpp):
//
//   GET    /status           the nodes held, job counts, offer state
//   GET    /jobs             {"jobs": [job...]}
//   POST   /jobs             submit (body: the qsub request); 201 {"id"}
//   GET    /jobs/ID          one job
//   GET    /jobs/ID/wait?timeout=S   the job once completed (or after S s)
//   DELETE /jobs/ID          qdel
//
// Errors are {"error": "..."} with 400 (bad request), 404 (unknown job) or
// 409 (the job already completed).
#pragma once

#include <httplib.h>

#include "torque/scheduler.hpp"

namespace mesos::frameworks::torque {

// Installs the routes above on `server`; `scheduler` is borrowed and must
// outlive the server.
void installRoutes(httplib::Server* server, TorqueScheduler* scheduler);

}  // namespace mesos::frameworks::torque
