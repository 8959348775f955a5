// RFC 4122 version 4 UUIDs, as status updates carry them (16 raw bytes).
#pragma once

#include <string>

namespace mesos {

// 16 random bytes with the version (4) and variant (10) bits set.
std::string randomUuid();
// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" for 16 bytes; "" for any other size.
std::string uuidToString(const std::string& bytes);
// True for 16 bytes with a valid RFC 4122 variant.
bool isValidUuid(const std::string& bytes);

}  // namespace mesos
