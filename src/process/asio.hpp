// The parts of Boost.Asio the runtime uses. Boost 1.74's Asio needs
// <utility> before it under C++20 with g++ 12 (std::exchange).
#pragma once

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace process {
namespace asio = boost::asio;
}  // namespace process
