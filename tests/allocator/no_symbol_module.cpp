// A shared library that loads but is not an allocator module: it exports a
// function, but not mesos_allocator_create_v1 (as a module built for another
// version of the ABI would). tests/allocator/module_test.cpp loads it.
extern "C" __attribute__((visibility("default"))) int mesos_allocator_create_v0() { return 0; }
