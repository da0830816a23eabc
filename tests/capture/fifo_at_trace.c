/*
 * fifo_at_trace: makes a FIFO where IBSEC_TRACE names the trace, after
 * MPI_Init has checked that name and before MPI_Finalize writes it, for
 * tests/hostile/test_n12_capture_output_targets.py: the trace must not be
 * renamed over it. Rank 0 makes it; runs on any number of processes.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *trace = getenv("IBSEC_TRACE");
    if (rank == 0 && (!trace || mkfifo(trace, 0600) != 0)) {
        perror("fifo_at_trace: mkfifo IBSEC_TRACE");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
