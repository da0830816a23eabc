/* Rank 0 writes the trace: the header with its notes, the events of all
 * processes merged by START, in the encoding and compression that the name
 * of IBSEC_TRACE asks for (docs/trace-format.md): `.ibtb` binary, else
 * text; a further `.gz` gzip (zlib), `.zst` zstd. */
#include "capture_internal.h"

#include "capture_binary.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

/* ------------------------------------------------------------------------ */
/* Where the trace goes: the writer discipline of every ibsec output        */
/* ------------------------------------------------------------------------ */

/* Why the trace must not replace what is at PATH (lstat'ed into ST), or
 * NULL for a regular file. It is renamed over its name: a device, FIFO or
 * socket would be destroyed (as root, /dev/null for the whole machine), a
 * symbolic link turned into a file, a directory cannot be replaced. */
static const char *not_replaceable(const struct stat *st)
{
    if (S_ISREG(st->st_mode)) return NULL;
    if (S_ISDIR(st->st_mode)) return "is a directory";
    if (S_ISLNK(st->st_mode)) return "is a symbolic link";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) return "is a device";
    if (S_ISFIFO(st->st_mode)) return "is a FIFO";
    return "is not a regular file";
}

/* Creates the temporary file TMP, never through a symbolic link and never
 * one that exists; returns its descriptor or -1 with errno set. */
static int create_temporary(const char *tmp)
{
    return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

int trace_output_usable(const char *path, char *why, size_t size)
{
    struct stat st;
    const char *kind;
    if (lstat(path, &st) == 0) {
        if ((kind = not_replaceable(&st))) {
            snprintf(why, size, "%s: the trace goes only to a regular file or a new name", kind);
            return 0;
        }
        if (access(path, W_OK) != 0) {
            snprintf(why, size, "cannot be written: %s", strerror(errno));
            return 0;
        }
    } else if (errno != ENOENT) {
        snprintf(why, size, "cannot be used: %s", strerror(errno));
        return 0;
    }
    /* The folder: the temporary file must be creatable beside PATH. */
    char *tmp = temp_path(path);
    int fd = tmp ? create_temporary(tmp) : -1;
    if (fd < 0) {
        if (tmp)
            snprintf(why, size, "cannot be written: cannot create the trace file '%s' beside it: %s", tmp,
                     strerror(errno));
        else
            snprintf(why, size, "cannot be checked: out of memory");
        free(tmp);
        return 0;
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Output: a file, through gzip or zstd                                     */
/* ------------------------------------------------------------------------ */

#define OUT_CHUNK ((size_t)1 << 16)

enum compression { PLAIN, GZIP, ZSTD };

struct out {
    FILE *f;
    enum compression how;
    z_stream z;
    ZSTD_CCtx *zstd;
    unsigned char buf[OUT_CHUNK]; /* compressed bytes on their way to F */
    char error[160];              /* what went wrong, for the message */
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The encoding a name asks for, as the engine's writer reads it
 * (traces/trace_reader.cpp, encoding_for_path and compression_for_path). */
static enum compression compression_of(const char *path)
{
    if (ends_with(path, ".gz")) return GZIP;
    if (ends_with(path, ".zst")) return ZSTD;
    return PLAIN;
}

int trace_path_binary(const char *path)
{
    size_t n = strlen(path);
    if (ends_with(path, ".gz"))
        n -= 3;
    else if (ends_with(path, ".zst"))
        n -= 4;
    return n >= 5 && strncmp(path + n - 5, ".ibtb", 5) == 0;
}

static int out_fail(struct out *o, const char *fmt, const char *detail)
{
    snprintf(o->error, sizeof o->error, fmt, detail);
    return 0;
}

static int out_flush_buf(struct out *o, size_t n)
{
    if (n > 0 && fwrite(o->buf, 1, n, o->f) != n) return out_fail(o, "write error: %s", strerror(errno));
    return 1;
}

/* Feeds N bytes at P (or, when FINISH, the end of the stream) through the
 * compressor into the file. */
static int out_deflate(struct out *o, const void *p, size_t n, int finish)
{
    o->z.next_in = (Bytef *)(uintptr_t)p;
    o->z.avail_in = (uInt)n;
    int rc;
    do {
        o->z.next_out = o->buf;
        o->z.avail_out = (uInt)OUT_CHUNK;
        rc = deflate(&o->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) return out_fail(o, "gzip compression failed%s", "");
        if (!out_flush_buf(o, OUT_CHUNK - o->z.avail_out)) return 0;
    } while (o->z.avail_out == 0 || (finish && rc != Z_STREAM_END));
    return 1;
}

static int out_zstd(struct out *o, const void *p, size_t n, int finish)
{
    ZSTD_inBuffer in = {p, n, 0};
    size_t left;
    do {
        ZSTD_outBuffer out = {o->buf, OUT_CHUNK, 0};
        left = ZSTD_compressStream2(o->zstd, &out, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) return out_fail(o, "zstd compression failed: %s", ZSTD_getErrorName(left));
        if (!out_flush_buf(o, out.pos)) return 0;
    } while (finish ? left != 0 : in.pos < in.size);
    return 1;
}

int out_write(struct out *o, const void *p, size_t n)
{
    switch (o->how) {
    case GZIP:
        return out_deflate(o, p, n, 0);
    case ZSTD:
        return out_zstd(o, p, n, 0);
    default:
        if (fwrite(p, 1, n, o->f) != n) return out_fail(o, "write error: %s", strerror(errno));
        return 1;
    }
}

static int out_puts(struct out *o, const char *s)
{
    return out_write(o, s, strlen(s));
}

/* Opens PATH for writing, compressed as FINAL_PATH's name asks. */
static struct out *out_open(const char *path, const char *final_path, char *error, size_t error_size)
{
    struct out *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    o->how = compression_of(final_path);
    int ready = o->how == GZIP   ? deflateInit2(&o->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK
                : o->how == ZSTD ? (o->zstd = ZSTD_createCCtx()) != NULL
                                 : 1;
    if (!ready) {
        snprintf(error, error_size, "cannot start the %s compressor", o->how == GZIP ? "gzip" : "zstd");
        free(o);
        return NULL;
    }
    int fd = create_temporary(path);
    o->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!o->f) {
        if (fd >= 0) close(fd);
        snprintf(error, error_size, "cannot create the trace file '%s': %s", path, strerror(errno));
        if (o->how == GZIP) deflateEnd(&o->z);
        ZSTD_freeCCtx(o->zstd);
        free(o);
        return NULL;
    }
    setvbuf(o->f, NULL, _IOFBF, (size_t)1 << 20);
    return o;
}

/* Ends the stream and closes the file, on disk (fsync) when COMMIT;
 * returns 0 with o->error set on failure. Frees O's resources but not O. */
static int out_close(struct out *o, int commit)
{
    int ok = 1;
    if (commit && o->how == GZIP) ok = out_deflate(o, NULL, 0, 1);
    if (commit && o->how == ZSTD) ok = out_zstd(o, NULL, 0, 1);
    if (o->how == GZIP) deflateEnd(&o->z);
    ZSTD_freeCCtx(o->zstd);
    o->zstd = NULL;
    if (ok && commit && (ferror(o->f) || fflush(o->f) != 0 || fsync(fileno(o->f)) != 0))
        ok = out_fail(o, "write error: %s", strerror(errno));
    if (fclose(o->f) != 0 && ok && commit) ok = out_fail(o, "write error: %s", strerror(errno));
    o->f = NULL;
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Text that grows                                                          */
/* ------------------------------------------------------------------------ */

void text_printf(struct text *t, const char *fmt, ...)
{
    if (t->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !grow((void **)&t->s, &t->cap, t->len + (size_t)n + 1, 1)) {
        t->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* ------------------------------------------------------------------------ */
/* Notes                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const COUNTER_NOTE[C_COUNT] = {
    [C_SELF] = "messages were sent by a process to itself (recorded)",
    [C_UNNAMED_COMM] =
        "operations on communicators made by MPI_Comm_idup were not recorded (their members agreed on no id for them)",
    [C_FOREIGN_COMM] = "operations on communicators with processes outside MPI_COMM_WORLD were not recorded",
    [C_NEVER_COMPLETED] = "requests were never completed before MPI_Finalize; each was given a wait at MPI_Finalize, "
                          "and its message kept if both its ends were recorded",
    [C_NEVER_COMPLETED_UNKNOWN] =
        "receive requests posted with MPI_ANY_SOURCE or MPI_ANY_TAG were never completed before MPI_Finalize; their "
        "source or tag is unknown: not recorded",
    [C_ONE_ENDED] =
        "point-to-point operations were left out: the other end of their message was not recorded (a message is "
        "replayed with both its ends or not at all)",
    [C_SIZE_DIFFERS] = "messages were left out: their send and receive disagree on the size",
    [C_FREED_UNKNOWN] =
        "receive requests freed by MPI_Request_free before their source or tag was known were not recorded",
    [C_CANCELLED] = "cancelled requests were not recorded",
    [C_BYTES_CLAMPED] = "messages larger than 4294967295 bytes were recorded as 4294967295 bytes",
    [C_TIME_CLAMPED] = "events overlapped the previous event of their process (MPI calls from several threads) and "
                       "were moved after it",
    [C_CAUSALITY] =
        "receives ended before their send started (clock offset error between hosts); each was extended to the send's "
        "start and the later events of its process delayed as much",
    [C_CPU_UNKNOWN] = "compute events had no CPU-time reading (MPI calls from several threads); their wall time was "
                      "taken as CPU time",
};

static const char *const CALL_NAME[CALL_COUNT] = {
#define COLLECTIVE(Name) [CALL_##Name] = "MPI_" #Name,
#define UNRECORDED(Name, lower, UPPER, why, params, args, fparams, fargs) [CALL_##Name] = "MPI_" #Name,
#include "capture_calls.def"
};

static const char *const CALL_WHY[CALL_COUNT] = {
#define UNRECORDED(Name, lower, UPPER, why, params, args, fparams, fargs) [CALL_##Name] = why,
#include "capture_calls.def"
};

/* The `note` lines of the header, each ending in '\n', without "note ":
 * what was counted, what was not recorded, the hosts. */
void trace_notes(const struct trace_data *t, struct text *notes)
{
    for (int c = 0; c < C_COUNT; ++c)
        if (t->counters[c]) text_printf(notes, "%" PRIu64 " %s\n", t->counters[c], COUNTER_NOTE[c]);
    for (int c = 0; c < CALL_COUNT; ++c)
        if (t->unrecorded[c])
            text_printf(notes, "%" PRIu64 " %s calls were not recorded (%s)\n", t->unrecorded[c], CALL_NAME[c],
                        CALL_WHY[c]);
    for (int c = 0; c < CALL_COUNT; ++c)
        if (t->inter_calls[c])
            text_printf(notes, "%" PRIu64 " %s calls on intercommunicators were not recorded\n", t->inter_calls[c],
                        CALL_NAME[c]);
    host_notes(t->hosts, t->nhosts, notes);
}

/* ------------------------------------------------------------------------ */
/* Header and events                                                        */
/* ------------------------------------------------------------------------ */

/* The version written: without CPU times, the one before them (the same
 * bytes as before they came). */
static unsigned written_version(void)
{
    return S.cpu_clock == CPU_CLOCK_NONE ? TRACE_FORMAT_VERSION_WITHOUT_CPU : TRACE_FORMAT_VERSION;
}

static void header_text(const struct trace_data *t, const struct text *notes, struct text *h)
{
    text_printf(h, "ibsec-trace %u\nprocesses %d\ntime_unit ns\n", written_version(), t->nprocs);
    text_printf(h, "origin captured %s %s (%s) program=%s\n", TOOL_NAME, TOOL_VERSION, S.mpi_version, S.program);
    if (S.cpu_clock != CPU_CLOCK_NONE)
        text_printf(h, "cpu_time %s\n", S.cpu_clock == CPU_CLOCK_PROCESS ? "process" : "thread");
    for (size_t from = 0; from < notes->len;) {
        size_t n = strcspn(notes->s + from, "\n");
        text_printf(h, "note %.*s\n", (int)n, notes->s + from);
        from += n + 1;
    }
    for (size_t i = 0; i < t->ndescs; ++i) {
        if (i > 0 && t->descs[i].global == t->descs[i - 1].global) continue;
        text_printf(h, "comm %" PRIu32, t->descs[i].global);
        for (uint32_t k = 0; k < t->descs[i].n; ++k) text_printf(h, " %" PRIu32, t->descs[i].members[k]);
        text_printf(h, "\n");
    }
    text_printf(h, "events\n");
}

/* The words of a word argument (TRACE_ARG's `words`), "" for numbers. */
static const char *const ARG_WORDS[] = {
#define TRACE_ARG(Id, text, slot, member, max, words, since) [ARG_##Id] = words,
#include "../trace_ops.def"
};

/* Appends " " and the VALUE-th word of WORDS (separated by spaces). */
static void put_word(struct text *line, const char *words, uint32_t value)
{
    for (; value > 0 && strchr(words, ' '); --value) words = strchr(words, ' ') + 1;
    text_printf(line, " %.*s", (int)strcspn(words, " "), words);
}

/* The communicator of an event: its id in the trace and its size. */
struct event_comm {
    uint32_t id;
    uint32_t size;
};

/* COMMS maps (rank, agreed id) to the id in the trace and the size. */
static struct event_comm comm_of(const struct trace_data *t, int rank, uint32_t agreed)
{
    if (agreed == 0) return (struct event_comm){0, (uint32_t)t->nprocs}; /* 0 is the world */
    const struct map_slot *hit = map_find(&t->comms, ((uint64_t)(uint32_t)rank << 32) | agreed);
    return hit ? (struct event_comm){(uint32_t)hit->value, (uint32_t)(hit->value >> 32)} : (struct event_comm){0, 0};
}

/* The value R's argument ARG is written with: a communicator's id in the
 * trace; a compute event's CPU time no more than its wall time on the
 * thread's clock (the two clocks are read one after the other, and the
 * repairs of capture_finish.c may shorten an event). */
static uint64_t written_arg(const struct trace_data *t, int rank, const struct record *r, enum arg arg)
{
    uint64_t value = record_arg(r, arg);
    if (arg == ARG_Comm || arg == ARG_MsgComm) return comm_of(t, rank, (uint32_t)value).id;
    if (arg == ARG_Cpu && S.cpu_clock == CPU_CLOCK_THREAD && value > r->end - r->start) return r->end - r->start;
    return value;
}

/* The number of arguments of OP the written version carries (those it has come first). */
static int written_args(enum op op)
{
    const enum arg *args = LAYOUT_ARGS[OP_INFO[op].layout];
    int n = 0;
    while (n < MAX_ARGS && args[n] != ARG_None && ARG_SINCE[args[n]] <= written_version()) ++n;
    return n;
}

static void text_event(const struct trace_data *t, int rank, const struct record *r, struct text *line)
{
    text_printf(line, "%d %" PRIu64 " %" PRIu64 " %s", rank, r->start, r->end, OP_INFO[r->op].text);
    const enum arg *args = LAYOUT_ARGS[OP_INFO[r->op].layout];
    for (int i = 0; i < written_args(r->op); ++i) {
        uint64_t value = written_arg(t, rank, r, args[i]);
        if (ARG_WORDS[args[i]][0] != '\0')
            put_word(line, ARG_WORDS[args[i]], (uint32_t)value);
        else
            text_printf(line, " %" PRIu64, value);
    }
    if (OP_INFO[r->op].counts) {
        uint32_t n = comm_of(t, rank, r->a).size;
        for (uint32_t i = 0; i < n; ++i) text_printf(line, "%c%" PRIu32, i == 0 ? ' ' : ',', t->counts[rank][r->d + i]);
    }
    text_printf(line, "\n");
}

/* Stores the SIZE low bytes of VALUE little-endian at P. */
static void put_le(unsigned char *p, uint64_t value, size_t size)
{
    for (size_t i = 0; i < size; ++i) p[i] = (unsigned char)(value >> (8 * i));
}
#define PUT_FIELD(rec, field, value) put_le((rec) + BIN_OFFSET_##field, (value), BIN_SIZE_##field)

/* Only the op's own arguments are stored: the fields it does not use stay
 * zero, as the reader requires. */
static int binary_event(const struct trace_data *t, int rank, const struct record *r, struct out *o)
{
    unsigned char rec[BIN_RECORD_SIZE] = {0};
    PUT_FIELD(rec, start, r->start);
    PUT_FIELD(rec, end, r->end);
    PUT_FIELD(rec, rank, (uint32_t)rank);
    const enum arg *args = LAYOUT_ARGS[OP_INFO[r->op].layout];
    for (int i = 0; i < written_args(r->op); ++i) {
        uint64_t value = written_arg(t, rank, r, args[i]);
        switch (args[i]) {
#define TRACE_ARG(Id, text, slot, member, max, words, since)                                                           \
    case ARG_##Id:                                                                                                     \
        PUT_FIELD(rec, slot, value);                                                                                   \
        break;
#include "../trace_ops.def"
        case ARG_None:
            break;
        }
    }
    PUT_FIELD(rec, op, r->op);
    if (!out_write(o, rec, sizeof rec)) return 0;
    if (!OP_INFO[r->op].counts) return 1;
    uint32_t n = comm_of(t, rank, r->a).size;
    for (uint32_t from = 0; from < n; from += BIN_COUNTS_PER_RECORD) {
        unsigned char counts[BIN_RECORD_SIZE] = {0};
        for (uint32_t i = 0; i < BIN_COUNTS_PER_RECORD && from + i < n; ++i)
            put_le(counts + (size_t)i * BIN_COUNT_SIZE, t->counts[rank][r->d + from + i], BIN_COUNT_SIZE);
        PUT_FIELD(counts, op, BIN_COUNTS_OP);
        if (!out_write(o, counts, sizeof counts)) return 0;
    }
    return 1;
}

/* LINE is a buffer for the text encoding, reused for every line. */
static int write_event(const struct trace_data *t, int binary, int rank, const struct record *r, struct out *o,
                       struct text *line)
{
    if (binary) return binary_event(t, rank, r, o);
    line->len = 0;
    text_event(t, rank, r, line);
    return !line->failed && out_write(o, line->s, line->len);
}

static int write_preamble(struct out *o, const struct text *header)
{
    unsigned char pre[BIN_PREAMBLE_SIZE];
    put_le(pre + BIN_PREAMBLE_VERSION_OFFSET, written_version(), BIN_PREAMBLE_VERSION_SIZE);
    put_le(pre + BIN_PREAMBLE_HEADER_LENGTH_OFFSET, header->len, BIN_PREAMBLE_HEADER_LENGTH_SIZE);
    return out_write(o, BIN_MAGIC, BIN_MAGIC_SIZE) && out_write(o, pre, sizeof pre);
}

static int write_trailer(struct out *o, int binary, uint64_t count)
{
    if (binary) {
        unsigned char rec[BIN_RECORD_SIZE] = {0};
        PUT_FIELD(rec, bytes, count);
        PUT_FIELD(rec, op, BIN_TRAILER_OP);
        return out_write(o, rec, sizeof rec);
    }
    char end[32];
    snprintf(end, sizeof end, "end %" PRIu64 "\n", count);
    return out_puts(o, end);
}

/* ------------------------------------------------------------------------ */
/* Merging                                                                  */
/* ------------------------------------------------------------------------ */

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
        struct cursor tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

/* Writes every process's events in START order; *COUNT gets their number. */
static int write_events(const struct trace_data *t, int binary, struct out *o, uint64_t *count)
{
    struct cursor *heap = malloc(sizeof *heap * (size_t)t->nprocs);
    if (!heap) return out_fail(o, "out of memory%s", "");
    size_t nheap = 0;
    for (int r = 0; r < t->nprocs; ++r)
        if (t->nrecs[r] > 0)
            heap[nheap++] = (struct cursor){.next = t->recs[r], .stop = t->recs[r] + t->nrecs[r], .rank = r};
    for (size_t i = nheap; i-- > 0;) heap_down(heap, nheap, i);
    int ok = 1;
    struct text line = {0};
    *count = 0;
    while (ok && nheap > 0) {
        const struct record *r = heap[0].next;
        /* Zero-length computation (a dropped zero-length call) says nothing. */
        if (!(r->op == OP_COMPUTE && r->end == r->start)) {
            ok = write_event(t, binary, heap[0].rank, r, o, &line);
            ++*count;
        }
        if (++heap[0].next == heap[0].stop) heap[0] = heap[--nheap];
        heap_down(heap, nheap, 0);
    }
    if (!ok && line.failed) out_fail(o, "out of memory%s", "");
    free(line.s);
    free(heap);
    return ok;
}

/* Numbers the communicators 1, 2, ... in (agreed id, members) order: the
 * same communicator is described identically by each member. Fills
 * T->comms. */
static int comm_desc_cmp(const void *pa, const void *pb)
{
    const struct comm_desc *a = pa, *b = pb;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (uint32_t i = 0; i < a->n; ++i)
        if (a->members[i] != b->members[i]) return a->members[i] < b->members[i] ? -1 : 1;
    return 0;
}

static int number_comms(struct trace_data *t)
{
    if (t->ndescs > 0) qsort(t->descs, t->ndescs, sizeof *t->descs, comm_desc_cmp);
    uint32_t next = 0;
    for (size_t i = 0; i < t->ndescs; ++i) {
        if (i == 0 || comm_desc_cmp(&t->descs[i - 1], &t->descs[i]) != 0) ++next;
        t->descs[i].global = next;
        uint64_t value = ((uint64_t)t->descs[i].n << 32) | next;
        if (!map_put(&t->comms, ((uint64_t)(uint32_t)t->descs[i].rank << 32) | t->descs[i].id, value)) return 0;
    }
    return 1;
}

/* Rank 0: writes the merged trace to S.trace_path through a temporary
 * file, renamed when complete. Returns 1 on success. */
int write_trace(struct trace_data *t, uint64_t *nevents)
{
    int binary = trace_path_binary(S.trace_path), ok = 0;
    struct text notes = {0}, header = {0};
    char error[200] = "";
    struct out *o = NULL;
    char *tmp = temp_path(S.trace_path);
    if (!tmp || !number_comms(t)) {
        warn("cannot write the trace '%s': out of memory", S.trace_path);
        goto out;
    }
    trace_notes(t, &notes);
    header_text(t, &notes, &header);
    if (notes.failed || header.failed) {
        warn("cannot write the trace '%s': out of memory", S.trace_path);
        goto out;
    }
    if (!(o = out_open(tmp, S.trace_path, error, sizeof error))) {
        warn("%s", error);
        goto out;
    }
    int written = (!binary || write_preamble(o, &header)) && out_write(o, header.s, header.len) &&
                  write_events(t, binary, o, nevents) && write_trailer(o, binary, *nevents);
    if (!out_close(o, written) || !written) {
        warn("cannot write the trace file '%s': %s", tmp, o->error);
        goto out;
    }
    /* Checked again: what IBSEC_TRACE names may have changed since MPI_Init. */
    struct stat st;
    const char *kind = lstat(S.trace_path, &st) == 0 ? not_replaceable(&st) : NULL;
    if (kind) {
        warn("IBSEC_TRACE '%s' %s now, not replaced: the trace is left in '%s'", S.trace_path, kind, tmp);
        free(tmp);
        tmp = NULL; /* kept */
        goto out;
    }
    if (rename(tmp, S.trace_path) != 0) {
        warn("cannot rename '%s' to '%s': %s", tmp, S.trace_path, strerror(errno));
        goto out;
    }
    warn("wrote %" PRIu64 " events of %d processes to '%s'", *nevents, t->nprocs, S.trace_path);
    for (size_t from = 0; from < notes.len;) {
        size_t n = strcspn(notes.s + from, "\n");
        warn("note: %.*s", (int)n, notes.s + from);
        from += n + 1;
    }
    ok = 1;
out:
    if (!ok && tmp) unlink(tmp);
    free(o);
    free(tmp);
    free(notes.s);
    free(header.s);
    return ok;
}
