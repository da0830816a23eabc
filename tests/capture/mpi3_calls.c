/*
 * mpi3_calls: every MPI-3 point-to-point and collective call that
 * libibsec_capture records, for tests/python/test_capture_mpi3.py. Each rank
 * counts what its trace must say, by the rules of traces/capture/README.md:
 *
 *   MPI_Send, _Ssend, _Bsend, _Rsend          send
 *   MPI_Recv, MPI_Mrecv                       recv
 *   MPI_Isend, _Issend, _Ibsend, _Irsend      isend, and a wait when it completes
 *   MPI_Irecv, MPI_Imrecv                     irecv, and a wait
 *   MPI_Start(all) of a persistent request    isend or irecv, and a wait
 *   MPI_Sendrecv(_replace)                    irecv, isend, wait, wait
 *   MPI_Request_free of an active request     its wait
 *   MPI_Probe, _Iprobe, _Mprobe, _Improbe     nothing
 *   each collective                           its op (MPI_Alltoallw: alltoallv,
 *                                             MPI_Reduce_scatter_block: reduce_scatter);
 *                                             a non-blocking one also a wait
 *
 * and counts the bytes: `send_bytes` and `recv_bytes` of point-to-point
 * events, `coll_bytes` the BYTES or the sum of the COUNTS of its collectives;
 * `any` the receives posted with MPI_ANY_SOURCE, `self` the messages it sent
 * to itself, `comm_p2p` the point-to-point events on communicators other
 * than MPI_COMM_WORLD. Runs on 4 processes.
 *
 * Output (to the file named by argv[1]), one line per rank:
 *   rank R send N recv N ... coll_bytes B
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPROCS 4
#define BIG 4000 /* bytes: past Open MPI's pre-completed small sends */
#define SMALL 64 /* bytes: Open MPI completes these at once, with one shared request */
#define MAXBUF 65536

enum key {
    K_SEND,
    K_RECV,
    K_ISEND,
    K_IRECV,
    K_WAIT,
    K_BARRIER,
    K_BCAST,
    K_REDUCE,
    K_GATHER,
    K_SCATTER,
    K_ALLREDUCE,
    K_ALLGATHER,
    K_ALLTOALL,
    K_ALLTOALLV,
    K_ALLGATHERV,
    K_GATHERV,
    K_SCATTERV,
    K_REDUCE_SCATTER,
    K_SCAN,
    K_EXSCAN,
    K_IBARRIER,
    K_IBCAST,
    K_IREDUCE,
    K_IGATHER,
    K_ISCATTER,
    K_IALLREDUCE,
    K_IALLGATHER,
    K_IALLTOALL,
    K_IALLTOALLV,
    K_IALLGATHERV,
    K_IGATHERV,
    K_ISCATTERV,
    K_IREDUCE_SCATTER,
    K_ISCAN,
    K_IEXSCAN,
    K_SEND_BYTES,
    K_RECV_BYTES,
    K_COLL_BYTES,
    K_ANY,
    K_SELF,
    K_COMM_P2P,
    K_COUNT
};
static const char *const KEY_NAME[K_COUNT] = {
    "send",       "recv",       "isend",           "irecv",      "wait",
    "barrier",    "bcast",      "reduce",          "gather",     "scatter",
    "allreduce",  "allgather",  "alltoall",        "alltoallv",  "allgatherv",
    "gatherv",    "scatterv",   "reduce_scatter",  "scan",       "exscan",
    "ibarrier",   "ibcast",     "ireduce",         "igather",    "iscatter",
    "iallreduce", "iallgather", "ialltoall",       "ialltoallv", "iallgatherv",
    "igatherv",   "iscatterv",  "ireduce_scatter", "iscan",      "iexscan",
    "send_bytes", "recv_bytes", "coll_bytes",      "any",        "self",
    "comm_p2p"};
static long long tally[K_COUNT];
static int rank, size, right, left;
static char sbuf[MAXBUF], rbuf[MAXBUF];

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpi3_calls: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpi3_calls: rank %d: %s\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* One point-to-point event of BYTES (a send if SENDING) on COMM, to or from
 * world rank PEER. */
static void p2p(enum key op, int sending, long long bytes, int peer, MPI_Comm comm)
{
    tally[op]++;
    tally[sending ? K_SEND_BYTES : K_RECV_BYTES] += bytes;
    if (sending && peer == rank) tally[K_SELF]++;
    if (comm != MPI_COMM_WORLD) tally[K_COMM_P2P]++;
}

static void coll(enum key op, long long bytes)
{
    tally[op]++;
    tally[K_COLL_BYTES] += bytes;
}

/* -- 1. Blocking sends of every mode, around the ring -- */
static void blocking_modes(void)
{
    int (*const send[])(const void *, int, MPI_Datatype, int, int, MPI_Comm) = {MPI_Send, MPI_Ssend, MPI_Bsend};
    for (int mode = 0; mode < 3; ++mode) {
        int tag = 10 + mode, bytes = mode == 1 ? SMALL : BIG;
        for (int phase = 0; phase < 2; ++phase) {
            if ((phase == 0) == (rank % 2 == 0)) {
                check(send[mode](sbuf, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD), "send");
                p2p(K_SEND, 1, bytes, right, MPI_COMM_WORLD);
            } else {
                check(MPI_Recv(rbuf, MAXBUF, MPI_BYTE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
                p2p(K_RECV, 0, bytes, left, MPI_COMM_WORLD);
            }
        }
    }
    /* A ready send needs its receive posted: the barrier says it is. */
    MPI_Request r;
    check(MPI_Irecv(rbuf, MAXBUF, MPI_BYTE, left, 13, MPI_COMM_WORLD, &r), "irecv");
    p2p(K_IRECV, 0, BIG, left, MPI_COMM_WORLD);
    check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
    coll(K_BARRIER, 0);
    check(MPI_Rsend(sbuf, BIG, MPI_BYTE, right, 13, MPI_COMM_WORLD), "rsend");
    p2p(K_SEND, 1, BIG, right, MPI_COMM_WORLD);
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait");
    tally[K_WAIT]++;
}

/* -- 2. Non-blocking sends of every mode, and every way to complete them -- */
static void nonblocking_modes(void)
{
    int (*const isend[])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {MPI_Isend, MPI_Issend,
                                                                                                MPI_Ibsend, MPI_Irsend};
    MPI_Request recvs[4], sends[4];
    for (int m = 0; m < 4; ++m) {
        check(MPI_Irecv(rbuf + m * 8192, 8192, MPI_BYTE, left, 20 + m, MPI_COMM_WORLD, &recvs[m]), "irecv");
        p2p(K_IRECV, 0, BIG, left, MPI_COMM_WORLD);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "barrier"); /* for MPI_Irsend */
    coll(K_BARRIER, 0);
    for (int m = 0; m < 4; ++m) {
        check(isend[m](sbuf, BIG, MPI_BYTE, right, 20 + m, MPI_COMM_WORLD, &sends[m]), "isend");
        p2p(K_ISEND, 1, BIG, right, MPI_COMM_WORLD);
    }
    check(MPI_Waitall(4, sends, MPI_STATUSES_IGNORE), "waitall");
    tally[K_WAIT] += 4;
    int index, outcount, indices[4];
    MPI_Status st[4];
    check(MPI_Waitany(4, recvs, &index, MPI_STATUS_IGNORE), "waitany");
    check(MPI_Waitsome(4, recvs, &outcount, indices, st), "waitsome");
    int done = 1 + outcount;
    for (int i = 0; i < 4; ++i)
        if (recvs[i] != MPI_REQUEST_NULL) {
            check(MPI_Wait(&recvs[i], MPI_STATUS_IGNORE), "wait");
            ++done;
        }
    expect(done == 4, "four receives completed");
    tally[K_WAIT] += 4;

    /* Three small sends in flight at once, received with MPI_ANY_SOURCE;
     * completed by polling each kind of test. */
    MPI_Request small[3], got[3];
    for (int i = 0; i < 3; ++i) {
        check(MPI_Irecv(rbuf + i * 256, 256, MPI_BYTE, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &got[i]), "irecv");
        p2p(K_IRECV, 0, SMALL, left, MPI_COMM_WORLD);
        tally[K_ANY]++;
    }
    for (int i = 0; i < 3; ++i) {
        check(MPI_Isend(sbuf, SMALL, MPI_BYTE, right, 30, MPI_COMM_WORLD, &small[i]), "isend");
        p2p(K_ISEND, 1, SMALL, right, MPI_COMM_WORLD);
    }
    int flag = 0;
    while (!flag) check(MPI_Testall(3, small, &flag, MPI_STATUSES_IGNORE), "testall");
    tally[K_WAIT] += 3;
    flag = 0;
    while (!flag) check(MPI_Test(&got[0], &flag, &st[0]), "test");
    expect(st[0].MPI_SOURCE == left, "the wildcard receive matched the left neighbour");
    for (flag = 0, index = MPI_UNDEFINED; !flag || index == MPI_UNDEFINED;)
        check(MPI_Testany(3, got, &index, &flag, MPI_STATUS_IGNORE), "testany");
    for (outcount = 0; outcount == 0 || outcount == MPI_UNDEFINED;)
        check(MPI_Testsome(3, got, &outcount, indices, MPI_STATUSES_IGNORE), "testsome");
    expect(outcount == 1, "the last wildcard receive completed");
    tally[K_WAIT] += 3;
}

/* -- 3. Sendrecv, Sendrecv_replace, self-messages, request freeing -- */
static void combined_and_self(void)
{
    MPI_Status st;
    check(MPI_Sendrecv(sbuf, BIG, MPI_BYTE, right, 40, rbuf, MAXBUF, MPI_BYTE, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st),
          "sendrecv");
    expect(st.MPI_SOURCE == left, "sendrecv from the left");
    p2p(K_IRECV, 0, BIG, left, MPI_COMM_WORLD);
    p2p(K_ISEND, 1, BIG, right, MPI_COMM_WORLD);
    tally[K_WAIT] += 2;
    tally[K_ANY]++;
    check(MPI_Sendrecv_replace(rbuf, 1000, MPI_INT, right, 41, left, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "sendrecv_replace");
    p2p(K_IRECV, 0, 4000, left, MPI_COMM_WORLD);
    p2p(K_ISEND, 1, 4000, right, MPI_COMM_WORLD);
    tally[K_WAIT] += 2;
    /* To itself, in one call and in two. */
    check(MPI_Sendrecv(sbuf, 100, MPI_BYTE, rank, 42, rbuf, 100, MPI_BYTE, rank, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "sendrecv to itself");
    p2p(K_IRECV, 0, 100, rank, MPI_COMM_WORLD);
    p2p(K_ISEND, 1, 100, rank, MPI_COMM_WORLD);
    tally[K_WAIT] += 2;
    MPI_Request r;
    check(MPI_Isend(sbuf, 200, MPI_BYTE, rank, 43, MPI_COMM_WORLD, &r), "isend to itself");
    p2p(K_ISEND, 1, 200, rank, MPI_COMM_WORLD);
    check(MPI_Recv(rbuf, 200, MPI_BYTE, rank, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv from itself");
    p2p(K_RECV, 0, 200, rank, MPI_COMM_WORLD);
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait");
    tally[K_WAIT]++;
    /* A send whose request is freed: its wait is recorded at the free. */
    check(MPI_Isend(sbuf, BIG, MPI_BYTE, right, 44, MPI_COMM_WORLD, &r), "isend");
    p2p(K_ISEND, 1, BIG, right, MPI_COMM_WORLD);
    check(MPI_Request_free(&r), "request_free");
    tally[K_WAIT]++;
    check(MPI_Recv(rbuf, MAXBUF, MPI_BYTE, left, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
    p2p(K_RECV, 0, BIG, left, MPI_COMM_WORLD);
}

/* -- 4. Probes (not messages) and matched probes -- */
static void probes(void)
{
    MPI_Request sends[4];
    for (int tag = 60; tag < 64; ++tag) {
        check(MPI_Isend(sbuf, BIG, MPI_BYTE, right, tag, MPI_COMM_WORLD, &sends[tag - 60]), "isend");
        p2p(K_ISEND, 1, BIG, right, MPI_COMM_WORLD);
    }
    MPI_Status st;
    check(MPI_Probe(left, 60, MPI_COMM_WORLD, &st), "probe");
    check(MPI_Recv(rbuf, MAXBUF, MPI_BYTE, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
    p2p(K_RECV, 0, BIG, left, MPI_COMM_WORLD);
    int flag = 0;
    while (!flag) check(MPI_Iprobe(MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &flag, &st), "iprobe");
    check(MPI_Recv(rbuf, MAXBUF, MPI_BYTE, st.MPI_SOURCE, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
    p2p(K_RECV, 0, BIG, left, MPI_COMM_WORLD);
    MPI_Message msg;
    check(MPI_Mprobe(MPI_ANY_SOURCE, 62, MPI_COMM_WORLD, &msg, &st), "mprobe");
    check(MPI_Mrecv(rbuf, MAXBUF, MPI_BYTE, &msg, MPI_STATUS_IGNORE), "mrecv");
    p2p(K_RECV, 0, BIG, left, MPI_COMM_WORLD);
    tally[K_ANY]++;
    flag = 0;
    while (!flag) check(MPI_Improbe(left, 63, MPI_COMM_WORLD, &flag, &msg, &st), "improbe");
    MPI_Request r;
    check(MPI_Imrecv(rbuf, MAXBUF, MPI_BYTE, &msg, &r), "imrecv");
    p2p(K_IRECV, 0, BIG, left, MPI_COMM_WORLD);
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait");
    tally[K_WAIT]++;
    check(MPI_Waitall(4, sends, MPI_STATUSES_IGNORE), "waitall");
    tally[K_WAIT] += 4;
}

/* -- 5. Persistent requests of every mode -- */
static void persistent(void)
{
    MPI_Request r[2];
    int (*const init[])(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                        MPI_Request *) = {MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init};
    for (int m = 0; m < 4; ++m) {
        int tag = 70 + m, any = m == 2;
        check(MPI_Recv_init(rbuf, MAXBUF, MPI_BYTE, any ? MPI_ANY_SOURCE : left, tag, MPI_COMM_WORLD, &r[0]),
              "recv_init");
        check(init[m](sbuf, BIG, MPI_BYTE, right, tag, MPI_COMM_WORLD, &r[1]), "send_init");
        for (int round = 0; round < 2; ++round) {
            if (m == 3) { /* ready mode: the receive is started first */
                check(MPI_Start(&r[0]), "start");
                check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
                coll(K_BARRIER, 0);
                check(MPI_Start(&r[1]), "start");
            } else {
                check(MPI_Startall(2, r), "startall");
            }
            p2p(K_IRECV, 0, BIG, left, MPI_COMM_WORLD);
            p2p(K_ISEND, 1, BIG, right, MPI_COMM_WORLD);
            tally[K_ANY] += any;
            if (round == 0) {
                check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "waitall");
            } else {
                check(MPI_Wait(&r[1], MPI_STATUS_IGNORE), "wait");
                check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "wait");
            }
            tally[K_WAIT] += 2;
        }
        check(MPI_Request_free(&r[0]), "request_free"); /* inactive: nothing to record */
        check(MPI_Request_free(&r[1]), "request_free");
    }
}

/* -- 6. Blocking collectives on COMM (world ranks of its members: MEMBERS) -- */
static void blocking_collectives(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    /* counts: what each member contributes to a v-collective; pair: what
     * this process and member i exchange, the same seen from either side
     * (as alltoallv requires), of a type that depends on the pair too. */
    int counts[NPROCS], displs[NPROCS], pair[NPROCS], wdispls[NPROCS];
    MPI_Datatype types[NPROCS];
    long long all = 0, pair_bytes = 0, wbytes = 0;
    for (int i = 0; i < n; ++i) {
        counts[i] = i + 1;
        pair[i] = me + i + 1;
        displs[i] = i * 64;
        wdispls[i] = i * 512;
        types[i] = (me + i) % 2 ? MPI_DOUBLE : MPI_INT;
        all += 8LL * counts[i];
        pair_bytes += 8LL * pair[i];
        wbytes += (long long)pair[i] * ((me + i) % 2 ? 8 : 4);
    }
    double *a = (double *)sbuf, *b = (double *)rbuf;
    check(MPI_Barrier(comm), "barrier");
    coll(K_BARRIER, 0);
    check(MPI_Bcast(a, 10, MPI_DOUBLE, 1, comm), "bcast");
    coll(K_BCAST, 80);
    check(MPI_Reduce(a, b, 7, MPI_DOUBLE, MPI_SUM, 0, comm), "reduce");
    coll(K_REDUCE, 56);
    check(MPI_Allreduce(MPI_IN_PLACE, b, 5, MPI_INT, MPI_MAX, comm), "allreduce");
    coll(K_ALLREDUCE, 20);
    check(MPI_Gather(a, 3, MPI_DOUBLE, b, 3, MPI_DOUBLE, 0, comm), "gather");
    coll(K_GATHER, 24);
    check(MPI_Scatter(a, 2, MPI_INT, b, 2, MPI_INT, 1, comm), "scatter");
    coll(K_SCATTER, 8);
    check(MPI_Allgather(a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, comm), "allgather");
    coll(K_ALLGATHER, 32);
    check(MPI_Alltoall(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, comm), "alltoall");
    coll(K_ALLTOALL, 16);
    /* Gatherv at root 0: it lists every member's part, the others their own. */
    check(MPI_Gatherv(a, counts[me], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, comm), "gatherv");
    coll(K_GATHERV, me == 0 ? all : 8LL * counts[me]);
    check(MPI_Scatterv(a, counts, displs, MPI_DOUBLE, b, counts[me], MPI_DOUBLE, n - 1, comm), "scatterv");
    coll(K_SCATTERV, me == n - 1 ? all : 8LL * counts[me]);
    check(MPI_Allgatherv(a, counts[me], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, comm), "allgatherv");
    coll(K_ALLGATHERV, all);
    check(MPI_Alltoallv(a, pair, displs, MPI_DOUBLE, b, pair, displs, MPI_DOUBLE, comm), "alltoallv");
    coll(K_ALLTOALLV, pair_bytes);
    check(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, pair, displs, MPI_DOUBLE, comm),
          "alltoallv in place");
    coll(K_ALLTOALLV, pair_bytes);
    check(MPI_Alltoallw(a, pair, wdispls, types, b, pair, wdispls, types, comm), "alltoallw");
    coll(K_ALLTOALLV, wbytes);
    int rcounts[NPROCS];
    for (int i = 0; i < n; ++i) rcounts[i] = i + 1;
    check(MPI_Reduce_scatter(a, b, rcounts, MPI_DOUBLE, MPI_SUM, comm), "reduce_scatter");
    coll(K_REDUCE_SCATTER, 8LL * n * (n + 1) / 2);
    check(MPI_Reduce_scatter_block(a, b, 3, MPI_INT, MPI_SUM, comm), "reduce_scatter_block");
    coll(K_REDUCE_SCATTER, 12LL * n);
    check(MPI_Scan(a, b, 6, MPI_DOUBLE, MPI_SUM, comm), "scan");
    coll(K_SCAN, 48);
    check(MPI_Exscan(a, b, 9, MPI_INT, MPI_SUM, comm), "exscan");
    coll(K_EXSCAN, 36);
}

/* -- 7. Non-blocking collectives on COMM: each also gets its wait -- */
static void nonblocking_collectives(MPI_Comm comm)
{
    enum { N = 17 };
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int counts[NPROCS], displs[NPROCS], pair[NPROCS], rcounts[NPROCS], wdispls[NPROCS];
    MPI_Datatype types[NPROCS];
    long long all = 0, pair_bytes = 0, wbytes = 0;
    for (int i = 0; i < n; ++i) {
        counts[i] = 2 + i;
        pair[i] = 2 + me + i;
        displs[i] = i * 64;
        rcounts[i] = 1 + i;
        wdispls[i] = i * 512;
        types[i] = (me + i) % 2 ? MPI_INT : MPI_DOUBLE;
        all += 8LL * counts[i];
        pair_bytes += 8LL * pair[i];
        wbytes += (long long)pair[i] * ((me + i) % 2 ? 4 : 8);
    }
    /* Each call its own buffers: they are all in flight at once. */
    static double in[N][512], out[N][512];
    MPI_Request r[N];
    int k = 0;
    check(MPI_Ibarrier(comm, &r[k++]), "ibarrier");
    coll(K_IBARRIER, 0);
    check(MPI_Ibcast(out[k], 10, MPI_DOUBLE, 0, comm, &r[k]), "ibcast"), ++k;
    coll(K_IBCAST, 80);
    check(MPI_Ireduce(in[k], out[k], 7, MPI_DOUBLE, MPI_SUM, 1, comm, &r[k]), "ireduce"), ++k;
    coll(K_IREDUCE, 56);
    check(MPI_Iallreduce(in[k], out[k], 5, MPI_INT, MPI_MAX, comm, &r[k]), "iallreduce"), ++k;
    coll(K_IALLREDUCE, 20);
    check(MPI_Igather(in[k], 3, MPI_DOUBLE, out[k], 3, MPI_DOUBLE, 0, comm, &r[k]), "igather"), ++k;
    coll(K_IGATHER, 24);
    check(MPI_Iscatter(in[k], 2, MPI_INT, out[k], 2, MPI_INT, 0, comm, &r[k]), "iscatter"), ++k;
    coll(K_ISCATTER, 8);
    check(MPI_Iallgather(in[k], 4, MPI_DOUBLE, out[k], 4, MPI_DOUBLE, comm, &r[k]), "iallgather"), ++k;
    coll(K_IALLGATHER, 32);
    check(MPI_Ialltoall(in[k], 2, MPI_DOUBLE, out[k], 2, MPI_DOUBLE, comm, &r[k]), "ialltoall"), ++k;
    coll(K_IALLTOALL, 16);
    check(MPI_Igatherv(in[k], counts[me], MPI_DOUBLE, out[k], counts, displs, MPI_DOUBLE, 0, comm, &r[k]), "igatherv"),
        ++k;
    coll(K_IGATHERV, me == 0 ? all : 8LL * counts[me]);
    check(MPI_Iscatterv(in[k], counts, displs, MPI_DOUBLE, out[k], counts[me], MPI_DOUBLE, 0, comm, &r[k]),
          "iscatterv"),
        ++k;
    coll(K_ISCATTERV, me == 0 ? all : 8LL * counts[me]);
    check(MPI_Iallgatherv(in[k], counts[me], MPI_DOUBLE, out[k], counts, displs, MPI_DOUBLE, comm, &r[k]),
          "iallgatherv"),
        ++k;
    coll(K_IALLGATHERV, all);
    check(MPI_Ialltoallv(in[k], pair, displs, MPI_DOUBLE, out[k], pair, displs, MPI_DOUBLE, comm, &r[k]), "ialltoallv"),
        ++k;
    coll(K_IALLTOALLV, pair_bytes);
    check(MPI_Ialltoallw(in[k], pair, wdispls, types, out[k], pair, wdispls, types, comm, &r[k]), "ialltoallw"), ++k;
    coll(K_IALLTOALLV, wbytes);
    check(MPI_Ireduce_scatter(in[k], out[k], rcounts, MPI_DOUBLE, MPI_SUM, comm, &r[k]), "ireduce_scatter"), ++k;
    coll(K_IREDUCE_SCATTER, 8LL * n * (n + 1) / 2);
    check(MPI_Ireduce_scatter_block(in[k], out[k], 3, MPI_INT, MPI_SUM, comm, &r[k]), "ireduce_scatter_block"), ++k;
    coll(K_IREDUCE_SCATTER, 12LL * n);
    check(MPI_Iscan(in[k], out[k], 6, MPI_DOUBLE, MPI_SUM, comm, &r[k]), "iscan"), ++k;
    coll(K_ISCAN, 48);
    check(MPI_Iexscan(in[k], out[k], 9, MPI_INT, MPI_SUM, comm, &r[k]), "iexscan"), ++k;
    coll(K_IEXSCAN, 36);
    expect(k == N, "17 non-blocking collectives");
    /* Completed by a wait, a test loop and a waitall. */
    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "wait");
    int flag = 0;
    while (!flag) check(MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE), "test");
    check(MPI_Waitall(N - 2, r + 2, MPI_STATUSES_IGNORE), "waitall");
    tally[K_WAIT] += N;
}

/* -- 8. Communicators of every kind of creation, with messages and
 * collectives on them -- */
static void exchange_on(MPI_Comm comm, int tag)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Group g, world;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peers[2] = {(me + 1) % n, (me + n - 1) % n}, wpeers[2];
    MPI_Group_translate_ranks(g, 2, peers, world, wpeers);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    check(MPI_Sendrecv(sbuf, 300, MPI_BYTE, peers[0], tag, rbuf, 300, MPI_BYTE, peers[1], tag, comm, MPI_STATUS_IGNORE),
          "sendrecv on a communicator");
    p2p(K_IRECV, 0, 300, wpeers[1], comm);
    p2p(K_ISEND, 1, 300, wpeers[0], comm);
    tally[K_WAIT] += 2;
}

static void communicators(void)
{
    MPI_Comm half, dup, first3, last3, shared, cart, row, graph, dist, adjacent, info_dup, inter, merged;
    check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half), "comm_split");
    exchange_on(half, 80);
    check(MPI_Bcast(sbuf, 16, MPI_BYTE, 0, half), "bcast");
    coll(K_BCAST, 16);
    check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "comm_dup");
    exchange_on(dup, 80); /* the same tag as on `half`: another communicator, another channel */
    blocking_collectives(dup);
    nonblocking_collectives(half);

    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks3[3] = {0, 1, 2};
    MPI_Group_incl(world, 3, ranks3, &g);
    check(MPI_Comm_create(MPI_COMM_WORLD, g, &first3), "comm_create");
    MPI_Group_free(&g);
    if (first3 != MPI_COMM_NULL) {
        check(MPI_Barrier(first3), "barrier");
        coll(K_BARRIER, 0);
        exchange_on(first3, 81);
        MPI_Comm_free(&first3);
    }
    int last[3] = {1, 2, 3};
    MPI_Group_incl(world, 3, last, &g);
    if (rank >= 1) {
        check(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &last3), "comm_create_group");
        check(MPI_Allreduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, last3), "allreduce");
        coll(K_ALLREDUCE, 4);
        MPI_Comm_free(&last3);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&world);

    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared), "comm_split_type");
    check(MPI_Barrier(shared), "barrier");
    coll(K_BARRIER, 0);
    int dims[2] = {2, 2}, periods[2] = {1, 1}, keep[2] = {0, 1};
    check(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), "cart_create");
    exchange_on(cart, 82);
    check(MPI_Cart_sub(cart, keep, &row), "cart_sub");
    check(MPI_Allreduce(sbuf, rbuf, 2, MPI_INT, MPI_SUM, row), "allreduce");
    coll(K_ALLREDUCE, 8);
    int index[NPROCS] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 0, 2};
    check(MPI_Graph_create(MPI_COMM_WORLD, NPROCS, index, edges, 0, &graph), "graph_create");
    check(MPI_Barrier(graph), "barrier");
    coll(K_BARRIER, 0);
    int srcs[1] = {left}, dsts[1] = {right};
    check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED,
                                         MPI_INFO_NULL, 0, &adjacent),
          "dist_graph_create_adjacent");
    exchange_on(adjacent, 83);
    int degree[1] = {1};
    check(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, degree, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist),
          "dist_graph_create");
    check(MPI_Barrier(dist), "barrier");
    coll(K_BARRIER, 0);
    check(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &info_dup), "comm_dup_with_info");
    check(MPI_Reduce(sbuf, rbuf, 3, MPI_INT, MPI_SUM, 2, info_dup), "reduce");
    coll(K_REDUCE, 12);

    /* The even and the odd ranks, joined by an intercommunicator: rank i of
     * one group exchanges with rank i of the other. */
    check(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 90, &inter), "intercomm_create");
    int me;
    MPI_Comm_rank(inter, &me);
    int partner = rank % 2 ? rank - 1 : rank + 1;
    check(MPI_Sendrecv(sbuf, 500, MPI_BYTE, me, 91, rbuf, 500, MPI_BYTE, me, 91, inter, MPI_STATUS_IGNORE),
          "sendrecv on an intercommunicator");
    p2p(K_IRECV, 0, 500, partner, inter);
    p2p(K_ISEND, 1, 500, partner, inter);
    tally[K_WAIT] += 2;
    check(MPI_Intercomm_merge(inter, rank % 2, &merged), "intercomm_merge");
    check(MPI_Allgather(sbuf, 1, MPI_DOUBLE, rbuf, 1, MPI_DOUBLE, merged), "allgather");
    coll(K_ALLGATHER, 8);

    /* MPI_COMM_SELF: a communicator of one, a message to itself. */
    MPI_Request r;
    check(MPI_Isend(sbuf, 24, MPI_BYTE, 0, 92, MPI_COMM_SELF, &r), "isend on MPI_COMM_SELF");
    p2p(K_ISEND, 1, 24, rank, MPI_COMM_SELF);
    check(MPI_Recv(rbuf, 24, MPI_BYTE, 0, 92, MPI_COMM_SELF, MPI_STATUS_IGNORE), "recv on MPI_COMM_SELF");
    p2p(K_RECV, 0, 24, rank, MPI_COMM_SELF);
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait");
    tally[K_WAIT]++;

    MPI_Comm *all[] = {&half, &dup, &shared, &cart, &row, &graph, &dist, &adjacent, &info_dup, &inter, &merged};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) check(MPI_Comm_free(all[i]), "comm_free");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NPROCS) {
        fprintf(stderr, "mpi3_calls: needs %d processes\n", NPROCS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (int i = 0; i < MAXBUF; ++i) sbuf[i] = (char)i;
    static char bsend_buffer[4 * (MAXBUF + MPI_BSEND_OVERHEAD)];
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);

    blocking_modes();
    nonblocking_modes();
    combined_and_self();
    probes();
    persistent();
    blocking_collectives(MPI_COMM_WORLD);
    nonblocking_collectives(MPI_COMM_WORLD);
    communicators();

    void *detached;
    int detached_size;
    MPI_Buffer_detach(&detached, &detached_size);
    /* The report is gathered on rank 0 by an MPI_Gather, which is recorded too. */
    coll(K_GATHER, sizeof tally);
    long long all[NPROCS][K_COUNT];
    check(MPI_Gather(tally, K_COUNT, MPI_LONG_LONG, all, K_COUNT, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "gather");
    if (rank == 0) {
        FILE *f = argc > 1 ? fopen(argv[1], "w") : stdout;
        if (!f) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int r = 0; r < size; ++r) {
            fprintf(f, "rank %d", r);
            for (int k = 0; k < K_COUNT; ++k) fprintf(f, " %s %lld", KEY_NAME[k], all[r][k]);
            fputc('\n', f);
        }
        if (f != stdout) fclose(f);
    }
    MPI_Finalize();
    return 0;
}
