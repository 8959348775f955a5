#include "torque/http_api.hpp"

#include <algorithm>
#include <string>

#include "torque/protocol.hpp"

namespace mesos::frameworks::torque {

namespace {

using nlohmann::json;

void send(httplib::Response& response, const Reply& reply) {
  response.status = reply.status;
  response.set_content(jsonText(reply.body) + "\n", "application/json");
}

// The job id in the path; nullopt when it is not a number.
std::optional<int64_t> jobId(const httplib::Request& request) {
  try {
    return std::stoll(request.matches[1].str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void unknownId(httplib::Response& response) {
  send(response, Reply{404, json{{"error", "not a job id"}}});
}

}  // namespace

void installRoutes(httplib::Server* server, TorqueScheduler* scheduler) {
  server->Get("/status", [scheduler](const httplib::Request&, httplib::Response& response) {
    send(response, scheduler->status());
  });
  server->Get("/jobs", [scheduler](const httplib::Request&, httplib::Response& response) {
    send(response, scheduler->jobs());
  });
  server->Post("/jobs", [scheduler](const httplib::Request& request, httplib::Response& response) {
    json body = json::parse(request.body, nullptr, false);
    if (body.is_discarded()) {
      send(response, Reply{400, json{{"error", "the request body is not JSON"}}});
      return;
    }
    send(response, scheduler->submit(body));
  });
  server->Get(R"(/jobs/(\d+))",
              [scheduler](const httplib::Request& request, httplib::Response& response) {
                auto id = jobId(request);
                if (!id) return unknownId(response);
                send(response, scheduler->job(*id));
              });
  server->Get(R"(/jobs/(\d+)/wait)",
              [scheduler](const httplib::Request& request, httplib::Response& response) {
                auto id = jobId(request);
                if (!id) return unknownId(response);
                long timeout = 30;
                if (request.has_param("timeout")) {
                  try {
                    timeout = std::stol(request.get_param_value("timeout"));
                  } catch (const std::exception&) {
                    timeout = 30;
                  }
                }
                timeout = std::clamp(timeout, 0L, 60L);
                send(response, scheduler->wait(*id, std::chrono::seconds(timeout)));
              });
  server->Delete(R"(/jobs/(\d+))",
                 [scheduler](const httplib::Request& request, httplib::Response& response) {
                   auto id = jobId(request);
                   if (!id) return unknownId(response);
                   send(response, scheduler->remove(*id));
                 });
}

}  // namespace mesos::frameworks::torque
