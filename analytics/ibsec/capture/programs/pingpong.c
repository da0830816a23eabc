/*
 * pingpong: ROUNDS round trips of BYTES between ranks 0 and 1 (MPI_Send and
 * MPI_Recv), after WARMUP untimed ones. Captured with libibsec_capture, it
 * measures the MPI transport between two processes of one host: its trace's
 * receive times give the one-way time of a message of that size, which
 * ibsec.paper.table1_real fits the simulated network to (docs/real-traces.md,
 * "Execution time on real traces").
 *
 *   mpirun -np 2 pingpong BYTES ROUNDS
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define WARMUP 10
#define TAG 11

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
  long rounds = argc > 2 ? strtol(argv[2], NULL, 10) : -1;
  if (size != 2 || bytes < 0 || bytes > (1L << 30) || rounds < 1) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 2 pingpong BYTES ROUNDS (BYTES up to 2^30)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buffer = calloc((size_t)bytes + 1, 1);
  if (!buffer) MPI_Abort(MPI_COMM_WORLD, 3);
  int peer = 1 - rank;
  for (long i = 0; i < WARMUP + rounds; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
      MPI_Recv(buffer, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
