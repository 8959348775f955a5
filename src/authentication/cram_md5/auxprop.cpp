#include "authentication/cram_md5/auxprop.hpp"

#include <sasl/saslplug.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

#include <glog/logging.h>

namespace mesos::internal::authentication::cram_md5 {

namespace {

std::mutex bindingsMutex;
std::unordered_map<sasl_conn_t*, std::shared_ptr<const Secrets>>& bindings() {
  static auto* map = new std::unordered_map<sasl_conn_t*, std::shared_ptr<const Secrets>>();
  return *map;
}

std::shared_ptr<const Secrets> secretsOf(sasl_conn_t* connection) {
  std::lock_guard<std::mutex> lock(bindingsMutex);
  auto it = bindings().find(connection);
  return it == bindings().end() ? nullptr : it->second;
}

// Fills the requested properties of `user` that we know: only the password
// ("userPassword"), which CRAM-MD5 needs in clear. Properties of the
// authentication id are the ones named with a leading '*'; an authorization
// lookup (SASL_AUXPROP_AUTHZID) asks for the others, which we do not keep.
int lookup(void* /*context*/, sasl_server_params_t* params, unsigned flags, const char* user,
           unsigned length) {
  if (params == nullptr || params->utils == nullptr || user == nullptr) return SASL_BADPARAM;
  const sasl_utils_t* utils = params->utils;
  const propval* properties = utils->prop_get(params->propctx);
  if (properties == nullptr) return SASL_OK;
  std::shared_ptr<const Secrets> secrets = secretsOf(utils->conn);
  if (secrets == nullptr) return SASL_OK;  // an unbound connection knows no one
  auto found = secrets->find(std::string(user, length));
  if (found == secrets->end()) return SASL_OK;  // SASL_NOUSER follows
  if ((flags & SASL_AUXPROP_AUTHZID) != 0) return SASL_OK;
  for (const propval* property = properties; property->name != nullptr; ++property) {
    if (property->name[0] != '*') continue;
    if (std::strcmp(property->name + 1, SASL_AUX_PASSWORD_PROP) != 0) continue;
    if (property->values != nullptr) {
      if ((flags & SASL_AUXPROP_OVERRIDE) == 0) continue;
      utils->prop_erase(params->propctx, property->name);
    }
    utils->prop_set(params->propctx, property->name, found->second.data(),
                    static_cast<int>(found->second.size()));
  }
  return SASL_OK;
}

sasl_auxprop_plug_t plugin = [] {
  sasl_auxprop_plug_t p{};
  p.auxprop_lookup = &lookup;
  p.name = const_cast<char*>(kAuxpropPluginName);
  return p;
}();

int initializePlugin(const sasl_utils_t* /*utils*/, int api, int* version,
                     sasl_auxprop_plug_t** plug, const char* /*name*/) {
  if (version == nullptr || plug == nullptr) return SASL_BADPARAM;
  if (api < SASL_AUXPROP_PLUG_VERSION) return SASL_BADVERS;
  *version = SASL_AUXPROP_PLUG_VERSION;
  *plug = &plugin;
  return SASL_OK;
}

}  // namespace

Result<void> initializeServer() {
  static std::once_flag once;
  static std::string* failure = new std::string();
  std::call_once(once, [] {
    int result = sasl_server_init(nullptr, "mesos");
    if (result != SASL_OK) {
      *failure = std::string("cannot initialise the SASL server library: ") +
                 sasl_errstring(result, nullptr, nullptr);
      return;
    }
    result = sasl_auxprop_add_plugin(kAuxpropPluginName, &initializePlugin);
    if (result != SASL_OK) {
      *failure = std::string("cannot add the in-memory SASL auxprop plugin: ") +
                 sasl_errstring(result, nullptr, nullptr);
    }
  });
  if (!failure->empty()) return Error{*failure};
  return {};
}

void bind(sasl_conn_t* connection, std::shared_ptr<const Secrets> secrets) {
  std::lock_guard<std::mutex> lock(bindingsMutex);
  bindings()[connection] = std::move(secrets);
}

void unbind(sasl_conn_t* connection) {
  std::lock_guard<std::mutex> lock(bindingsMutex);
  bindings().erase(connection);
}

}  // namespace mesos::internal::authentication::cram_md5
