/*
 * libibsec_capture: records what an MPI program does through the MPI
 * profiling interface (PMPI) and writes it, at MPI_Finalize, as an ibsec
 * trace (docs/trace-format.md, version 2, `origin captured`) in the
 * encoding and compression the name of IBSEC_TRACE asks for.
 *
 * How it works
 *  - Every wrapped MPI_X takes the time, calls PMPI_X, takes the time again
 *    and appends one record to this process's in-memory list. The time
 *    between two recorded calls becomes an explicit `compute` event, so each
 *    process's events tile its timeline from the end of MPI_Init (a barrier)
 *    to the start of MPI_Finalize.
 *  - All processes' times are put on one clock (rank 0's), because the trace
 *    relates them: a receive cannot end before its send started. Processes
 *    on one host share CLOCK_MONOTONIC; offsets between hosts are measured
 *    at MPI_Init and MPI_Finalize. The origin is the earliest end of
 *    MPI_Init. See "One clock for all processes" below.
 *  - Non-blocking operations are remembered by their MPI_Request until a
 *    wait or test completes them (a queue per handle: Open MPI gives small
 *    sends one shared pre-completed request); a receive's record is patched
 *    then with the source, tag and size the status reports (wildcards,
 *    short messages). A request still open at MPI_Finalize gets its wait
 *    there, and rank 0 keeps every message with both its ends or not at
 *    all (capture_messages.c).
 *  - Calls the library does not record are counted by name and become
 *    notes (capture_unrecorded.c), so that no communication is left out
 *    silently.
 *  - Communicators other than MPI_COMM_WORLD get an id that all their
 *    members agree on (an allreduce MAX over the new communicator, at its
 *    creation or at its first blocking collective); at the end rank 0
 *    renumbers them 1, 2, ... and declares those that events name in
 *    `comm` lines.
 *  - At MPI_Finalize every process sends its records to rank 0, which
 *    merges them by START (ties by rank, each rank's own order kept) and
 *    writes IBSEC_TRACE (default ./ibsec.trace) through a temporary file and
 *    rename(), so a reader never sees half a trace.
 *  - Open MPI's Fortran bindings (mpif.h, `use mpi`, and mpi_f08 on Open
 *    MPI 4) call the C PMPI_* functions directly, so C MPI_* wrappers never
 *    see Fortran calls. capture_fortran.c therefore also defines
 *    the Fortran entry points (mpi_send_ etc.); they call Open MPI's Fortran
 *    PMPI entry points (pmpi_send_ etc., which deal with the Fortran
 *    sentinels MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE) and record the
 *    same events as the C wrappers. See README.md.
 *
 * The state is guarded by one mutex, never held across a blocking MPI call,
 * so a program using MPI_THREAD_MULTIPLE does not corrupt it (its trace is
 * still only as meaningful as a single timeline per process can be).
 */

/*
 * This header declares what the files of libibsec_capture share:
 *   capture_state.c    the state, the hash map, the record buffer, the op table
 *   capture_clock.c    this process's clock and the common one
 *   capture_start.c    MPI_Init: start of the capture, the trace's origin
 *   capture_p2p.c      point-to-point recording and C wrappers
 *   capture_persist.c  persistent requests, matched probes, their C wrappers
 *   capture_coll.c     communicators, collectives and their C wrappers
 *   capture_unrecorded.c  calls counted, not recorded (C and Fortran)
 *   capture_hosts.c    the hosts' CPUs and ranks, for notes
 *   capture_finish.c   MPI_Finalize: gather, merge, repair
 *   capture_messages.c rank 0: every message with both its ends, or none
 *   capture_write.c    the header, the events, the encodings
 *   capture_fortran.c, capture_fortran_coll.c  the Fortran entry points
 * All of it has hidden visibility: only the MPI and Fortran entry points are
 * exported from the library.
 */
#ifndef IBSEC_CAPTURE_INTERNAL_H
#define IBSEC_CAPTURE_INTERNAL_H

#define _GNU_SOURCE /* program_invocation_short_name */
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TOOL_NAME "libibsec_capture"
#define TOOL_VERSION "1"
#define DEFAULT_TRACE_PATH "ibsec.trace"

/* Handles are turned into 64-bit map keys by copying their bytes. */
_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "MPI_Request wider than 64 bits");
_Static_assert(sizeof(MPI_Comm) <= sizeof(uint64_t), "MPI_Comm wider than 64 bits");
_Static_assert(sizeof(MPI_Message) <= sizeof(uint64_t), "MPI_Message wider than 64 bits");

#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------------------ */
/* Events: the ops of the trace format, the arguments of their lines and    */
/* the layouts of those, from the table the engine reads too               */
/* (traces/trace_ops.def).                                                  */
/* ------------------------------------------------------------------------ */

enum op {
#define TRACE_OP(Id, ID, text, code, layout, role, counts, since, blocking) OP_##ID = code,
#include "../trace_ops.def"
};
enum {
    OP_COUNT = 0
#define TRACE_OP(Id, ID, text, code, layout, role, counts, since, blocking) +1
#include "../trace_ops.def"
};

enum arg {
#define TRACE_ARG(Id, text, slot, member, max, words, since) ARG_##Id,
#include "../trace_ops.def"
    ARG_None /* fills a layout's places after its last argument */
};

enum layout {
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6) LAYOUT_##Id,
#include "../trace_ops.def"
};
#define MAX_ARGS 6
#define TRACE_FORMAT_VERSION 3             /* traces/trace_header.h, kTraceFormatVersion */
#define TRACE_FORMAT_VERSION_WITHOUT_CPU 2 /* IBSEC_CAPTURE_CPU_CLOCK=none: the version written before CPU times */

/* An op's word in an event line, which arguments follow it, and whether
 * COUNTS (one byte count per member of its communicator) end the line. */
struct op_info {
    const char *text;
    enum layout layout;
    int counts;
};

/* The MPI calls counted by name (capture_calls.def). */
enum call {
#define COLLECTIVE(Name) CALL_##Name,
#define UNRECORDED(Name, lower, UPPER, why, params, args, fparams, fargs) CALL_##Name,
#include "capture_calls.def"
    CALL_COUNT
};

/* One event of this process. Sent to rank 0 as raw bytes at the end (all
 * processes run the same library on the same kind of machine), hence the
 * explicit padding: no uninitialised bytes go over the wire. Its fields a, b,
 * c, d, flags and bytes carry the arguments as TRACE_ARG's slot says. */
struct record {
    uint64_t start; /* ns since the origin */
    uint64_t end;
    uint64_t bytes; /* BYTES (at most UINT32_MAX), or a compute event's CPU time in ns */
    uint32_t a;     /* PEER (world rank), or the communicator's agreed id */
    uint32_t b;     /* TAG, or ROOT (world rank) of a rooted collective */
    uint32_t c;     /* REQ */
    uint32_t d;     /* COMM of a point-to-point event (the communicator's agreed id) */
    uint8_t op;
    uint8_t flags;       /* POSTED: 1 if a receive was posted with MPI_ANY_SOURCE */
    uint8_t size_unsure; /* a receive whose BYTES is its buffer's, the message's unknown: rank 0 takes its send's */
    uint8_t zero[5];
};
_Static_assert(sizeof(struct record) == 48, "unexpected padding in struct record");

/* Which CPU-time clock measures compute events (IBSEC_CAPTURE_CPU_CLOCK). */
enum cpu_clock { CPU_CLOCK_NONE, CPU_CLOCK_THREAD, CPU_CLOCK_PROCESS };

/* Things the trace cannot express or that went wrong; summed over the
 * processes and reported as `note` lines and on stderr. */
enum counter {
    C_SELF,                    /* messages from a process to itself (recorded; counted at the send) */
    C_UNNAMED_COMM,            /* point-to-point on communicators whose members agreed on no id */
    C_FOREIGN_COMM,            /* operations on communicators with processes outside the world */
    C_NEVER_COMPLETED,         /* requests still open at MPI_Finalize, given a wait there */
    C_NEVER_COMPLETED_UNKNOWN, /* receive requests still open at MPI_Finalize, posted with a wildcard: left out */
    C_ONE_ENDED,     /* point-to-point operations left out on rank 0: their message's other end is not recorded */
    C_SIZE_DIFFERS,  /* messages left out on rank 0: their two ends disagree on the size */
    C_FREED_UNKNOWN, /* receive requests freed before their source/tag were known */
    C_CANCELLED,     /* requests cancelled */
    C_BYTES_CLAMPED, /* sizes above 2^32-1 */
    C_TIME_CLAMPED,  /* events overlapping their predecessor (several threads) */
    C_CAUSALITY,     /* receives extended to end after their send started (clock error between hosts) */
    C_CPU_UNKNOWN,   /* compute events whose CPU time could not be read (their wall time is kept) */
    C_COUNT
};

/* ------------------------------------------------------------------------ */
/* A hash map from 64-bit keys to 64-bit values (open addressing, linear   */
/* probing, backward-shift deletion). Used for requests and communicators. */
/* ------------------------------------------------------------------------ */

struct map_slot {
    uint64_t key;
    uint64_t value;
    unsigned char full;
};

struct map {
    struct map_slot *slots;
    size_t cap; /* 0 or a power of two */
    size_t len;
};

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/* A communicator the program used. Entries outlive their handle (a freed
 * communicator can still have requests in flight, and its collectives must
 * be declared at the end). */
struct comm_entry {
    uint64_t key;      /* the handle (comm_by_handle finds it while it is not freed) */
    uint32_t *members; /* world rank of each rank of the (remote) group; NULL = identity (world) */
    int size;          /* size of that group */
    int inter;         /* intercommunicator: point-to-point ranks name the remote group */
    int foreign;       /* has members outside MPI_COMM_WORLD: not recordable */
    uint32_t *all;     /* intercommunicator: both groups, the one with the lowest world rank first */
    int nall;
    int has_id;
    uint32_t id; /* agreed among the members; 0 is MPI_COMM_WORLD */
    int used;    /* named by a recorded collective: declared in the header */
    size_t refs; /* open requests naming it */
};

/* An open non-blocking operation, found by its MPI_Request. One handle can
 * stand for several open operations at once: Open MPI 4 completes a small
 * MPI_Isend at once and hands every such send the same pre-completed
 * request. The operations of one handle form a queue, oldest first, and
 * each completion of the handle closes the oldest. */
enum pend_kind { PEND_SEND, PEND_RECV, PEND_COLL };
struct pending {
    size_t rec;  /* index of its isend, irecv or non-blocking collective record */
    size_t comm; /* its communicator, to turn the status's source into a world rank */
    enum pend_kind kind;
    int src_known, tag_known; /* a receive posted without wildcards */
    size_t next;              /* the next operation open under the same handle, or NO_SLOT */
    size_t last;              /* in the oldest of a handle's queue: its newest */
};
#define NO_SLOT SIZE_MAX

/* Everything the library knows about this process (defined in capture_state.c). */
struct capture_state {
    pthread_mutex_t lock;
    int active; /* between MPI_Init and MPI_Finalize */
    int failed; /* out of memory: nothing more is recorded, no trace is written */
    int rank, size;
    MPI_Comm priv; /* a duplicate of MPI_COMM_WORLD for the library's own messages */
    MPI_Group world_group;
    MPI_Comm node;     /* the processes of this host, which share its CLOCK_MONOTONIC */
    MPI_Comm leaders;  /* one process per host (rank 0 of node); MPI_COMM_NULL elsewhere */
    uint64_t skew;     /* IBSEC_CAPTURE_SIMULATE_HOSTS: added to this process's clock (tests) */
    uint64_t t0;       /* this host's clock when this process left the barrier ending MPI_Init */
    int64_t off_init;  /* this host's clock + off = rank 0's clock, measured at MPI_Init */
    int64_t origin;    /* the trace's origin on rank 0's clock: the earliest t0 + off_init */
    uint64_t last_end; /* END of this process's latest event, in ns since t0 */
    enum cpu_clock cpu_clock;
    uint64_t last_end_cpu;     /* the CPU-time clock at last_end, if last_end_cpu_known */
    int last_end_cpu_known;    /* read by last_end_thread */
    pthread_t last_end_thread; /* a thread's CPU time means nothing to another thread */
    char *trace_path;
    char *program;
    char *mpi_version;

    struct record *recs;
    size_t nrecs, caprecs;
    uint32_t *counts; /* the COUNTS of events with counts; such an event's `d` is where its own start */
    size_t ncounts, capcounts;

    struct comm_entry *comms;
    size_t ncomms, capcomms;
    struct map comm_by_handle; /* live handle -> index in comms */
    uint32_t next_comm_id;     /* lowest id this process may propose for a new communicator */

    struct pending *pend;
    size_t npend, cappend; /* slots used so far, allocated */
    size_t *pend_free;     /* slots free for reuse */
    size_t npend_free, cappend_free;
    struct map pend_by_request; /* request -> oldest of its open operations in pend */
    uint32_t next_req;          /* REQ names are per process */

    uint64_t counters[C_COUNT];
    uint64_t inter_calls[CALL_COUNT]; /* collectives on intercommunicators, not recorded */
    uint64_t unrecorded[CALL_COUNT];  /* calls the library does not record (capture_unrecorded.c) */
};
extern struct capture_state S;

/* A collective call being recorded (capture_coll.c): coll_enter before the
 * PMPI call, t1 right after it, then what the op records, then coll_exit. */
struct coll {
    int rec; /* to be recorded: an intracommunicator whose members agreed on an id */
    size_t ci;
    enum op op;
    uint64_t t0, t1;
    int n, me;        /* the communicator's size and this process's rank in it */
    int root;         /* rooted ops: a rank of the communicator */
    uint64_t bytes;   /* ops with BYTES */
    uint64_t *counts; /* ops with COUNTS: one per member, zero until filled in */
    uint64_t key;     /* non-blocking ops: the request */
};

/* A communicator as one process describes it at the end: (agreed id,
 * members in communicator-rank order). */
struct comm_desc {
    uint32_t id;
    uint32_t n;
    const uint32_t *members;
    int rank;        /* the process that described it */
    uint32_t global; /* its id in the trace */
};

/* What is known of one host at the end (capture_hosts.c). */
#define HOST_NAME_SIZE 64
struct host_fact {
    char name[HOST_NAME_SIZE];
    uint32_t cpus;  /* CPUs the processes on it may run on */
    uint32_t ranks; /* processes on it */
};

/* Everything rank 0 writes (capture_write.c). */
struct trace_data {
    int nprocs;
    struct record **recs; /* each process's events, in its own order */
    uint64_t *nrecs;
    uint32_t **counts; /* each process's COUNTS list (struct capture_state's counts) */
    struct comm_desc *descs;
    size_t ndescs;
    struct map comms; /* (rank, agreed id) -> id in the trace | size << 32; made by write_trace */
    uint64_t counters[C_COUNT];
    uint64_t inter_calls[CALL_COUNT];
    uint64_t unrecorded[CALL_COUNT];
    struct host_fact *hosts;
    size_t nhosts;
};

/* Text that grows (capture_write.c); `failed` once out of memory. */
struct text {
    char *s;
    size_t len, cap;
    int failed;
};

/* The time of a wait/test call that completes several requests (capture_p2p.c). */
struct span {
    uint64_t start, end;
};

/* ------------------------------------------------------------------------ */
/* Shared functions                                                         */
/* ------------------------------------------------------------------------ */

/* capture_state.c */
extern const struct op_info OP_INFO[OP_COUNT];
extern const enum arg LAYOUT_ARGS[][MAX_ARGS]; /* in line order, ARG_None after the last */
int op_has_arg(enum op op, enum arg arg);
uint64_t record_arg(const struct record *r, enum arg arg);
extern const unsigned ARG_SINCE[]; /* the format version that added each argument */
struct map_slot *map_find(const struct map *m, uint64_t key);
int map_put(struct map *m, uint64_t key, uint64_t value);
int map_take(struct map *m, uint64_t key, uint64_t *value);
void map_free(struct map *m);
void lock(void);
void unlock(void);
int recording(void);
uint64_t req_key(MPI_Request r);
uint64_t comm_key(MPI_Comm c);
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail_locked(const char *what);
int grow(void **array, size_t *cap, size_t need, size_t size);
uint32_t clamp_bytes_locked(uint64_t bytes);
uint64_t type_bytes(MPI_Fint count, MPI_Datatype type);
int append_locked(uint64_t start, uint64_t end, enum op op, uint64_t bytes, uint32_t a, uint32_t b, uint32_t c,
                  size_t *index);
void drop_record(struct record *r);
void drop_locked(size_t index);

/* capture_clock.c */
uint64_t mono_ns(void);
uint64_t now(void);
enum cpu_clock cpu_clock_from_environment(void);
uint64_t cpu_ns(void);
int cpu_at(uint64_t wall, uint64_t *cpu);
uint64_t unrecorded_call_begin(void);
void unrecorded_call_end(uint64_t began);
void unrecorded_call_between(uint64_t t0, uint64_t t1);
uint64_t take_cpu_in_unrecorded_calls(void);
void clock_setup(void);
int64_t clock_offset(void);
void to_common_clock(int64_t off_fin, uint64_t t_fin);

/* capture_start.c */
char *temp_path(const char *path);
void capture_start(const char *argv0, int thread_level);

/* capture_coll.c */
int comm_lookup_locked(MPI_Comm comm, size_t *index);
int64_t world_rank_locked(size_t index, int r);
void comm_created(MPI_Comm comm);
void comm_freed(MPI_Comm comm);
void coll_enter(struct coll *c, MPI_Comm comm, enum op op, enum call call);
void coll_exit(struct coll *c, int ok);
void coll_rooted_bytes(struct coll *c, int root, MPI_Fint root_count, MPI_Datatype root_type, MPI_Fint count,
                       MPI_Datatype type);
void coll_rooted_counts(struct coll *c, int root, const int *root_counts, MPI_Datatype root_type, MPI_Fint count,
                        MPI_Datatype type);
void coll_counts(struct coll *c, const int *counts, MPI_Datatype type);
void coll_counts_w(struct coll *c, const int *counts, const MPI_Datatype *types);
void coll_equal_counts(struct coll *c, MPI_Fint count, MPI_Datatype type);

/* capture_p2p.c */
void note_send(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag);
void note_recv(uint64_t t0, uint64_t t1, MPI_Comm comm, int source, const MPI_Status *st, uint64_t posted);
int append_p2p_locked(uint64_t t0, uint64_t t1, enum op op, uint64_t bytes, int64_t peer, int tag, uint32_t req,
                      size_t ci, int any, size_t *index);
void pending_open_locked(uint64_t key, size_t rec, size_t comm, enum pend_kind kind, int src_known, int tag_known);
uint64_t received_bytes(const MPI_Status *st, uint64_t posted);
int p2p_comm_locked(MPI_Comm comm, size_t *ci);
void isend_locked(uint64_t t0, uint64_t t1, size_t ci, int dest, uint64_t bytes, int tag, uint64_t key);
void irecv_locked(uint64_t t0, uint64_t t1, size_t ci, int source, uint64_t bytes, int tag, uint64_t key);
void note_isend(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag, uint64_t key);
void note_irecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int source, uint64_t bytes, int tag, uint64_t key);
int complete_request(uint64_t key, const MPI_Status *st, uint64_t t0, uint64_t t1);
void note_request_free(uint64_t key, uint64_t t0, uint64_t t1);
int any_pending(void);
void note_sendrecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t sbytes, int stag, int source,
                   const MPI_Status *st, uint64_t rposted);
void complete_in(struct span *sp, uint64_t key, const MPI_Status *st);

/* capture_persist.c */
uint64_t msg_key(MPI_Message m);
void note_persistent_init(uint64_t key, MPI_Comm comm, int is_recv, int peer, uint64_t bytes, int tag);
void note_start(uint64_t key, uint64_t t0, uint64_t t1);
void note_persistent_free(uint64_t key);
void note_matched_probe(MPI_Comm comm, int source, const MPI_Status *st, uint64_t message);
void note_mrecv(uint64_t message, const MPI_Status *st, uint64_t posted, uint64_t t0, uint64_t t1);
void note_imrecv(uint64_t message, uint64_t posted, uint64_t request, uint64_t t0, uint64_t t1);
void persistent_free_all(void);

/* capture_finish.c */
int capture_finish(void);

/* capture_messages.c */
int settle_messages(struct trace_data *t);

/* capture_write.c */
int trace_path_binary(const char *path);
/* Whether the trace can go to PATH: a regular file that can be written or a
 * new name, in a folder where a file can be created beside it; if not, WHY
 * says why ("is a FIFO: ..."). */
int trace_output_usable(const char *path, char *why, size_t size);
void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int write_trace(struct trace_data *t, uint64_t *nevents);

/* capture_hosts.c */
int host_facts(struct host_fact **facts, size_t *n);
void host_notes(const struct host_fact *hosts, size_t n, struct text *notes);

#pragma GCC visibility pop

#endif /* IBSEC_CAPTURE_INTERNAL_H */
