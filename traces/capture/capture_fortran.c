/* The Fortran entry points of libibsec_capture (mpi_send_, ompi_send_f, ...). */
#include "capture_internal.h"

/* ------------------------------------------------------------------------ */
/* Fortran wrappers                                                         */
/* ------------------------------------------------------------------------ */
/*
 * Open MPI's mpif.h and `use mpi` bindings (libmpi_mpifh) implement
 * mpi_send_ etc. by converting the handles and calling PMPI_Send etc. in C
 * (`nm -D libmpi_mpifh.so` lists hundreds of PMPI_* imports and no MPI_*
 * ones), so the C wrappers (capture_p2p.c etc.) never see a Fortran program. The mpi_f08
 * bindings (libmpi_usempif08) call ompi_send_f etc., the functions behind
 * mpi_send_. The definitions below take precedence over libmpi_mpifh's (as a
 * preloaded library, or linked before it), record the call and run it
 * through Open MPI's own Fortran profiling entry (pmpi_send_ etc.), which
 * handles MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS_IGNORE.
 *
 * Those pmpi_*_ symbols are weak references: the library does not depend on
 * libmpi_mpifh, which a Fortran program loads anyway, and the wrappers can
 * only be called from such a program.
 *
 * Each entry gets the four name manglings Open MPI exports (mpi_send,
 * mpi_send_, mpi_send__, MPI_SEND) and, on Open MPI 4 where the layout was
 * checked, the ompi_send_f name the mpi_f08 module calls.
 */

#include "capture_fortran.h"

void need_fortran(int present, const char *name)
{
    if (present) return;
    warn("%s not found: the Fortran MPI library (libmpi_mpifh) is not loaded", name);
    abort();
}

/* Open MPI's Fortran profiling entries. */
extern void pmpi_init_(fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_(fint *required, fint *provided, fint *ierr) __attribute__((weak));
extern void pmpi_finalize_(fint *ierr) __attribute__((weak));
typedef void f_send_fn(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr);
extern f_send_fn pmpi_send_ __attribute__((weak));
extern f_send_fn pmpi_ssend_ __attribute__((weak));
extern f_send_fn pmpi_bsend_ __attribute__((weak));
extern f_send_fn pmpi_rsend_ __attribute__((weak));
typedef void f_isend_fn(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *request,
                        fint *ierr);
extern f_isend_fn pmpi_isend_ __attribute__((weak));
extern f_isend_fn pmpi_issend_ __attribute__((weak));
extern f_isend_fn pmpi_ibsend_ __attribute__((weak));
extern f_isend_fn pmpi_irsend_ __attribute__((weak));
extern f_isend_fn pmpi_irecv_ __attribute__((weak));
extern void pmpi_recv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm, fint *status,
                       fint *ierr) __attribute__((weak));
extern void pmpi_sendrecv_(void *sendbuf, fint *sendcount, fint *sendtype, fint *dest, fint *sendtag, void *recvbuf,
                           fint *recvcount, fint *recvtype, fint *source, fint *recvtag, fint *comm, fint *status,
                           fint *ierr) __attribute__((weak));
extern void pmpi_sendrecv_replace_(void *buf, fint *count, fint *type, fint *dest, fint *sendtag, fint *source,
                                   fint *recvtag, fint *comm, fint *status, fint *ierr) __attribute__((weak));
extern void pmpi_wait_(fint *request, fint *status, fint *ierr) __attribute__((weak));
extern void pmpi_waitall_(fint *count, fint *requests, fint *statuses, fint *ierr) __attribute__((weak));
extern void pmpi_waitany_(fint *count, fint *requests, fint *index, fint *status, fint *ierr) __attribute__((weak));
extern void pmpi_waitsome_(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr)
    __attribute__((weak));
extern void pmpi_test_(fint *request, fint *flag, fint *status, fint *ierr) __attribute__((weak));
extern void pmpi_testall_(fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr) __attribute__((weak));
extern void pmpi_testany_(fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr)
    __attribute__((weak));
extern void pmpi_testsome_(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr)
    __attribute__((weak));
extern void pmpi_request_free_(fint *request, fint *ierr) __attribute__((weak));

/* -- Start and end -- */

static void f_init(fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_init_ != NULL, "pmpi_init_");
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS) capture_start(NULL, MPI_THREAD_SINGLE);
}
FORTRAN_NAMES(f_init, mpi_init, MPI_INIT, (fint * ierr))

static void f_init_thread(fint *required, fint *provided, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_init_thread_ != NULL, "pmpi_init_thread_");
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS) capture_start(NULL, *provided);
}
FORTRAN_NAMES(f_init_thread, mpi_init_thread, MPI_INIT_THREAD, (fint * required, fint *provided, fint *ierr))

static void f_finalize(fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_finalize_ != NULL, "pmpi_finalize_");
    int write_failed = capture_finish();
    pmpi_finalize_(ierr);
    if (write_failed) {
        warn("exiting with status 1: the trace was not written");
        exit(EXIT_FAILURE);
    }
}
FORTRAN_NAMES(f_finalize, mpi_finalize, MPI_FINALIZE, (fint * ierr))

/* -- Point-to-point -- */

static void f_send_common(f_send_fn *pmpi, const char *name, void *buf, fint *count, fint *type, fint *dest, fint *tag,
                          fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi != NULL, name);
    uint64_t t0 = now();
    pmpi(buf, count, type, dest, tag, comm, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) note_send(t0, t1, f_comm(comm), *dest, f_bytes(count, type), *tag);
}

#define F_SEND_PARAMS (void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
#define FORTRAN_SEND(lower, upper)                                                                                     \
    static void f_##lower F_SEND_PARAMS                                                                                \
    {                                                                                                                  \
        f_send_common(p##lower##_, "p" #lower "_", buf, count, type, dest, tag, comm, ierr);                           \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_SEND_PARAMS)
FORTRAN_SEND(mpi_send, MPI_SEND)
FORTRAN_SEND(mpi_ssend, MPI_SSEND)
FORTRAN_SEND(mpi_bsend, MPI_BSEND)
FORTRAN_SEND(mpi_rsend, MPI_RSEND)

static void f_isend_common(f_isend_fn *pmpi, const char *name, void *buf, fint *count, fint *type, fint *dest,
                           fint *tag, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi != NULL, name);
    uint64_t t0 = now();
    pmpi(buf, count, type, dest, tag, comm, request, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) note_isend(t0, t1, f_comm(comm), *dest, f_bytes(count, type), *tag, f_req_key(*request));
}

#define F_ISEND_PARAMS                                                                                                 \
    (void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *request, fint *ierr)
#define FORTRAN_ISEND(lower, upper)                                                                                    \
    static void f_##lower F_ISEND_PARAMS                                                                               \
    {                                                                                                                  \
        f_isend_common(p##lower##_, "p" #lower "_", buf, count, type, dest, tag, comm, request, ierr);                 \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_ISEND_PARAMS)
FORTRAN_ISEND(mpi_isend, MPI_ISEND)
FORTRAN_ISEND(mpi_issend, MPI_ISSEND)
FORTRAN_ISEND(mpi_ibsend, MPI_IBSEND)
FORTRAN_ISEND(mpi_irsend, MPI_IRSEND)

static void f_irecv(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_irecv_ != NULL, "pmpi_irecv_");
    uint64_t t0 = now();
    pmpi_irecv_(buf, count, type, source, tag, comm, request, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS)
        note_irecv(t0, t1, f_comm(comm), *source, f_bytes(count, type), *tag, f_req_key(*request));
}
FORTRAN_NAMES(f_irecv, mpi_irecv, MPI_IRECV, F_ISEND_PARAMS)

static void f_recv(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_recv_ != NULL, "pmpi_recv_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t t0 = now();
    pmpi_recv_(buf, count, type, source, tag, comm, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        note_recv(t0, t1, f_comm(comm), *source, &cst, f_bytes(count, type));
    }
}
FORTRAN_NAMES(f_recv, mpi_recv, MPI_RECV,
              (void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm, fint *status, fint *ierr))

static void f_sendrecv(void *sendbuf, fint *sendcount, fint *sendtype, fint *dest, fint *sendtag, void *recvbuf,
                       fint *recvcount, fint *recvtype, fint *source, fint *recvtag, fint *comm, fint *status,
                       fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_sendrecv_ != NULL, "pmpi_sendrecv_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t t0 = now();
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, st,
                   ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        note_sendrecv(t0, t1, f_comm(comm), *dest, f_bytes(sendcount, sendtype), *sendtag, *source, &cst,
                      f_bytes(recvcount, recvtype));
    }
}
FORTRAN_NAMES(f_sendrecv, mpi_sendrecv, MPI_SENDRECV,
              (void *sendbuf, fint *sendcount, fint *sendtype, fint *dest, fint *sendtag, void *recvbuf,
               fint *recvcount, fint *recvtype, fint *source, fint *recvtag, fint *comm, fint *status, fint *ierr))

static void f_sendrecv_replace(void *buf, fint *count, fint *type, fint *dest, fint *sendtag, fint *source,
                               fint *recvtag, fint *comm, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_sendrecv_replace_ != NULL, "pmpi_sendrecv_replace_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t t0 = now();
    pmpi_sendrecv_replace_(buf, count, type, dest, sendtag, source, recvtag, comm, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        uint64_t bytes = f_bytes(count, type);
        note_sendrecv(t0, t1, f_comm(comm), *dest, bytes, *sendtag, *source, &cst, bytes);
    }
}
FORTRAN_NAMES(f_sendrecv_replace, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
              (void *buf, fint *count, fint *type, fint *dest, fint *sendtag, fint *source, fint *recvtag, fint *comm,
               fint *status, fint *ierr))

/* -- Completion. Fortran returns 1-based indices and LOGICAL flags (any
 * non-zero value is true with gfortran and Open MPI's conversion). -- */

static void f_wait(fint *request, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_wait_ != NULL, "pmpi_wait_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t key = f_req_key(*request);
    uint64_t t0 = now();
    pmpi_wait_(request, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        complete_request(key, &cst, t0, t1);
    }
}
FORTRAN_NAMES(f_wait, mpi_wait, MPI_WAIT, (fint * request, fint *status, fint *ierr))

static void f_test(fint *request, fint *flag, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_test_ != NULL, "pmpi_test_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t key = f_req_key(*request);
    uint64_t t0 = now();
    pmpi_test_(request, flag, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS && *flag) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        complete_request(key, &cst, t0, t1);
    } else {
        unrecorded_call_between(t0, t1);
    }
}
FORTRAN_NAMES(f_test, mpi_test, MPI_TEST, (fint * request, fint *flag, fint *status, fint *ierr))

/* Key snapshot and own Fortran statuses for array calls. */
struct f_scratch {
    uint64_t *keys;
    fint *statuses;
};

static int f_scratch_get(struct f_scratch *s, const fint *requests, fint count, int need_statuses)
{
    size_t n = count > 0 ? (size_t)count : 1;
    s->keys = malloc(sizeof *s->keys * n);
    s->statuses =
        need_statuses && n <= SIZE_MAX / sizeof(fint) / F_STATUS_SIZE ? malloc(sizeof(fint) * F_STATUS_SIZE * n) : NULL;
    if (!s->keys || (need_statuses && !s->statuses)) {
        free(s->keys);
        free(s->statuses);
        lock();
        fail_locked("request list");
        unlock();
        return 0;
    }
    for (fint i = 0; i < count; ++i) s->keys[i] = f_req_key(requests[i]);
    return 1;
}

static void f_complete_in(struct span *sp, uint64_t key, const fint *fst)
{
    MPI_Status cst;
    f_to_c_status(fst, &cst);
    complete_in(sp, key, &cst);
}

static void f_all_common(int testing, fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr)
{
    IERR(ierr);
    need_fortran(testing ? pmpi_testall_ != NULL : pmpi_waitall_ != NULL, testing ? "pmpi_testall_" : "pmpi_waitall_");
    struct f_scratch s;
    if (!recording() || *count <= 0 || !any_pending() ||
        !f_scratch_get(&s, requests, *count, f_statuses_ignored(statuses))) {
        if (testing)
            pmpi_testall_(count, requests, flag, statuses, ierr);
        else
            pmpi_waitall_(count, requests, statuses, ierr);
        return;
    }
    fint *st = f_statuses_ignored(statuses) ? s.statuses : statuses;
    struct span sp = {now(), 0};
    if (testing)
        pmpi_testall_(count, requests, flag, st, ierr);
    else
        pmpi_waitall_(count, requests, st, ierr);
    sp.end = now();
    if (*ierr == MPI_SUCCESS && (!testing || *flag))
        for (fint i = 0; i < *count; ++i) f_complete_in(&sp, s.keys[i], &st[(size_t)i * F_STATUS_SIZE]);
    else
        unrecorded_call_between(sp.start, sp.end);
    free(s.keys);
    free(s.statuses);
}

static void f_waitall(fint *count, fint *requests, fint *statuses, fint *ierr)
{
    f_all_common(0, count, requests, NULL, statuses, ierr);
}
FORTRAN_NAMES(f_waitall, mpi_waitall, MPI_WAITALL, (fint * count, fint *requests, fint *statuses, fint *ierr))

static void f_testall(fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr)
{
    f_all_common(1, count, requests, flag, statuses, ierr);
}
FORTRAN_NAMES(f_testall, mpi_testall, MPI_TESTALL,
              (fint * count, fint *requests, fint *flag, fint *statuses, fint *ierr))

static void f_any_common(fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(flag ? pmpi_testany_ != NULL : pmpi_waitany_ != NULL, flag ? "pmpi_testany_" : "pmpi_waitany_");
    struct f_scratch s;
    if (!recording() || *count <= 0 || !any_pending() || !f_scratch_get(&s, requests, *count, 0)) {
        if (flag)
            pmpi_testany_(count, requests, index, flag, status, ierr);
        else
            pmpi_waitany_(count, requests, index, status, ierr);
        return;
    }
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t t0 = now();
    if (flag)
        pmpi_testany_(count, requests, index, flag, st, ierr);
    else
        pmpi_waitany_(count, requests, index, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED && *index >= 1 && *index <= *count) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        complete_request(s.keys[*index - 1], &cst, t0, t1);
    } else {
        unrecorded_call_between(t0, t1);
    }
    free(s.keys);
}

static void f_waitany(fint *count, fint *requests, fint *index, fint *status, fint *ierr)
{
    f_any_common(count, requests, index, NULL, status, ierr);
}
FORTRAN_NAMES(f_waitany, mpi_waitany, MPI_WAITANY,
              (fint * count, fint *requests, fint *index, fint *status, fint *ierr))

static void f_testany(fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr)
{
    f_any_common(count, requests, index, flag, status, ierr);
}
FORTRAN_NAMES(f_testany, mpi_testany, MPI_TESTANY,
              (fint * count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr))

static void f_some_common(int testing, fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses,
                          fint *ierr)
{
    IERR(ierr);
    need_fortran(testing ? pmpi_testsome_ != NULL : pmpi_waitsome_ != NULL,
                 testing ? "pmpi_testsome_" : "pmpi_waitsome_");
    struct f_scratch s;
    if (!recording() || *incount <= 0 || !any_pending() ||
        !f_scratch_get(&s, requests, *incount, f_statuses_ignored(statuses))) {
        if (testing)
            pmpi_testsome_(incount, requests, outcount, indices, statuses, ierr);
        else
            pmpi_waitsome_(incount, requests, outcount, indices, statuses, ierr);
        return;
    }
    fint *st = f_statuses_ignored(statuses) ? s.statuses : statuses;
    struct span sp = {now(), 0};
    if (testing)
        pmpi_testsome_(incount, requests, outcount, indices, st, ierr);
    else
        pmpi_waitsome_(incount, requests, outcount, indices, st, ierr);
    sp.end = now();
    if (*ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0) {
        for (fint j = 0; j < *outcount; ++j)
            if (indices[j] >= 1 && indices[j] <= *incount)
                f_complete_in(&sp, s.keys[indices[j] - 1], &st[(size_t)j * F_STATUS_SIZE]);
    } else {
        unrecorded_call_between(sp.start, sp.end);
    }
    free(s.keys);
    free(s.statuses);
}

static void f_waitsome(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr)
{
    f_some_common(0, incount, requests, outcount, indices, statuses, ierr);
}
FORTRAN_NAMES(f_waitsome, mpi_waitsome, MPI_WAITSOME,
              (fint * incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr))

static void f_testsome(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr)
{
    f_some_common(1, incount, requests, outcount, indices, statuses, ierr);
}
FORTRAN_NAMES(f_testsome, mpi_testsome, MPI_TESTSOME,
              (fint * incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr))

static void f_request_free(fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_request_free_ != NULL, "pmpi_request_free_");
    uint64_t key = f_req_key(*request);
    uint64_t t0 = now();
    pmpi_request_free_(request, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        note_request_free(key, t0, t1);
        note_persistent_free(key);
    }
}
FORTRAN_NAMES(f_request_free, mpi_request_free, MPI_REQUEST_FREE, (fint * request, fint *ierr))

/* -- Persistent requests and matched probes (capture_persist.c) -- */

#define F_INIT_PARAMS (void *buf, fint *count, fint *type, fint *peer, fint *tag, fint *comm, fint *request, fint *ierr)
typedef void f_init_fn F_INIT_PARAMS;

static void f_persistent_init(f_init_fn *pmpi, const char *name, int is_recv, void *buf, fint *count, fint *type,
                              fint *peer, fint *tag, fint *comm, fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi != NULL, name);
    pmpi(buf, count, type, peer, tag, comm, request, ierr);
    if (*ierr == MPI_SUCCESS)
        note_persistent_init(f_req_key(*request), f_comm(comm), is_recv, *peer, f_bytes(count, type), *tag);
}

#define FORTRAN_INIT(lower, upper, is_recv)                                                                            \
    extern f_init_fn p##lower##_ __attribute__((weak));                                                                \
    static void f_##lower F_INIT_PARAMS                                                                                \
    {                                                                                                                  \
        f_persistent_init(p##lower##_, "p" #lower "_", is_recv, buf, count, type, peer, tag, comm, request, ierr);     \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, upper, F_INIT_PARAMS)
FORTRAN_INIT(mpi_send_init, MPI_SEND_INIT, 0)
FORTRAN_INIT(mpi_bsend_init, MPI_BSEND_INIT, 0)
FORTRAN_INIT(mpi_ssend_init, MPI_SSEND_INIT, 0)
FORTRAN_INIT(mpi_rsend_init, MPI_RSEND_INIT, 0)
FORTRAN_INIT(mpi_recv_init, MPI_RECV_INIT, 1)

extern void pmpi_start_(fint *request, fint *ierr) __attribute__((weak));
static void f_start(fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_start_ != NULL, "pmpi_start_");
    uint64_t key = f_req_key(*request);
    uint64_t t0 = now();
    pmpi_start_(request, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) note_start(key, t0, t1);
}
FORTRAN_NAMES(f_start, mpi_start, MPI_START, (fint * request, fint *ierr))

extern void pmpi_startall_(fint *count, fint *requests, fint *ierr) __attribute__((weak));
static void f_startall(fint *count, fint *requests, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_startall_ != NULL, "pmpi_startall_");
    uint64_t t0 = now();
    pmpi_startall_(count, requests, ierr);
    uint64_t t1 = now();
    for (fint i = 0; *ierr == MPI_SUCCESS && i < *count; ++i) note_start(f_req_key(requests[i]), i == 0 ? t0 : t1, t1);
}
FORTRAN_NAMES(f_startall, mpi_startall, MPI_STARTALL, (fint * count, fint *requests, fint *ierr))

/* A matched probe that found message MESSAGE with Fortran status FST. */
static void f_matched(const fint *comm, fint source, const fint *fst, fint message)
{
    MPI_Message m = PMPI_Message_f2c(message);
    if (m == MPI_MESSAGE_NO_PROC) return;
    MPI_Status cst;
    f_to_c_status(fst, &cst);
    note_matched_probe(f_comm(comm), source, &cst, msg_key(m));
}

extern void pmpi_mprobe_(fint *source, fint *tag, fint *comm, fint *message, fint *status, fint *ierr)
    __attribute__((weak));
static void f_mprobe(fint *source, fint *tag, fint *comm, fint *message, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_mprobe_ != NULL, "pmpi_mprobe_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    pmpi_mprobe_(source, tag, comm, message, st, ierr);
    if (*ierr == MPI_SUCCESS) f_matched(comm, *source, st, *message);
}
FORTRAN_NAMES(f_mprobe, mpi_mprobe, MPI_MPROBE,
              (fint * source, fint *tag, fint *comm, fint *message, fint *status, fint *ierr))

extern void pmpi_improbe_(fint *source, fint *tag, fint *comm, fint *flag, fint *message, fint *status, fint *ierr)
    __attribute__((weak));
static void f_improbe(fint *source, fint *tag, fint *comm, fint *flag, fint *message, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_improbe_ != NULL, "pmpi_improbe_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    pmpi_improbe_(source, tag, comm, flag, message, st, ierr);
    if (*ierr == MPI_SUCCESS && *flag) f_matched(comm, *source, st, *message);
}
FORTRAN_NAMES(f_improbe, mpi_improbe, MPI_IMPROBE,
              (fint * source, fint *tag, fint *comm, fint *flag, fint *message, fint *status, fint *ierr))

extern void pmpi_mrecv_(void *buf, fint *count, fint *type, fint *message, fint *status, fint *ierr)
    __attribute__((weak));
static void f_mrecv(void *buf, fint *count, fint *type, fint *message, fint *status, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_mrecv_ != NULL, "pmpi_mrecv_");
    fint own[F_STATUS_SIZE];
    fint *st = f_status_ignored(status) ? own : status;
    uint64_t key = msg_key(PMPI_Message_f2c(*message));
    uint64_t t0 = now();
    pmpi_mrecv_(buf, count, type, message, st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        note_mrecv(key, &cst, f_bytes(count, type), t0, t1);
    }
}
FORTRAN_NAMES(f_mrecv, mpi_mrecv, MPI_MRECV,
              (void *buf, fint *count, fint *type, fint *message, fint *status, fint *ierr))

extern void pmpi_imrecv_(void *buf, fint *count, fint *type, fint *message, fint *request, fint *ierr)
    __attribute__((weak));
static void f_imrecv(void *buf, fint *count, fint *type, fint *message, fint *request, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_imrecv_ != NULL, "pmpi_imrecv_");
    uint64_t key = msg_key(PMPI_Message_f2c(*message));
    uint64_t t0 = now();
    pmpi_imrecv_(buf, count, type, message, request, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) note_imrecv(key, f_bytes(count, type), f_req_key(*request), t0, t1);
}
FORTRAN_NAMES(f_imrecv, mpi_imrecv, MPI_IMRECV,
              (void *buf, fint *count, fint *type, fint *message, fint *request, fint *ierr))
