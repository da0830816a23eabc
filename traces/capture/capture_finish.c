/* MPI_Finalize: every process sends its events to rank 0, which merges
 * them, repairs what is left of the clock error and writes the trace
 * (capture_write.c). */
#include "capture_internal.h"

/* Largest message (in bytes) the merge step sends at once: MPI counts are
 * ints, and records can add up to more than 2 GiB. */
#define CHUNK_BYTES ((size_t)1 << 26)

enum { TAG_RECORDS = 1, TAG_COMM_WORDS = 2, TAG_COUNTS = 4 }; /* 3 is the clock's (capture_clock.c) */

/* What each process tells rank 0 before sending its events. */
struct rank_info {
    uint64_t nrecs;
    uint64_t ncomm_words; /* uint32 words describing the communicators its events name */
    uint64_t ncounts;     /* uint32 COUNTS of its events with counts */
    uint64_t failed;
    uint64_t counters[C_COUNT];
    uint64_t inter_calls[CALL_COUNT];
    uint64_t unrecorded[CALL_COUNT];
};

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

/* -- Clock repair on rank 0 -- */

/* A channel (source, destination, tag, communicator) during fix_causality:
 * the common-clock START of its sends so far, and how many its receives
 * consumed. */
struct channel {
    uint64_t *send_starts;
    size_t nsends, cap, consumed;
    int receiver_waiting;
    uint32_t comm;    /* the agreed id (the same on every member) */
    size_t next_comm; /* the channel of the same source, destination and tag on another communicator */
};

/* The channels of fix_causality: per destination a map from (source, tag)
 * to the first of a list of channels, one per communicator. */
struct channels {
    struct map *by_destination;
    struct channel *list;
    size_t n, cap;
};

static int channel_new(struct channels *c, uint32_t comm, size_t *index)
{
    if (!grow((void **)&c->list, &c->cap, c->n + 1, sizeof *c->list)) return 0;
    c->list[c->n] = (struct channel){.comm = comm, .next_comm = NO_SLOT};
    *index = c->n++;
    return 1;
}

/* The channel of point-to-point event E of process R; NULL when out of memory. */
static struct channel *channel_of(struct channels *c, int r, const struct record *e)
{
    int sending = e->op == OP_SEND || e->op == OP_ISEND;
    int dest = sending ? (int)e->a : r, source = sending ? r : (int)e->a;
    uint64_t key = ((uint64_t)(uint32_t)source << 32) | e->b;
    struct map_slot *hit = map_find(&c->by_destination[dest], key);
    size_t i;
    if (!hit) {
        if (!channel_new(c, e->d, &i) || !map_put(&c->by_destination[dest], key, i)) return NULL;
        return &c->list[i];
    }
    for (i = (size_t)hit->value; c->list[i].comm != e->d; i = c->list[i].next_comm) {
        if (c->list[i].next_comm == NO_SLOT) {
            size_t added;
            if (!channel_new(c, e->d, &added)) return NULL;
            c->list[i].next_comm = added;
        }
    }
    return &c->list[i];
}

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
    struct channels c = {.by_destination = calloc((size_t)nprocs, sizeof *c.by_destination)};
    int nrunnable = 0, ok = shift && pos && runnable && c.by_destination;
    for (int r = 0; ok && r < nprocs; ++r) runnable[nrunnable++] = r;

    while (ok && nrunnable > 0) {
        int r = runnable[--nrunnable];
        for (; pos[r] < nrecs[r]; ++pos[r]) {
            struct record *e = &recs[r][pos[r]];
            int sending = e->op == OP_SEND || e->op == OP_ISEND;
            int receiving = e->op == OP_RECV || e->op == OP_IRECV;
            struct channel *ch = NULL;
            if ((sending || receiving) && !(ch = channel_of(&c, r, e))) {
                ok = 0;
                break;
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
    for (size_t i = 0; i < c.n; ++i) free(c.list[i].send_starts);
    free(c.list);
    for (int r = 0; c.by_destination && r < nprocs; ++r) map_free(&c.by_destination[r]);
    free(c.by_destination);
    free(runnable);
    free(pos);
    free(shift);
    return fixed;
}

/* -- This process's part -- */

static int by_record(const void *pa, const void *pb)
{
    size_t a = S.pend[*(const size_t *)pa].rec, b = S.pend[*(const size_t *)pb].rec;
    return a < b ? -1 : a > b;
}

/* The requests still open, as indices into S.pend in the order of their
 * records; NULL with *N 0 when there are none. Lock held. */
static size_t *unfinished_locked(size_t *n)
{
    size_t *list = NULL, cap = 0;
    *n = 0;
    for (size_t i = 0; i < S.pend_by_request.cap; ++i) {
        if (!S.pend_by_request.slots[i].full) continue;
        for (size_t p = (size_t)S.pend_by_request.slots[i].value; p != NO_SLOT; p = S.pend[p].next) {
            if (!grow((void **)&list, &cap, *n + 1, sizeof *list)) {
                fail_locked("request list");
                free(list);
                *n = 0;
                return NULL;
            }
            list[(*n)++] = p;
        }
    }
    if (*n > 1) qsort(list, *n, sizeof *list, by_record);
    return list;
}

/* Requests never completed before MPI_Finalize (an erroneous program, but
 * MPI may well have delivered their messages): each gets its `wait` at AT,
 * the start of MPI_Finalize, as the format needs one per request; a
 * receive's size is then its buffer's. Rank 0 keeps each message with both
 * its ends or not at all (capture_messages.c), so a receive that cannot be
 * put on its channel, posted with a wildcard, is left out here. Returns
 * how many there were. Lock held. */
static size_t close_unfinished_locked(uint64_t at)
{
    size_t n;
    size_t *list = unfinished_locked(&n);
    for (size_t i = 0; i < n && !S.failed; ++i) {
        const struct pending *p = &S.pend[list[i]];
        if (p->kind == PEND_RECV && !(p->src_known && p->tag_known)) {
            S.counters[C_NEVER_COMPLETED_UNKNOWN]++;
            drop_locked(p->rec);
            continue;
        }
        S.counters[C_NEVER_COMPLETED]++;
        if (p->kind == PEND_RECV) S.recs[p->rec].size_unsure = 1;
        append_locked(at, at, OP_WAIT, 0, 0, 0, S.recs[p->rec].c, NULL);
    }
    free(list);
    return n;
}

/* Closes this process's timeline: the time up to MPI_Finalize is
 * computation, requests never completed are closed there. Then puts its
 * events on the common clock (a collective). */
static void finish_own_events(void)
{
    uint64_t end = now();
    size_t unfinished = 0;
    lock();
    if (!S.failed) {
        if (end > S.last_end) append_locked(S.last_end, end, OP_COMPUTE, 0, 0, 0, 0, NULL);
        unfinished = close_unfinished_locked(end);
    }
    S.active = 0;
    unlock();
    if (unfinished > 0)
        warn("%zu requests were never completed before MPI_Finalize (an erroneous program): each is recorded with a "
             "wait at MPI_Finalize, and its message only if both its ends are recorded (see the notes)",
             unfinished);
    /* The clocks again, for their drift since MPI_Init. */
    int64_t off_fin = clock_offset();
    uint64_t t_fin = now();
    if (!S.failed) to_common_clock(off_fin, t_fin);
}

/* This process's communicators that its events name, as words
 * [id, n, member...]: an intercommunicator with both its groups. */
static uint32_t *comm_words(size_t *nwords)
{
    uint32_t *words = NULL;
    size_t capwords = 0;
    *nwords = 0;
    for (size_t i = 1; !S.failed && i < S.ncomms; ++i) {
        const struct comm_entry *e = &S.comms[i];
        if (!e->used) continue;
        const uint32_t *members = e->inter ? e->all : e->members;
        int n = e->inter ? e->nall : e->size;
        if (!grow((void **)&words, &capwords, *nwords + 2 + (size_t)n, sizeof *words)) {
            lock();
            fail_locked("communicator list");
            unlock();
            break;
        }
        words[(*nwords)++] = e->id;
        words[(*nwords)++] = (uint32_t)n;
        for (int k = 0; k < n; ++k) words[(*nwords)++] = members[k];
    }
    return words;
}

/* -- Rank 0 -- */

/* Makes room for every process's events, counts and communicator words,
 * after checking that every process recorded successfully, and sums what
 * they counted. Returns 0 if the trace cannot be written. */
static int prepare_gather(struct trace_data *t, const struct rank_info *infos, uint32_t ***cwords)
{
    for (int r = 0; r < S.size; ++r)
        if (infos[r].failed) {
            warn("cannot write the trace '%s': rank %d ran out of memory while recording", S.trace_path, r);
            return 0;
        }
    t->recs = calloc((size_t)S.size, sizeof *t->recs);
    t->nrecs = calloc((size_t)S.size, sizeof *t->nrecs);
    t->counts = calloc((size_t)S.size, sizeof *t->counts);
    *cwords = calloc((size_t)S.size, sizeof **cwords);
    int ok = t->recs && t->nrecs && t->counts && *cwords;
    for (int r = 1; ok && r < S.size; ++r) {
        const struct rank_info *in = &infos[r];
        t->nrecs[r] = in->nrecs;
        ok = in->nrecs <= SIZE_MAX / sizeof(struct record) && in->ncomm_words <= SIZE_MAX / sizeof(uint32_t) &&
             in->ncounts <= SIZE_MAX / sizeof(uint32_t);
        if (!ok) break;
        t->recs[r] = malloc(sizeof(struct record) * (size_t)(in->nrecs ? in->nrecs : 1));
        t->counts[r] = malloc(sizeof(uint32_t) * (size_t)(in->ncounts ? in->ncounts : 1));
        (*cwords)[r] = malloc(sizeof(uint32_t) * (size_t)(in->ncomm_words ? in->ncomm_words : 1));
        ok = t->recs[r] && t->counts[r] && (*cwords)[r];
    }
    if (!ok) {
        warn("cannot write the trace '%s': out of memory gathering the events", S.trace_path);
        return 0;
    }
    for (int r = 0; r < S.size; ++r) {
        for (int c = 0; c < C_COUNT; ++c) t->counters[c] += infos[r].counters[c];
        for (int c = 0; c < CALL_COUNT; ++c) {
            t->inter_calls[c] += infos[r].inter_calls[c];
            t->unrecorded[c] += infos[r].unrecorded[c];
        }
    }
    return 1;
}

/* Every process's communicator descriptions, from their words. */
static int describe_comms(struct trace_data *t, uint32_t *const *cwords, const struct rank_info *infos)
{
    size_t capdescs = 0;
    for (int r = 0; r < S.size; ++r) {
        uint64_t n = infos[r].ncomm_words;
        for (uint64_t i = 0; i + 2 <= n;) {
            uint32_t id = cwords[r][i], size = cwords[r][i + 1];
            if (size > n - i - 2) break; /* cannot happen: written by comm_words */
            if (!grow((void **)&t->descs, &capdescs, t->ndescs + 1, sizeof *t->descs)) return 0;
            t->descs[t->ndescs++] = (struct comm_desc){.id = id, .n = size, .members = &cwords[r][i + 2], .rank = r};
            i += 2 + (uint64_t)size;
        }
    }
    return 1;
}

/* Receives the other processes' events and writes the trace. Returns 0 if
 * it was not written. */
static int gather_and_write(struct trace_data *t, uint32_t **cwords, const struct rank_info *infos)
{
    int received = 1;
    for (int r = 1; r < S.size && received; ++r)
        received = recv_chunks(t->recs[r], sizeof(struct record) * (size_t)t->nrecs[r], r, TAG_RECORDS) &&
                   recv_chunks(cwords[r], sizeof(uint32_t) * (size_t)infos[r].ncomm_words, r, TAG_COMM_WORDS) &&
                   recv_chunks(t->counts[r], sizeof(uint32_t) * (size_t)infos[r].ncounts, r, TAG_COUNTS);
    if (!received || !describe_comms(t, cwords, infos)) {
        warn("cannot write the trace '%s': gathering the events failed", S.trace_path);
        return 0;
    }
    if (!settle_messages(t)) warn("out of memory pairing the messages' ends: the trace may not validate");
    t->counters[C_CAUSALITY] = fix_causality(t->recs, t->nrecs, S.size);
    uint64_t nevents = 0;
    return write_trace(t, &nevents);
}

static void free_trace_data(struct trace_data *t, uint32_t **cwords)
{
    for (int r = 1; r < S.size; ++r) { /* rank 0's own arrays are S's */
        if (t->recs) free(t->recs[r]);
        if (t->counts) free(t->counts[r]);
        if (cwords) free(cwords[r]);
    }
    free(t->recs);
    free(t->nrecs);
    free(t->counts);
    free(cwords);
    free(t->descs);
    free(t->hosts);
    map_free(&t->comms);
}

static void free_state(void)
{
    free(S.recs);
    free(S.counts);
    S.recs = NULL;
    S.counts = NULL;
    S.nrecs = S.caprecs = S.ncounts = S.capcounts = 0;
    for (size_t i = 0; i < S.ncomms; ++i) {
        free(S.comms[i].members);
        free(S.comms[i].all);
    }
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
    persistent_free_all();
    PMPI_Group_free(&S.world_group);
    if (S.leaders != MPI_COMM_NULL) PMPI_Comm_free(&S.leaders);
    PMPI_Comm_free(&S.node);
    PMPI_Comm_free(&S.priv);
}

/* Called at MPI_Finalize, collectively. Returns 1 on rank 0 if the trace
 * could not be written. */
int capture_finish(void)
{
    if (!S.active) return 0;
    finish_own_events();
    size_t nwords = 0;
    uint32_t *words = comm_words(&nwords);
    struct trace_data t = {.nprocs = S.size};
    int hosts_ok = host_facts(&t.hosts, &t.nhosts);

    struct rank_info mine = {.nrecs = S.failed ? 0 : S.nrecs,
                             .ncomm_words = S.failed ? 0 : nwords,
                             .ncounts = S.failed ? 0 : S.ncounts,
                             .failed = (uint64_t)S.failed};
    memcpy(mine.counters, S.counters, sizeof mine.counters);
    memcpy(mine.inter_calls, S.inter_calls, sizeof mine.inter_calls);
    memcpy(mine.unrecorded, S.unrecorded, sizeof mine.unrecorded);
    const int words_per_info = (int)(sizeof mine / sizeof(uint64_t));

    /* 1. Rank 0 makes room for every process's rank_info and says whether
     *    it could (everyone must agree before a collective that needs it). */
    struct rank_info *infos = NULL;
    int go = 1;
    if (S.rank == 0 && (!hosts_ok || !(infos = malloc(sizeof *infos * (size_t)S.size)))) {
        warn("cannot write the trace '%s': out of memory", S.trace_path);
        go = 0;
    }
    PMPI_Bcast(&go, 1, MPI_INT, 0, S.priv);
    if (go) PMPI_Gather(&mine, words_per_info, MPI_UINT64_T, infos, words_per_info, MPI_UINT64_T, 0, S.priv);

    /* 2. Rank 0 makes room for all events, then says whether they are to
     *    be sent. */
    uint32_t **cwords = NULL;
    if (S.rank == 0 && go) {
        go = prepare_gather(&t, infos, &cwords);
        if (go) {
            t.recs[0] = S.recs;
            t.nrecs[0] = S.nrecs;
            t.counts[0] = S.counts;
            cwords[0] = words;
        }
    }
    PMPI_Bcast(&go, 1, MPI_INT, 0, S.priv);

    int write_failed = S.rank == 0 && !go;
    if (go && S.rank != 0) {
        if (!send_chunks(S.recs, sizeof(struct record) * S.nrecs, TAG_RECORDS) ||
            !send_chunks(words, sizeof(uint32_t) * nwords, TAG_COMM_WORDS) ||
            !send_chunks(S.counts, sizeof(uint32_t) * S.ncounts, TAG_COUNTS))
            warn("could not send its events to rank 0");
    } else if (go) {
        write_failed = !gather_and_write(&t, cwords, infos);
    }
    free_trace_data(&t, cwords);
    free(infos);
    free(words);
    free_state();
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
