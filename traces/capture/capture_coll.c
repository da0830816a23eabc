/* Communicators and collectives: the table of communicators the program
 * used, the recording of collectives, and the C MPI_* wrappers for
 * collectives and communicator management. */
#include "capture_internal.h"

/* ------------------------------------------------------------------------ */
/* Communicators                                                            */
/* ------------------------------------------------------------------------ */

/* World ranks of the SIZE ranks of GROUP into *MEMBERS; sets *FOREIGN if
 * one is outside MPI_COMM_WORLD. Returns 0 when out of memory. Lock held. */
static int group_members_locked(MPI_Group group, int size, uint32_t **members, int *foreign)
{
    size_t n = (size_t)(size > 0 ? size : 1);
    int *ranks = calloc(n, sizeof(int)), *world = malloc(sizeof(int) * n);
    *members = malloc(sizeof(uint32_t) * n);
    int ok = ranks && world && *members;
    if (ok) {
        for (int i = 0; i < size; ++i) ranks[i] = i;
        PMPI_Group_translate_ranks(group, size, ranks, S.world_group, world);
        for (int i = 0; i < size; ++i) {
            if (world[i] == MPI_UNDEFINED || world[i] < 0) *foreign = 1;
            (*members)[i] = (uint32_t)world[i];
        }
    } else {
        free(*members);
        *members = NULL;
    }
    free(ranks);
    free(world);
    return ok;
}

/* An intercommunicator's events are declared with the members of both its
 * groups, the group of the lowest world rank first, so that both sides
 * describe it alike. Lock held. */
static int inter_all_locked(MPI_Comm comm, struct comm_entry *e)
{
    MPI_Group group;
    int size = 0;
    uint32_t *local = NULL;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS) {
        e->foreign = 1;
        return 1;
    }
    PMPI_Group_size(group, &size);
    int ok = group_members_locked(group, size, &local, &e->foreign);
    PMPI_Group_free(&group);
    if (ok) ok = (e->all = malloc(sizeof(uint32_t) * ((size_t)size + (size_t)e->size + 1))) != NULL;
    if (ok) {
        int local_first = size > 0 && (e->size == 0 || local[0] < e->members[0]);
        const uint32_t *first = local_first ? local : e->members, *second = local_first ? e->members : local;
        size_t nfirst = (size_t)(local_first ? size : e->size), nsecond = (size_t)(local_first ? e->size : size);
        memcpy(e->all, first, sizeof(uint32_t) * nfirst);
        memcpy(e->all + nfirst, second, sizeof(uint32_t) * nsecond);
        e->nall = (int)(nfirst + nsecond);
    }
    free(local);
    return ok;
}

/* Makes the table entry of a communicator seen for the first time, from its
 * (remote) group: local calls only. A communicator of one process needs no
 * agreement: it gets its id here. Lock held. */
static int comm_new_locked(MPI_Comm comm, size_t *index)
{
    if (!grow((void **)&S.comms, &S.capcomms, S.ncomms + 1, sizeof *S.comms)) {
        fail_locked("communicator table");
        return 0;
    }
    struct comm_entry e = {.key = comm_key(comm)};
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    e.inter = inter;
    MPI_Group group;
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) {
        e.foreign = 1;
    } else {
        PMPI_Group_size(group, &e.size);
        int ok = group_members_locked(group, e.size, &e.members, &e.foreign);
        PMPI_Group_free(&group);
        if (ok && inter) ok = inter_all_locked(comm, &e);
        if (!ok) {
            free(e.members);
            free(e.all);
            fail_locked("communicator members");
            return 0;
        }
    }
    if (!inter && !e.foreign && e.size == 1) {
        e.has_id = 1;
        e.id = S.next_comm_id++;
    }
    if (!map_put(&S.comm_by_handle, e.key, S.ncomms)) {
        free(e.members);
        free(e.all);
        fail_locked("communicator table");
        return 0;
    }
    *index = S.ncomms;
    S.comms[S.ncomms++] = e;
    return 1;
}

/* The table entry of COMM, made on first sight. Returns 0 if operations on
 * it cannot be recorded. Lock held. */
int comm_lookup_locked(MPI_Comm comm, size_t *index)
{
    if (S.failed || comm == MPI_COMM_NULL) return 0;
    struct map_slot *hit = map_find(&S.comm_by_handle, comm_key(comm));
    if (hit)
        *index = (size_t)hit->value;
    else if (!comm_new_locked(comm, index))
        return 0;
    if (S.comms[*index].foreign) {
        S.counters[C_FOREIGN_COMM]++;
        return 0;
    }
    return 1;
}

/* World rank of rank R of the (remote) group of entry INDEX, or -1. */
int64_t world_rank_locked(size_t index, int r)
{
    const struct comm_entry *e = &S.comms[index];
    if (r < 0 || r >= e->size) return -1;
    return e->members ? (int64_t)e->members[r] : r;
}

/* The largest of the members' PROPOSALs. Over an intercommunicator an
 * allreduce gives each group the other group's result: a second one, in
 * which each process passes on what it got, brings each group its own. */
static int largest_proposal(MPI_Comm comm, int inter, uint32_t proposal, uint32_t *largest)
{
    uint32_t other = 0, own = 0;
    if (PMPI_Allreduce(&proposal, &other, 1, MPI_UINT32_T, MPI_MAX, comm) != MPI_SUCCESS) return 0;
    if (!inter) {
        *largest = other;
        return 1;
    }
    if (PMPI_Allreduce(&other, &own, 1, MPI_UINT32_T, MPI_MAX, comm) != MPI_SUCCESS) return 0;
    *largest = own > other ? own : other;
    return 1;
}

/* Gives a communicator the id its members agree on: each proposes the
 * lowest id it has not used, the largest proposal wins. Collective over
 * COMM; called where all members are anyway (creating it, or entering a
 * blocking collective on it). Two unrelated communicators can get the same
 * number, but never with the same members: rank 0 tells them apart at the
 * end by (number, members). */
static void comm_agree_id(MPI_Comm comm, size_t index)
{
    lock();
    uint32_t mine = S.next_comm_id;
    int inter = S.comms[index].inter;
    unlock();
    uint32_t agreed = mine;
    if (!largest_proposal(comm, inter, mine, &agreed)) return;
    lock();
    S.comms[index].has_id = 1;
    S.comms[index].id = agreed;
    if (agreed >= S.next_comm_id) S.next_comm_id = agreed + 1;
    unlock();
}

/* A communicator has just been made (MPI_Comm_split, _dup, _create,
 * MPI_Cart_create, MPI_Intercomm_create, ...): learn its members and agree
 * on its id now, while all members are here. */
void comm_created(MPI_Comm comm)
{
    if (!recording() || comm == MPI_COMM_NULL) return;
    lock();
    /* A handle we still know belongs to a communicator freed behind our
     * back: forget the old one. */
    map_take(&S.comm_by_handle, comm_key(comm), NULL);
    size_t index;
    int ok = !S.failed && comm_new_locked(comm, &index) && !S.comms[index].foreign && !S.comms[index].has_id;
    unlock();
    if (ok) comm_agree_id(comm, index);
}

/* MPI_Comm_free: the handle may be reused for another communicator. */
void comm_freed(MPI_Comm comm)
{
    if (!S.active) return;
    lock();
    uint64_t index;
    if (map_take(&S.comm_by_handle, comm_key(comm), &index)) {
        struct comm_entry *e = &S.comms[index];
        if (!e->used && e->refs == 0) { /* nothing will ever need its members */
            free(e->members);
            free(e->all);
            e->members = e->all = NULL;
        }
    }
    unlock();
}

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */
/* ------------------------------------------------------------------------ */

/* Before a collective on COMM: finds its entry and, the first time, agrees
 * on its id (all members are entering this collective, so they all take
 * part). A non-blocking collective may not block there (a member may wait
 * for this process's messages before it calls it): MAY_AGREE is 0 then.
 * Returns 0 if the collective is not to be recorded. */
static int coll_begin(MPI_Comm comm, size_t *index, enum call call, int may_agree)
{
    if (!recording()) return 0;
    lock();
    int ok = comm_lookup_locked(comm, index);
    int need_id = 0;
    if (ok && S.comms[*index].inter) {
        S.inter_calls[call]++;
        ok = 0;
    }
    if (ok) need_id = !S.comms[*index].has_id;
    if (need_id && !may_agree) {
        S.counters[C_UNNAMED_COMM]++;
        ok = need_id = 0;
    }
    unlock();
    if (need_id) comm_agree_id(comm, *index);
    lock();
    ok = ok && S.comms[*index].has_id;
    unlock();
    return ok;
}

void coll_enter(struct coll *c, MPI_Comm comm, enum op op, enum call call)
{
    *c = (struct coll){.op = op};
    int nonblocking = op_has_arg(op, ARG_Req);
    c->rec = coll_begin(comm, &c->ci, call, !nonblocking);
    if (c->rec) {
        PMPI_Comm_size(comm, &c->n);
        PMPI_Comm_rank(comm, &c->me);
        if (OP_INFO[op].counts && !(c->counts = calloc((size_t)(c->n > 0 ? c->n : 1), sizeof *c->counts))) {
            lock();
            fail_locked("collective counts");
            unlock();
            c->rec = 0;
        }
    }
    c->t0 = now();
}

/* Appends C's counts to this process's list; returns where they start.
 * Lock held. */
static int push_counts_locked(const struct coll *c, uint32_t *at)
{
    if (S.ncounts + (size_t)c->n > UINT32_MAX ||
        !grow((void **)&S.counts, &S.capcounts, S.ncounts + (size_t)c->n, sizeof *S.counts)) {
        fail_locked("collective counts");
        return 0;
    }
    *at = (uint32_t)S.ncounts;
    for (int i = 0; i < c->n; ++i) S.counts[S.ncounts++] = clamp_bytes_locked(c->counts[i]);
    return 1;
}

/* Records collective C (lock held). Its ROOT is a rank of the communicator,
 * recorded as a world rank; a non-blocking one opens its request. */
static void note_coll_locked(const struct coll *c)
{
    uint32_t world_root = 0, counts_at = 0, req = 0;
    if (op_has_arg(c->op, ARG_Root)) {
        int64_t w = world_rank_locked(c->ci, c->root);
        world_root = w < 0 ? 0 : (uint32_t)w;
    }
    if (OP_INFO[c->op].counts && !push_counts_locked(c, &counts_at)) return;
    int nonblocking = op_has_arg(c->op, ARG_Req);
    if (nonblocking) req = S.next_req++;
    uint64_t bytes = op_has_arg(c->op, ARG_Bytes) ? c->bytes : 0;
    size_t rec;
    if (!append_locked(c->t0, c->t1, c->op, bytes, S.comms[c->ci].id, world_root, req, &rec)) return;
    S.recs[rec].d = counts_at;
    S.comms[c->ci].used = 1;
    if (nonblocking) pending_open_locked(c->key, rec, c->ci, PEND_COLL, 1, 1);
}

/* After the PMPI call (C->t1 taken): records C if OK. */
void coll_exit(struct coll *c, int ok)
{
    if (c->rec && ok) {
        lock();
        if (!S.failed) note_coll_locked(c);
        unlock();
    }
    free(c->counts);
    c->counts = NULL;
}

/* -- What collectives record. BYTES and COUNTS follow the format (docs/
 * trace-format.md) and are taken from the arguments that are significant on
 * each process: the receive side at the root of a gather and the send side
 * at the root of a scatter, so MPI_IN_PLACE needs no special case; the
 * receive side of allgather(v), alltoall and reduce_scatter on every
 * process. -- */

/* Gather, scatter: the root's side at the root, the other one elsewhere. */
void coll_rooted_bytes(struct coll *c, int root, MPI_Fint root_count, MPI_Datatype root_type, MPI_Fint count,
                       MPI_Datatype type)
{
    c->root = root;
    c->bytes = c->me == root ? type_bytes(root_count, root_type) : type_bytes(count, type);
}

/* Gatherv, scatterv: the root lists every member's part, any other member
 * only its own. */
void coll_rooted_counts(struct coll *c, int root, const int *root_counts, MPI_Datatype root_type, MPI_Fint count,
                        MPI_Datatype type)
{
    c->root = root;
    if (c->me == root)
        coll_counts(c, root_counts, root_type);
    else
        c->counts[c->me] = type_bytes(count, type);
}

/* One count per member, of one datatype. */
void coll_counts(struct coll *c, const int *counts, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (type != MPI_DATATYPE_NULL && PMPI_Type_size_x(type, &size) != MPI_SUCCESS) size = 0;
    for (int i = 0; i < c->n; ++i) c->counts[i] = counts[i] > 0 && size > 0 ? (uint64_t)counts[i] * (uint64_t)size : 0;
}

/* One count per member, each of its own datatype (alltoallw). */
void coll_counts_w(struct coll *c, const int *counts, const MPI_Datatype *types)
{
    for (int i = 0; i < c->n; ++i) c->counts[i] = type_bytes(counts[i], types[i]);
}

/* The same count for every member (reduce_scatter_block). */
void coll_equal_counts(struct coll *c, MPI_Fint count, MPI_Datatype type)
{
    uint64_t bytes = type_bytes(count, type);
    for (int i = 0; i < c->n; ++i) c->counts[i] = bytes;
}

/* ------------------------------------------------------------------------ */
/* C wrappers                                                               */
/* ------------------------------------------------------------------------ */

/* -- Blocking collectives -- */

int MPI_Barrier(MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_BARRIER, CALL_Barrier);
    int rc = PMPI_Barrier(comm);
    c.t1 = now();
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_BCAST, CALL_Bcast);
    int rc = PMPI_Bcast(buffer, count, type, root, comm);
    c.t1 = now();
    c.root = root;
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_REDUCE, CALL_Reduce);
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    c.t1 = now();
    c.root = root;
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* Allreduce, scan and exscan: COUNT elements of TYPE. */
static int reduce_like(enum op op, enum call call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                       MPI_Op mpi_op, MPI_Comm comm,
                       int (*pmpi)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))
{
    struct coll c;
    coll_enter(&c, comm, op, call);
    int rc = pmpi(sendbuf, recvbuf, count, type, mpi_op, comm);
    c.t1 = now();
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return reduce_like(OP_ALLREDUCE, CALL_Allreduce, sendbuf, recvbuf, count, type, op, comm, PMPI_Allreduce);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return reduce_like(OP_SCAN, CALL_Scan, sendbuf, recvbuf, count, type, op, comm, PMPI_Scan);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return reduce_like(OP_EXSCAN, CALL_Exscan, sendbuf, recvbuf, count, type, op, comm, PMPI_Exscan);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_GATHER, CALL_Gather);
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    c.t1 = now();
    if (c.rec) coll_rooted_bytes(&c, root, recvcount, recvtype, sendcount, sendtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_GATHERV, CALL_Gatherv);
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) coll_rooted_counts(&c, root, recvcounts, recvtype, sendcount, sendtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_SCATTER, CALL_Scatter);
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    c.t1 = now();
    if (c.rec) coll_rooted_bytes(&c, root, sendcount, sendtype, recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_SCATTERV, CALL_Scatterv);
    int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) coll_rooted_counts(&c, root, sendcounts, sendtype, recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_ALLGATHER, CALL_Allgather);
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    c.t1 = now();
    c.bytes = type_bytes(recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_ALLGATHERV, CALL_Allgatherv);
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) coll_counts(&c, recvcounts, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_ALLTOALL, CALL_Alltoall);
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    c.t1 = now();
    c.bytes = type_bytes(recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* Alltoallv: what this process sends to each member, from the receive side
 * when it exchanges in place (MPI_IN_PLACE: the send side is ignored). */
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_ALLTOALLV, CALL_Alltoallv);
    int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) {
        int in_place = sendbuf == MPI_IN_PLACE;
        coll_counts(&c, in_place ? recvcounts : sendcounts, in_place ? recvtype : sendtype);
    }
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* Alltoallw is recorded as alltoallv: the bytes to each member, each of its
 * own datatype. */
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_ALLTOALLV, CALL_Alltoallw);
    int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) {
        int in_place = sendbuf == MPI_IN_PLACE;
        coll_counts_w(&c, in_place ? recvcounts : sendcounts, in_place ? recvtypes : sendtypes);
    }
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_REDUCE_SCATTER, CALL_Reduce_scatter);
    int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
    c.t1 = now();
    if (c.rec && rc == MPI_SUCCESS) coll_counts(&c, recvcounts, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* Reduce_scatter_block is recorded as reduce_scatter with equal counts. */
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    struct coll c;
    coll_enter(&c, comm, OP_REDUCE_SCATTER, CALL_Reduce_scatter_block);
    int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    c.t1 = now();
    if (c.rec) coll_equal_counts(&c, recvcount, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* -- Non-blocking collectives: the same, with the request they return. -- */

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IBARRIER, CALL_Ibarrier);
    int rc = PMPI_Ibarrier(comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IBCAST, CALL_Ibcast);
    int rc = PMPI_Ibcast(buffer, count, type, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    c.root = root;
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IREDUCE, CALL_Ireduce);
    int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    c.root = root;
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* Iallreduce, iscan and iexscan: COUNT elements of TYPE. */
static int ireduce_like(enum op op, enum call call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                        MPI_Op mpi_op, MPI_Comm comm, MPI_Request *request,
                        int (*pmpi)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *))
{
    struct coll c;
    coll_enter(&c, comm, op, call);
    int rc = pmpi(sendbuf, recvbuf, count, type, mpi_op, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    c.bytes = type_bytes(count, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    return ireduce_like(OP_IALLREDUCE, CALL_Iallreduce, sendbuf, recvbuf, count, type, op, comm, request,
                        PMPI_Iallreduce);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    return ireduce_like(OP_ISCAN, CALL_Iscan, sendbuf, recvbuf, count, type, op, comm, request, PMPI_Iscan);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
    return ireduce_like(OP_IEXSCAN, CALL_Iexscan, sendbuf, recvbuf, count, type, op, comm, request, PMPI_Iexscan);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IGATHER, CALL_Igather);
    int rc = PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec) coll_rooted_bytes(&c, root, recvcount, recvtype, sendcount, sendtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IGATHERV, CALL_Igatherv);
    int rc = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) coll_rooted_counts(&c, root, recvcounts, recvtype, sendcount, sendtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_ISCATTER, CALL_Iscatter);
    int rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec) coll_rooted_bytes(&c, root, sendcount, sendtype, recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_ISCATTERV, CALL_Iscatterv);
    int rc = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) coll_rooted_counts(&c, root, sendcounts, sendtype, recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IALLGATHER, CALL_Iallgather);
    int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    c.bytes = type_bytes(recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IALLGATHERV, CALL_Iallgatherv);
    int rc = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) coll_counts(&c, recvcounts, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IALLTOALL, CALL_Ialltoall);
    int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    c.bytes = type_bytes(recvcount, recvtype);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IALLTOALLV, CALL_Ialltoallv);
    int rc =
        PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) {
        int in_place = sendbuf == MPI_IN_PLACE;
        coll_counts(&c, in_place ? recvcounts : sendcounts, in_place ? recvtype : sendtype);
    }
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IALLTOALLV, CALL_Ialltoallw);
    int rc = PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) {
        int in_place = sendbuf == MPI_IN_PLACE;
        coll_counts_w(&c, in_place ? recvcounts : sendcounts, in_place ? recvtypes : sendtypes);
    }
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IREDUCE_SCATTER, CALL_Ireduce_scatter);
    int rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec && rc == MPI_SUCCESS) coll_counts(&c, recvcounts, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request)
{
    struct coll c;
    coll_enter(&c, comm, OP_IREDUCE_SCATTER, CALL_Ireduce_scatter_block);
    int rc = PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
    c.t1 = now();
    if (rc == MPI_SUCCESS) c.key = req_key(*request);
    if (c.rec) coll_equal_counts(&c, recvcount, type);
    coll_exit(&c, rc == MPI_SUCCESS);
    return rc;
}

/* -- Communicators. Every call that makes an intra- or intercommunicator
 * lets its members agree on its id at once, while all are there. -- */

#define CREATED(CALL, NEWCOMM)                                                                                         \
    do {                                                                                                               \
        uint64_t began_ = unrecorded_call_begin();                                                                     \
        int rc_ = CALL;                                                                                                \
        if (rc_ == MPI_SUCCESS) comm_created(*(NEWCOMM));                                                              \
        unrecorded_call_end(began_);                                                                                   \
        return rc_;                                                                                                    \
    } while (0)

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    CREATED(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

int MPI_Cart_create(MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    CREATED(PMPI_Cart_create(old_comm, ndims, dims, periods, reorder, comm_cart), comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm)
{
    CREATED(PMPI_Cart_sub(comm, remain_dims, new_comm), new_comm);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *comm_graph)
{
    CREATED(PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    CREATED(PMPI_Dist_graph_create(comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), newcomm);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    CREATED(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                            destweights, info, reorder, comm_dist_graph),
            comm_dist_graph);
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm)
{
    CREATED(PMPI_Intercomm_create(local_comm, local_leader, bridge_comm, remote_leader, tag, newintercomm),
            newintercomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    CREATED(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    uint64_t began = unrecorded_call_begin();
    comm_freed(*comm);
    int rc = PMPI_Comm_free(comm);
    unrecorded_call_end(began);
    return rc;
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    uint64_t began = unrecorded_call_begin();
    comm_freed(*comm);
    int rc = PMPI_Comm_disconnect(comm);
    unrecorded_call_end(began);
    return rc;
}
