/* The MPI calls libibsec_capture does not record (capture_calls.def,
 * UNRECORDED): one-sided communication, neighbourhood collectives, dynamic
 * processes, MPI_Cancel, MPI_Comm_idup, MPI-IO. Their C and Fortran entry
 * points count each call and run it; rank 0 writes the counts as notes and
 * says them on stderr at MPI_Finalize, so that a trace never leaves out
 * communication silently. Their time stays computation. */
#include "capture_internal.h"

#include "capture_fortran.h"

static void count_call(enum call call)
{
    if (!recording()) return;
    lock();
    S.unrecorded[call]++;
    unlock();
}

#define UNRECORDED(Name, lower, UPPER, why, params, args, fparams, fargs)                                              \
    int MPI_##Name params                                                                                              \
    {                                                                                                                  \
        count_call(CALL_##Name);                                                                                       \
        uint64_t began_ = unrecorded_call_begin();                                                                     \
        int rc_ = PMPI_##Name args;                                                                                    \
        unrecorded_call_end(began_);                                                                                   \
        return rc_;                                                                                                    \
    }
#include "capture_calls.def"

/* The Fortran entry points pass their arguments on untouched to Open MPI's
 * Fortran profiling entries (weak references, as in capture_fortran.c). */
#define UNRECORDED(Name, lower, UPPER, why, params, args, fparams, fargs)                                              \
    extern void p##lower##_ fparams __attribute__((weak));                                                             \
    static void f_##lower fparams                                                                                      \
    {                                                                                                                  \
        need_fortran(p##lower##_ != NULL, "p" #lower "_");                                                             \
        count_call(CALL_##Name);                                                                                       \
        uint64_t began_ = unrecorded_call_begin();                                                                     \
        p##lower##_ fargs;                                                                                             \
        unrecorded_call_end(began_);                                                                                   \
    }                                                                                                                  \
    FORTRAN_NAMES(f_##lower, lower, UPPER, fparams)
#include "capture_calls.def"
