/*
 * unwaited: requests never completed before MPI_Finalize (an erroneous
 * program, but a common one), for tests/hostile/test_n14_capture_unwaited_requests.py.
 * Rank 0 sends to rank 1, one message per case (two for tag 3), each case
 * on its own tag:
 *
 *   tag 1  MPI_Isend never waited; rank 1 receives it (MPI_Recv)
 *   tag 2  MPI_Send; rank 1 posts an exact MPI_Irecv for it, never waited
 *   tag 3  MPI_Send; rank 1 posts an MPI_Irecv with MPI_ANY_SOURCE for it,
 *          never waited (its source is never known to the program); then
 *          a second message, of another size, that rank 1 receives with
 *          MPI_Recv (MPI matched the first to the wildcard receive)
 *   tag 4  MPI_Isend never waited; rank 1 never receives it
 *   tag 5  MPI_Isend + MPI_Wait and MPI_Recv, an ordinary message
 *   tag 6  MPI_Send of 50 bytes; rank 1 posts an exact MPI_Irecv of 200
 *          and frees it with MPI_Request_free (its size never known)
 *
 * Messages are small (64 bytes unless said), sent eagerly, so the program
 * ends on any MPI.
 * Prints `unwaited: rank R past MPI_Init` once MPI_Init has returned.
 * Runs on 2 processes or more (the others only start and end).
 */
#include <mpi.h>

#include <stdio.h>

#define BYTES 64

enum {
    RECEIVED_ISEND = 1,
    UNWAITED_IRECV = 2,
    UNWAITED_ANY_IRECV = 3,
    UNRECEIVED_ISEND = 4,
    ORDINARY = 5,
    FREED_IRECV = 6
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("unwaited: rank %d past MPI_Init\n", rank);
    fflush(stdout);
    if (size < 2) {
        fprintf(stderr, "unwaited: needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static char out[7][4 * BYTES], in[7][4 * BYTES];
    MPI_Request never_waited[2], req;
    if (rank == 0) {
        MPI_Isend(out[0], BYTES, MPI_BYTE, 1, RECEIVED_ISEND, MPI_COMM_WORLD, &never_waited[0]);
        MPI_Send(out[1], BYTES, MPI_BYTE, 1, UNWAITED_IRECV, MPI_COMM_WORLD);
        MPI_Send(out[2], BYTES, MPI_BYTE, 1, UNWAITED_ANY_IRECV, MPI_COMM_WORLD);
        MPI_Send(out[3], 2 * BYTES, MPI_BYTE, 1, UNWAITED_ANY_IRECV, MPI_COMM_WORLD);
        MPI_Isend(out[4], BYTES, MPI_BYTE, 1, UNRECEIVED_ISEND, MPI_COMM_WORLD, &never_waited[1]);
        MPI_Isend(out[5], BYTES, MPI_BYTE, 1, ORDINARY, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(out[6], 50, MPI_BYTE, 1, FREED_IRECV, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(in[0], BYTES, MPI_BYTE, 0, RECEIVED_ISEND, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(in[1], BYTES, MPI_BYTE, 0, UNWAITED_IRECV, MPI_COMM_WORLD, &never_waited[0]);
        MPI_Irecv(in[2], BYTES, MPI_BYTE, MPI_ANY_SOURCE, UNWAITED_ANY_IRECV, MPI_COMM_WORLD, &never_waited[1]);
        MPI_Recv(in[3], 4 * BYTES, MPI_BYTE, 0, UNWAITED_ANY_IRECV, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(in[5], BYTES, MPI_BYTE, 0, ORDINARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(in[6], 200, MPI_BYTE, 0, FREED_IRECV, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
    }
    /* Every message has left before anyone finalizes. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
