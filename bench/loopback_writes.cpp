// loopback_writes: what one write of a batch to each of N loopback TCP
// connections costs the writing thread, the way the master's operator event
// stream writes a batch to each subscriber (docs/benchmarks.md, "The
// operator stream batched in a window"). Two ways: send() from one buffer,
// and tee() from one shared pipe into a pipe per connection then splice()
// into its socket (no copy into the socket by the writer). A thread in the
// same process reads every connection and throws the bytes away. On
// loopback the kernel runs the receiving socket's half of TCP in the
// writer's system call, so the figure covers both halves.
//
//   loopback_writes --connections=1000 --batch_bytes=131072 --rounds=20 --trials=3
//
// Prints, for each way and batch size, the median over the trials of the
// writer's CPU per write: `send_us_per_write_131072: 17.2 us`.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>

DEFINE_int32(connections, 1000, "Loopback TCP connections written to.");
DEFINE_string(batch_bytes, "4096,131072", "Comma-separated batch sizes, bytes.");
DEFINE_int32(rounds, 20, "Batches written to every connection per trial.");
DEFINE_int32(trials, 3, "Trials per way and batch size (the median is printed).");

namespace {

double threadCpu() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

bool fail(const char* what) {
  std::perror(what);
  return false;
}

// N connected pairs: `writers` (the accepted ends) and `readers`.
bool connectPairs(int n, std::vector<int>* writers, std::vector<int>* readers) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::listen(listener, 4096) != 0) {
    return fail("listen");
  }
  int on = 1;
  for (int i = 0; i < n; ++i) {
    int reader = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (reader < 0 || ::connect(reader, reinterpret_cast<sockaddr*>(&address), length) != 0) {
      return fail("connect");
    }
    int writer = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (writer < 0) return fail("accept");
    ::setsockopt(writer, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    ::fcntl(reader, F_SETFL, O_NONBLOCK);
    readers->push_back(reader);
    writers->push_back(writer);
  }
  ::close(listener);
  return true;
}

// Reads every connection until told to stop, counting the bytes.
class Drain {
 public:
  explicit Drain(const std::vector<int>& readers) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    for (int fd : readers) {
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.fd = fd;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event);
    }
    thread_ = std::thread([this] { run(); });
  }
  ~Drain() {
    stop_ = true;
    thread_.join();
    ::close(epoll_);
  }
  void awaitBytes(size_t total) const {
    while (bytes_.load() < total) ::usleep(1000);
  }

 private:
  void run() {
    std::vector<char> buffer(256 * 1024);
    epoll_event events[256];
    while (!stop_) {
      int ready = ::epoll_wait(epoll_, events, 256, 50);
      for (int i = 0; i < ready; ++i) {
        for (;;) {
          ssize_t n = ::read(events[i].data.fd, buffer.data(), buffer.size());
          if (n <= 0) break;
          bytes_ += static_cast<size_t>(n);
        }
      }
    }
  }

  int epoll_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> bytes_{0};
};

bool sendAll(int fd, const std::string& data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return fail("send");
    done += static_cast<size_t>(n);
  }
  return true;
}

// One pipe per connection, and the shared one, each of `bytes` capacity.
struct Pipes {
  int shared[2] = {-1, -1};
  std::vector<int> in, out;  // per connection: read end, write end
};

bool makePipes(int n, size_t bytes, Pipes* pipes) {
  auto make = [bytes](int ends[2]) {
    return ::pipe2(ends, O_CLOEXEC) == 0 &&
           ::fcntl(ends[1], F_SETPIPE_SZ, static_cast<int>(bytes)) >= static_cast<int>(bytes);
  };
  if (!make(pipes->shared)) return fail("pipe");
  for (int i = 0; i < n; ++i) {
    int ends[2];
    if (!make(ends)) return fail("pipe");
    pipes->in.push_back(ends[0]);
    pipes->out.push_back(ends[1]);
  }
  return true;
}

bool spliceAll(const Pipes& pipes, size_t i, int socket, size_t bytes) {
  if (::tee(pipes.shared[0], pipes.out[i], bytes, 0) != static_cast<ssize_t>(bytes)) {
    return fail("tee");
  }
  for (size_t left = bytes; left > 0;) {
    ssize_t n = ::splice(pipes.in[i], nullptr, socket, nullptr, left, SPLICE_F_MOVE);
    if (n <= 0) return fail("splice");
    left -= static_cast<size_t>(n);
  }
  return true;
}

// The writer's CPU per write, in µs; negative on failure.
double trial(bool splice, size_t batch, const std::vector<int>& writers, const Pipes& pipes,
             Drain& drain, size_t* expected) {
  const std::string data(batch, 'x');
  std::vector<char> sink(batch);
  double start = threadCpu();
  for (int round = 0; round < FLAGS_rounds; ++round) {
    if (splice) {
      for (size_t done = 0; done < batch;) {
        ssize_t n = ::write(pipes.shared[1], data.data() + done, batch - done);
        if (n <= 0) {
          fail("write");
          return -1;
        }
        done += static_cast<size_t>(n);
      }
    }
    for (size_t i = 0; i < writers.size(); ++i) {
      bool ok = splice ? spliceAll(pipes, i, writers[i], batch) : sendAll(writers[i], data);
      if (!ok) return -1;
    }
    if (splice) {
      for (size_t done = 0; done < batch;) {
        ssize_t n = ::read(pipes.shared[0], sink.data(), batch - done);
        if (n <= 0) {
          fail("read");
          return -1;
        }
        done += static_cast<size_t>(n);
      }
    }
  }
  double cpu = threadCpu() - start;
  *expected += batch * writers.size() * static_cast<size_t>(FLAGS_rounds);
  drain.awaitBytes(*expected);
  return cpu / static_cast<double>(writers.size() * static_cast<size_t>(FLAGS_rounds)) * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::vector<size_t> batches;
  for (size_t at = 0; at < FLAGS_batch_bytes.size();) {
    size_t comma = FLAGS_batch_bytes.find(',', at);
    if (comma == std::string::npos) comma = FLAGS_batch_bytes.size();
    batches.push_back(std::stoul(FLAGS_batch_bytes.substr(at, comma - at)));
    at = comma + 1;
  }
  if (FLAGS_connections <= 0 || FLAGS_rounds <= 0 || FLAGS_trials <= 0 || batches.empty() ||
      *std::min_element(batches.begin(), batches.end()) == 0 ||
      *std::max_element(batches.begin(), batches.end()) > (1u << 20)) {
    std::fprintf(stderr,
                 "loopback_writes: counts must be positive, batches between 1 byte and 1 MiB\n");
    return 1;
  }
  std::vector<int> writers, readers;
  if (!connectPairs(FLAGS_connections, &writers, &readers)) return 1;
  Pipes pipes;
  if (!makePipes(FLAGS_connections, *std::max_element(batches.begin(), batches.end()), &pipes)) {
    std::fprintf(stderr, "loopback_writes: raise /proc/sys/fs/pipe-max-size or the open files "
                         "limit (ulimit -n) for this many pipes\n");
    return 1;
  }
  Drain drain(readers);
  size_t expected = 0;
  std::printf("connections: %d connections\nrounds: %d batches\n", FLAGS_connections,
              FLAGS_rounds);
  for (size_t batch : batches) {
    for (bool splice : {false, true}) {
      std::vector<double> perWrite;
      for (int t = 0; t < FLAGS_trials; ++t) {
        double us = trial(splice, batch, writers, pipes, drain, &expected);
        if (us < 0) return 1;
        perWrite.push_back(us);
      }
      std::sort(perWrite.begin(), perWrite.end());
      std::printf("%s_us_per_write_%zu: %.2f us\n", splice ? "splice" : "send", batch,
                  perWrite[perWrite.size() / 2]);
    }
  }
  return 0;
}
