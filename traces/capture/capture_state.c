/* The per-process state of libibsec_capture, the hash map it uses, and the
 * record buffer every wrapper appends events to (see capture_internal.h). */
#include "capture_internal.h"
#include <limits.h>

/* ------------------------------------------------------------------------ */
/* A hash map from 64-bit keys to 64-bit values (open addressing, linear   */
/* probing, backward-shift deletion). Used for requests and communicators. */
/* ------------------------------------------------------------------------ */

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

struct map_slot *map_find(const struct map *m, uint64_t key)
{
    if (m->cap == 0) return NULL;
    for (size_t i = map_home(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->slots[i].full) return NULL;
        if (m->slots[i].key == key) return &m->slots[i];
    }
}

/* Inserts or replaces. Returns 0 when out of memory. */
int map_put(struct map *m, uint64_t key, uint64_t value)
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
int map_take(struct map *m, uint64_t key, uint64_t *value)
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

void map_free(struct map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}
/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

struct capture_state S = {.lock = PTHREAD_MUTEX_INITIALIZER};

void lock(void)
{
    pthread_mutex_lock(&S.lock);
}
void unlock(void)
{
    pthread_mutex_unlock(&S.lock);
}

int recording(void)
{
    return S.active && !S.failed;
}

static uint64_t handle_key(const void *handle, size_t size)
{
    uint64_t key = 0;
    memcpy(&key, handle, size);
    return key;
}
uint64_t req_key(MPI_Request r)
{
    return handle_key(&r, sizeof r);
}
uint64_t comm_key(MPI_Comm c)
{
    return handle_key(&c, sizeof c);
}
uint64_t msg_key(MPI_Message m)
{
    return handle_key(&m, sizeof m);
}

/* One line in one write: the ranks of a job share one standard error, and a line written in pieces would be
 * interleaved with another rank's. Lines longer than the buffer are cut (PIPE_BUF keeps a write to a pipe whole). */
void warn(const char *fmt, ...)
{
    char line[PIPE_BUF];
    int used = snprintf(line, sizeof line - 1, "ibsec_capture: rank %d: ", S.rank);
    va_list ap;
    va_start(ap, fmt);
    int more = vsnprintf(line + used, sizeof line - 1 - (size_t)used, fmt, ap);
    va_end(ap);
    size_t length = (size_t)used + (more < 0 ? 0 : (size_t)more);
    if (length > sizeof line - 2) length = sizeof line - 2;
    line[length++] = '\n';
    fwrite(line, 1, length, stderr);
}

/* Stops recording for good (the process goes on; rank 0 writes no trace and
 * exits non-zero after MPI_Finalize). Lock held. */
void fail_locked(const char *what)
{
    if (S.failed) return;
    S.failed = 1;
    warn("out of memory (%s): recording stopped, no trace will be written", what);
    free(S.recs);
    S.recs = NULL;
    S.nrecs = S.caprecs = 0;
}

/* Grows *ARRAY to hold at least NEED elements of SIZE bytes. */
int grow(void **array, size_t *cap, size_t need, size_t size)
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

/* ------------------------------------------------------------------------ */
/* Recording                                                                */
/* ------------------------------------------------------------------------ */

uint32_t clamp_bytes_locked(uint64_t bytes)
{
    if (bytes > UINT32_MAX) {
        S.counters[C_BYTES_CLAMPED]++;
        return UINT32_MAX;
    }
    return (uint32_t)bytes;
}

/* COUNT elements of TYPE, in bytes. */
uint64_t type_bytes(MPI_Fint count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size <= 0) return 0;
    return (uint64_t)count * (uint64_t)size;
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

/* ------------------------------------------------------------------------ */
/* The op table (traces/trace_ops.def)                                      */
/* ------------------------------------------------------------------------ */

const struct op_info OP_INFO[OP_COUNT] = {
#define TRACE_OP(Id, ID, text, code, layout, role, counts, since, blocking) [OP_##ID] = {text, LAYOUT_##layout, counts},
#include "../trace_ops.def"
};

const enum arg LAYOUT_ARGS[][MAX_ARGS] = {
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6)                                                           \
    [LAYOUT_##Id] = {ARG_##arg1, ARG_##arg2, ARG_##arg3, ARG_##arg4, ARG_##arg5, ARG_##arg6},
#include "../trace_ops.def"
};

int op_has_arg(enum op op, enum arg arg)
{
    const enum arg *args = LAYOUT_ARGS[OP_INFO[op].layout];
    for (int i = 0; i < MAX_ARGS && args[i] != ARG_None; ++i)
        if (args[i] == arg) return 1;
    return 0;
}

const unsigned ARG_SINCE[] = {
#define TRACE_ARG(Id, text, slot, member, max, words, since) [ARG_##Id] = since,
#include "../trace_ops.def"
};

/* The value of argument ARG in R: the field TRACE_ARG's slot names. */
uint64_t record_arg(const struct record *r, enum arg arg)
{
    switch (arg) {
#define TRACE_ARG(Id, text, slot, member, max, words, since)                                                           \
    case ARG_##Id:                                                                                                     \
        return r->slot;
#include "../trace_ops.def"
    case ARG_None:
        break;
    }
    return 0;
}

/* The CPU time this thread spent from the end of its previous event to
 * WALL, a time now() returned to it, outside MPI calls; WALL - FROM (the
 * wall time since FROM) when that cannot be known, counted. */
static uint64_t cpu_since_last_end_locked(uint64_t from, uint64_t wall)
{
    uint64_t cpu = 0;
    uint64_t in_calls = take_cpu_in_unrecorded_calls();
    if (S.last_end_cpu_known && pthread_equal(S.last_end_thread, pthread_self()) && cpu_at(wall, &cpu) &&
        cpu >= S.last_end_cpu)
        return cpu - S.last_end_cpu > in_calls ? cpu - S.last_end_cpu - in_calls : 0;
    S.counters[C_CPU_UNKNOWN]++;
    return wall - from;
}

/* Remembers the CPU time at END, the end of the event just recorded. */
static void note_last_end_locked(uint64_t end)
{
    S.last_end = end;
    S.last_end_cpu_known = S.cpu_clock != CPU_CLOCK_NONE && cpu_at(end, &S.last_end_cpu);
    S.last_end_thread = pthread_self();
}

/* Appends one event of this process, preceded by a `compute` event for the
 * time since its previous event (with the CPU time the thread spent in it).
 * Returns 0 if nothing could be recorded. */
int append_locked(uint64_t start, uint64_t end, enum op op, uint64_t bytes, uint32_t a, uint32_t b, uint32_t c,
                  size_t *index)
{
    if (S.failed) return 0;
    if (start < S.last_end) {
        /* Only possible when several threads call MPI at once: keep each
         * process's events in sequence, as the format requires. */
        S.counters[C_TIME_CLAMPED]++;
        start = S.last_end;
    }
    if (end < start) end = start;
    const int with_cpu = S.cpu_clock != CPU_CLOCK_NONE;
    if (start > S.last_end) {
        struct record gap = {.start = S.last_end, .end = start, .op = OP_COMPUTE};
        if (with_cpu) gap.bytes = cpu_since_last_end_locked(S.last_end, start);
        if (!push_locked(gap, NULL)) return 0;
    }
    struct record r = {
        .start = start, .end = end, .bytes = clamp_bytes_locked(bytes), .a = a, .b = b, .c = c, .op = (uint8_t)op};
    if (op == OP_COMPUTE) r.bytes = with_cpu && end > start ? cpu_since_last_end_locked(start, end) : 0;
    if (!push_locked(r, index)) return 0;
    note_last_end_locked(end);
    return 1;
}

/* An event that turned out not to be expressible (a cancelled request, a
 * message whose other end is not recorded): its time stays, as computation,
 * all of it on a CPU (the CPU time of a call is not kept; such calls are
 * rare and short). */
void drop_record(struct record *r)
{
    r->op = OP_COMPUTE;
    r->a = r->b = r->c = r->d = 0;
    r->bytes = S.cpu_clock != CPU_CLOCK_NONE ? r->end - r->start : 0;
    r->flags = 0;
    r->size_unsure = 0;
}

void drop_locked(size_t index)
{
    drop_record(&S.recs[index]);
}
