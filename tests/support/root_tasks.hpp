// The ACLs under which test masters run tasks as root (the tests run as
// root, and so do their frameworks' tasks): one run_tasks rule naming root
// for every principal, the rule a master needs for that (docs/security.md,
// "Running as root"). tests/main.cpp puts it in MESOS_ACLS for every master
// a test starts as a process; in-process masters take it from here.
#pragma once

namespace mesos::test {

inline constexpr const char* kRootTasksAcls =
    R"({"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]})";

}  // namespace mesos::test
