/*
 * small_isend: three small MPI_Isend in flight at once, for
 * tests/python/test_capture_mpi3.py. Open MPI 4 completes a send of up to
 * 256 bytes at once and returns the same pre-completed request for each, so
 * a library that knows requests only by their handle sees one send where
 * there are three. Rank 0 posts three 64-byte sends to rank 2 before one
 * MPI_Waitall; rank 2 receives them. Needs 3 processes or more.
 */
#include <mpi.h>

#include <stdio.h>

#define SENDS 3
#define BYTES 64
#define TAG 105

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        fprintf(stderr, "small_isend: needs at least 3 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char buf[SENDS][BYTES] = {{0}};
    MPI_Request reqs[SENDS];
    if (rank == 0) {
        for (int i = 0; i < SENDS; ++i) MPI_Isend(buf[i], BYTES, MPI_BYTE, 2, TAG, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(SENDS, reqs, MPI_STATUSES_IGNORE);
    } else if (rank == 2) {
        for (int i = 0; i < SENDS; ++i) MPI_Recv(buf[i], BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
