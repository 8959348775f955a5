// An operator's offer operations (docs/reservations.md,
// docs/persistent-volumes.md): POST /master/reserve, /unreserve,
// /create-volumes, /destroy-volumes (Apache's form-encoded requests) and the
// v1 calls RESERVE_RESOURCES, UNRESERVE_RESOURCES, CREATE_VOLUMES,
// DESTROY_VOLUMES (operator_api.cpp) all come to operate(). It works on a
// slave's free resources: the slave's outstanding offers are rescinded
// first (their resources come back to the allocator), then the allocator
// converts the resources if they are still free, or the request gets 409.
#include <glog/logging.h>

#include "common/operations.hpp"
#include "common/protobuf_json.hpp"
#include "master/master.hpp"
#include "master/media_types.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using authorizer::describe;
using media::answer;
using process::Future;
using process::http::Request;
using process::http::Response;

Future<Response> Master::operate(const std::optional<std::string>& principal,
                                 const std::string& slaveId, const Offer::Operation& operation) {
  const std::string type = Offer::Operation::Type_Name(operation.type());
  Slave* s = slave(slaveId);
  if (s == nullptr) return answer(400, "No agent found with specified ID '" + slaveId + "'");
  auto conversion = operations::conversion(operation);
  if (!conversion) return answer(400, "Invalid " + type + " operation: " + conversion.error().message);
  if (auto allowed = checkOperation(principal, nullptr, true, *s, operation, s->total); !allowed) {
    bool forbidden = allowed.error().message.find("(ACL ") != std::string::npos;
    LOG(WARNING) << "Refusing " << type << " on agent " << slaveId << " for "
                 << describe(principal) << ": " << allowed.error().message;
    if (forbidden) return authentication::EndpointGuard::forbidden(allowed.error().message);
    return answer(409, "Invalid " + type + " operation: " + allowed.error().message);
  }
  if (!s->total.contains(conversion->consumed)) {
    return answer(409, "Invalid " + type + " operation: agent " + slaveId + " does not have " +
                           conversion->consumed.toString() + " (its resources are " +
                           s->total.toString() + ")");
  }
  // What is offered is taken back first, so that it can be converted.
  offers_.rescindOn(*s);
  SlaveID id = s->id;
  return process::dispatch(allocator_.pid(), &AllocatorActor::updateAvailable, id,
                           conversion->consumed, conversion->converted)
      .then(self(), [this, id, type, principal, conversion = *conversion](bool done) -> Response {
        Slave* s = slave(id.value());
        if (s == nullptr) return answer(409, "Agent " + id.value() + " is gone");
        if (!done) {
          return answer(409, "Invalid " + type + " operation: the agent's free resources do not "
                                 "hold " + conversion.consumed.toString() +
                                 " (they are used by tasks, or offered again)");
        }
        LOG(INFO) << "Applied " << type << " on agent " << id.value() << " for "
                  << describe(principal) << ": " << conversion.consumed.toString() << " -> "
                  << conversion.converted.toString();
        metrics_.operationsFinished++;
        convert(*s, conversion);
        checkpointOn(*s);
        return Response{202, "text/plain", "", {}};
      });
}

Future<Response> Master::operationEndpoint(const Request& request, Offer::Operation::Type type) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  if (!leading_) {
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += request.path;
    return redirect;
  }
  Request form;
  form.query = request.body;
  auto values = form.queryParameters();
  auto slaveId = values.find("slaveId");
  if (slaveId == values.end()) {
    return answer(400, "Missing 'slaveId' query parameter in the request body");
  }
  const bool volumes = type == Offer::Operation::CREATE || type == Offer::Operation::DESTROY;
  const std::string key = volumes ? "volumes" : "resources";
  auto list = values.find(key);
  if (list == values.end()) {
    return answer(400, "Missing '" + key + "' query parameter in the request body");
  }
  // The JSON array, read as the operation's repeated field of that name.
  Offer::Operation operation;
  operation.set_type(type);
  google::protobuf::Message* field = nullptr;
  switch (type) {
    case Offer::Operation::RESERVE: field = operation.mutable_reserve(); break;
    case Offer::Operation::UNRESERVE: field = operation.mutable_unreserve(); break;
    case Offer::Operation::CREATE: field = operation.mutable_create(); break;
    default: field = operation.mutable_destroy(); break;
  }
  if (auto parsed = fromJson("{\"" + key + "\":" + list->second + "}", field); !parsed) {
    return answer(400, "Error in parsing '" + key + "' query parameter: " +
                           parsed.error().message);
  }
  return operate(request.principal, slaveId->second, operation);
}

Future<Response> Master::reserveEndpoint(const Request& request) {
  return operationEndpoint(request, Offer::Operation::RESERVE);
}

Future<Response> Master::unreserveEndpoint(const Request& request) {
  return operationEndpoint(request, Offer::Operation::UNRESERVE);
}

Future<Response> Master::createVolumesEndpoint(const Request& request) {
  return operationEndpoint(request, Offer::Operation::CREATE);
}

Future<Response> Master::destroyVolumesEndpoint(const Request& request) {
  return operationEndpoint(request, Offer::Operation::DESTROY);
}

}  // namespace mesos::internal::master
