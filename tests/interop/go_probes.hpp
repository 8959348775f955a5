// Where the interop tests find the Go probes that tests/interop/CMakeLists.txt
// builds, and why they were not built (empty when they were): the tests
// skip with that reason.
#pragma once

#ifndef MESOS_INTEROP_GO_BIN
#define MESOS_INTEROP_GO_BIN MESOS_BINARY_DIR "/tests/interop/go-bin"
#endif
#ifndef MESOS_INTEROP_GO_MISSING
#define MESOS_INTEROP_GO_MISSING ""
#endif
