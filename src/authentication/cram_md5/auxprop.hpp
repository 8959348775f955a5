// The in-memory auxiliary property plugin: how the SASL server finds a
// principal's secret ("userPassword") without a password database.
//
// Each master's secrets live in a Secrets object; a server connection is
// bound to one (bind()) for its lifetime, and the plugin's lookup answers
// from the secrets of the connection that asks. So masters sharing a
// process (tests, mesos-local) keep their own credentials.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <sasl/sasl.h>

#include "mesos/result.hpp"

namespace mesos::internal::authentication::cram_md5 {

// principal -> secret.
using Secrets = std::map<std::string, std::string>;

// The plugin's name, for the "auxprop_plugin" SASL option.
inline constexpr char kAuxpropPluginName[] = "in-memory-auxprop";

// Initialises the SASL server library and registers the plugin, once per
// process; later calls return the first call's outcome. Thread-safe.
Result<void> initializeServer();

// A SASL callback entry: SASL keeps every callback as int(*)(void) and
// calls it with the arguments its id implies.
template <typename F>
sasl_callback_t saslCallback(unsigned long id, F* proc, const void* context) {
  sasl_callback_t callback{};
  callback.id = id;
  callback.proc = reinterpret_cast<int (*)()>(reinterpret_cast<void (*)()>(proc));
  callback.context = const_cast<void*>(context);
  return callback;
}

// While bound, lookups on `connection` answer from `secrets`. Thread-safe.
void bind(sasl_conn_t* connection, std::shared_ptr<const Secrets> secrets);
void unbind(sasl_conn_t* connection);

}  // namespace mesos::internal::authentication::cram_md5
