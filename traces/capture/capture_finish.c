/* MPI_Finalize: every process sends its events to rank 0, which merges
 * them, repairs what is left of the clock error and writes the trace. */
#include "capture_internal.h"

/* Largest message (in bytes) the merge step sends at once: MPI counts are
 * ints, and records can add up to more than 2 GiB. */
#define CHUNK_BYTES ((size_t)1 << 26)

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

/* The words of a word argument (TRACE_ARG's `words`), "" for numbers. */
static const char *const ARG_WORDS[] = {
#define TRACE_ARG(Id, text, slot, member, max, words) [ARG_##Id] = words,
#include "../trace_ops.def"
};

/* Writes " " and the VALUE-th word of WORDS (separated by spaces). */
static void put_word(FILE *f, const char *words, uint32_t value)
{
    for (; value > 0 && strchr(words, ' '); --value) words = strchr(words, ' ') + 1;
    fputc(' ', f);
    fwrite(words, 1, strcspn(words, " "), f);
}

/* Writes one event line; returns 0 on an output error. COMMS maps
 * (rank, agreed id) to the id in the trace. */
static int write_event(FILE *f, int rank, const struct record *r, const struct map *comms)
{
    fprintf(f, "%d %" PRIu64 " %" PRIu64 " %s", rank, r->start, r->end, OP_INFO[r->op].text);
    const enum arg *args = LAYOUT_ARGS[OP_INFO[r->op].layout];
    for (int i = 0; i < MAX_ARGS && args[i] != ARG_None; ++i) {
        uint32_t value = record_arg(r, args[i]);
        if (ARG_WORDS[args[i]][0] != '\0') {
            put_word(f, ARG_WORDS[args[i]], value);
            continue;
        }
        if ((args[i] == ARG_Comm || args[i] == ARG_MsgComm) && value != 0) { /* 0 is the world */
            const struct map_slot *hit = map_find(comms, ((uint64_t)(uint32_t)rank << 32) | value);
            value = hit ? (uint32_t)hit->value : 0;
        }
        fprintf(f, " %" PRIu32, value);
    }
    fputc('\n', f);
    return !ferror(f);
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

    fprintf(f, "ibsec-trace %d\nprocesses %d\ntime_unit ns\n", TRACE_FORMAT_VERSION, S.size);
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
int capture_finish(void)
{
    if (!S.active) return 0;
    uint64_t end = now();
    lock();
    if (!S.failed) {
        /* Requests the program never completed cannot be replayed. */
        for (size_t i = 0; i < S.pend_by_request.cap; ++i) {
            if (!S.pend_by_request.slots[i].full) continue;
            for (size_t p = (size_t)S.pend_by_request.slots[i].value; p != NO_SLOT; p = S.pend[p].next) {
                S.counters[C_NEVER_COMPLETED]++;
                drop_locked(S.pend[p].rec);
            }
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

    struct rank_info mine = {
        .nrecs = S.failed ? 0 : S.nrecs, .ncomm_words = S.failed ? 0 : nwords, .failed = (uint64_t)S.failed};
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
    if (go) PMPI_Gather(&mine, words_per_info, MPI_UINT64_T, infos, words_per_info, MPI_UINT64_T, 0, S.priv);

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
