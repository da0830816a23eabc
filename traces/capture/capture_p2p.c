/* Point-to-point: the recording of sends, receives and their requests, and
 * the C MPI_* wrappers for point-to-point and request completion. */
#include "capture_internal.h"

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                           */
/* ------------------------------------------------------------------------ */

/* What a completed receive actually got: MPI_Get_elements_x with MPI_BYTE
 * gives the byte count of the message whatever the receive's datatype was
 * (both Open MPI and MPICH keep that count in the status), and the datatype
 * the receive was posted with may have been freed since. */
uint64_t received_bytes(const MPI_Status *st, uint64_t posted)
{
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return posted;
    return (uint64_t)n;
}

/* The table entry of COMM for a point-to-point event, which names the
 * communicator by the id its members agreed on. Returns 0 if the event
 * cannot be recorded. Lock held. */
int p2p_comm_locked(MPI_Comm comm, size_t *ci)
{
    if (!comm_lookup_locked(comm, ci)) return 0;
    if (!S.comms[*ci].has_id) { /* made by a call that gave no chance to agree (MPI_Comm_idup) */
        S.counters[C_UNNAMED_COMM]++;
        return 0;
    }
    return 1;
}

/* Appends a point-to-point event on communicator entry CI; ANY says a
 * receive was posted with MPI_ANY_SOURCE. Lock held. */
int append_p2p_locked(uint64_t t0, uint64_t t1, enum op op, uint64_t bytes, int64_t peer, int tag, uint32_t req,
                      size_t ci, int any, size_t *index)
{
    size_t at;
    if (!append_locked(t0, t1, op, bytes, (uint32_t)peer, (uint32_t)tag, req, &at)) return 0;
    S.recs[at].d = S.comms[ci].id;
    S.recs[at].flags = (uint8_t)(any != 0);
    S.comms[ci].used = 1;
    /* Counted once per message, at its send. */
    if (peer == S.rank && (op == OP_SEND || op == OP_ISEND)) S.counters[C_SELF]++;
    if (index) *index = at;
    return 1;
}

/* A blocking send (MPI_Send, _Ssend, _Bsend, _Rsend) that returned. */
void note_send(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag)
{
    if (!recording() || dest == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (p2p_comm_locked(comm, &ci)) {
        int64_t peer = world_rank_locked(ci, dest);
        if (peer >= 0) append_p2p_locked(t0, t1, OP_SEND, bytes, peer, tag, 0, ci, 0, NULL);
    }
    unlock();
}

/* A blocking receive posted for SOURCE that returned with status ST. */
void note_recv(uint64_t t0, uint64_t t1, MPI_Comm comm, int source, const MPI_Status *st, uint64_t posted)
{
    if (!recording() || st->MPI_SOURCE == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (p2p_comm_locked(comm, &ci)) {
        int64_t peer = world_rank_locked(ci, st->MPI_SOURCE);
        if (peer >= 0)
            append_p2p_locked(t0, t1, OP_RECV, received_bytes(st, posted), peer, st->MPI_TAG, 0, ci,
                              source == MPI_ANY_SOURCE, NULL);
    }
    unlock();
}

/* Returns pending slot SLOT to the free list. Lock held. */
static void pending_close_locked(size_t slot)
{
    S.comms[S.pend[slot].comm].refs--;
    S.pend_free[S.npend_free++] = slot;
}

/* Remembers the request KEY of the record REC (an isend, irecv or
 * non-blocking collective), behind any operation still open under the same
 * handle. Lock held. */
void pending_open_locked(uint64_t key, size_t rec, size_t comm, enum pend_kind kind, int src_known, int tag_known)
{
    size_t slot;
    if (S.npend_free > 0) {
        slot = S.pend_free[--S.npend_free];
    } else {
        /* The free list can hold every slot, so freeing never allocates. */
        if (!grow((void **)&S.pend, &S.cappend, S.npend + 1, sizeof *S.pend) ||
            !grow((void **)&S.pend_free, &S.cappend_free, S.cappend, sizeof *S.pend_free)) {
            fail_locked("request table");
            return;
        }
        slot = S.npend++;
    }
    S.pend[slot] = (struct pending){.rec = rec,
                                    .comm = comm,
                                    .kind = kind,
                                    .src_known = src_known,
                                    .tag_known = tag_known,
                                    .next = NO_SLOT,
                                    .last = slot};
    struct map_slot *queue = map_find(&S.pend_by_request, key);
    if (queue) {
        struct pending *oldest = &S.pend[queue->value];
        S.pend[oldest->last].next = slot;
        oldest->last = slot;
    } else if (!map_put(&S.pend_by_request, key, slot)) {
        fail_locked("request table");
        return;
    }
    S.comms[comm].refs++;
}

/* Takes the oldest operation open under request KEY out of the table into
 * *P; returns 0 if there is none. Lock held. */
static int pending_take_locked(uint64_t key, struct pending *p)
{
    struct map_slot *queue = map_find(&S.pend_by_request, key);
    if (S.failed || !queue) return 0;
    size_t slot = (size_t)queue->value;
    *p = S.pend[slot];
    if (p->next == NO_SLOT) {
        map_take(&S.pend_by_request, key, NULL);
    } else {
        S.pend[p->next].last = p->last;
        queue->value = p->next;
    }
    pending_close_locked(slot);
    return 1;
}

/* A non-blocking send on entry CI that returned request KEY. Lock held. */
void isend_locked(uint64_t t0, uint64_t t1, size_t ci, int dest, uint64_t bytes, int tag, uint64_t key)
{
    size_t rec;
    int64_t peer = world_rank_locked(ci, dest);
    if (peer >= 0 && append_p2p_locked(t0, t1, OP_ISEND, bytes, peer, tag, S.next_req++, ci, 0, &rec))
        pending_open_locked(key, rec, ci, PEND_SEND, 1, 1);
}

/* A non-blocking receive on entry CI that returned request KEY. With
 * MPI_ANY_SOURCE / MPI_ANY_TAG the peer / tag is filled in when the request
 * completes; so is the size (a message may be shorter than the buffer).
 * Lock held. */
void irecv_locked(uint64_t t0, uint64_t t1, size_t ci, int source, uint64_t bytes, int tag, uint64_t key)
{
    size_t rec;
    int src_known = source != MPI_ANY_SOURCE, tag_known = tag != MPI_ANY_TAG;
    int64_t peer = src_known ? world_rank_locked(ci, source) : 0;
    if (peer >= 0 &&
        append_p2p_locked(t0, t1, OP_IRECV, bytes, peer, tag_known ? tag : 0, S.next_req++, ci, !src_known, &rec))
        pending_open_locked(key, rec, ci, PEND_RECV, src_known, tag_known);
}

/* MPI_Isend and friends that returned request KEY. */
void note_isend(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag, uint64_t key)
{
    if (!recording() || dest == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (p2p_comm_locked(comm, &ci)) isend_locked(t0, t1, ci, dest, bytes, tag, key);
    unlock();
}

/* MPI_Irecv that returned request KEY. */
void note_irecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int source, uint64_t bytes, int tag, uint64_t key)
{
    if (!recording() || source == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (p2p_comm_locked(comm, &ci)) irecv_locked(t0, t1, ci, source, bytes, tag, key);
    unlock();
}

/* Fills in the record of a completed receive from its status ST; returns 0
 * if it turned out not to be recordable. Lock held. */
static int finish_receive_locked(const struct pending *p, const MPI_Status *st)
{
    struct record *r = &S.recs[p->rec];
    int64_t peer = world_rank_locked(p->comm, st->MPI_SOURCE);
    if (peer < 0) return 0;
    r->a = (uint32_t)peer;
    r->b = (uint32_t)st->MPI_TAG;
    r->bytes = clamp_bytes_locked(received_bytes(st, r->bytes));
    return 1;
}

/* Request KEY completed (a wait or a successful test over [t0, t1]) with
 * status ST. Closes it and records its `wait`; returns 1 if it did. */
int complete_request(uint64_t key, const MPI_Status *st, uint64_t t0, uint64_t t1)
{
    if (!recording()) return 0;
    lock();
    struct pending p;
    int waited = 0;
    if (pending_take_locked(key, &p)) {
        int cancelled = 0;
        if (p.kind != PEND_COLL) PMPI_Test_cancelled(st, &cancelled);
        if (cancelled) {
            S.counters[C_CANCELLED]++;
            drop_locked(p.rec);
        } else if (p.kind == PEND_RECV && !finish_receive_locked(&p, st)) {
            drop_locked(p.rec);
        } else {
            waited = append_locked(t0, t1, OP_WAIT, 0, 0, 0, S.recs[p.rec].c, NULL);
        }
    }
    unlock();
    return waited;
}

/* MPI_Request_free of request KEY: the program will never wait for it. The
 * trace needs a `wait` for every request, so one is recorded at the free
 * (a replay then waits there for the message to be sent or received). */
void note_request_free(uint64_t key, uint64_t t0, uint64_t t1)
{
    if (!recording()) return;
    lock();
    struct pending p;
    if (pending_take_locked(key, &p)) {
        if (p.kind == PEND_RECV && !(p.src_known && p.tag_known)) {
            S.counters[C_FREED_UNKNOWN]++;
            drop_locked(p.rec);
        } else {
            if (p.kind == PEND_RECV) S.recs[p.rec].size_unsure = 1; /* its buffer's */
            append_locked(t0, t1, OP_WAIT, 0, 0, 0, S.recs[p.rec].c, NULL);
        }
    }
    unlock();
}

int any_pending(void)
{
    lock();
    int any = S.pend_by_request.len > 0;
    unlock();
    return any;
}

/* MPI_Sendrecv(_replace), the receive posted for SOURCE: recorded as irecv
 * + isend + two waits (the format has no combined operation), or as a
 * plain send or recv when the other side is MPI_PROC_NULL. */
void note_sendrecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t sbytes, int stag, int source,
                   const MPI_Status *st, uint64_t rposted)
{
    if (!recording()) return;
    lock();
    size_t ci;
    if (p2p_comm_locked(comm, &ci)) {
        int64_t to = dest == MPI_PROC_NULL ? -1 : world_rank_locked(ci, dest);
        int64_t from = st->MPI_SOURCE == MPI_PROC_NULL ? -1 : world_rank_locked(ci, st->MPI_SOURCE);
        uint64_t rbytes = received_bytes(st, rposted);
        int any = source == MPI_ANY_SOURCE;
        if (to >= 0 && from >= 0) {
            uint32_t rreq = S.next_req++, sreq = S.next_req++;
            if (append_p2p_locked(t0, t0, OP_IRECV, rbytes, from, st->MPI_TAG, rreq, ci, any, NULL) &&
                append_p2p_locked(t0, t0, OP_ISEND, sbytes, to, stag, sreq, ci, 0, NULL) &&
                append_locked(t0, t1, OP_WAIT, 0, 0, 0, rreq, NULL))
                append_locked(t1, t1, OP_WAIT, 0, 0, 0, sreq, NULL);
        } else if (to >= 0) {
            append_p2p_locked(t0, t1, OP_SEND, sbytes, to, stag, 0, ci, 0, NULL);
        } else if (from >= 0) {
            append_p2p_locked(t0, t1, OP_RECV, rbytes, from, st->MPI_TAG, 0, ci, any, NULL);
        }
    }
    unlock();
}

/* ------------------------------------------------------------------------ */
/* C wrappers                                                               */
/* ------------------------------------------------------------------------ */

#define BLOCKING_SEND(NAME)                                                                                            \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)                    \
    {                                                                                                                  \
        uint64_t t0 = now();                                                                                           \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                                                       \
        uint64_t t1 = now();                                                                                           \
        if (rc == MPI_SUCCESS) note_send(t0, t1, comm, dest, type_bytes(count, type), tag);                            \
        return rc;                                                                                                     \
    }
BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(NAME)                                                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,                    \
                   MPI_Request *request)                                                                               \
    {                                                                                                                  \
        uint64_t t0 = now();                                                                                           \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, request);                                              \
        uint64_t t1 = now();                                                                                           \
        if (rc == MPI_SUCCESS) note_isend(t0, t1, comm, dest, type_bytes(count, type), tag, req_key(*request));        \
        return rc;                                                                                                     \
    }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own; /* the source, tag and size are needed even if the program ignores them */
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t t0 = now();
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) note_recv(t0, t1, comm, source, st, type_bytes(count, type));
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    uint64_t t0 = now();
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) note_irecv(t0, t1, comm, source, type_bytes(count, type), tag, req_key(*request));
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t t0 = now();
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                           comm, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS)
        note_sendrecv(t0, t1, comm, dest, type_bytes(sendcount, sendtype), sendtag, source, st,
                      type_bytes(recvcount, recvtype));
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t t0 = now();
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
    uint64_t t1 = now();
    uint64_t bytes = type_bytes(count, type);
    if (rc == MPI_SUCCESS) note_sendrecv(t0, t1, comm, dest, bytes, sendtag, source, st, bytes);
    return rc;
}

/* -- Completion. The keys of the requests are read before the call, which
 * sets completed requests to MPI_REQUEST_NULL. When several requests
 * complete in one call, the first `wait` spans the call and the others
 * follow it with zero length (the format has one wait per request). -- */

void complete_in(struct span *sp, uint64_t key, const MPI_Status *st)
{
    if (complete_request(key, st, sp->start, sp->end)) sp->start = sp->end;
}

/* Scratch arrays for one call: request keys and statuses. */
struct scratch {
    uint64_t *keys;
    MPI_Status *statuses; /* own statuses when the program passes MPI_STATUSES_IGNORE */
};

static int scratch_get(struct scratch *s, int count, int need_statuses)
{
    size_t n = count > 0 ? (size_t)count : 1;
    s->keys = malloc(sizeof *s->keys * n);
    s->statuses = need_statuses ? malloc(sizeof *s->statuses * n) : NULL;
    if (!s->keys || (need_statuses && !s->statuses)) {
        free(s->keys);
        free(s->statuses);
        lock();
        fail_locked("request list");
        unlock();
        return 0;
    }
    return 1;
}

static void scratch_put(struct scratch *s)
{
    free(s->keys);
    free(s->statuses);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t key = req_key(*request);
    uint64_t t0 = now();
    int rc = PMPI_Wait(request, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) complete_request(key, st, t0, t1);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    uint64_t key = req_key(*request);
    uint64_t t0 = now();
    int rc = PMPI_Test(request, flag, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *flag)
        complete_request(key, st, t0, t1);
    else
        unrecorded_call_between(t0, t1);
    return rc;
}

/* Waitall and Testall (TESTING) share this. */
static int all_common(int testing, int count, MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    struct scratch s;
    if (!recording() || count <= 0 || !any_pending() || !scratch_get(&s, count, statuses == MPI_STATUSES_IGNORE))
        return testing ? PMPI_Testall(count, reqs, flag, statuses) : PMPI_Waitall(count, reqs, statuses);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses : statuses;
    for (int i = 0; i < count; ++i) s.keys[i] = req_key(reqs[i]);
    struct span sp = {now(), 0};
    int rc = testing ? PMPI_Testall(count, reqs, flag, st) : PMPI_Waitall(count, reqs, st);
    sp.end = now();
    if (rc == MPI_SUCCESS && (!testing || *flag)) {
        for (int i = 0; i < count; ++i) complete_in(&sp, s.keys[i], &st[i]);
    } else if (rc == MPI_ERR_IN_STATUS) { /* those with MPI_SUCCESS did complete */
        for (int i = 0; i < count; ++i)
            if (st[i].MPI_ERROR == MPI_SUCCESS) complete_in(&sp, s.keys[i], &st[i]);
    } else {
        unrecorded_call_between(sp.start, sp.end);
    }
    scratch_put(&s);
    return rc;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status *statuses)
{
    return all_common(0, count, reqs, NULL, statuses);
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    return all_common(1, count, reqs, flag, statuses);
}

/* Waitany and Testany (FLAG != NULL) share this. */
static int any_common(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    struct scratch s;
    if (!recording() || count <= 0 || !any_pending() || !scratch_get(&s, count, 0))
        return flag ? PMPI_Testany(count, reqs, index, flag, status) : PMPI_Waitany(count, reqs, index, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    for (int i = 0; i < count; ++i) s.keys[i] = req_key(reqs[i]);
    uint64_t t0 = now();
    int rc = flag ? PMPI_Testany(count, reqs, index, flag, st) : PMPI_Waitany(count, reqs, index, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        complete_request(s.keys[*index], st, t0, t1);
    else
        unrecorded_call_between(t0, t1);
    scratch_put(&s);
    return rc;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any_common(count, reqs, index, NULL, status);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return any_common(count, reqs, index, flag, status);
}

/* Waitsome and Testsome (TESTING) share this. */
static int some_common(int testing, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    struct scratch s;
    if (!recording() || incount <= 0 || !any_pending() || !scratch_get(&s, incount, statuses == MPI_STATUSES_IGNORE))
        return testing ? PMPI_Testsome(incount, reqs, outcount, indices, statuses)
                       : PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses : statuses;
    for (int i = 0; i < incount; ++i) s.keys[i] = req_key(reqs[i]);
    struct span sp = {now(), 0};
    int rc = testing ? PMPI_Testsome(incount, reqs, outcount, indices, st)
                     : PMPI_Waitsome(incount, reqs, outcount, indices, st);
    sp.end = now();
    if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED && *outcount > 0) {
        for (int j = 0; j < *outcount; ++j) {
            if (indices[j] < 0 || indices[j] >= incount) continue;
            if (rc == MPI_ERR_IN_STATUS && st[j].MPI_ERROR != MPI_SUCCESS) continue;
            complete_in(&sp, s.keys[indices[j]], &st[j]);
        }
    } else {
        unrecorded_call_between(sp.start, sp.end);
    }
    scratch_put(&s);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_common(0, incount, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_common(1, incount, reqs, outcount, indices, statuses);
}

int MPI_Request_free(MPI_Request *request)
{
    uint64_t key = req_key(*request);
    uint64_t t0 = now();
    int rc = PMPI_Request_free(request);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS) {
        note_request_free(key, t0, t1);
        note_persistent_free(key);
    }
    return rc;
}
