/* Communicators and collectives: the table of communicators the program
 * used, the recording of collectives, and the C MPI_* wrappers for
 * collectives and communicator management. */
#include "capture_internal.h"

/* ------------------------------------------------------------------------ */
/* Communicators                                                            */
/* ------------------------------------------------------------------------ */

/* Makes the table entry of a communicator seen for the first time, from its
 * (remote) group: local calls only. Lock held. */
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
        int *ranks = malloc(sizeof(int) * (size_t)(e.size > 0 ? e.size : 1));
        int *world = malloc(sizeof(int) * (size_t)(e.size > 0 ? e.size : 1));
        e.members = malloc(sizeof(uint32_t) * (size_t)(e.size > 0 ? e.size : 1));
        if (!ranks || !world || !e.members) {
            free(ranks);
            free(world);
            free(e.members);
            PMPI_Group_free(&group);
            fail_locked("communicator members");
            return 0;
        }
        for (int i = 0; i < e.size; ++i) ranks[i] = i;
        PMPI_Group_translate_ranks(group, e.size, ranks, S.world_group, world);
        for (int i = 0; i < e.size; ++i) {
            if (world[i] == MPI_UNDEFINED || world[i] < 0) e.foreign = 1;
            e.members[i] = (uint32_t)world[i];
        }
        free(ranks);
        free(world);
        PMPI_Group_free(&group);
    }
    if (!map_put(&S.comm_by_handle, e.key, S.ncomms)) {
        free(e.members);
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

/* Gives an intracommunicator the id its members agree on: each proposes
 * the lowest id it has not used, the largest proposal wins. Collective over
 * COMM; called where all members are anyway (creating it, or entering a
 * collective on it). Two unrelated communicators can get the same number,
 * but never with the same members: rank 0 tells them apart at the end by
 * (number, members). */
static void comm_agree_id(MPI_Comm comm, size_t index)
{
    lock();
    uint32_t mine = S.next_comm_id;
    unlock();
    uint32_t agreed = mine;
    if (PMPI_Allreduce(&mine, &agreed, 1, MPI_UINT32_T, MPI_MAX, comm) != MPI_SUCCESS) return;
    lock();
    S.comms[index].has_id = 1;
    S.comms[index].id = agreed;
    if (agreed >= S.next_comm_id) S.next_comm_id = agreed + 1;
    unlock();
}

/* A communicator has just been made (MPI_Comm_split, _dup, _create): learn
 * its members and agree on its id now, while all members are here. */
void comm_created(MPI_Comm comm)
{
    if (!recording() || comm == MPI_COMM_NULL) return;
    lock();
    /* A handle we still know belongs to a communicator freed behind our
     * back: forget the old one. */
    map_take(&S.comm_by_handle, comm_key(comm), NULL);
    size_t index;
    int ok = !S.failed && comm_new_locked(comm, &index) && !S.comms[index].inter && !S.comms[index].foreign;
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
            e->members = NULL;
        }
    }
    unlock();
}

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */
/* ------------------------------------------------------------------------ */

/* Before a collective on COMM: finds its entry and, the first time, agrees
 * on its id (all members are entering this collective, so they all take
 * part). Returns 0 if the collective is not to be recorded. */
int coll_begin(MPI_Comm comm, size_t *index)
{
    if (!recording()) return 0;
    lock();
    int ok = comm_lookup_locked(comm, index);
    int need_id = 0;
    if (ok && S.comms[*index].inter) {
        S.counters[C_INTER_COLL]++;
        ok = 0;
    }
    if (ok) need_id = !S.comms[*index].has_id;
    unlock();
    if (need_id) comm_agree_id(comm, *index);
    lock();
    ok = ok && S.comms[*index].has_id;
    unlock();
    return ok;
}

/* A collective on entry INDEX returned. ROOT is a rank of the communicator
 * (ignored for unrooted ones). */
void note_coll(size_t index, enum op op, uint64_t t0, uint64_t t1, int root, uint64_t bytes)
{
    lock();
    if (!S.failed) {
        uint32_t world_root = 0;
        if (op_has_arg(op, ARG_Root)) {
            int64_t w = world_rank_locked(index, root);
            world_root = w < 0 ? 0 : (uint32_t)w;
        }
        if (!op_has_arg(op, ARG_Bytes)) bytes = 0;
        if (append_locked(t0, t1, op, bytes, S.comms[index].id, world_root, 0, NULL)) S.comms[index].used = 1;
    }
    unlock();
}

int is_rank(MPI_Comm comm, int r)
{
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    return me == r;
}

/* ------------------------------------------------------------------------ */
/* C wrappers                                                               */
/* ------------------------------------------------------------------------ */

/* -- Collectives. BYTES follow the format: for gather/allgather what each
 * process contributes, for scatter what each receives, for alltoall what
 * goes to each process. They are taken from the arguments that are
 * significant on every process (the receive side at the root of a gather,
 * the send side at the root of a scatter, the receive side of allgather
 * and alltoall), so MPI_IN_PLACE needs no special case. -- */

int MPI_Barrier(MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Barrier(comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_BARRIER, t0, t1, 0, 0);
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Bcast(buffer, count, type, root, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_BCAST, t0, t1, root, type_bytes(count, type));
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_REDUCE, t0, t1, root, type_bytes(count, type));
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_ALLREDUCE, t0, t1, 0, type_bytes(count, type));
    return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS)
        note_coll(ci, OP_GATHER, t0, t1, root,
                  is_rank(comm, root) ? type_bytes(recvcount, recvtype) : type_bytes(sendcount, sendtype));
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS)
        note_coll(ci, OP_SCATTER, t0, t1, root,
                  is_rank(comm, root) ? type_bytes(sendcount, sendtype) : type_bytes(recvcount, recvtype));
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_ALLGATHER, t0, t1, 0, type_bytes(recvcount, recvtype));
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    size_t ci;
    int rec = coll_begin(comm, &ci);
    uint64_t t0 = now();
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    uint64_t t1 = now();
    if (rec && rc == MPI_SUCCESS) note_coll(ci, OP_ALLTOALL, t0, t1, 0, type_bytes(recvcount, recvtype));
    return rc;
}

/* -- Communicators -- */

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS) comm_created(*newcomm);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS) comm_created(*newcomm);
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS) comm_created(*newcomm);
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    comm_freed(*comm);
    return PMPI_Comm_free(comm);
}
