// The rule every id that names a directory follows (task, executor,
// framework, slave and container ids: the slave's sandboxes and checkpoints
// are <work_dir>/slaves/<slave id>/frameworks/<framework id>/executors/
// <executor id>/runs/<container id>, and tasks/<task id> below). Apache
// Mesos's rule (common/validation.cpp validateID): not empty, at most
// NAME_MAX (255) bytes, not "." or "..", no '/' or '\', no control character
// (NUL included). The master refuses such ids (TASK_ERROR, or the
// framework's registration), and the slave again before it makes a path.
#pragma once

#include <string>

#include "mesos/result.hpp"

namespace mesos {

constexpr size_t kMaxIdLength = 255;

// Succeeds when `id` follows the rule. Else one line naming the `kind`
// ("task id", "executor id"...), the id (control characters shown as
// \xNN, cut after 64 bytes) and the rule it breaks, e.g.
//   task id 'a/b' is not valid: it holds '/' (ids name directories)
Result<void> validateId(const std::string& kind, const std::string& id);

}  // namespace mesos
