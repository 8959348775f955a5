// The web UI's files, built into the master (src/webui/embed.cmake writes
// their definition at build time from src/webui/ and the Debian packages
// libjs-bootstrap5 and libjs-chart.js; docs/web-ui.md).
#pragma once

#include <string_view>
#include <vector>

namespace mesos::internal::webui {

struct Asset {
  std::string_view path;          // the route, e.g. "/" or "/static/app.js"
  std::string_view contentType;   // e.g. "text/html; charset=utf-8"
  std::string_view cacheControl;  // the Cache-Control header to answer with
  std::string_view data;          // the file's bytes; static storage
};

// Every file of the UI, in a fixed order. The array and its data live for
// the whole program.
const std::vector<Asset>& assets();

}  // namespace mesos::internal::webui
