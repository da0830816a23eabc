/*
 * libibsec_capture: records what an MPI program does through the MPI
 * profiling interface (PMPI) and writes it, at MPI_Finalize, as an ibsec
 * trace (docs/trace-format.md, text encoding, `origin captured`).
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
 *    wait or test completes them; a receive's record is patched then with
 *    the source, tag and size the status reports (wildcards, short
 *    messages).
 *  - Communicators other than MPI_COMM_WORLD get an id that all their
 *    members agree on (an allreduce MAX over the new communicator, at its
 *    creation or at its first collective); at the end rank 0 renumbers them
 *    1, 2, ... and declares those that collectives use in `comm` lines.
 *  - At MPI_Finalize every process sends its records to rank 0, which
 *    merges them by START (ties by rank, each rank's own order kept) and
 *    writes IBSEC_TRACE (default ./ibsec.trace) through a temporary file and
 *    rename(), so a reader never sees half a trace.
 *  - Open MPI's Fortran bindings (mpif.h, `use mpi`, and mpi_f08 on Open
 *    MPI 4) call the C PMPI_* functions directly, so C MPI_* wrappers never
 *    see Fortran calls. The second half of this file therefore also defines
 *    the Fortran entry points (mpi_send_ etc.); they call Open MPI's Fortran
 *    PMPI entry points (pmpi_send_ etc., which deal with the Fortran
 *    sentinels MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE) and record the
 *    same events as the C wrappers. See README.md.
 *
 * The state is guarded by one mutex, never held across a blocking MPI call,
 * so a program using MPI_THREAD_MULTIPLE does not corrupt it (its trace is
 * still only as meaningful as a single timeline per process can be).
 */
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

/* Largest message (in bytes) the merge step sends at once: MPI counts are
 * ints, and records can add up to more than 2 GiB. */
#define CHUNK_BYTES ((size_t)1 << 26)

/* Handles are turned into 64-bit map keys by copying their bytes. */
_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "MPI_Request wider than 64 bits");
_Static_assert(sizeof(MPI_Comm) <= sizeof(uint64_t), "MPI_Comm wider than 64 bits");

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

enum op {
    OP_COMPUTE,
    OP_SEND,
    OP_RECV,
    OP_ISEND,
    OP_IRECV,
    OP_WAIT,
    OP_BARRIER,
    OP_BCAST,
    OP_REDUCE,
    OP_GATHER,
    OP_SCATTER,
    OP_ALLREDUCE,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_COUNT
};

static const char *const OP_NAME[OP_COUNT] = {
    "compute", "send",   "recv",    "isend",     "irecv",     "wait",      "barrier",
    "bcast",   "reduce", "gather",  "scatter",   "allreduce", "allgather", "alltoall",
};

/* One event of this process. Sent to rank 0 as raw bytes at the end (all
 * processes run the same library on the same kind of machine), hence the
 * explicit padding: no uninitialised bytes go over the wire. */
struct record {
    uint64_t start; /* ns since the origin */
    uint64_t end;
    uint32_t bytes;
    uint32_t a;     /* PEER (world rank), or the communicator's agreed id */
    uint32_t b;     /* TAG, or ROOT (world rank) of a rooted collective */
    uint32_t c;     /* REQ */
    uint8_t op;
    uint8_t zero[7];
};
_Static_assert(sizeof(struct record) == 40, "unexpected padding in struct record");

/* Things the trace cannot express or that went wrong; summed over the
 * processes and reported as `note` lines and on stderr. */
enum counter {
    C_SELF,             /* messages from a process to itself */
    C_INTER_COLL,       /* collectives on intercommunicators */
    C_FOREIGN_COMM,     /* operations on communicators with processes outside the world */
    C_NEVER_COMPLETED,  /* requests still open at MPI_Finalize */
    C_FREED_UNKNOWN,    /* receive requests freed before their source/tag were known */
    C_CANCELLED,        /* requests cancelled */
    C_BYTES_CLAMPED,    /* sizes above 2^32-1 */
    C_TIME_CLAMPED,     /* events overlapping their predecessor (several threads) */
    C_CAUSALITY,        /* receives extended to end after their send started (clock error between hosts) */
    C_COUNT
};

static const char *const COUNTER_NOTE[C_COUNT] = {
    "messages between a process and itself were not recorded",
    "collectives on intercommunicators were not recorded",
    "operations on communicators with processes outside MPI_COMM_WORLD were not recorded",
    "requests were never completed before MPI_Finalize; their isend/irecv were not recorded",
    "receive requests freed by MPI_Request_free before their source or tag was known were not recorded",
    "cancelled requests were not recorded",
    "messages larger than 4294967295 bytes were recorded as 4294967295 bytes",
    "events overlapped the previous event of their process (MPI calls from several threads) and were moved after it",
    "receives ended before their send started (clock offset error between hosts); each was extended to the send's "
    "start and the later events of its process delayed as much",
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

static size_t map_home(const struct map *m, uint64_t key)
{
    /* splitmix64 finaliser: handles are aligned pointers, their low bits
     * would cluster. */
    key ^= key >> 30;
    key *= UINT64_C(0xbf58476d1ce4e5b9);
    key ^= key >> 27;
    key *= UINT64_C(0x94d049bb133111eb);
    key ^= key >> 31;
    return (size_t)key & (m->cap - 1);
}

static struct map_slot *map_find(const struct map *m, uint64_t key)
{
    if (m->cap == 0) return NULL;
    for (size_t i = map_home(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->slots[i].full) return NULL;
        if (m->slots[i].key == key) return &m->slots[i];
    }
}

/* Inserts or replaces. Returns 0 when out of memory. */
static int map_put(struct map *m, uint64_t key, uint64_t value)
{
    struct map_slot *hit = map_find(m, key);
    if (hit) {
        hit->value = value;
        return 1;
    }
    if ((m->len + 1) * 4 > m->cap * 3) { /* keep the load under 3/4 */
        size_t cap = m->cap ? m->cap * 2 : 64;
        if (cap < m->cap) return 0;
        struct map_slot *slots = calloc(cap, sizeof *slots);
        if (!slots) return 0;
        struct map old = *m;
        m->slots = slots;
        m->cap = cap;
        for (size_t i = 0; i < old.cap; ++i) {
            if (!old.slots[i].full) continue;
            size_t j = map_home(m, old.slots[i].key);
            while (m->slots[j].full) j = (j + 1) & (cap - 1);
            m->slots[j] = old.slots[i];
        }
        free(old.slots);
    }
    size_t i = map_home(m, key);
    while (m->slots[i].full) i = (i + 1) & (m->cap - 1);
    m->slots[i].key = key;
    m->slots[i].value = value;
    m->slots[i].full = 1;
    m->len++;
    return 1;
}

/* Removes KEY; returns 1 and its value if it was there. */
static int map_take(struct map *m, uint64_t key, uint64_t *value)
{
    struct map_slot *hit = map_find(m, key);
    if (!hit) return 0;
    if (value) *value = hit->value;
    size_t mask = m->cap - 1;
    size_t i = (size_t)(hit - m->slots);
    m->slots[i].full = 0;
    /* Pull later members of the probe run back over the hole so that
     * lookups never stop early at it. */
    for (size_t j = (i + 1) & mask; m->slots[j].full; j = (j + 1) & mask) {
        size_t k = map_home(m, m->slots[j].key);
        if (((j - k) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            m->slots[j].full = 0;
            i = j;
        }
    }
    m->len--;
    return 1;
}

static void map_free(struct map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}

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
    int has_id;
    uint32_t id;       /* agreed among the members; 0 is MPI_COMM_WORLD */
    int used;          /* named by a recorded collective: declared in the header */
    size_t refs;       /* open requests naming it */
};

/* An open non-blocking operation, found by its MPI_Request. */
struct pending {
    size_t rec;  /* index of its isend/irecv record */
    size_t comm; /* its communicator, to turn the status's source into a world rank */
    int is_recv;
    int src_known, tag_known; /* a receive posted without wildcards */
};

static struct {
    pthread_mutex_t lock;
    int active; /* between MPI_Init and MPI_Finalize */
    int failed; /* out of memory: nothing more is recorded, no trace is written */
    int rank, size;
    MPI_Comm priv;        /* a duplicate of MPI_COMM_WORLD for the library's own messages */
    MPI_Group world_group;
    MPI_Comm node;        /* the processes of this host, which share its CLOCK_MONOTONIC */
    MPI_Comm leaders;     /* one process per host (rank 0 of node); MPI_COMM_NULL elsewhere */
    uint64_t skew;        /* IBSEC_CAPTURE_SIMULATE_HOSTS: added to this process's clock (tests) */
    uint64_t t0;          /* this host's clock when this process left the barrier ending MPI_Init */
    int64_t off_init;     /* this host's clock + off = rank 0's clock, measured at MPI_Init */
    int64_t origin;       /* the trace's origin on rank 0's clock: the earliest t0 + off_init */
    uint64_t last_end;    /* END of this process's latest event, in ns since t0 */
    char *trace_path;
    char *program;
    char *mpi_version;

    struct record *recs;
    size_t nrecs, caprecs;

    struct comm_entry *comms;
    size_t ncomms, capcomms;
    struct map comm_by_handle; /* live handle -> index in comms */
    uint32_t next_comm_id;     /* lowest id this process may propose for a new communicator */

    struct pending *pend;
    size_t npend, cappend;     /* slots used so far, allocated */
    size_t *pend_free;         /* slots free for reuse */
    size_t npend_free, cappend_free;
    struct map pend_by_request; /* request -> index in pend */
    uint32_t next_req;          /* REQ names are per process */

    uint64_t counters[C_COUNT];
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void lock(void) { pthread_mutex_lock(&S.lock); }
static void unlock(void) { pthread_mutex_unlock(&S.lock); }

static int recording(void) { return S.active && !S.failed; }

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec + S.skew;
}

/* ns since this process left the barrier ending MPI_Init. Events are kept
 * on this clock and put on the common one at MPI_Finalize. */
static uint64_t now(void)
{
    uint64_t t = mono_ns();
    return t > S.t0 ? t - S.t0 : 0;
}

static uint64_t handle_key(const void *handle, size_t size)
{
    uint64_t key = 0;
    memcpy(&key, handle, size);
    return key;
}
static uint64_t req_key(MPI_Request r) { return handle_key(&r, sizeof r); }
static uint64_t comm_key(MPI_Comm c) { return handle_key(&c, sizeof c); }

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ibsec_capture: rank %d: ", S.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Stops recording for good (the process goes on; rank 0 writes no trace and
 * exits non-zero after MPI_Finalize). Lock held. */
static void fail_locked(const char *what)
{
    if (S.failed) return;
    S.failed = 1;
    warn("out of memory (%s): recording stopped, no trace will be written", what);
    free(S.recs);
    S.recs = NULL;
    S.nrecs = S.caprecs = 0;
}

/* Grows *ARRAY to hold at least NEED elements of SIZE bytes. */
static int grow(void **array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2) return 0;
        n *= 2;
    }
    if (n > SIZE_MAX / size) return 0;
    void *p = realloc(*array, n * size);
    if (!p) return 0;
    *array = p;
    *cap = n;
    return 1;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* A malloc'd printf. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p) return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Header text is one line with single spaces. A program name becomes one
 * word: whitespace and control characters turn into '_'. */
static void sanitize_word(char *s)
{
    for (; *s; ++s)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s == 0x7f) *s = '_';
}

/* Free text: runs of whitespace and control characters become one space,
 * none at the ends. */
static void sanitize_text(char *s)
{
    char *out = s;
    int space = 0;
    for (const char *in = s; *in; ++in) {
        if ((unsigned char)*in <= ' ' || (unsigned char)*in == 0x7f) {
            space = out != s;
        } else {
            if (space) *out++ = ' ';
            space = 0;
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* ------------------------------------------------------------------------ */
/* Recording                                                                */
/* ------------------------------------------------------------------------ */

static uint32_t clamp_bytes_locked(uint64_t bytes)
{
    if (bytes > UINT32_MAX) {
        S.counters[C_BYTES_CLAMPED]++;
        return UINT32_MAX;
    }
    return (uint32_t)bytes;
}

/* COUNT elements of TYPE, in bytes. */
static uint64_t type_bytes(MPI_Fint count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size <= 0) return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* What a completed receive actually got: MPI_Get_elements_x with MPI_BYTE
 * gives the byte count of the message whatever the receive's datatype was
 * (both Open MPI and MPICH keep that count in the status), and the datatype
 * the receive was posted with may have been freed since. */
static uint64_t received_bytes(const MPI_Status *st, uint64_t posted)
{
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return posted;
    return (uint64_t)n;
}

static int push_locked(struct record r, size_t *index)
{
    if (!grow((void **)&S.recs, &S.caprecs, S.nrecs + 1, sizeof *S.recs)) {
        fail_locked("event list");
        return 0;
    }
    if (index) *index = S.nrecs;
    S.recs[S.nrecs++] = r;
    return 1;
}

/* Appends one event of this process, preceded by a `compute` event for the
 * time since its previous event. Returns 0 if nothing could be recorded. */
static int append_locked(uint64_t start, uint64_t end, enum op op, uint64_t bytes, uint32_t a,
                         uint32_t b, uint32_t c, size_t *index)
{
    if (S.failed) return 0;
    if (start < S.last_end) {
        /* Only possible when several threads call MPI at once: keep each
         * process's events in sequence, as the format requires. */
        S.counters[C_TIME_CLAMPED]++;
        start = S.last_end;
    }
    if (end < start) end = start;
    if (start > S.last_end) {
        struct record gap = {.start = S.last_end, .end = start, .op = OP_COMPUTE};
        if (!push_locked(gap, NULL)) return 0;
    }
    struct record r = {.start = start, .end = end, .bytes = clamp_bytes_locked(bytes), .a = a, .b = b, .c = c,
                       .op = (uint8_t)op};
    if (!push_locked(r, index)) return 0;
    S.last_end = end;
    return 1;
}

/* An event that turned out not to be expressible (a cancelled request, a
 * receive from itself): its time stays, as computation. */
static void drop_locked(size_t index)
{
    struct record *r = &S.recs[index];
    r->op = OP_COMPUTE;
    r->bytes = r->a = r->b = r->c = 0;
}

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
static int comm_lookup_locked(MPI_Comm comm, size_t *index)
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
static int64_t world_rank_locked(size_t index, int r)
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
static void comm_created(MPI_Comm comm)
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
static void comm_freed(MPI_Comm comm)
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
/* Point-to-point                                                           */
/* ------------------------------------------------------------------------ */

/* A blocking send (MPI_Send, _Ssend, _Bsend, _Rsend) that returned. */
static void note_send(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag)
{
    if (!recording() || dest == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (comm_lookup_locked(comm, &ci)) {
        int64_t peer = world_rank_locked(ci, dest);
        if (peer == S.rank)
            S.counters[C_SELF]++;
        else if (peer >= 0)
            append_locked(t0, t1, OP_SEND, bytes, (uint32_t)peer, (uint32_t)tag, 0, NULL);
    }
    unlock();
}

/* A blocking receive that returned with status ST. */
static void note_recv(uint64_t t0, uint64_t t1, MPI_Comm comm, const MPI_Status *st, uint64_t posted)
{
    if (!recording() || st->MPI_SOURCE == MPI_PROC_NULL) return;
    lock();
    size_t ci;
    if (comm_lookup_locked(comm, &ci)) {
        int64_t peer = world_rank_locked(ci, st->MPI_SOURCE);
        if (peer == S.rank)
            S.counters[C_SELF]++;
        else if (peer >= 0)
            append_locked(t0, t1, OP_RECV, received_bytes(st, posted), (uint32_t)peer, (uint32_t)st->MPI_TAG, 0,
                          NULL);
    }
    unlock();
}

/* Returns pending slot SLOT to the free list. Lock held. */
static void pending_close_locked(size_t slot)
{
    S.comms[S.pend[slot].comm].refs--;
    S.pend_free[S.npend_free++] = slot;
}

/* Remembers the request KEY of the isend/irecv record REC. Lock held. */
static void pending_open_locked(uint64_t key, size_t rec, size_t comm, int is_recv, int src_known, int tag_known)
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
    S.pend[slot] = (struct pending){.rec = rec, .comm = comm, .is_recv = is_recv, .src_known = src_known,
                                    .tag_known = tag_known};
    uint64_t stale;
    if (map_take(&S.pend_by_request, key, &stale)) {
        /* The handle was reused: the old request completed without us
         * seeing it (through a call this library does not wrap). */
        S.counters[C_NEVER_COMPLETED]++;
        pending_close_locked((size_t)stale);
        drop_locked(S.pend[stale].rec);
    }
    if (!map_put(&S.pend_by_request, key, slot)) {
        fail_locked("request table");
        return;
    }
    S.comms[comm].refs++;
}

/* MPI_Isend and friends that returned request KEY. */
static void note_isend(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t bytes, int tag, uint64_t key)
{
    if (!recording() || dest == MPI_PROC_NULL) return;
    lock();
    size_t ci, rec;
    if (comm_lookup_locked(comm, &ci)) {
        int64_t peer = world_rank_locked(ci, dest);
        if (peer == S.rank) {
            S.counters[C_SELF]++;
        } else if (peer >= 0) {
            uint32_t req = S.next_req++;
            if (append_locked(t0, t1, OP_ISEND, bytes, (uint32_t)peer, (uint32_t)tag, req, &rec))
                pending_open_locked(key, rec, ci, 0, 1, 1);
        }
    }
    unlock();
}

/* MPI_Irecv that returned request KEY. With MPI_ANY_SOURCE / MPI_ANY_TAG
 * the peer / tag is filled in when the request completes; so is the size
 * (a message may be shorter than the buffer). */
static void note_irecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int source, uint64_t bytes, int tag, uint64_t key)
{
    if (!recording() || source == MPI_PROC_NULL) return;
    lock();
    size_t ci, rec;
    if (comm_lookup_locked(comm, &ci)) {
        int src_known = source != MPI_ANY_SOURCE, tag_known = tag != MPI_ANY_TAG;
        int64_t peer = src_known ? world_rank_locked(ci, source) : 0;
        if (src_known && peer == S.rank) {
            S.counters[C_SELF]++;
        } else if (peer >= 0) {
            uint32_t req = S.next_req++;
            if (append_locked(t0, t1, OP_IRECV, bytes, (uint32_t)peer, tag_known ? (uint32_t)tag : 0, req, &rec))
                pending_open_locked(key, rec, ci, 1, src_known, tag_known);
        }
    }
    unlock();
}

/* Request KEY completed (a wait or a successful test over [t0, t1]) with
 * status ST. Closes it and records its `wait`; returns 1 if it did. */
static int complete_request(uint64_t key, const MPI_Status *st, uint64_t t0, uint64_t t1)
{
    if (!recording()) return 0;
    lock();
    uint64_t slot;
    int waited = 0;
    if (!S.failed && map_take(&S.pend_by_request, key, &slot)) {
        struct pending p = S.pend[slot];
        pending_close_locked((size_t)slot);
        int cancelled = 0;
        PMPI_Test_cancelled(st, &cancelled);
        struct record *r = &S.recs[p.rec];
        if (cancelled) {
            S.counters[C_CANCELLED]++;
            drop_locked(p.rec);
        } else if (p.is_recv) {
            int64_t peer = world_rank_locked(p.comm, st->MPI_SOURCE);
            if (peer == S.rank || peer < 0) { /* an MPI_ANY_SOURCE receive that matched itself */
                S.counters[C_SELF]++;
                drop_locked(p.rec);
            } else {
                r->a = (uint32_t)peer;
                r->b = (uint32_t)st->MPI_TAG;
                r->bytes = clamp_bytes_locked(received_bytes(st, r->bytes));
                uint32_t req = r->c; /* r may move when the wait is appended */
                waited = append_locked(t0, t1, OP_WAIT, 0, 0, 0, req, NULL);
            }
        } else {
            uint32_t req = r->c;
            waited = append_locked(t0, t1, OP_WAIT, 0, 0, 0, req, NULL);
        }
    }
    unlock();
    return waited;
}

/* MPI_Request_free of request KEY: the program will never wait for it. The
 * trace needs a `wait` for every request, so one is recorded at the free
 * (a replay then waits there for the message to be sent or received). */
static void note_request_free(uint64_t key, uint64_t t0, uint64_t t1)
{
    if (!recording()) return;
    lock();
    uint64_t slot;
    if (!S.failed && map_take(&S.pend_by_request, key, &slot)) {
        struct pending p = S.pend[slot];
        pending_close_locked((size_t)slot);
        if (p.is_recv && !(p.src_known && p.tag_known)) {
            S.counters[C_FREED_UNKNOWN]++;
            drop_locked(p.rec);
        } else {
            append_locked(t0, t1, OP_WAIT, 0, 0, 0, S.recs[p.rec].c, NULL);
        }
    }
    unlock();
}

static int any_pending(void)
{
    lock();
    int any = S.pend_by_request.len > 0;
    unlock();
    return any;
}

/* MPI_Sendrecv(_replace): recorded as irecv + isend + two waits (the
 * format has no combined operation), or as a plain send or recv when the
 * other side is MPI_PROC_NULL or the process itself. */
static void note_sendrecv(uint64_t t0, uint64_t t1, MPI_Comm comm, int dest, uint64_t sbytes, int stag,
                          const MPI_Status *st, uint64_t rposted)
{
    if (!recording()) return;
    lock();
    size_t ci;
    if (comm_lookup_locked(comm, &ci)) {
        int64_t to = dest == MPI_PROC_NULL ? -1 : world_rank_locked(ci, dest);
        int64_t from = st->MPI_SOURCE == MPI_PROC_NULL ? -1 : world_rank_locked(ci, st->MPI_SOURCE);
        if (to == S.rank) {
            S.counters[C_SELF]++;
            to = -1;
        }
        if (from == S.rank) {
            S.counters[C_SELF]++;
            from = -1;
        }
        uint64_t rbytes = received_bytes(st, rposted);
        if (to >= 0 && from >= 0) {
            uint32_t rreq = S.next_req++, sreq = S.next_req++;
            if (append_locked(t0, t0, OP_IRECV, rbytes, (uint32_t)from, (uint32_t)st->MPI_TAG, rreq, NULL) &&
                append_locked(t0, t0, OP_ISEND, sbytes, (uint32_t)to, (uint32_t)stag, sreq, NULL) &&
                append_locked(t0, t1, OP_WAIT, 0, 0, 0, rreq, NULL))
                append_locked(t1, t1, OP_WAIT, 0, 0, 0, sreq, NULL);
        } else if (to >= 0) {
            append_locked(t0, t1, OP_SEND, sbytes, (uint32_t)to, (uint32_t)stag, 0, NULL);
        } else if (from >= 0) {
            append_locked(t0, t1, OP_RECV, rbytes, (uint32_t)from, (uint32_t)st->MPI_TAG, 0, NULL);
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
static int coll_begin(MPI_Comm comm, size_t *index)
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
static void note_coll(size_t index, enum op op, uint64_t t0, uint64_t t1, int root, uint64_t bytes)
{
    lock();
    if (!S.failed) {
        uint32_t world_root = 0;
        if (op == OP_BCAST || op == OP_REDUCE || op == OP_GATHER || op == OP_SCATTER) {
            int64_t w = world_rank_locked(index, root);
            world_root = w < 0 ? 0 : (uint32_t)w;
        }
        if (op == OP_BARRIER) bytes = 0;
        if (append_locked(t0, t1, op, bytes, S.comms[index].id, world_root, 0, NULL)) S.comms[index].used = 1;
    }
    unlock();
}

static int is_rank(MPI_Comm comm, int r)
{
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    return me == r;
}

/* ------------------------------------------------------------------------ */
/* Start and end                                                            */
/* ------------------------------------------------------------------------ */

/* "Open MPI v4.1.4, package: ..." -> "Open MPI 4.1.4". */
static char *library_version(void)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    memset(text, 0, sizeof text);
    if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS) text[0] = '\0';
    text[MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
    text[strcspn(text, ",\n")] = '\0'; /* the name and version come first */
    const char *prefix = "Open MPI v";
    char *v;
    if (strncmp(text, prefix, strlen(prefix)) == 0)
        v = format("Open MPI %s", text + strlen(prefix));
    else
        v = dup_string(text);
    if (v) sanitize_text(v);
    if (v && !v[0]) {
        free(v);
        v = dup_string("unknown MPI");
    }
    return v;
}

/* The temporary file a trace is written to before it is renamed. */
static char *temp_path(const char *path) { return format("%s.tmp.%ld", path, (long)getpid()); }

/* -- One clock for all processes --
 *
 * The trace compares times of different processes: a receive must not end
 * before its send started (`trace validate` refuses such a trace). Processes
 * on one host read the same CLOCK_MONOTONIC and need no correction. Between
 * hosts, each host's first process measures the offset of its clock to rank
 * 0's (Cristian's algorithm: of OFFSET_ROUNDS round trips, the shortest
 * gives the estimate, off by at most half of it) at MPI_Init and again at
 * MPI_Finalize; times in between are corrected by the line through the two,
 * which absorbs the drift of the clocks. What error remains is repaired on
 * rank 0 (fix_causality). */

#define OFFSET_ROUNDS 16
#define TAG_CLOCK 3

/* Makes S.node and S.leaders. IBSEC_CAPTURE_SIMULATE_HOSTS=NS (for tests)
 * puts every process on a host of its own, whose clock is rank * NS ns
 * ahead of rank 0's. */
static void clock_setup(void)
{
    const char *simulate = getenv("IBSEC_CAPTURE_SIMULATE_HOSTS");
    int split = 1;
    if (simulate && simulate[0]) {
        char *end;
        errno = 0;
        unsigned long long ns = strtoull(simulate, &end, 10);
        if (errno || *end || ns > UINT64_MAX / (uint64_t)(S.size > 0 ? S.size : 1)) {
            warn("IBSEC_CAPTURE_SIMULATE_HOSTS='%s' is not a number of ns: ignored", simulate);
        } else {
            S.skew = (uint64_t)S.rank * ns;
            split = PMPI_Comm_split(S.priv, S.rank, 0, &S.node) != MPI_SUCCESS;
        }
    }
    if (split && PMPI_Comm_split_type(S.priv, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &S.node) != MPI_SUCCESS)
        PMPI_Comm_split(S.priv, S.rank, 0, &S.node); /* every process its own host: always correct */
    /* Keys keep world order: rank 0 leads its host and is rank 0 of leaders. */
    int local = 0;
    PMPI_Comm_rank(S.node, &local);
    PMPI_Comm_split(S.priv, local == 0 ? 0 : MPI_UNDEFINED, S.rank, &S.leaders);
}

/* What to add to this host's clock to read rank 0's. Collective. */
static int64_t clock_offset(void)
{
    int64_t off = 0;
    if (S.leaders != MPI_COMM_NULL) {
        int me = 0, n = 1;
        PMPI_Comm_rank(S.leaders, &me);
        PMPI_Comm_size(S.leaders, &n);
        if (me == 0) { /* rank 0 answers each other host in turn with its clock */
            for (int l = 1; l < n; ++l)
                for (int k = 0; k < OFFSET_ROUNDS; ++k) {
                    PMPI_Recv(NULL, 0, MPI_BYTE, l, TAG_CLOCK, S.leaders, MPI_STATUS_IGNORE);
                    uint64_t t = mono_ns();
                    PMPI_Send(&t, 1, MPI_UINT64_T, l, TAG_CLOCK, S.leaders);
                }
        } else {
            uint64_t best = UINT64_MAX;
            for (int k = 0; k < OFFSET_ROUNDS; ++k) {
                uint64_t remote = 0, t1 = mono_ns();
                PMPI_Send(NULL, 0, MPI_BYTE, 0, TAG_CLOCK, S.leaders);
                PMPI_Recv(&remote, 1, MPI_UINT64_T, 0, TAG_CLOCK, S.leaders, MPI_STATUS_IGNORE);
                uint64_t t2 = mono_ns();
                if (t2 - t1 < best) { /* rank 0 read its clock about midway */
                    best = t2 - t1;
                    off = (int64_t)(remote - (t1 + (t2 - t1) / 2));
                }
            }
        }
    }
    PMPI_Bcast(&off, 1, MPI_INT64_T, 0, S.node);
    return off;
}

/* Called after PMPI_Init(_thread) succeeded. ARGV0 may be NULL. */
static void capture_start(const char *argv0, int thread_level)
{
    if (S.active) return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &S.size);
    PMPI_Comm_dup(MPI_COMM_WORLD, &S.priv);
    PMPI_Comm_group(MPI_COMM_WORLD, &S.world_group);

    const char *env = getenv("IBSEC_TRACE");
    const char *name = argv0 && argv0[0] ? argv0 : program_invocation_short_name;
    const char *slash = strrchr(name, '/');
    S.trace_path = dup_string(env && env[0] ? env : DEFAULT_TRACE_PATH);
    S.program = dup_string(slash ? slash + 1 : name);
    S.mpi_version = library_version();
    if (!S.trace_path || !S.program || !S.mpi_version) S.failed = 1;
    if (S.program) sanitize_word(S.program);

    /* MPI_COMM_WORLD is communicator 0 and its ranks are world ranks. */
    struct comm_entry world = {.key = comm_key(MPI_COMM_WORLD), .size = S.size, .has_id = 1, .id = 0};
    if (grow((void **)&S.comms, &S.capcomms, 1, sizeof *S.comms) &&
        map_put(&S.comm_by_handle, world.key, 0)) {
        S.comms[0] = world;
        S.ncomms = 1;
    } else {
        S.failed = 1;
    }
    S.next_comm_id = 1;
    if (S.failed) warn("out of memory at MPI_Init: no trace will be written");

    /* Find out now, not after a long run, whether the trace can be
     * written where it is asked for. */
    if (S.rank == 0 && S.trace_path) {
        char *tmp = temp_path(S.trace_path);
        FILE *f = tmp ? fopen(tmp, "w") : NULL;
        if (!f) {
            warn("cannot create the trace file '%s': %s", tmp ? tmp : S.trace_path, strerror(errno));
            PMPI_Abort(MPI_COMM_WORLD, 1);
            exit(EXIT_FAILURE); /* not reached */
        }
        fclose(f);
        unlink(tmp);
        free(tmp);
        if (thread_level == MPI_THREAD_MULTIPLE)
            warn("MPI_THREAD_MULTIPLE: MPI calls made from several threads at once are recorded on one timeline "
                 "per process");
    }

    /* The trace's origin is the earliest moment a process left this barrier,
     * on the common clock; each process's own events start when it returns
     * from MPI_Init, just after. */
    clock_setup();
    S.off_init = clock_offset();
    PMPI_Barrier(S.priv);
    S.t0 = mono_ns();
    int64_t mine = (int64_t)S.t0 + S.off_init;
    PMPI_Allreduce(&mine, &S.origin, 1, MPI_INT64_T, MPI_MIN, S.priv);
    S.t0 = mono_ns(); /* the allreduce is part of MPI_Init, not of the program */
    S.last_end = 0;
    S.active = 1;
}

/* -- Merging on rank 0 -- */

/* What each process tells rank 0 before sending its events. */
struct rank_info {
    uint64_t nrecs;
    uint64_t ncomm_words; /* uint32 words describing the communicators its collectives name */
    uint64_t failed;
    uint64_t counters[C_COUNT];
};

/* A communicator as one process describes it: (agreed id, members). */
struct comm_desc {
    uint32_t id;
    uint32_t n;
    const uint32_t *members;
    int rank;        /* the process that described it */
    uint32_t global; /* its id in the trace */
};

static int comm_desc_cmp(const void *pa, const void *pb)
{
    const struct comm_desc *a = pa, *b = pb;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (uint32_t i = 0; i < a->n; ++i)
        if (a->members[i] != b->members[i]) return a->members[i] < b->members[i] ? -1 : 1;
    return 0;
}

static int send_chunks(const void *data, size_t bytes, int tag)
{
    const char *p = data;
    while (bytes > 0) {
        size_t n = bytes < CHUNK_BYTES ? bytes : CHUNK_BYTES;
        if (PMPI_Send(p, (int)n, MPI_BYTE, 0, tag, S.priv) != MPI_SUCCESS) return 0;
        p += n;
        bytes -= n;
    }
    return 1;
}

static int recv_chunks(void *data, size_t bytes, int from, int tag)
{
    char *p = data;
    while (bytes > 0) {
        size_t n = bytes < CHUNK_BYTES ? bytes : CHUNK_BYTES;
        if (PMPI_Recv(p, (int)n, MPI_BYTE, from, tag, S.priv, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
        p += n;
        bytes -= n;
    }
    return 1;
}

/* A min-heap of processes by the START of their next event, ties by rank
 * (each process's own events are already in START order). */
struct cursor {
    const struct record *next, *stop;
    int rank;
};

static int cursor_less(const struct cursor *a, const struct cursor *b)
{
    if (a->next->start != b->next->start) return a->next->start < b->next->start;
    return a->rank < b->rank;
}

static void heap_down(struct cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && cursor_less(&h[l], &h[m])) m = l;
        if (r < n && cursor_less(&h[r], &h[m])) m = r;
        if (m == i) return;
        struct cursor t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Writes one event line; returns 0 on an output error. COMMS maps
 * (rank, agreed id) to the id in the trace. */
static int write_event(FILE *f, int rank, const struct record *r, const struct map *comms)
{
    fprintf(f, "%d %" PRIu64 " %" PRIu64 " %s", rank, r->start, r->end, OP_NAME[r->op]);
    uint32_t comm = 0;
    if (r->op >= OP_BARRIER && r->a != 0) {
        const struct map_slot *hit = map_find(comms, ((uint64_t)(uint32_t)rank << 32) | r->a);
        comm = hit ? (uint32_t)hit->value : 0;
    }
    switch ((enum op)r->op) {
    case OP_COMPUTE: break;
    case OP_SEND:
    case OP_RECV: fprintf(f, " %" PRIu32 " %" PRIu32 " %" PRIu32, r->a, r->bytes, r->b); break;
    case OP_ISEND:
    case OP_IRECV:
        fprintf(f, " %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32, r->a, r->bytes, r->b, r->c);
        break;
    case OP_WAIT: fprintf(f, " %" PRIu32, r->c); break;
    case OP_BARRIER: fprintf(f, " %" PRIu32, comm); break;
    case OP_BCAST:
    case OP_REDUCE:
    case OP_GATHER:
    case OP_SCATTER: fprintf(f, " %" PRIu32 " %" PRIu32 " %" PRIu32, comm, r->b, r->bytes); break;
    case OP_ALLREDUCE:
    case OP_ALLGATHER:
    case OP_ALLTOALL: fprintf(f, " %" PRIu32 " %" PRIu32, comm, r->bytes); break;
    case OP_COUNT: break;
    }
    fputc('\n', f);
    return !ferror(f);
}

/* Time T of this process (ns since its t0) on the common clock, in ns since
 * the trace's origin. OFF_FIN is the offset measured at T_FIN. */
static uint64_t common_time(uint64_t t, int64_t off_fin, uint64_t t_fin)
{
    double drift = t_fin > 0 ? (double)(off_fin - S.off_init) * ((double)t / (double)t_fin) : 0.0;
    int64_t g = (int64_t)(S.t0 + t) + S.off_init + (int64_t)(drift + (drift < 0 ? -0.5 : 0.5)) - S.origin;
    return g > 0 ? (uint64_t)g : 0;
}

/* Puts this process's events on the common clock. */
static void to_common_clock(int64_t off_fin, uint64_t t_fin)
{
    uint64_t last = 0;
    for (size_t i = 0; i < S.nrecs; ++i) {
        struct record *r = &S.recs[i];
        r->start = common_time(r->start, off_fin, t_fin);
        r->end = common_time(r->end, off_fin, t_fin);
        /* Rounding must not reorder the process's timeline. */
        if (r->start < last) r->start = last;
        if (r->end < r->start) r->end = r->start;
        last = r->end;
    }
}

/* A channel (source, destination, tag) during fix_causality: the common-
 * clock START of its sends so far, and how many its receives consumed. */
struct channel {
    uint64_t *send_starts;
    size_t nsends, cap, consumed;
    int receiver_waiting;
};

/* Rank 0: makes sure no blocking receive ends before its send started
 * (what is left of the clock error between hosts; none on one host). Such a
 * receive is extended to the send's start and the later events of its
 * process are delayed as much, which keeps each timeline in order and only
 * ever moves events later. The processes are walked as a replay would: one
 * stops at a receive whose send has not been reached yet, and resumes when
 * it is (sends never wait, so a program that ran cannot block this walk;
 * what is left over, if anything, is shifted and left to `validate`).
 * Messages pair as in MPI: the k-th send on a channel with its k-th
 * receive. Returns the number of receives extended. */
static uint64_t fix_causality(struct record **recs, const uint64_t *nrecs, int nprocs)
{
    uint64_t fixed = 0;
    uint64_t *shift = calloc((size_t)nprocs, sizeof *shift);
    uint64_t *pos = calloc((size_t)nprocs, sizeof *pos);
    int *runnable = malloc(sizeof *runnable * (size_t)nprocs);
    struct map *by_destination = calloc((size_t)nprocs, sizeof *by_destination); /* (source, tag) -> channel */
    struct channel *channels = NULL;
    size_t nchannels = 0, capchannels = 0;
    int nrunnable = 0, ok = shift && pos && runnable && by_destination;
    for (int r = 0; ok && r < nprocs; ++r) runnable[nrunnable++] = r;

    while (ok && nrunnable > 0) {
        int r = runnable[--nrunnable];
        for (; pos[r] < nrecs[r]; ++pos[r]) {
            struct record *e = &recs[r][pos[r]];
            int sending = e->op == OP_SEND || e->op == OP_ISEND;
            int receiving = e->op == OP_RECV || e->op == OP_IRECV;
            struct channel *ch = NULL;
            if (sending || receiving) {
                int dest = sending ? (int)e->a : r, source = sending ? r : (int)e->a;
                uint64_t key = ((uint64_t)(uint32_t)source << 32) | e->b;
                struct map_slot *hit = map_find(&by_destination[dest], key);
                if (!hit) {
                    if (!grow((void **)&channels, &capchannels, nchannels + 1, sizeof *channels) ||
                        !map_put(&by_destination[dest], key, nchannels)) {
                        ok = 0;
                        break;
                    }
                    channels[nchannels] = (struct channel){0};
                    hit = map_find(&by_destination[dest], key);
                    ++nchannels;
                }
                ch = &channels[hit->value];
            }
            if (receiving && ch->consumed == ch->nsends) { /* its send is not reached yet */
                ch->receiver_waiting = 1;
                break;
            }
            e->start += shift[r];
            e->end += shift[r];
            if (receiving) {
                uint64_t send_start = ch->send_starts[ch->consumed++];
                if (e->op == OP_RECV && e->end < send_start) {
                    shift[r] += send_start - e->end;
                    e->end = send_start;
                    ++fixed;
                }
            } else if (sending) {
                if (!grow((void **)&ch->send_starts, &ch->cap, ch->nsends + 1, sizeof *ch->send_starts)) {
                    e->start -= shift[r]; /* not processed: undone, shifted with the rest below */
                    e->end -= shift[r];
                    ok = 0;
                    break;
                }
                ch->send_starts[ch->nsends++] = e->start;
                if (ch->receiver_waiting) {
                    ch->receiver_waiting = 0;
                    runnable[nrunnable++] = (int)e->a;
                }
            }
        }
    }
    if (!ok) warn("out of memory checking the order of messages: the trace may not validate");
    /* Whatever could not be walked keeps its place relative to its process. */
    for (int r = 0; shift && pos && r < nprocs; ++r)
        for (uint64_t i = pos[r]; i < nrecs[r]; ++i) {
            recs[r][i].start += shift[r];
            recs[r][i].end += shift[r];
        }
    for (size_t i = 0; i < nchannels; ++i) free(channels[i].send_starts);
    free(channels);
    for (int r = 0; by_destination && r < nprocs; ++r) map_free(&by_destination[r]);
    free(by_destination);
    free(runnable);
    free(pos);
    free(shift);
    return fixed;
}

/* Rank 0: writes the merged trace to S.trace_path through a temporary
 * file. RECS[r]/NRECS[r] are process r's events, DESCS the communicators
 * described by all processes. Returns 1 on success. */
static int write_trace(struct record **recs, const uint64_t *nrecs, struct comm_desc *descs, size_t ndescs,
                       const uint64_t *counters, uint64_t *nevents)
{
    int ok = 0;
    FILE *f = NULL;
    struct map comms = {0};
    struct cursor *heap = NULL;
    char *tmp = temp_path(S.trace_path);
    if (!tmp) {
        warn("cannot write the trace '%s': out of memory", S.trace_path);
        return 0;
    }

    /* Number the communicators 1, 2, ... in (agreed id, members) order:
     * the same communicator is described identically by each member. */
    if (ndescs > 0) qsort(descs, ndescs, sizeof *descs, comm_desc_cmp); /* descs is NULL when there are none */
    uint32_t next = 0;
    for (size_t i = 0; i < ndescs; ++i) {
        if (i == 0 || comm_desc_cmp(&descs[i - 1], &descs[i]) != 0) ++next;
        descs[i].global = next;
        if (!map_put(&comms, ((uint64_t)(uint32_t)descs[i].rank << 32) | descs[i].id, next)) {
            warn("cannot write the trace '%s': out of memory", S.trace_path);
            goto out;
        }
    }

    f = fopen(tmp, "w");
    if (!f) {
        warn("cannot create the trace file '%s': %s", tmp, strerror(errno));
        goto out;
    }
    setvbuf(f, NULL, _IOFBF, (size_t)1 << 20);

    fprintf(f, "ibsec-trace 1\nprocesses %d\ntime_unit ns\n", S.size);
    fprintf(f, "origin captured %s %s (%s) program=%s\n", TOOL_NAME, TOOL_VERSION, S.mpi_version, S.program);
    for (int c = 0; c < C_COUNT; ++c)
        if (counters[c]) fprintf(f, "note %" PRIu64 " %s\n", counters[c], COUNTER_NOTE[c]);
    for (size_t i = 0; i < ndescs; ++i) {
        if (i > 0 && descs[i].global == descs[i - 1].global) continue;
        fprintf(f, "comm %" PRIu32, descs[i].global);
        for (uint32_t k = 0; k < descs[i].n; ++k) fprintf(f, " %" PRIu32, descs[i].members[k]);
        fputc('\n', f);
    }
    fputs("events\n", f);

    heap = malloc(sizeof *heap * (size_t)S.size);
    if (!heap) {
        warn("cannot write the trace '%s': out of memory", S.trace_path);
        goto out;
    }
    size_t nheap = 0;
    for (int r = 0; r < S.size; ++r)
        if (nrecs[r] > 0) heap[nheap++] = (struct cursor){.next = recs[r], .stop = recs[r] + nrecs[r], .rank = r};
    for (size_t i = nheap; i-- > 0;) heap_down(heap, nheap, i);
    uint64_t count = 0;
    while (nheap > 0) {
        const struct record *r = heap[0].next;
        /* Zero-length computation (a dropped zero-length call) says nothing. */
        if (!(r->op == OP_COMPUTE && r->end == r->start)) {
            if (!write_event(f, heap[0].rank, r, &comms)) break;
            ++count;
        }
        if (++heap[0].next == heap[0].stop) heap[0] = heap[--nheap];
        heap_down(heap, nheap, 0);
    }
    fprintf(f, "end %" PRIu64 "\n", count);

    if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        warn("cannot write the trace file '%s': %s", tmp, strerror(errno));
        goto out;
    }
    int closed = fclose(f);
    f = NULL;
    if (closed != 0) {
        warn("cannot write the trace file '%s': %s", tmp, strerror(errno));
        goto out;
    }
    if (rename(tmp, S.trace_path) != 0) {
        warn("cannot rename '%s' to '%s': %s", tmp, S.trace_path, strerror(errno));
        goto out;
    }
    *nevents = count;
    ok = 1;
out:
    if (f) fclose(f);
    if (!ok) unlink(tmp);
    free(tmp);
    free(heap);
    map_free(&comms);
    return ok;
}

/* Called at MPI_Finalize, collectively. Returns 1 on rank 0 if the trace
 * could not be written. */
static int capture_finish(void)
{
    if (!S.active) return 0;
    uint64_t end = now();
    lock();
    if (!S.failed) {
        /* Requests the program never completed cannot be replayed. */
        for (size_t i = 0; i < S.pend_by_request.cap; ++i) {
            if (!S.pend_by_request.slots[i].full) continue;
            S.counters[C_NEVER_COMPLETED]++;
            drop_locked(S.pend[S.pend_by_request.slots[i].value].rec);
        }
        if (end > S.last_end) append_locked(S.last_end, end, OP_COMPUTE, 0, 0, 0, 0, NULL);
    }
    S.active = 0;
    unlock();

    /* The clocks again, for their drift since MPI_Init. */
    int64_t off_fin = clock_offset();
    uint64_t t_fin = now();
    if (!S.failed) to_common_clock(off_fin, t_fin);

    /* This process's communicators that collectives name, as words
     * [id, n, member...]. */
    uint32_t *words = NULL;
    size_t nwords = 0, capwords = 0;
    if (!S.failed) {
        for (size_t i = 1; i < S.ncomms; ++i) {
            const struct comm_entry *e = &S.comms[i];
            if (!e->used) continue;
            if (!grow((void **)&words, &capwords, nwords + 2 + (size_t)e->size, sizeof *words)) {
                lock();
                fail_locked("communicator list");
                unlock();
                break;
            }
            words[nwords++] = e->id;
            words[nwords++] = (uint32_t)e->size;
            for (int k = 0; k < e->size; ++k) words[nwords++] = e->members[k];
        }
    }

    struct rank_info mine = {.nrecs = S.failed ? 0 : S.nrecs, .ncomm_words = S.failed ? 0 : nwords,
                             .failed = (uint64_t)S.failed};
    memcpy(mine.counters, S.counters, sizeof mine.counters);
    const int words_per_info = (int)(sizeof mine / sizeof(uint64_t));

    /* 1. Rank 0 makes room for every process's rank_info and says whether
     *    it could (everyone must agree before a collective that needs it). */
    struct rank_info *infos = NULL;
    int go = 1;
    if (S.rank == 0) {
        infos = malloc(sizeof *infos * (size_t)S.size);
        if (!infos) {
            warn("cannot write the trace '%s': out of memory", S.trace_path);
            go = 0;
        }
    }
    PMPI_Bcast(&go, 1, MPI_INT, 0, S.priv);
    if (go)
        PMPI_Gather(&mine, words_per_info, MPI_UINT64_T, infos, words_per_info, MPI_UINT64_T, 0, S.priv);

    /* 2. Rank 0 checks that every process recorded successfully and makes
     *    room for all events, then says whether they are to be sent. */
    struct record **recs = NULL;
    uint64_t *nrecs = NULL;
    uint32_t **cwords = NULL;
    uint64_t counters[C_COUNT] = {0};
    if (S.rank == 0 && go) {
        for (int r = 0; go && r < S.size; ++r)
            if (infos[r].failed) {
                warn("cannot write the trace '%s': rank %d ran out of memory while recording", S.trace_path, r);
                go = 0;
            }
        if (go) {
            recs = calloc((size_t)S.size, sizeof *recs);
            nrecs = calloc((size_t)S.size, sizeof *nrecs);
            cwords = calloc((size_t)S.size, sizeof *cwords);
            go = recs && nrecs && cwords;
            for (int r = 1; go && r < S.size; ++r) {
                nrecs[r] = infos[r].nrecs;
                if (infos[r].nrecs > SIZE_MAX / sizeof(struct record) ||
                    infos[r].ncomm_words > SIZE_MAX / sizeof(uint32_t)) {
                    go = 0;
                    break;
                }
                recs[r] = malloc(sizeof(struct record) * (size_t)(infos[r].nrecs ? infos[r].nrecs : 1));
                cwords[r] = malloc(sizeof(uint32_t) * (size_t)(infos[r].ncomm_words ? infos[r].ncomm_words : 1));
                go = recs[r] && cwords[r];
            }
            if (!go) warn("cannot write the trace '%s': out of memory gathering the events", S.trace_path);
        }
        if (go) {
            recs[0] = S.recs;
            nrecs[0] = S.nrecs;
            cwords[0] = words;
            for (int r = 0; r < S.size; ++r)
                for (int c = 0; c < C_COUNT; ++c) counters[c] += infos[r].counters[c];
        }
    }
    PMPI_Bcast(&go, 1, MPI_INT, 0, S.priv);

    int write_failed = 0;
    if (go && S.rank != 0) {
        if (!send_chunks(S.recs, sizeof(struct record) * S.nrecs, 1) ||
            !send_chunks(words, sizeof(uint32_t) * nwords, 2))
            warn("could not send its events to rank 0");
    } else if (go) {
        int received = 1;
        for (int r = 1; r < S.size && received; ++r)
            received = recv_chunks(recs[r], sizeof(struct record) * (size_t)nrecs[r], r, 1) &&
                       recv_chunks(cwords[r], sizeof(uint32_t) * (size_t)infos[r].ncomm_words, r, 2);
        /* Every process's communicator descriptions. */
        size_t ndescs = 0, capdescs = 0;
        struct comm_desc *descs = NULL;
        for (int r = 0; received && r < S.size; ++r) {
            uint64_t n = r == 0 ? nwords : infos[r].ncomm_words;
            for (uint64_t i = 0; i + 2 <= n;) {
                uint32_t id = cwords[r][i], size = cwords[r][i + 1];
                if (size > n - i - 2) break; /* cannot happen: written above */
                if (!grow((void **)&descs, &capdescs, ndescs + 1, sizeof *descs)) {
                    received = 0;
                    break;
                }
                descs[ndescs++] = (struct comm_desc){.id = id, .n = size, .members = &cwords[r][i + 2], .rank = r};
                i += 2 + (uint64_t)size;
            }
        }
        uint64_t nevents = 0;
        if (!received) {
            warn("cannot write the trace '%s': gathering the events failed", S.trace_path);
            write_failed = 1;
        } else {
            counters[C_CAUSALITY] = fix_causality(recs, nrecs, S.size);
            if (!write_trace(recs, nrecs, descs, ndescs, counters, &nevents)) {
                write_failed = 1;
            } else {
                warn("wrote %" PRIu64 " events of %d processes to '%s'", nevents, S.size, S.trace_path);
                for (int c = 0; c < C_COUNT; ++c)
                    if (counters[c]) warn("note: %" PRIu64 " %s", counters[c], COUNTER_NOTE[c]);
            }
        }
        free(descs);
    } else if (S.rank == 0) {
        write_failed = 1;
    }

    for (int r = 1; r < S.size; ++r) { /* rank 0's own arrays are freed below */
        if (recs) free(recs[r]);
        if (cwords) free(cwords[r]);
    }
    free(recs);
    free(nrecs);
    free(cwords);
    free(infos);
    free(words);
    free(S.recs);
    S.recs = NULL;
    S.nrecs = S.caprecs = 0;
    for (size_t i = 0; i < S.ncomms; ++i) free(S.comms[i].members);
    free(S.comms);
    S.comms = NULL;
    S.ncomms = S.capcomms = 0;
    map_free(&S.comm_by_handle);
    map_free(&S.pend_by_request);
    free(S.pend);
    free(S.pend_free);
    S.pend = NULL;
    S.pend_free = NULL;
    S.npend = S.cappend = S.npend_free = S.cappend_free = 0;
    PMPI_Group_free(&S.world_group);
    if (S.leaders != MPI_COMM_NULL) PMPI_Comm_free(&S.leaders);
    PMPI_Comm_free(&S.node);
    PMPI_Comm_free(&S.priv);
    return write_failed;
}

/* ------------------------------------------------------------------------ */
/* C wrappers                                                               */
/* ------------------------------------------------------------------------ */

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) capture_start(argv && *argv ? (*argv)[0] : NULL, MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) capture_start(argv && *argv ? (*argv)[0] : NULL, *provided);
    return rc;
}

/* Rank 0 exits with status 1 right after MPI_Finalize when the trace could
 * not be written, so that a script running the capture sees it failed. */
int MPI_Finalize(void)
{
    int write_failed = capture_finish();
    int rc = PMPI_Finalize();
    if (write_failed) {
        warn("exiting with status 1: the trace was not written");
        exit(EXIT_FAILURE);
    }
    return rc;
}

#define BLOCKING_SEND(NAME)                                                                      \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    {                                                                                            \
        uint64_t t0 = now();                                                                     \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                                 \
        uint64_t t1 = now();                                                                     \
        if (rc == MPI_SUCCESS) note_send(t0, t1, comm, dest, type_bytes(count, type), tag);      \
        return rc;                                                                               \
    }
BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(NAME)                                                                  \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *request)                                                        \
    {                                                                                           \
        uint64_t t0 = now();                                                                    \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, request);                       \
        uint64_t t1 = now();                                                                    \
        if (rc == MPI_SUCCESS)                                                                  \
            note_isend(t0, t1, comm, dest, type_bytes(count, type), tag, req_key(*request));    \
        return rc;                                                                              \
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
    if (rc == MPI_SUCCESS) note_recv(t0, t1, comm, st, type_bytes(count, type));
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
        note_sendrecv(t0, t1, comm, dest, type_bytes(sendcount, sendtype), sendtag, st,
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
    if (rc == MPI_SUCCESS) note_sendrecv(t0, t1, comm, dest, bytes, sendtag, st, bytes);
    return rc;
}

/* -- Completion. The keys of the requests are read before the call, which
 * sets completed requests to MPI_REQUEST_NULL. When several requests
 * complete in one call, the first `wait` spans the call and the others
 * follow it with zero length (the format has one wait per request). -- */

struct span {
    uint64_t start, end;
};

static void complete_in(struct span *sp, uint64_t key, const MPI_Status *st)
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
    if (rc == MPI_SUCCESS && *flag) complete_request(key, st, t0, t1);
    return rc;
}

/* Waitall and Testall (TESTING) share this. */
static int all_common(int testing, int count, MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    struct scratch s;
    if (!recording() || count <= 0 || !any_pending() ||
        !scratch_get(&s, count, statuses == MPI_STATUSES_IGNORE))
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
    if (!recording() || incount <= 0 || !any_pending() ||
        !scratch_get(&s, incount, statuses == MPI_STATUSES_IGNORE))
        return testing ? PMPI_Testsome(incount, reqs, outcount, indices, statuses)
                       : PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? s.statuses : statuses;
    for (int i = 0; i < incount; ++i) s.keys[i] = req_key(reqs[i]);
    struct span sp = {now(), 0};
    int rc = testing ? PMPI_Testsome(incount, reqs, outcount, indices, st)
                     : PMPI_Waitsome(incount, reqs, outcount, indices, st);
    sp.end = now();
    if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
        for (int j = 0; j < *outcount; ++j) {
            if (indices[j] < 0 || indices[j] >= incount) continue;
            if (rc == MPI_ERR_IN_STATUS && st[j].MPI_ERROR != MPI_SUCCESS) continue;
            complete_in(&sp, s.keys[indices[j]], &st[j]);
        }
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
    if (rc == MPI_SUCCESS) note_request_free(key, t0, t1);
    return rc;
}

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

/* ------------------------------------------------------------------------ */
/* Fortran wrappers                                                         */
/* ------------------------------------------------------------------------ */
/*
 * Open MPI's mpif.h and `use mpi` bindings (libmpi_mpifh) implement
 * mpi_send_ etc. by converting the handles and calling PMPI_Send etc. in C
 * (`nm -D libmpi_mpifh.so` lists hundreds of PMPI_* imports and no MPI_*
 * ones), so the C wrappers above never see a Fortran program. The mpi_f08
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

/* Integers per Fortran status (MPI_STATUS_SIZE). */
#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define F_STATUS_SIZE ((sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint))
#endif

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
#define F08_NAME(impl, name, params) void name params __attribute__((alias(#impl)));
#else
#define F08_NAME(impl, name, params)
#endif

#define FORTRAN_NAMES(impl, lower, upper, params)             \
    void lower params __attribute__((alias(#impl)));          \
    void lower##_ params __attribute__((alias(#impl)));       \
    void lower##__ params __attribute__((alias(#impl)));      \
    void upper params __attribute__((alias(#impl)));          \
    F08_NAME(impl, o##lower##_f, params)

typedef MPI_Fint fint;

/* A Fortran entry was called but Open MPI's Fortran library is not loaded:
 * cannot happen with a program built by mpif90/mpifort. */
static void need_fortran(int present, const char *name)
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
extern void pmpi_waitsome_(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses,
                           fint *ierr) __attribute__((weak));
extern void pmpi_test_(fint *request, fint *flag, fint *status, fint *ierr) __attribute__((weak));
extern void pmpi_testall_(fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr) __attribute__((weak));
extern void pmpi_testany_(fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr)
    __attribute__((weak));
extern void pmpi_testsome_(fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr)
    __attribute__((weak));
extern void pmpi_request_free_(fint *request, fint *ierr) __attribute__((weak));
extern void pmpi_barrier_(fint *comm, fint *ierr) __attribute__((weak));
extern void pmpi_bcast_(void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr)
    __attribute__((weak));
extern void pmpi_reduce_(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm,
                         fint *ierr) __attribute__((weak));
extern void pmpi_allreduce_(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *ierr)
    __attribute__((weak));
typedef void f_rooted_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,
                         fint *recvtype, fint *root, fint *comm, fint *ierr);
extern f_rooted_fn pmpi_gather_ __attribute__((weak));
extern f_rooted_fn pmpi_scatter_ __attribute__((weak));
typedef void f_all_fn(void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,
                      fint *recvtype, fint *comm, fint *ierr);
extern f_all_fn pmpi_allgather_ __attribute__((weak));
extern f_all_fn pmpi_alltoall_ __attribute__((weak));
extern void pmpi_comm_split_(fint *comm, fint *color, fint *key, fint *newcomm, fint *ierr) __attribute__((weak));
extern void pmpi_comm_dup_(fint *comm, fint *newcomm, fint *ierr) __attribute__((weak));
extern void pmpi_comm_create_(fint *comm, fint *group, fint *newcomm, fint *ierr) __attribute__((weak));
extern void pmpi_comm_free_(fint *comm, fint *ierr) __attribute__((weak));

/* IERROR is optional in the mpi_f08 bindings; Open MPI passes NULL then. */
#define IERR(ierr)          \
    fint ierr_local_;       \
    if (!(ierr)) (ierr) = &ierr_local_

static uint64_t f_bytes(const fint *count, const fint *type) { return type_bytes(*count, PMPI_Type_f2c(*type)); }
static MPI_Comm f_comm(const fint *comm) { return PMPI_Comm_f2c(*comm); }
static uint64_t f_req_key(fint request) { return req_key(PMPI_Request_f2c(request)); }
static int f_status_ignored(const fint *status) { return status == MPI_F_STATUS_IGNORE; }
static int f_statuses_ignored(const fint *statuses) { return statuses == MPI_F_STATUSES_IGNORE; }

static void f_to_c_status(const fint *fst, MPI_Status *cst)
{
    memset(cst, 0, sizeof *cst);
    PMPI_Status_f2c(fst, cst);
}

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

static void f_send_common(f_send_fn *pmpi, const char *name, void *buf, fint *count, fint *type, fint *dest,
                          fint *tag, fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi != NULL, name);
    uint64_t t0 = now();
    pmpi(buf, count, type, dest, tag, comm, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) note_send(t0, t1, f_comm(comm), *dest, f_bytes(count, type), *tag);
}

#define F_SEND_PARAMS (void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
#define FORTRAN_SEND(lower, upper)                                                          \
    static void f_##lower F_SEND_PARAMS                                                     \
    {                                                                                       \
        f_send_common(p##lower##_, "p" #lower "_", buf, count, type, dest, tag, comm, ierr); \
    }                                                                                       \
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
    if (*ierr == MPI_SUCCESS)
        note_isend(t0, t1, f_comm(comm), *dest, f_bytes(count, type), *tag, f_req_key(*request));
}

#define F_ISEND_PARAMS \
    (void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *request, fint *ierr)
#define FORTRAN_ISEND(lower, upper)                                                                   \
    static void f_##lower F_ISEND_PARAMS                                                              \
    {                                                                                                 \
        f_isend_common(p##lower##_, "p" #lower "_", buf, count, type, dest, tag, comm, request, ierr); \
    }                                                                                                 \
    FORTRAN_NAMES(f_##lower, lower, upper, F_ISEND_PARAMS)
FORTRAN_ISEND(mpi_isend, MPI_ISEND)
FORTRAN_ISEND(mpi_issend, MPI_ISSEND)
FORTRAN_ISEND(mpi_ibsend, MPI_IBSEND)
FORTRAN_ISEND(mpi_irsend, MPI_IRSEND)

static void f_irecv(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm, fint *request,
                    fint *ierr)
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
        note_recv(t0, t1, f_comm(comm), &cst, f_bytes(count, type));
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
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                   st, ierr);
    uint64_t t1 = now();
    if (*ierr == MPI_SUCCESS) {
        MPI_Status cst;
        f_to_c_status(st, &cst);
        note_sendrecv(t0, t1, f_comm(comm), *dest, f_bytes(sendcount, sendtype), *sendtag, &cst,
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
        note_sendrecv(t0, t1, f_comm(comm), *dest, bytes, *sendtag, &cst, bytes);
    }
}
FORTRAN_NAMES(f_sendrecv_replace, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
              (void *buf, fint *count, fint *type, fint *dest, fint *sendtag, fint *source, fint *recvtag,
               fint *comm, fint *status, fint *ierr))

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
    s->statuses = need_statuses && n <= SIZE_MAX / sizeof(fint) / F_STATUS_SIZE
                      ? malloc(sizeof(fint) * F_STATUS_SIZE * n)
                      : NULL;
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
    if (*ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (fint j = 0; j < *outcount; ++j)
            if (indices[j] >= 1 && indices[j] <= *incount)
                f_complete_in(&sp, s.keys[indices[j] - 1], &st[(size_t)j * F_STATUS_SIZE]);
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
    if (*ierr == MPI_SUCCESS) note_request_free(key, t0, t1);
}
FORTRAN_NAMES(f_request_free, mpi_request_free, MPI_REQUEST_FREE, (fint * request, fint *ierr))

/* -- Collectives (same BYTES rules as the C wrappers) -- */

static void f_barrier(fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_barrier_ != NULL, "pmpi_barrier_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_barrier_(comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_BARRIER, t0, t1, 0, 0);
}
FORTRAN_NAMES(f_barrier, mpi_barrier, MPI_BARRIER, (fint * comm, fint *ierr))

static void f_bcast(void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_bcast_ != NULL, "pmpi_bcast_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_bcast_(buffer, count, type, root, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_BCAST, t0, t1, *root, f_bytes(count, type));
}
FORTRAN_NAMES(f_bcast, mpi_bcast, MPI_BCAST,
              (void *buffer, fint *count, fint *type, fint *root, fint *comm, fint *ierr))

static void f_reduce(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm,
                     fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_reduce_ != NULL, "pmpi_reduce_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_reduce_(sendbuf, recvbuf, count, type, op, root, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_REDUCE, t0, t1, *root, f_bytes(count, type));
}
FORTRAN_NAMES(f_reduce, mpi_reduce, MPI_REDUCE,
              (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *root, fint *comm, fint *ierr))

static void f_allreduce(void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_allreduce_ != NULL, "pmpi_allreduce_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_allreduce_(sendbuf, recvbuf, count, type, op, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_ALLREDUCE, t0, t1, 0, f_bytes(count, type));
}
FORTRAN_NAMES(f_allreduce, mpi_allreduce, MPI_ALLREDUCE,
              (void *sendbuf, void *recvbuf, fint *count, fint *type, fint *op, fint *comm, fint *ierr))

#define F_ROOTED_PARAMS                                                                                   \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *root, \
     fint *comm, fint *ierr)

static void f_gather F_ROOTED_PARAMS
{
    IERR(ierr);
    need_fortran(pmpi_gather_ != NULL, "pmpi_gather_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_gather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS)
        note_coll(ci, OP_GATHER, t0, t1, *root,
                  is_rank(f_comm(comm), *root) ? f_bytes(recvcount, recvtype) : f_bytes(sendcount, sendtype));
}
FORTRAN_NAMES(f_gather, mpi_gather, MPI_GATHER, F_ROOTED_PARAMS)

static void f_scatter F_ROOTED_PARAMS
{
    IERR(ierr);
    need_fortran(pmpi_scatter_ != NULL, "pmpi_scatter_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_scatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS)
        note_coll(ci, OP_SCATTER, t0, t1, *root,
                  is_rank(f_comm(comm), *root) ? f_bytes(sendcount, sendtype) : f_bytes(recvcount, recvtype));
}
FORTRAN_NAMES(f_scatter, mpi_scatter, MPI_SCATTER, F_ROOTED_PARAMS)

#define F_ALL_PARAMS                                                                                  \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount, fint *recvtype, fint *comm, \
     fint *ierr)

static void f_allgather F_ALL_PARAMS
{
    IERR(ierr);
    need_fortran(pmpi_allgather_ != NULL, "pmpi_allgather_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_allgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_ALLGATHER, t0, t1, 0, f_bytes(recvcount, recvtype));
}
FORTRAN_NAMES(f_allgather, mpi_allgather, MPI_ALLGATHER, F_ALL_PARAMS)

static void f_alltoall F_ALL_PARAMS
{
    IERR(ierr);
    need_fortran(pmpi_alltoall_ != NULL, "pmpi_alltoall_");
    size_t ci;
    int rec = coll_begin(f_comm(comm), &ci);
    uint64_t t0 = now();
    pmpi_alltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    uint64_t t1 = now();
    if (rec && *ierr == MPI_SUCCESS) note_coll(ci, OP_ALLTOALL, t0, t1, 0, f_bytes(recvcount, recvtype));
}
FORTRAN_NAMES(f_alltoall, mpi_alltoall, MPI_ALLTOALL, F_ALL_PARAMS)

/* -- Communicators -- */

static void f_comm_split(fint *comm, fint *color, fint *key, fint *newcomm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_comm_split_ != NULL, "pmpi_comm_split_");
    pmpi_comm_split_(comm, color, key, newcomm, ierr);
    if (*ierr == MPI_SUCCESS) comm_created(f_comm(newcomm));
}
FORTRAN_NAMES(f_comm_split, mpi_comm_split, MPI_COMM_SPLIT,
              (fint * comm, fint *color, fint *key, fint *newcomm, fint *ierr))

static void f_comm_dup(fint *comm, fint *newcomm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_comm_dup_ != NULL, "pmpi_comm_dup_");
    pmpi_comm_dup_(comm, newcomm, ierr);
    if (*ierr == MPI_SUCCESS) comm_created(f_comm(newcomm));
}
FORTRAN_NAMES(f_comm_dup, mpi_comm_dup, MPI_COMM_DUP, (fint * comm, fint *newcomm, fint *ierr))

static void f_comm_create(fint *comm, fint *group, fint *newcomm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_comm_create_ != NULL, "pmpi_comm_create_");
    pmpi_comm_create_(comm, group, newcomm, ierr);
    if (*ierr == MPI_SUCCESS) comm_created(f_comm(newcomm));
}
FORTRAN_NAMES(f_comm_create, mpi_comm_create, MPI_COMM_CREATE, (fint * comm, fint *group, fint *newcomm, fint *ierr))

static void f_comm_free(fint *comm, fint *ierr)
{
    IERR(ierr);
    need_fortran(pmpi_comm_free_ != NULL, "pmpi_comm_free_");
    comm_freed(f_comm(comm));
    pmpi_comm_free_(comm, ierr);
}
FORTRAN_NAMES(f_comm_free, mpi_comm_free, MPI_COMM_FREE, (fint * comm, fint *ierr))
