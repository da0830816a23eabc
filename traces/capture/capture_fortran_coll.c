/* The Fortran entry points of libibsec_capture for collectives and the
 * calls that make communicators (see capture_fortran.c for how they reach
 * Open MPI). A blocking collective and its non-blocking form share one
 * function, which the non-blocking one calls with its request (the
 * blocking one with NULL). What they record is the C wrappers' (capture_coll.c). */
#include "capture_fortran.h"

/* Calls the non-blocking entry NB with the request if there is one, else
 * the blocking entry B, each with the arguments ARGS that come before it. */
#define F_CALL(B, NB, request, ierr, ...)                                                                              \
    do {                                                                                                               \
        if (request)                                                                                                   \
            NB(__VA_ARGS__, request, ierr);                                                                            \
        else                                                                                                           \
            B(__VA_ARGS__, ierr);                                                                                      \
    } while (0)

/* Before the call: the ierr, the entry that will be called, the record. */
static void f_coll_enter(struct coll *c, const fint *comm, enum op op, enum call call, int present, const char *name)
{
    need_fortran(present, name);
    coll_enter(c, f_comm(comm), op, call);
}

/* After the call (C->t1 taken): the request, then the record. */
static void f_coll_exit(struct coll *c, const fint *request, const fint *ierr)
{
    if (request && *ierr == MPI_SUCCESS) c->key = f_req_key(*request);
    coll_exit(c, *ierr == MPI_SUCCESS);
}

#define ENTRY_NAME(request, b, nb) ((request) ? "p" #nb "_" : "p" #b "_")
#define ENTRY_PRESENT(request, b, nb) ((request) ? p##nb##_ != NULL : p##b##_ != NULL)

/* Declares Open MPI's entries for a blocking collective and its
 * non-blocking form, the latter with a request before IERROR. */
#define F_ENTRIES(b, nb, params, ...)                                                                                  \
    extern void p##b##_ params __attribute__((weak));                                                                  \
    extern void p##nb##_(__VA_ARGS__, fint *request, fint *ierr) __attribute__((weak));

/* -- Barrier -- */

extern void pmpi_barrier_(fint *comm, fint *ierr) __attribute__((weak));
extern void pmpi_ibarrier_(fint *comm, fint *request, fint *ierr) __attribute__((weak));

static void f_barrier_common(fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IBARRIER : OP_BARRIER, request ? CALL_Ibarrier : CALL_Barrier,
                 ENTRY_PRESENT(request, mpi_barrier, mpi_ibarrier), ENTRY_NAME(request, mpi_barrier, mpi_ibarrier));
    if (request)
        pmpi_ibarrier_(comm, request, ierr);
    else
        pmpi_barrier_(comm, ierr);
    c.t1 = now();
    f_coll_exit(&c, request, ierr);
}

static void f_barrier(fint *comm, fint *ierr)
{
    f_barrier_common(comm, NULL, ierr);
}
FORTRAN_NAMES(f_barrier, mpi_barrier, MPI_BARRIER, (fint * comm, fint *ierr))

static void f_ibarrier(fint *comm, fint *request, fint *ierr)
{
    f_barrier_common(comm, request, ierr);
}
FORTRAN_NAMES(f_ibarrier, mpi_ibarrier, MPI_IBARRIER, (fint * comm, fint *request, fint *ierr))

/* -- Bcast -- */

F_ENTRIES(mpi_bcast, mpi_ibcast, (void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr),
          void *buffer, fint *count, fint *type, fint *root, fint *comm)

static void f_bcast_common(void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IBCAST : OP_BCAST, request ? CALL_Ibcast : CALL_Bcast,
                 ENTRY_PRESENT(request, mpi_bcast, mpi_ibcast), ENTRY_NAME(request, mpi_bcast, mpi_ibcast));
    F_CALL(pmpi_bcast_, pmpi_ibcast_, request, ierr, buffer, count, type, root, comm);
    c.t1 = now();
    c.root = *root;
    c.bytes = f_bytes(count, type);
    f_coll_exit(&c, request, ierr);
}

static void f_bcast(void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr)
{
    f_bcast_common(buffer, count, type, root, comm, NULL, ierr);
}
FORTRAN_NAMES(f_bcast, mpi_bcast, MPI_BCAST,
              (void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr))

static void f_ibcast(void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *request, fint *ierr)
{
    f_bcast_common(buffer, count, type, root, comm, request, ierr);
}
FORTRAN_NAMES(f_ibcast, mpi_ibcast, MPI_IBCAST,
              (void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *request, fint *ierr))

/* -- Reduce -- */

F_ENTRIES(mpi_reduce, mpi_ireduce,
          (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm, fint *ierr),
          void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm)

static void f_reduce_common(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm,
                            fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IREDUCE : OP_REDUCE, request ? CALL_Ireduce : CALL_Reduce,
                 ENTRY_PRESENT(request, mpi_reduce, mpi_ireduce), ENTRY_NAME(request, mpi_reduce, mpi_ireduce));
    F_CALL(pmpi_reduce_, pmpi_ireduce_, request, ierr, sendbuf, recvbuf, count, type, op, root, comm);
    c.t1 = now();
    c.root = *root;
    c.bytes = f_bytes(count, type);
    f_coll_exit(&c, request, ierr);
}

#define F_REDUCE_PARAMS                                                                                                \
    (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm, fint *ierr)
static void f_reduce F_REDUCE_PARAMS
{
    f_reduce_common(sendbuf, recvbuf, count, type, op, root, comm, NULL, ierr);
}
FORTRAN_NAMES(f_reduce, mpi_reduce, MPI_REDUCE, F_REDUCE_PARAMS)

#define F_IREDUCE_PARAMS                                                                                               \
    (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm, fint *request, fint *ierr)
static void f_ireduce F_IREDUCE_PARAMS
{
    f_reduce_common(sendbuf, recvbuf, count, type, op, root, comm, request, ierr);
}
FORTRAN_NAMES(f_ireduce, mpi_ireduce, MPI_IREDUCE, F_IREDUCE_PARAMS)

/* -- Allreduce, scan, exscan: COUNT elements of TYPE -- */

typedef void f_allreduce_fn(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *ierr);
typedef void f_iallreduce_fn(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *request,
                             fint *ierr);

/* One of the six entries: PMPI (blocking) or IPMPI (with REQUEST). */
static void f_reduce_like(enum op op_code, enum call call, f_allreduce_fn *pmpi, f_iallreduce_fn *ipmpi,
                          const char *name, void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm,
                          fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, op_code, call, request ? ipmpi != NULL : pmpi != NULL, name);
    F_CALL(pmpi, ipmpi, request, ierr, sendbuf, recvbuf, count, type, op, comm);
    c.t1 = now();
    c.bytes = f_bytes(count, type);
    f_coll_exit(&c, request, ierr);
}

#define F_ALLREDUCE_PARAMS (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *ierr)
#define F_IALLREDUCE_PARAMS                                                                                            \
    (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *request, fint *ierr)
#define FORTRAN_REDUCE_LIKE(lower, upper, Name, OP)                                                                    \
    extern f_allreduce_fn p##lower##_ __attribute__((weak));                                                           \
    static void f_##lower F_ALLREDUCE_PARAMS                                                                           \
    {                                                                                                                  \
        f_reduce_like(OP, CALL_##Name, p##lower##_, NULL, "p" #lower "_", sendbuf, recvbuf, count, type, op, comm,     \
                      NULL, ierr);                                                                                     \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_ALLREDUCE_PARAMS)
#define FORTRAN_IREDUCE_LIKE(lower, upper, Name, OP)                                                                   \
    extern f_iallreduce_fn p##lower##_ __attribute__((weak));                                                          \
    static void f_##lower F_IALLREDUCE_PARAMS                                                                          \
    {                                                                                                                  \
        f_reduce_like(OP, CALL_##Name, NULL, p##lower##_, "p" #lower "_", sendbuf, recvbuf, count, type, op, comm,     \
                      request, ierr);                                                                                  \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_IALLREDUCE_PARAMS)
FORTRAN_REDUCE_LIKE(mpi_allreduce, MPI_ALLREDUCE, Allreduce, OP_ALLREDUCE)
FORTRAN_REDUCE_LIKE(mpi_scan, MPI_SCAN, Scan, OP_SCAN)
FORTRAN_REDUCE_LIKE(mpi_exscan, MPI_EXSCAN, Exscan, OP_EXSCAN)
FORTRAN_IREDUCE_LIKE(mpi_iallreduce, MPI_IALLREDUCE, Iallreduce, OP_IALLREDUCE)
FORTRAN_IREDUCE_LIKE(mpi_iscan, MPI_ISCAN, Iscan, OP_ISCAN)
FORTRAN_IREDUCE_LIKE(mpi_iexscan, MPI_IEXSCAN, Iexscan, OP_IEXSCAN)

/* -- Gather, scatter, allgather, alltoall: one count and type per side -- */

typedef void f_rooted_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,
                         fint *root, fint *comm, fint *ierr);
typedef void f_irooted_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,
                          fint *recvtype, fint *root, fint *comm, fint *request, fint *ierr);

/* Gather (GATHER) or scatter: BYTES from the root's receive or send side at
 * the root, the other side elsewhere. */
static void f_rooted(int gather, enum op op_code, enum call call, f_rooted_fn *pmpi, f_irooted_fn *ipmpi,
                     const char *name, void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,
                     fint *recvtype, fint *root, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, op_code, call, request ? ipmpi != NULL : pmpi != NULL, name);
    F_CALL(pmpi, ipmpi, request, ierr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    c.t1 = now();
    if (c.rec && gather)
        coll_rooted_bytes(&c, *root, *recvcount, f_type(recvtype), *sendcount, f_type(sendtype));
    else if (c.rec)
        coll_rooted_bytes(&c, *root, *sendcount, f_type(sendtype), *recvcount, f_type(recvtype));
    f_coll_exit(&c, request, ierr);
}

#define F_ROOTED_PARAMS                                                                                                \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *root,       \
     fint *comm, fint *ierr)
#define F_IROOTED_PARAMS                                                                                               \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *root,       \
     fint *comm, fint *request, fint *ierr)
#define FORTRAN_ROOTED(lower, upper, Name, OP, gather)                                                                 \
    extern f_rooted_fn p##lower##_ __attribute__((weak));                                                              \
    static void f_##lower F_ROOTED_PARAMS                                                                              \
    {                                                                                                                  \
        f_rooted(gather, OP, CALL_##Name, p##lower##_, NULL, "p" #lower "_", sendbuf, sendcount, sendtype, recvbuf,    \
                 recvcount, recvtype, root, comm, NULL, ierr);                                                         \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_ROOTED_PARAMS)
#define FORTRAN_IROOTED(lower, upper, Name, OP, gather)                                                                \
    extern f_irooted_fn p##lower##_ __attribute__((weak));                                                             \
    static void f_##lower F_IROOTED_PARAMS                                                                             \
    {                                                                                                                  \
        f_rooted(gather, OP, CALL_##Name, NULL, p##lower##_, "p" #lower "_", sendbuf, sendcount, sendtype, recvbuf,    \
                 recvcount, recvtype, root, comm, request, ierr);                                                      \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_IROOTED_PARAMS)
FORTRAN_ROOTED(mpi_gather, MPI_GATHER, Gather, OP_GATHER, 1)
FORTRAN_ROOTED(mpi_scatter, MPI_SCATTER, Scatter, OP_SCATTER, 0)
FORTRAN_IROOTED(mpi_igather, MPI_IGATHER, Igather, OP_IGATHER, 1)
FORTRAN_IROOTED(mpi_iscatter, MPI_ISCATTER, Iscatter, OP_ISCATTER, 0)

typedef void f_all_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,
                      fint *comm, fint *ierr);
typedef void f_iall_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,
                       fint *comm, fint *request, fint *ierr);

/* Allgather, alltoall: BYTES from the receive side, significant everywhere. */
static void f_all(enum op op_code, enum call call, f_all_fn *pmpi, f_iall_fn *ipmpi, const char *name, void *sendbuf,
                  fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *comm,
                  fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, op_code, call, request ? ipmpi != NULL : pmpi != NULL, name);
    F_CALL(pmpi, ipmpi, request, ierr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    c.t1 = now();
    c.bytes = f_bytes(recvcount, recvtype);
    f_coll_exit(&c, request, ierr);
}

#define F_ALL_PARAMS                                                                                                   \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *comm,       \
     fint *ierr)
#define F_IALL_PARAMS                                                                                                  \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *comm,       \
     fint *request, fint *ierr)
#define FORTRAN_ALL(lower, upper, Name, OP)                                                                            \
    extern f_all_fn p##lower##_ __attribute__((weak));                                                                 \
    static void f_##lower F_ALL_PARAMS                                                                                 \
    {                                                                                                                  \
        f_all(OP, CALL_##Name, p##lower##_, NULL, "p" #lower "_", sendbuf, sendcount, sendtype, recvbuf, recvcount,    \
              recvtype, comm, NULL, ierr);                                                                             \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_ALL_PARAMS)
#define FORTRAN_IALL(lower, upper, Name, OP)                                                                           \
    extern f_iall_fn p##lower##_ __attribute__((weak));                                                                \
    static void f_##lower F_IALL_PARAMS                                                                                \
    {                                                                                                                  \
        f_all(OP, CALL_##Name, NULL, p##lower##_, "p" #lower "_", sendbuf, sendcount, sendtype, recvbuf, recvcount,    \
              recvtype, comm, request, ierr);                                                                          \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_IALL_PARAMS)
FORTRAN_ALL(mpi_allgather, MPI_ALLGATHER, Allgather, OP_ALLGATHER)
FORTRAN_ALL(mpi_alltoall, MPI_ALLTOALL, Alltoall, OP_ALLTOALL)
FORTRAN_IALL(mpi_iallgather, MPI_IALLGATHER, Iallgather, OP_IALLGATHER)
FORTRAN_IALL(mpi_ialltoall, MPI_IALLTOALL, Ialltoall, OP_IALLTOALL)

/* -- Gatherv, scatterv: the root lists every member's part -- */

F_ENTRIES(mpi_gatherv, mpi_igatherv,
          (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs,
           fint *recvtype, fint *root, fint *comm, fint *ierr),
          void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,
          fint *root, fint *comm)

static void f_gatherv_common(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts,
                             fint *displs, fint *recvtype, fint *root, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IGATHERV : OP_GATHERV, request ? CALL_Igatherv : CALL_Gatherv,
                 ENTRY_PRESENT(request, mpi_gatherv, mpi_igatherv), ENTRY_NAME(request, mpi_gatherv, mpi_igatherv));
    F_CALL(pmpi_gatherv_, pmpi_igatherv_, request, ierr, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
           recvtype, root, comm);
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS)
        coll_rooted_counts(&c, *root, recvcounts, f_type(recvtype), *sendcount, f_type(sendtype));
    f_coll_exit(&c, request, ierr);
}

#define F_GATHERV_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define F_GATHERV_PARAMS                                                                                               \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,    \
     fint *root, fint *comm, fint *ierr)
#define F_IGATHERV_PARAMS                                                                                              \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,    \
     fint *root, fint *comm, fint *request, fint *ierr)
static void f_gatherv F_GATHERV_PARAMS
{
    f_gatherv_common(F_GATHERV_ARGS, NULL, ierr);
}
FORTRAN_NAMES(f_gatherv, mpi_gatherv, MPI_GATHERV, F_GATHERV_PARAMS)
static void f_igatherv F_IGATHERV_PARAMS
{
    f_gatherv_common(F_GATHERV_ARGS, request, ierr);
}
FORTRAN_NAMES(f_igatherv, mpi_igatherv, MPI_IGATHERV, F_IGATHERV_PARAMS)

F_ENTRIES(mpi_scatterv, mpi_iscatterv,
          (void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf, fint *recvcount,
           fint *recvtype, fint *root, fint *comm, fint *ierr),
          void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,
          fint *root, fint *comm)

static void f_scatterv_common(void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf,
                              fint *recvcount, fint *recvtype, fint *root, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_ISCATTERV : OP_SCATTERV, request ? CALL_Iscatterv : CALL_Scatterv,
                 ENTRY_PRESENT(request, mpi_scatterv, mpi_iscatterv), ENTRY_NAME(request, mpi_scatterv, mpi_iscatterv));
    F_CALL(pmpi_scatterv_, pmpi_iscatterv_, request, ierr, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
           recvtype, root, comm);
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS)
        coll_rooted_counts(&c, *root, sendcounts, f_type(sendtype), *recvcount, f_type(recvtype));
    f_coll_exit(&c, request, ierr);
}

#define F_SCATTERV_ARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#define F_SCATTERV_PARAMS                                                                                              \
    (void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,    \
     fint *root, fint *comm, fint *ierr)
#define F_ISCATTERV_PARAMS                                                                                             \
    (void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype,    \
     fint *root, fint *comm, fint *request, fint *ierr)
static void f_scatterv F_SCATTERV_PARAMS
{
    f_scatterv_common(F_SCATTERV_ARGS, NULL, ierr);
}
FORTRAN_NAMES(f_scatterv, mpi_scatterv, MPI_SCATTERV, F_SCATTERV_PARAMS)
static void f_iscatterv F_ISCATTERV_PARAMS
{
    f_scatterv_common(F_SCATTERV_ARGS, request, ierr);
}
FORTRAN_NAMES(f_iscatterv, mpi_iscatterv, MPI_ISCATTERV, F_ISCATTERV_PARAMS)

/* -- Allgatherv: what each member contributes, from the receive side -- */

F_ENTRIES(mpi_allgatherv, mpi_iallgatherv,
          (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs,
           fint *recvtype, fint *comm, fint *ierr),
          void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,
          fint *comm)

static void f_allgatherv_common(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts,
                                fint *displs, fint *recvtype, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IALLGATHERV : OP_ALLGATHERV, request ? CALL_Iallgatherv : CALL_Allgatherv,
                 ENTRY_PRESENT(request, mpi_allgatherv, mpi_iallgatherv),
                 ENTRY_NAME(request, mpi_allgatherv, mpi_iallgatherv));
    F_CALL(pmpi_allgatherv_, pmpi_iallgatherv_, request, ierr, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
           displs, recvtype, comm);
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS) coll_counts(&c, recvcounts, f_type(recvtype));
    f_coll_exit(&c, request, ierr);
}

#define F_ALLGATHERV_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define F_ALLGATHERV_PARAMS                                                                                            \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,    \
     fint *comm, fint *ierr)
#define F_IALLGATHERV_PARAMS                                                                                           \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts, fint *displs, fint *recvtype,    \
     fint *comm, fint *request, fint *ierr)
static void f_allgatherv F_ALLGATHERV_PARAMS
{
    f_allgatherv_common(F_ALLGATHERV_ARGS, NULL, ierr);
}
FORTRAN_NAMES(f_allgatherv, mpi_allgatherv, MPI_ALLGATHERV, F_ALLGATHERV_PARAMS)
static void f_iallgatherv F_IALLGATHERV_PARAMS
{
    f_allgatherv_common(F_ALLGATHERV_ARGS, request, ierr);
}
FORTRAN_NAMES(f_iallgatherv, mpi_iallgatherv, MPI_IALLGATHERV, F_IALLGATHERV_PARAMS)

/* -- Alltoallv, alltoallw: what this process sends to each member (the
 * receive side when it exchanges in place) -- */

F_ENTRIES(mpi_alltoallv, mpi_ialltoallv,
          (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf, fint *recvcounts,
           fint *rdispls, fint *recvtype, fint *comm, fint *ierr),
          void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf, fint *recvcounts,
          fint *rdispls, fint *recvtype, fint *comm)

static void f_alltoallv_common(void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf,
                               fint *recvcounts, fint *rdispls, fint *recvtype, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IALLTOALLV : OP_ALLTOALLV, request ? CALL_Ialltoallv : CALL_Alltoallv,
                 ENTRY_PRESENT(request, mpi_alltoallv, mpi_ialltoallv),
                 ENTRY_NAME(request, mpi_alltoallv, mpi_ialltoallv));
    F_CALL(pmpi_alltoallv_, pmpi_ialltoallv_, request, ierr, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
           recvcounts, rdispls, recvtype, comm);
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS) {
        int in_place = f_in_place(sendbuf);
        coll_counts(&c, in_place ? recvcounts : sendcounts, f_type(in_place ? recvtype : sendtype));
    }
    f_coll_exit(&c, request, ierr);
}

#define F_ALLTOALLV_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define F_ALLTOALLV_PARAMS                                                                                             \
    (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf, fint *recvcounts, fint *rdispls,   \
     fint *recvtype, fint *comm, fint *ierr)
#define F_IALLTOALLV_PARAMS                                                                                            \
    (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf, fint *recvcounts, fint *rdispls,   \
     fint *recvtype, fint *comm, fint *request, fint *ierr)
static void f_alltoallv F_ALLTOALLV_PARAMS
{
    f_alltoallv_common(F_ALLTOALLV_ARGS, NULL, ierr);
}
FORTRAN_NAMES(f_alltoallv, mpi_alltoallv, MPI_ALLTOALLV, F_ALLTOALLV_PARAMS)
static void f_ialltoallv F_IALLTOALLV_PARAMS
{
    f_alltoallv_common(F_ALLTOALLV_ARGS, request, ierr);
}
FORTRAN_NAMES(f_ialltoallv, mpi_ialltoallv, MPI_IALLTOALLV, F_IALLTOALLV_PARAMS)

/* The bytes of COUNTS[i] elements of Fortran datatype TYPES[i] for each member. */
static void f_counts_w(struct coll *c, const fint *counts, const fint *types)
{
    MPI_Datatype *ctypes = malloc(sizeof *ctypes * (size_t)(c->n > 0 ? c->n : 1));
    if (!ctypes) {
        lock();
        fail_locked("collective counts");
        unlock();
        c->rec = 0;
        return;
    }
    for (int i = 0; i < c->n; ++i) ctypes[i] = PMPI_Type_f2c(types[i]);
    coll_counts_w(c, counts, ctypes);
    free(ctypes);
}

F_ENTRIES(mpi_alltoallw, mpi_ialltoallw,
          (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtypes, void *recvbuf, fint *recvcounts,
           fint *rdispls, fint *recvtypes, fint *comm, fint *ierr),
          void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtypes, void *recvbuf, fint *recvcounts,
          fint *rdispls, fint *recvtypes, fint *comm)

static void f_alltoallw_common(void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtypes, void *recvbuf,
                               fint *recvcounts, fint *rdispls, fint *recvtypes, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    f_coll_enter(&c, comm, request ? OP_IALLTOALLV : OP_ALLTOALLV, request ? CALL_Ialltoallw : CALL_Alltoallw,
                 ENTRY_PRESENT(request, mpi_alltoallw, mpi_ialltoallw),
                 ENTRY_NAME(request, mpi_alltoallw, mpi_ialltoallw));
    F_CALL(pmpi_alltoallw_, pmpi_ialltoallw_, request, ierr, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
           recvcounts, rdispls, recvtypes, comm);
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS) {
        int in_place = f_in_place(sendbuf);
        f_counts_w(&c, in_place ? recvcounts : sendcounts, in_place ? recvtypes : sendtypes);
    }
    f_coll_exit(&c, request, ierr);
}

#define F_ALLTOALLW_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define F_ALLTOALLW_PARAMS                                                                                             \
    (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtypes, void *recvbuf, fint *recvcounts, fint *rdispls,  \
     fint *recvtypes, fint *comm, fint *ierr)
#define F_IALLTOALLW_PARAMS                                                                                            \
    (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtypes, void *recvbuf, fint *recvcounts, fint *rdispls,  \
     fint *recvtypes, fint *comm, fint *request, fint *ierr)
static void f_alltoallw F_ALLTOALLW_PARAMS
{
    f_alltoallw_common(F_ALLTOALLW_ARGS, NULL, ierr);
}
FORTRAN_NAMES(f_alltoallw, mpi_alltoallw, MPI_ALLTOALLW, F_ALLTOALLW_PARAMS)
static void f_ialltoallw F_IALLTOALLW_PARAMS
{
    f_alltoallw_common(F_ALLTOALLW_ARGS, request, ierr);
}
FORTRAN_NAMES(f_ialltoallw, mpi_ialltoallw, MPI_IALLTOALLW, F_IALLTOALLW_PARAMS)

/* -- Reduce_scatter (one count per member), reduce_scatter_block (equal) -- */

F_ENTRIES(mpi_reduce_scatter, mpi_ireduce_scatter,
          (void *sendbuf, void *recvbuf, fint *recvcounts, fint *type, fint *op, fint *comm, fint *ierr), void *sendbuf,
          void *recvbuf, fint *recvcounts, fint *type, fint *op, fint *comm)
F_ENTRIES(mpi_reduce_scatter_block, mpi_ireduce_scatter_block,
          (void *sendbuf, void *recvbuf, fint *recvcount, fint *type, fint *op, fint *comm, fint *ierr), void *sendbuf,
          void *recvbuf, fint *recvcount, fint *type, fint *op, fint *comm)

/* BLOCK: reduce_scatter_block, whose COUNTS is one count for all. */
static void f_reduce_scatter_common(int block, void *sendbuf, void *recvbuf, fint *counts, fint *type, fint *op,
                                    fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    struct coll c;
    enum op code = request ? OP_IREDUCE_SCATTER : OP_REDUCE_SCATTER;
    if (block) {
        f_coll_enter(&c, comm, code, request ? CALL_Ireduce_scatter_block : CALL_Reduce_scatter_block,
                     ENTRY_PRESENT(request, mpi_reduce_scatter_block, mpi_ireduce_scatter_block),
                     ENTRY_NAME(request, mpi_reduce_scatter_block, mpi_ireduce_scatter_block));
        F_CALL(pmpi_reduce_scatter_block_, pmpi_ireduce_scatter_block_, request, ierr, sendbuf, recvbuf, counts, type,
               op, comm);
    } else {
        f_coll_enter(&c, comm, code, request ? CALL_Ireduce_scatter : CALL_Reduce_scatter,
                     ENTRY_PRESENT(request, mpi_reduce_scatter, mpi_ireduce_scatter),
                     ENTRY_NAME(request, mpi_reduce_scatter, mpi_ireduce_scatter));
        F_CALL(pmpi_reduce_scatter_, pmpi_ireduce_scatter_, request, ierr, sendbuf, recvbuf, counts, type, op, comm);
    }
    c.t1 = now();
    if (c.rec && *ierr == MPI_SUCCESS && block)
        coll_equal_counts(&c, *counts, f_type(type));
    else if (c.rec && *ierr == MPI_SUCCESS)
        coll_counts(&c, counts, f_type(type));
    f_coll_exit(&c, request, ierr);
}

#define F_RS_PARAMS (void *sendbuf, void *recvbuf, fint *counts, fint *type, fint *op, fint *comm, fint *ierr)
#define F_IRS_PARAMS                                                                                                   \
    (void *sendbuf, void *recvbuf, fint *counts, fint *type, fint *op, fint *comm, fint *request, fint *ierr)
#define FORTRAN_RS(lower, upper, block)                                                                                \
    static void f_##lower F_RS_PARAMS                                                                                  \
    {                                                                                                                  \
        f_reduce_scatter_common(block, sendbuf, recvbuf, counts, type, op, comm, NULL, ierr);                          \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_RS_PARAMS)
#define FORTRAN_IRS(lower, upper, block)                                                                               \
    static void f_##lower F_IRS_PARAMS                                                                                 \
    {                                                                                                                  \
        f_reduce_scatter_common(block, sendbuf, recvbuf, counts, type, op, comm, request, ierr);                       \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_IRS_PARAMS)
FORTRAN_RS(mpi_reduce_scatter, MPI_REDUCE_SCATTER, 0)
FORTRAN_RS(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, 1)
FORTRAN_IRS(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER, 0)
FORTRAN_IRS(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, 1)

/* -- Communicators: every call that makes one lets its members agree on
 * its id at once (capture_coll.c); in each the new communicator is the
 * argument before IERROR. -- */

#define FORTRAN_CREATOR(lower, upper, params, args, newcomm)                                                           \
    extern void p##lower##_ params __attribute__((weak));                                                              \
    static void f_##lower params                                                                                       \
    {                                                                                                                  \
        IERR(ierr);                                                                                                    \
        need_fortran(p##lower##_ != NULL, "p" #lower "_");                                                             \
        uint64_t began_ = unrecorded_call_begin();                                                                     \
        p##lower##_ args;                                                                                              \
        if (*ierr == MPI_SUCCESS) comm_created(f_comm(newcomm));                                                       \
        unrecorded_call_end(began_);                                                                                   \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, params)

FORTRAN_CREATOR(mpi_comm_split, MPI_COMM_SPLIT, (fint * comm, fint *color, fint *key, fint *newcomm, fint *ierr),
                (comm, color, key, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE,
                (fint * comm, fint *type, fint *key, fint *info, fint *newcomm, fint *ierr),
                (comm, type, key, info, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_comm_dup, MPI_COMM_DUP, (fint * comm, fint *newcomm, fint *ierr), (comm, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_comm_dup_with_info, MPI_COMM_DUP_WITH_INFO, (fint * comm, fint *info, fint *newcomm, fint *ierr),
                (comm, info, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_comm_create, MPI_COMM_CREATE, (fint * comm, fint *group, fint *newcomm, fint *ierr),
                (comm, group, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_comm_create_group, MPI_COMM_CREATE_GROUP,
                (fint * comm, fint *group, fint *tag, fint *newcomm, fint *ierr), (comm, group, tag, newcomm, ierr),
                newcomm)
FORTRAN_CREATOR(mpi_cart_create, MPI_CART_CREATE,
                (fint * comm, fint *ndims, void *dims, void *periods, void *reorder, fint *newcomm, fint *ierr),
                (comm, ndims, dims, periods, reorder, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_cart_sub, MPI_CART_SUB, (fint * comm, void *remain, fint *newcomm, fint *ierr),
                (comm, remain, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_graph_create, MPI_GRAPH_CREATE,
                (fint * comm, fint *nnodes, void *index, void *edges, void *reorder, fint *newcomm, fint *ierr),
                (comm, nnodes, index, edges, reorder, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE,
                (fint * comm, fint *n, void *sources, void *degrees, void *destinations, void *weights, fint *info,
                 void *reorder, fint *newcomm, fint *ierr),
                (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
                (fint * comm, fint *indegree, void *sources, void *sourceweights, fint *outdegree, void *destinations,
                 void *destweights, fint *info, void *reorder, fint *newcomm, fint *ierr),
                (comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, newcomm,
                 ierr),
                newcomm)
FORTRAN_CREATOR(mpi_intercomm_create, MPI_INTERCOMM_CREATE,
                (fint * comm, fint *leader, fint *bridge, fint *remote_leader, fint *tag, fint *newcomm, fint *ierr),
                (comm, leader, bridge, remote_leader, tag, newcomm, ierr), newcomm)
FORTRAN_CREATOR(mpi_intercomm_merge, MPI_INTERCOMM_MERGE, (fint * comm, void *high, fint *newcomm, fint *ierr),
                (comm, high, newcomm, ierr), newcomm)

/* MPI_Comm_free and MPI_Comm_disconnect: the handle may be reused. */
#define FORTRAN_FREE(lower, upper)                                                                                     \
    extern void p##lower##_(fint *comm, fint *ierr) __attribute__((weak));                                             \
    static void f_##lower(fint *comm, fint *ierr)                                                                      \
    {                                                                                                                  \
        IERR(ierr);                                                                                                    \
        need_fortran(p##lower##_ != NULL, "p" #lower "_");                                                             \
        uint64_t began_ = unrecorded_call_begin();                                                                     \
        comm_freed(f_comm(comm));                                                                                      \
        p##lower##_(comm, ierr);                                                                                       \
        unrecorded_call_end(began_);                                                                                   \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, (fint * comm, fint * ierr))
FORTRAN_FREE(mpi_comm_free, MPI_COMM_FREE)
FORTRAN_FREE(mpi_comm_disconnect, MPI_COMM_DISCONNECT)
