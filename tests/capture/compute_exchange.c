/*
 * compute_exchange: a fixed amount of computation between exchanges, for
 * tests/python/test_capture_cpu_time.py. Its CPU time is the same however
 * many processes share a CPU; its wall time is not.
 *  - ROUNDS rounds: every process computes WORK steps, then exchanges
 *    BYTES with its neighbours in a ring (MPI_Sendrecv).
 *  - Then rank 0 computes 10 * WORK steps while every other rank waits for
 *    it in MPI_Comm_dup, a call that records no event, and then receives a
 *    message from it, which it waits for in MPI_Recv. Both waits are inside
 *    MPI calls: the capture must not count them as the waiting ranks'
 *    computation, however busily MPI polls.
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
    MPI_Comm dup;
    if (rank == 0) {
        compute(10 * WORK);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        compute(10 * WORK);
        for (int r = 1; r < size; ++r) MPI_Send(out, BYTES, MPI_BYTE, r, TAG + 1, MPI_COMM_WORLD);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Recv(in, BYTES, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
