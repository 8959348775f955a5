// Stop signals for daemons: SIGINT and SIGTERM are taken by one thread with
// sigwait(), so a stop runs as an orderly shutdown of the actors instead of
// interrupting whatever thread the signal would land on.
#pragma once

namespace process {

// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it
// starts afterwards (call it first in main(), before creating a runtime), and
// ignores SIGPIPE (a peer closing a socket must not kill the process).
void blockStopSignals();

// Waits for SIGINT or SIGTERM; returns which. REQUIRES: blockStopSignals().
int awaitStopSignal();

}  // namespace process
