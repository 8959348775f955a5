// Answering with a file's contents without holding them in memory: a
// route puts the file's path in this header of its Response (with an
// empty body); the transport leaves the header out, says the file's size
// in Content-Length, and writes the file to the socket as the socket
// drains (sendfile(2)), a chunk at a time. A file it cannot open by then
// is a 404. (The X-Sendfile of web servers, inside the process.)
#pragma once

namespace process::http {

constexpr const char* kSendFileHeader = "X-Libprocess-Sendfile";

}  // namespace process::http
