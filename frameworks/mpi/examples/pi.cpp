// mesos-mpi-pi [intervals]: pi by numerical integration of 4 / (1 + x^2)
// over [0, 1] with the midpoint rule. Rank r sums the intervals r, r + P,
// r + 2P, ... and MPI_Reduce adds the partial sums at rank 0, which prints
//   pi = 3.14159265358979 (error 2.3e-14, 10000000 intervals, 4 ranks)
// and exits 1 if the error is not below 1e-9 (a wrong reduction shows).
// Every rank first prints where it runs (MESOS_MPI_NODE, set by mesos-mpirun).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long intervals = argc > 1 ? std::atol(argv[1]) : 10'000'000;
  if (intervals <= 0) {
    if (rank == 0) std::fprintf(stderr, "mesos-mpi-pi: intervals must be a positive number\n");
    MPI_Finalize();
    return 2;
  }
  const char* node = std::getenv("MESOS_MPI_NODE");
  std::printf("rank %d of %d on node %s\n", rank, size, node != nullptr ? node : "?");
  std::fflush(stdout);

  const double width = 1.0 / static_cast<double>(intervals);
  double sum = 0.0;
  for (long i = rank; i < intervals; i += size) {
    const double x = width * (static_cast<double>(i) + 0.5);
    sum += 4.0 / (1.0 + x * x);
  }
  double partial = sum * width;
  double pi = 0.0;
  MPI_Reduce(&partial, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

  int status = 0;
  if (rank == 0) {
    const double error = std::fabs(pi - std::numbers::pi);
    std::printf("pi = %.14f (error %.1e, %ld intervals, %d ranks)\n", pi, error, intervals, size);
    std::fflush(stdout);
    if (!(error < 1e-9)) status = 1;
  }
  MPI_Finalize();
  return status;
}
