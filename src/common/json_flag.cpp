#include "common/json_flag.hpp"

#include <fstream>
#include <sstream>

namespace mesos::internal {

Result<std::string> jsonFlagText(const std::string& flag, const std::string& value) {
  const bool uri = value.rfind("file://", 0) == 0;
  if (!uri && value.rfind('/', 0) != 0) return value;
  const std::string path = uri ? value.substr(7) : value;
  std::ifstream file(path);
  if (!file) return Error{"--" + flag + ": cannot read '" + path + "'"};
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

}  // namespace mesos::internal
