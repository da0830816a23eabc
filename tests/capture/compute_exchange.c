/*
 * compute_exchange: a fixed amount of computation between exchanges, for
 * tests/python/test_capture_cpu_time.py. Its CPU time is the same however
 * many processes share a CPU; its wall time is not.
 *  - ROUNDS rounds: every process computes WORK steps, then exchanges
 *    BYTES with its neighbours in a ring (MPI_Sendrecv).
 *  - Then rank 0 computes 10 * WORK steps while every other rank waits for
 *    its message in MPI_Recv: time inside the call, which the capture must
 *    not count as the waiting ranks' computation, however busily MPI polls.
 */
#include <mpi.h>

#include <stdio.h>

#define ROUNDS 20
#define WORK 4000000L
#define BYTES 4096
#define TAG 7

static volatile double sink;

static void compute(long steps)
{
    double x = 1.0;
    for (long i = 0; i < steps; ++i) x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char out[BYTES], in[BYTES];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; ++round) {
        compute(WORK);
        MPI_Sendrecv(out, BYTES, MPI_BYTE, right, TAG, in, BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        compute(10 * WORK);
        for (int r = 1; r < size; ++r) MPI_Send(out, BYTES, MPI_BYTE, r, TAG + 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(in, BYTES, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
