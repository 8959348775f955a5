// mesos-mpi-ring [laps]: a token and a payload go around the ranks
// 0 -> 1 -> ... -> P-1 -> 0 with MPI_Send/MPI_Recv, `laps` times (3 by
// default). Each rank adds rank + 1 to the token and checks the payload (a
// 1 MiB block of known integers, so that messages are real transfers). At
// the end rank 0 prints
//   ring: 4 ranks, 3 laps, token 30 (expected 30): ok
// and exits 0 only when the token and every payload were right.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kTag = 7;
constexpr int kPayloadInts = 256 * 1024;

bool payloadIntact(const std::vector<int>& payload) {
  for (int i = 0; i < kPayloadInts; ++i) {
    if (payload[static_cast<size_t>(i)] != i * 7 + 3) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int laps = argc > 1 ? std::atoi(argv[1]) : 3;
  if (laps <= 0 || size < 2) {
    if (rank == 0) std::fprintf(stderr, "mesos-mpi-ring: needs laps > 0 and at least 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const char* node = std::getenv("MESOS_MPI_NODE");
  std::printf("rank %d of %d on node %s\n", rank, size, node != nullptr ? node : "?");
  std::fflush(stdout);

  std::vector<int> payload(kPayloadInts);
  for (int i = 0; i < kPayloadInts; ++i) payload[static_cast<size_t>(i)] = i * 7 + 3;
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  long token = 0;
  int good = 1;
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      token += 1;
      MPI_Send(&token, 1, MPI_LONG, next, kTag, MPI_COMM_WORLD);
      MPI_Send(payload.data(), kPayloadInts, MPI_INT, next, kTag, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, previous, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(payload.data(), kPayloadInts, MPI_INT, previous, kTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, previous, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(payload.data(), kPayloadInts, MPI_INT, previous, kTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      token += rank + 1;
      MPI_Send(&token, 1, MPI_LONG, next, kTag, MPI_COMM_WORLD);
      MPI_Send(payload.data(), kPayloadInts, MPI_INT, next, kTag, MPI_COMM_WORLD);
    }
    if (!payloadIntact(payload)) good = 0;
  }
  int allGood = 0;
  MPI_Reduce(&good, &allGood, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);

  int status = 0;
  if (rank == 0) {
    const long expected = static_cast<long>(laps) * size * (size + 1) / 2;
    const bool ok = token == expected && allGood == 1;
    std::printf("ring: %d ranks, %d laps, token %ld (expected %ld): %s\n", size, laps, token,
                expected, ok ? "ok" : (allGood == 1 ? "WRONG TOKEN" : "PAYLOAD CORRUPTED"));
    std::fflush(stdout);
    if (!ok) status = 1;
  }
  MPI_Finalize();
  return status;
}
