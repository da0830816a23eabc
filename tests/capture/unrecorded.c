/*
 * unrecorded: MPI calls that libibsec_capture does not record, for
 * tests/python/test_capture_mpi3.py: one-sided communication, neighbourhood
 * collectives, collectives on an intercommunicator, a cancelled receive,
 * MPI_Comm_idup with a message on the new communicator, and MPI-IO. The
 * library must say each of them, with its count, in a note and on stderr.
 * Also sends one recorded message, so the trace is not empty of them.
 *
 * Output (argv[1]): one line per rank, `rank R NAME COUNT ...` with the
 * calls it made (NAME without MPI_), and argv[2] is a file MPI-IO writes.
 * Runs on 4 processes.
 */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

enum {
    PUT,
    GET,
    ACCUMULATE,
    WIN_CREATE,
    WIN_FENCE,
    WIN_FREE,
    NEIGHBOR_ALLGATHER,
    INEIGHBOR_ALLTOALL,
    BARRIER_INTER,
    BCAST_INTER,
    CANCEL,
    COMM_IDUP,
    FILE_OPEN,
    FILE_WRITE_AT,
    FILE_CLOSE,
    COUNT
};
static const char *const NAME[COUNT] = {"Put",
                                        "Get",
                                        "Accumulate",
                                        "Win_create",
                                        "Win_fence",
                                        "Win_free",
                                        "Neighbor_allgather",
                                        "Ineighbor_alltoall",
                                        "Barrier",
                                        "Bcast",
                                        "Cancel",
                                        "Comm_idup",
                                        "File_open",
                                        "File_write_at",
                                        "File_close"};
static int made[COUNT];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double window[8] = {0}, x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];

    MPI_Win win;
    MPI_Win_create(window, sizeof window, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win), made[WIN_CREATE]++;
    MPI_Win_fence(0, win), made[WIN_FENCE]++;
    MPI_Put(x, 2, MPI_DOUBLE, right, 0, 2, MPI_DOUBLE, win), made[PUT]++;
    MPI_Get(y, 2, MPI_DOUBLE, left, 4, 2, MPI_DOUBLE, win), made[GET]++;
    MPI_Win_fence(0, win), made[WIN_FENCE]++;
    MPI_Accumulate(x, 1, MPI_DOUBLE, right, 6, 1, MPI_DOUBLE, MPI_SUM, win), made[ACCUMULATE]++;
    MPI_Win_fence(0, win), made[WIN_FENCE]++;
    MPI_Win_free(&win), made[WIN_FREE]++;

    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, ring), made[NEIGHBOR_ALLGATHER]++;
    MPI_Request r;
    MPI_Ineighbor_alltoall(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, ring, &r), made[INEIGHBOR_ALLTOALL]++;
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter);
    MPI_Barrier(inter), made[BARRIER_INTER]++;
    int me;
    MPI_Comm_rank(half, &me);
    int root = rank % 2 == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0; /* even rank 0 broadcasts to the odd group */
    MPI_Bcast(x, 4, MPI_DOUBLE, root, inter), made[BCAST_INTER]++;

    /* A receive nobody sends to, cancelled. */
    MPI_Irecv(y, 8, MPI_DOUBLE, left, 77, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r), made[CANCEL]++;
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    /* A message on a communicator made by MPI_Comm_idup. */
    MPI_Comm idup;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &r), made[COMM_IDUP]++;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Sendrecv(x, 1, MPI_DOUBLE, right, 3, y, 1, MPI_DOUBLE, left, 3, idup, MPI_STATUS_IGNORE);

    if (argc > 2) {
        MPI_File f;
        MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f), made[FILE_OPEN]++;
        MPI_File_write_at(f, rank * (MPI_Offset)sizeof x, x, 8, MPI_DOUBLE, MPI_STATUS_IGNORE), made[FILE_WRITE_AT]++;
        MPI_File_close(&f), made[FILE_CLOSE]++;
    }

    /* One recorded message. */
    MPI_Sendrecv(x, 8, MPI_DOUBLE, right, 1, y, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    int all[64][COUNT];
    MPI_Gather(made, COUNT, MPI_INT, all, COUNT, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && argc > 1) {
        FILE *out = fopen(argv[1], "w");
        for (int p = 0; out && p < size && p < 64; ++p) {
            fprintf(out, "rank %d", p);
            for (int c = 0; c < COUNT; ++c) fprintf(out, " %s %d", NAME[c], all[p][c]);
            fputc('\n', out);
        }
        if (out) fclose(out);
    }
    MPI_Comm_free(&idup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
