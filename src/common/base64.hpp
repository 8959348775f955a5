// Base64 (RFC 4648): the standard alphabet, padded, as JSON carries protobuf
// bytes and HTTP Basic authentication carries credentials; and the URL-safe
// alphabet without padding, as JWTs (executor tokens) are written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mesos::base64 {

// Appends the encoding of `bytes` to `out`: standard and padded, or
// URL-safe and unpadded with `url`.
void append(std::string* out, std::string_view bytes, bool url = false);
std::string encode(std::string_view bytes, bool url = false);

// Decodes the standard alphabet (padding optional); nullopt if `text` is
// not base64.
std::optional<std::string> decode(std::string_view text);

}  // namespace mesos::base64
