// How the helpers talk to the coordinator: one text line per report on
// their stdout, "<kind> <field> <field>...". A line is written with a single
// write(2) (under PIPE_BUF bytes, so lines from several threads never
// interleave on the pipe).
//
//   slaves <registered> <running> <slots> <removed> <resent>
//       fig10-slaves, every --report_interval_s: its slaves registered
//       now, tasks running, slots in all, slaves the master removed,
//       status updates re-sent.
//   registered_all
//       fig10-slaves, once, the moment its last slave got
//       SlaveRegisteredMessage.
//   frameworks <registered> <launched> <finished> <failed> <errors> <busy>
//       fig10-frameworks, every --report_interval_s: its frameworks
//       registered, tasks they launched, tasks finished, tasks that ended
//       otherwise, driver errors, frameworks with a task launched and not
//       yet ended.
//   state <ok> <status> <ms> <bytes>
//       fig10-frameworks, after each GET /state: 1 when a whole response
//       came, its HTTP status, request-to-last-byte time, body bytes.
//   note <text>
//       anything the coordinator should pass on to its stderr.
#pragma once

#include <unistd.h>

#include <string>

namespace fig10 {

inline void emitLine(std::string line) {
  line.push_back('\n');
  ssize_t ignored = ::write(1, line.data(), line.size());
  (void)ignored;
}

}  // namespace fig10
