// mesos-mpi-hold <dir>: a test program that holds its ranks until told to
// go, so that a test can kill one of them mid-run. Each rank writes
// <dir>/rank-<r>.pid ("<pid> <parent pid>\n", written to a temporary name
// and renamed, so a reader never sees half of it), then waits until the
// file <dir>/release exists, meets the others in MPI_Barrier, and exits 0;
// rank 0 prints "released: <P> ranks".
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mesos-mpi-hold <dir>\n");
    MPI_Finalize();
    return 2;
  }
  const std::string dir = argv[1];
  const std::string pidFile = dir + "/rank-" + std::to_string(rank) + ".pid";
  const std::string temporary = pidFile + ".tmp";
  if (FILE* file = std::fopen(temporary.c_str(), "w")) {
    std::fprintf(file, "%d %d\n", static_cast<int>(getpid()), static_cast<int>(getppid()));
    std::fclose(file);
    std::rename(temporary.c_str(), pidFile.c_str());
  }
  // A test program: polling is its whole job.
  const std::string release = dir + "/release";
  while (access(release.c_str(), F_OK) != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("released: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
