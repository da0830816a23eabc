/* Persistent requests and matched probes: operations whose communication
 * starts at a later call than the one that describes it.
 *  - MPI_Send_init and friends describe a message that each MPI_Start (or
 *    MPI_Startall) begins: each start is recorded as the isend or irecv it
 *    begins, closed by the wait or test that completes it.
 *  - MPI_Mprobe / MPI_Improbe match a message that MPI_Mrecv / MPI_Imrecv
 *    then receive: recorded as the recv or irecv of that message, with the
 *    source that matched; the probe's time stays computation. */
#include "capture_internal.h"

/* What a persistent request or a matched message will do. */
struct parked {
    size_t ci;   /* communicator entry; NO_SLOT if not recordable */
    int why;     /* then the counter to count each start in, or -1 */
    int is_recv; /* persistent requests: a receive (else a send) */
    int peer;    /* rank in the communicator, or MPI_ANY_SOURCE / MPI_PROC_NULL */
    int tag;     /* or MPI_ANY_TAG */
    int any;     /* matched messages: probed with MPI_ANY_SOURCE */
    uint64_t bytes;
};

/* Parked operations by request (persistent) and by message handle; guarded
 * by the library's lock. */
static struct {
    struct parked *v;
    size_t n, cap;
    size_t *free_slots;
    size_t nfree, capfree;
    struct map by_request, by_message;
} P;

/* Stores *OP under KEY in M; returns 0 when out of memory. Lock held. */
static int park_locked(struct map *m, uint64_t key, const struct parked *op)
{
    size_t slot;
    if (P.nfree > 0) {
        slot = P.free_slots[--P.nfree];
    } else {
        if (!grow((void **)&P.v, &P.cap, P.n + 1, sizeof *P.v) ||
            !grow((void **)&P.free_slots, &P.capfree, P.cap, sizeof *P.free_slots))
            return 0;
        slot = P.n++;
    }
    uint64_t old;
    if (map_take(m, key, &old)) P.free_slots[P.nfree++] = (size_t)old; /* a handle freed behind our back */
    P.v[slot] = *op;
    if (!map_put(m, key, slot)) return 0;
    if (op->ci != NO_SLOT) S.comms[op->ci].refs++;
    return 1;
}

/* Removes KEY from M into *OP (if OP); returns 0 if it was not there. Lock held. */
static int unpark_locked(struct map *m, uint64_t key, struct parked *op)
{
    uint64_t slot;
    if (!map_take(m, key, &slot)) return 0;
    if (op) *op = P.v[slot];
    if (P.v[slot].ci != NO_SLOT) S.comms[P.v[slot].ci].refs--;
    P.free_slots[P.nfree++] = (size_t)slot;
    return 1;
}

/* What an operation on COMM with PEER (MPI_PROC_NULL: none) records on. Lock held. */
static struct parked parked_on_locked(MPI_Comm comm, int peer)
{
    struct parked op = {.ci = NO_SLOT, .why = -1, .peer = peer};
    uint64_t before[C_COUNT];
    memcpy(before, S.counters, sizeof before);
    if (peer != MPI_PROC_NULL && !p2p_comm_locked(comm, &op.ci)) {
        op.ci = NO_SLOT;
        for (int c = 0; c < C_COUNT; ++c)
            if (S.counters[c] != before[c]) op.why = c; /* counted at each start instead */
        memcpy(S.counters, before, sizeof before);
    }
    return op;
}

/* -- Persistent requests -- */

/* MPI_Send_init (and _Bsend_, _Ssend_, _Rsend_init) or MPI_Recv_init made
 * request KEY. */
void note_persistent_init(uint64_t key, MPI_Comm comm, int is_recv, int peer, uint64_t bytes, int tag)
{
    if (!recording()) return;
    lock();
    struct parked op = parked_on_locked(comm, peer);
    op.is_recv = is_recv;
    op.tag = tag;
    op.bytes = bytes;
    op.any = peer == MPI_ANY_SOURCE;
    if (!S.failed && !park_locked(&P.by_request, key, &op)) fail_locked("persistent requests");
    unlock();
}

/* MPI_Start of request KEY over [t0, t1]: the isend or irecv it begins. */
void note_start(uint64_t key, uint64_t t0, uint64_t t1)
{
    if (!recording()) return;
    lock();
    struct map_slot *hit = map_find(&P.by_request, key);
    if (hit && !S.failed) {
        struct parked op = P.v[hit->value];
        if (op.ci == NO_SLOT && op.why >= 0)
            S.counters[op.why]++;
        else if (op.ci != NO_SLOT && op.is_recv)
            irecv_locked(t0, t1, op.ci, op.peer, op.bytes, op.tag, key);
        else if (op.ci != NO_SLOT)
            isend_locked(t0, t1, op.ci, op.peer, op.bytes, op.tag, key);
    }
    unlock();
}

/* MPI_Request_free of KEY: if it was persistent, it starts nothing more. */
void note_persistent_free(uint64_t key)
{
    if (!S.active) return;
    lock();
    unpark_locked(&P.by_request, key, NULL);
    unlock();
}

/* -- Matched probes -- */

/* MPI_Mprobe or MPI_Improbe posted for SOURCE on COMM matched message
 * MESSAGE, whose source and tag ST gives. */
void note_matched_probe(MPI_Comm comm, int source, const MPI_Status *st, uint64_t message)
{
    if (!recording()) return;
    lock();
    struct parked op = parked_on_locked(comm, st->MPI_SOURCE);
    op.is_recv = 1;
    op.tag = st->MPI_TAG;
    op.any = source == MPI_ANY_SOURCE;
    if (!S.failed && !park_locked(&P.by_message, message, &op)) fail_locked("matched messages");
    unlock();
}

/* MPI_Mrecv of MESSAGE returned over [t0, t1] with status ST. */
void note_mrecv(uint64_t message, const MPI_Status *st, uint64_t posted, uint64_t t0, uint64_t t1)
{
    if (!recording()) return;
    lock();
    struct parked op;
    if (unpark_locked(&P.by_message, message, &op) && !S.failed) {
        int64_t peer = op.ci == NO_SLOT ? -1 : world_rank_locked(op.ci, st->MPI_SOURCE);
        if (op.ci == NO_SLOT && op.why >= 0) S.counters[op.why]++;
        if (peer >= 0)
            append_p2p_locked(t0, t1, OP_RECV, received_bytes(st, posted), peer, st->MPI_TAG, 0, op.ci, op.any, NULL);
    }
    unlock();
}

/* MPI_Imrecv of MESSAGE returned request REQUEST over [t0, t1]: an irecv
 * from the source the probe matched, completed like any other. */
void note_imrecv(uint64_t message, uint64_t posted, uint64_t request, uint64_t t0, uint64_t t1)
{
    if (!recording()) return;
    lock();
    struct parked op;
    if (unpark_locked(&P.by_message, message, &op) && !S.failed) {
        if (op.ci == NO_SLOT && op.why >= 0) S.counters[op.why]++;
        if (op.ci != NO_SLOT) {
            size_t before = S.nrecs;
            irecv_locked(t0, t1, op.ci, op.peer, posted, op.tag, request);
            /* The message was matched by a wildcard probe: say so, as for a receive posted with one. */
            if (S.nrecs > before && op.any) S.recs[S.nrecs - 1].flags = 1;
        }
    }
    unlock();
}

void persistent_free_all(void)
{
    free(P.v);
    free(P.free_slots);
    map_free(&P.by_request);
    map_free(&P.by_message);
    memset(&P, 0, sizeof P);
}

/* ------------------------------------------------------------------------ */
/* C wrappers                                                               */
/* ------------------------------------------------------------------------ */

#define SEND_INIT(NAME)                                                                                                \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,                    \
                   MPI_Request *request)                                                                               \
    {                                                                                                                  \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, request);                                              \
        if (rc == MPI_SUCCESS) note_persistent_init(req_key(*request), comm, 0, dest, type_bytes(count, type), tag);   \
        return rc;                                                                                                     \
    }
SEND_INIT(Send_init)
SEND_INIT(Bsend_init)
SEND_INIT(Ssend_init)
SEND_INIT(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS) note_persistent_init(req_key(*request), comm, 1, source, type_bytes(count, type), tag);
    return rc;
}

int MPI_Start(MPI_Request *request)
{
    uint64_t key = req_key(*request);
    uint64_t t0 = now();
    int rc = PMPI_Start(request);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) note_start(key, t0, t1);
    return rc;
}

/* The first operation started spans the call, the others follow it with
 * zero length (as the waits of one MPI_Waitall do). */
int MPI_Startall(int count, MPI_Request reqs[])
{
    uint64_t t0 = now();
    int rc = PMPI_Startall(count, reqs);
    uint64_t t1 = now();
    for (int i = 0; rc == MPI_SUCCESS && i < count; ++i) note_start(req_key(reqs[i]), i == 0 ? t0 : t1, t1);
    return rc;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPI_Status own; /* the source and tag are needed even if the program ignores them */
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Mprobe(source, tag, comm, message, st);
    if (rc == MPI_SUCCESS && *message != MPI_MESSAGE_NO_PROC) note_matched_probe(comm, source, st, msg_key(*message));
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Improbe(source, tag, comm, flag, message, st);
    if (rc == MPI_SUCCESS && *flag && *message != MPI_MESSAGE_NO_PROC)
        note_matched_probe(comm, source, st, msg_key(*message));
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t key = msg_key(*message);
    uint64_t t0 = now();
    int rc = PMPI_Mrecv(buf, count, type, message, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) note_mrecv(key, st, type_bytes(count, type), t0, t1);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
    uint64_t key = msg_key(*message);
    uint64_t t0 = now();
    int rc = PMPI_Imrecv(buf, count, type, message, request);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) note_imrecv(key, type_bytes(count, type), req_key(*request), t0, t1);
    return rc;
}
