/*
 * ring_halo: a small MPI program for tests/python/test_capture.py. It does
 * point-to-point traffic of every kind libibsec_capture records and counts,
 * per rank, exactly what it sent and received and which collectives it
 * called, so the test can compare that with the captured trace.
 *
 *   1. a ring of blocking MPI_Send/MPI_Ssend + MPI_Recv, several rounds and
 *      sizes (up to 256 KiB, past the eager limit), including receives with
 *      MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_STATUS_IGNORE and a buffer larger
 *      than the message;
 *   2. a halo exchange with both neighbours: MPI_Irecv + MPI_Isend, completed
 *      by MPI_Waitall (MPI_STATUSES_IGNORE), by MPI_Waitany, and by polling
 *      MPI_Testall; one round receives with MPI_ANY_SOURCE;
 *   3. an MPI_Sendrecv shift;
 *   4. MPI_Allreduce and MPI_Alltoall on MPI_COMM_WORLD;
 *   5. MPI_Comm_split into even and odd ranks, MPI_Bcast on that
 *      communicator, MPI_Barrier on MPI_COMM_WORLD.
 *
 * Output (to the file named by argv[1], else stdout), one line per rank:
 *   rank R sends N send_bytes B recvs N recv_bytes B allreduce 1 alltoall 1 bcast 1 barrier 1 gather 1
 * where sends/recvs count point-to-point messages (an MPI_Sendrecv is one
 * of each), bytes are message sizes, and the gather is the one that
 * collects this report on rank 0.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 3
#define HALO_DOUBLES 4096

enum { T_SENDS, T_SEND_BYTES, T_RECVS, T_RECV_BYTES, T_ALLREDUCE, T_ALLTOALL, T_BCAST, T_BARRIER, T_GATHER, T_COUNT };
static const char *const T_NAME[T_COUNT] = {"sends",    "send_bytes", "recvs",   "recv_bytes", "allreduce",
                                            "alltoall", "bcast",      "barrier", "gather"};
static long long tally[T_COUNT];

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ring_halo: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "ring_halo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 1, n);
    return p;
}

static void sent(long long bytes)
{
    tally[T_SENDS]++;
    tally[T_SEND_BYTES] += bytes;
}

static void received(long long bytes)
{
    tally[T_RECVS]++;
    tally[T_RECV_BYTES] += bytes;
}

/* 1. Blocking ring. Even ranks send first, odd ranks receive first, so the
 * ring cannot deadlock even when messages are too large to be buffered. */
static void ring(int rank, int size)
{
    static const int sizes[] = {8, 1000, 65536, 262144}; /* bytes */
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *sbuf = xmalloc(2 * 262144), *rbuf = xmalloc(2 * 262144);
    for (int round = 0; round < ROUNDS; ++round) {
        for (int s = 0; s < nsizes; ++s) {
            int tag = 10 * round + s;
            /* Sizes 8 and 65536 travel as doubles, the others as bytes. */
            MPI_Datatype type = sizes[s] % 8 == 0 && s % 2 == 0 ? MPI_DOUBLE : MPI_BYTE;
            int elem = type == MPI_DOUBLE ? 8 : 1;
            int count = sizes[s] / elem;
            /* Round 1 receives into a buffer twice the message: the trace
             * must record what arrived, not the buffer. */
            int rcount = round == 1 ? 2 * count : count;
            int source = round == 1 ? MPI_ANY_SOURCE : left;
            int rtag = round == 2 ? MPI_ANY_TAG : tag;
            MPI_Status st;
            for (int phase = 0; phase < 2; ++phase) {
                if ((phase == 0) == (rank % 2 == 0)) {
                    if (s == 3 && round == 0)
                        check(MPI_Ssend(sbuf, count, type, right, tag, MPI_COMM_WORLD), "MPI_Ssend");
                    else
                        check(MPI_Send(sbuf, count, type, right, tag, MPI_COMM_WORLD), "MPI_Send");
                    sent(sizes[s]);
                } else {
                    check(MPI_Recv(rbuf, rcount, type, source, rtag, MPI_COMM_WORLD,
                                   round == 0 ? MPI_STATUS_IGNORE : &st),
                          "MPI_Recv");
                    if (round != 0 && (st.MPI_SOURCE != left || st.MPI_TAG != tag)) {
                        fprintf(stderr, "ring_halo: rank %d: message from %d tag %d, expected %d tag %d\n", rank,
                                st.MPI_SOURCE, st.MPI_TAG, left, tag);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                    received(sizes[s]);
                }
            }
        }
    }
    free(sbuf);
    free(rbuf);
}

/* 2. Non-blocking halo exchange with both neighbours. A message to the
 * right carries tag 100, to the left tag 101. */
static void halo(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const long long bytes = HALO_DOUBLES * (long long)sizeof(double);
    double *out_l = xmalloc(bytes), *out_r = xmalloc(bytes), *in_l = xmalloc(bytes), *in_r = xmalloc(bytes);
    for (int round = 0; round < 3; ++round) {
        MPI_Request req[4];
        /* Round 1: the receive from the left takes any source; the tag
         * still tells the two neighbours apart. */
        check(
            MPI_Irecv(in_l, HALO_DOUBLES, MPI_DOUBLE, round == 1 ? MPI_ANY_SOURCE : left, 100, MPI_COMM_WORLD, &req[0]),
            "MPI_Irecv");
        check(MPI_Irecv(in_r, HALO_DOUBLES, MPI_DOUBLE, right, 101, MPI_COMM_WORLD, &req[1]), "MPI_Irecv");
        check(MPI_Isend(out_r, HALO_DOUBLES, MPI_DOUBLE, right, 100, MPI_COMM_WORLD, &req[2]), "MPI_Isend");
        check(MPI_Isend(out_l, HALO_DOUBLES, MPI_DOUBLE, left, 101, MPI_COMM_WORLD, &req[3]), "MPI_Isend");
        sent(bytes);
        sent(bytes);
        received(bytes);
        received(bytes);
        if (round == 0) {
            check(MPI_Waitall(4, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
        } else if (round == 1) {
            for (int done = 0; done < 4; ++done) {
                int index;
                MPI_Status st;
                check(MPI_Waitany(4, req, &index, &st), "MPI_Waitany");
                if (index == 0 && st.MPI_SOURCE != left) {
                    fprintf(stderr, "ring_halo: rank %d: halo from %d, expected %d\n", rank, st.MPI_SOURCE, left);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
        } else {
            int flag = 0;
            while (!flag) check(MPI_Testall(4, req, &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
        }
    }
    free(out_l);
    free(out_r);
    free(in_l);
    free(in_r);
}

/* 3. A shift to the right with MPI_Sendrecv. */
static void shift(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[256], in[256];
    memset(out, 0, sizeof out);
    check(MPI_Sendrecv(out, 256, MPI_INT, right, 7, in, 256, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    sent(sizeof out);
    received(sizeof in);
}

/* 4 and 5. Collectives. */
static void collectives(int rank, int size)
{
    double local[16], global[16];
    for (int i = 0; i < 16; ++i) local[i] = rank + i;
    check(MPI_Allreduce(local, global, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    tally[T_ALLREDUCE]++;

    int *a = xmalloc(sizeof(int) * 32 * (size_t)size), *b = xmalloc(sizeof(int) * 32 * (size_t)size);
    check(MPI_Alltoall(a, 32, MPI_INT, b, 32, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
    tally[T_ALLTOALL]++;
    free(a);
    free(b);

    MPI_Comm half;
    check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half), "MPI_Comm_split");
    char word[64] = "hello";
    check(MPI_Bcast(word, (int)sizeof word, MPI_CHAR, 0, half), "MPI_Bcast");
    tally[T_BCAST]++;
    check(MPI_Comm_free(&half), "MPI_Comm_free");

    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    tally[T_BARRIER]++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "ring_halo: needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    ring(rank, size);
    halo(rank, size);
    shift(rank, size);
    collectives(rank, size);

    tally[T_GATHER]++; /* counted before it happens: it carries the counts */
    long long *all = rank == 0 ? xmalloc(sizeof tally * (size_t)size) : NULL;
    check(MPI_Gather(tally, T_COUNT, MPI_LONG_LONG, all, T_COUNT, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Gather");
    if (rank == 0) {
        FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
        if (!out) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int r = 0; r < size; ++r) {
            fprintf(out, "rank %d", r);
            for (int t = 0; t < T_COUNT; ++t) fprintf(out, " %s %lld", T_NAME[t], all[(size_t)r * T_COUNT + t]);
            fputc('\n', out);
        }
        if (out != stdout && fclose(out) != 0) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(all);
    }
    MPI_Finalize();
    return 0;
}
