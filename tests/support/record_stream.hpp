// RecordStream: the events of a RecordIO stream (the v1 scheduler's and the
// operator API's SUBSCRIBE answers: records, each its decimal length, a
// newline and the event) as a test reads them off a RawPeer, in JSON or
// protobuf. `Event` is v1::scheduler::Event or v1::master::Event: a
// protobuf message with a `Type` enum that has HEARTBEAT.
//
// Every read is bounded by RawPeer's socket timeout: a stream that goes
// quiet fails the test instead of hanging it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {

template <typename Event>
class RecordStream {
 public:
  // Reads off `peer`, which must outlive the stream; `json`: the records
  // are JSON, else protobuf.
  RecordStream(RawPeer& peer, bool json) : peer_(peer), json_(json) {}

  // The next event (its record's raw text in *raw); nullopt when the
  // stream ends or nothing comes within the socket timeout.
  std::optional<Event> next(std::string* raw = nullptr) {
    for (;;) {
      size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        size_t size = std::stoul(buffer_.substr(0, newline));
        if (buffer_.size() >= newline + 1 + size) {
          std::string record = buffer_.substr(newline + 1, size);
          buffer_.erase(0, newline + 1 + size);
          if (raw != nullptr) *raw = record;
          Event event;
          if (json_) {
            auto parsed = fromJson(record, &event);
            EXPECT_TRUE(parsed) << parsed.error().message << ": " << record;
          } else {
            EXPECT_TRUE(event.ParseFromString(record));
          }
          return event;
        }
      }
      auto chunk = peer_.readChunk();
      if (!chunk || chunk->empty()) {
        ended_ = true;
        return std::nullopt;
      }
      buffer_ += *chunk;
    }
  }

  // The events of the next HTTP chunk (none when the stream ends or nothing
  // comes within the socket timeout); call with no event left unread.
  std::vector<Event> chunk() {
    EXPECT_TRUE(buffer_.empty());
    auto chunk = peer_.readChunk();
    if (!chunk || chunk->empty()) return {};
    buffer_ = *chunk;
    std::vector<Event> events;
    while (!buffer_.empty()) {
      auto event = next();
      if (!event) break;
      events.push_back(*event);
    }
    return events;
  }

  // The next event that is not a HEARTBEAT, which must be of `type`.
  Event expect(typename Event::Type type, std::string* raw = nullptr) {
    for (;;) {
      auto event = next(raw);
      if (!event) {
        ADD_FAILURE() << "the stream ended (or went quiet) before a " << Event::Type_Name(type);
        return Event();
      }
      if (event->type() == Event::HEARTBEAT && type != Event::HEARTBEAT) continue;
      EXPECT_EQ(Event::Type_Name(type), Event::Type_Name(event->type())) << event->DebugString();
      return *event;
    }
  }

  // True once the stream ended (the last chunk, or the connection closed).
  bool ended() const { return ended_; }

 private:
  RawPeer& peer_;
  bool json_;
  std::string buffer_;
  bool ended_ = false;
};

}  // namespace mesos::test
