#include "dfs/nodes.hpp"

#include <algorithm>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace mesos::frameworks::dfs {

Result<std::vector<Node>> nodesFromMaster(const std::string& master) {
  using R = Result<std::vector<Node>>;
  std::string address = master;
  if (address.rfind("http://", 0) == 0) address = address.substr(7);
  if (address.rfind("master@", 0) == 0) address = address.substr(7);
  std::string host = address;
  int port = 5050;
  size_t colon = address.rfind(':');
  if (colon != std::string::npos) {
    host = address.substr(0, colon);
    try {
      port = std::stoi(address.substr(colon + 1));
    } catch (const std::exception&) {
      return R::failure("bad master address '" + master + "'; write host:port");
    }
  }
  httplib::Client client(host, port);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  auto answer = client.Get("/master/state");
  if (!answer || answer->status != 200) {
    return R::failure("cannot read http://" + host + ":" + std::to_string(port) +
                      "/master/state; is the master running there?");
  }
  std::vector<Node> nodes;
  try {
    auto state = nlohmann::json::parse(answer->body);
    for (const auto& slave : state.value("slaves", nlohmann::json::array())) {
      if (!slave.value("active", true)) continue;
      Node node;
      node.host = slave.at("hostname").get<std::string>();
      if (slave.contains("attributes") && slave["attributes"].contains("rack")) {
        const auto& rack = slave["attributes"]["rack"];
        node.rack = rack.is_string() ? rack.get<std::string>() : rack.dump();
      }
      if (std::none_of(nodes.begin(), nodes.end(),
                       [&](const Node& n) { return n.host == node.host; })) {
        nodes.push_back(std::move(node));
      }
    }
  } catch (const std::exception& e) {
    return R::failure("the master's /master/state is not what was expected: " +
                      std::string(e.what()));
  }
  if (nodes.empty()) return R::failure("the master at " + master + " knows no active slave");
  std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.host < b.host; });
  return nodes;
}

}  // namespace mesos::frameworks::dfs
