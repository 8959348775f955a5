// The web UI served by the master: "/" (also "/index.html") and its static
// files under "/static/", built into the binary (src/webui/, docs/web-ui.md).
// Every answer is built once, when the routes are installed, and shared by
// every request: a request costs the master a copy of a few headers and a
// reference count, whatever the size of the file or of the cluster.
#include <memory>
#include <string>

#include "master/master.hpp"
#include "webui/assets.hpp"

namespace mesos::internal::master {

using process::Future;
using process::http::Request;
using process::http::Response;

void Master::installWebUi() {
  for (const webui::Asset& asset : webui::assets()) {
    Response response{200, std::string(asset.contentType), "", {}};
    response.headers.emplace_back("Cache-Control", std::string(asset.cacheControl));
    response.pieces.push_back(std::make_shared<const std::string>(asset.data));
    auto prebuilt = std::make_shared<const Response>(std::move(response));
    route(std::string(asset.path),
          [prebuilt](const Request&) { return Future<Response>(*prebuilt); });
  }
}

}  // namespace mesos::internal::master
