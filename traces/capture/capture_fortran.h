/* What the Fortran entry points of libibsec_capture share (capture_fortran.c,
 * capture_unrecorded.c): see capture_fortran.c for how Open MPI's Fortran
 * bindings are reached. */
#ifndef IBSEC_CAPTURE_FORTRAN_H
#define IBSEC_CAPTURE_FORTRAN_H

#include "capture_internal.h"

#pragma GCC visibility push(hidden)

/* Integers per Fortran status (MPI_STATUS_SIZE). */
#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define F_STATUS_SIZE ((sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint))
#endif

/* The mpi_f08 module of Open MPI 4 calls ompi_send_f etc., whose parameters
 * were checked to be those of mpi_send_; other versions are not assumed. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
#define F08_NAME(impl, name, params) void name params __attribute__((alias(#impl)));
#else
#define F08_NAME(impl, name, params)
#endif

/* The four name manglings Open MPI exports, and the mpi_f08 one. Used in
 * the .c files, outside this header's hidden region: the names are exported. */
#define FORTRAN_NAMES(impl, lower, upper, params)                                                                      \
    void lower params __attribute__((alias(#impl)));                                                                   \
    void lower##_ params __attribute__((alias(#impl)));                                                                \
    void lower##__ params __attribute__((alias(#impl)));                                                               \
    void upper params __attribute__((alias(#impl)));                                                                   \
    F08_NAME(impl, o##lower##_f, params)

typedef MPI_Fint fint;

/* A Fortran entry was called but Open MPI's Fortran library is not loaded:
 * says so and aborts (cannot happen with a program built by mpif90). */
void need_fortran(int present, const char *name);

/* IERROR is optional in the mpi_f08 bindings; Open MPI passes NULL then. */
#define IERR(ierr)                                                                                                     \
    fint ierr_local_;                                                                                                  \
    if (!(ierr)) (ierr) = &ierr_local_

static inline uint64_t f_bytes(const fint *count, const fint *type)
{
    return type_bytes(*count, PMPI_Type_f2c(*type));
}
static inline MPI_Comm f_comm(const fint *comm)
{
    return PMPI_Comm_f2c(*comm);
}
static inline uint64_t f_req_key(fint request)
{
    return req_key(PMPI_Request_f2c(request));
}
static inline int f_status_ignored(const fint *status)
{
    return status == MPI_F_STATUS_IGNORE;
}
static inline int f_statuses_ignored(const fint *statuses)
{
    return statuses == MPI_F_STATUSES_IGNORE;
}

static inline void f_to_c_status(const fint *fst, MPI_Status *cst)
{
    memset(cst, 0, sizeof *cst);
    PMPI_Status_f2c(fst, cst);
}

static inline MPI_Datatype f_type(const fint *type)
{
    return PMPI_Type_f2c(*type);
}

/* Whether BUF is Fortran's MPI_IN_PLACE: the address of a common block
 * that Open MPI's Fortran libraries define (weak references: none of them
 * need be loaded). */
extern char mpi_fortran_in_place_ __attribute__((weak, visibility("default")));
extern char mpi_fortran_in_place __attribute__((weak, visibility("default")));
extern char mpi_fortran_in_place__ __attribute__((weak, visibility("default")));
extern char MPI_FORTRAN_IN_PLACE __attribute__((weak, visibility("default")));
static inline int f_in_place(const void *buf)
{
    return buf && (buf == &mpi_fortran_in_place_ || buf == &mpi_fortran_in_place || buf == &mpi_fortran_in_place__ ||
                   buf == &MPI_FORTRAN_IN_PLACE);
}

_Static_assert(sizeof(fint) == sizeof(int), "Fortran INTEGER arrays are read as C int arrays");

#pragma GCC visibility pop

#endif /* IBSEC_CAPTURE_FORTRAN_H */
