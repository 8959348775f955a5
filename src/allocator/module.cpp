// Loading an allocator module: --allocator=/path/to/module.so (see
// docs/allocation-modules.md for the ABI and how to build one).
#include <dlfcn.h>

#include <exception>

#include "allocator/factory.hpp"

namespace mesos::allocator {

namespace {

std::string lastDlError() {
  const char* text = ::dlerror();
  return text != nullptr ? text : "unknown error";
}

}  // namespace

Result<std::unique_ptr<Allocator>> loadModule(const std::string& path, const Config& config) {
  const std::string prefix = "--allocator: module '" + path + "' ";

  // RTLD_NOW: a module built against another tree (a symbol the host does not
  // export) fails here, with the missing symbol named, instead of at its first
  // call. RTLD_LOCAL: two modules' symbols never resolve against each other.
  //
  // The handle is never closed, on success or failure: on success the
  // allocator's code and vtable live in the library; on failure its static
  // initialisers may already have registered things with the host.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Error{prefix + "cannot be loaded: " + lastDlError()};

  ::dlerror();  // clear, so that a null symbol is told apart from an error
  void* symbol = ::dlsym(handle, MESOS_ALLOCATOR_FACTORY_SYMBOL);
  if (symbol == nullptr) {
    return Error{prefix + "is not an allocator module: it does not export " +
                 MESOS_ALLOCATOR_FACTORY_SYMBOL + " (extern \"C\")"};
  }
  auto factory = reinterpret_cast<AllocatorFactory>(symbol);

  std::string error;
  Allocator* allocator = nullptr;
  try {
    allocator = factory(&config, &error);
  } catch (const std::exception& e) {
    return Error{prefix + "failed to initialise: its factory threw: " + e.what()};
  } catch (...) {
    return Error{prefix + "failed to initialise: its factory threw a non-standard exception"};
  }
  if (allocator == nullptr) {
    if (error.empty()) error = "no reason given";
    // The reason is shown on one line, however the module wrote it.
    for (char& c : error) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return Error{prefix + "failed to initialise: " + error};
  }
  return std::unique_ptr<Allocator>(allocator);
}

}  // namespace mesos::allocator
