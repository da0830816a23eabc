/* Rank 0, before the clock repair: every message of the trace with both
 * its ends, or none.
 *
 * A replay sends what a send says, and a receive waits for its send: a send
 * never received, a receive never sent, or two ends of different sizes
 * cannot be replayed (`trace validate` refuses them). One end of a message
 * can be missing when the other was left out on its own process (a receive
 * posted with a wildcard and never completed, a receive request freed
 * before its source was known) or when a request was never completed and
 * its message never matched (an isend that nobody received). The ends pair
 * as in MPI, and as `trace validate` pairs them: per channel (source,
 * destination, tag, communicator), the k-th send with the k-th receive.
 * An end left without a partner is left out, its `wait` with it; a receive
 * whose size is its buffer's (never completed, or freed) takes its send's. */
#include "capture_internal.h"

/* One send or receive of the trace: its channel, then where it is. */
struct message_end {
    uint32_t source, destination, tag, comm;
    uint32_t receiving; /* sends first in a channel, then receives */
    uint32_t rank;
    uint64_t index; /* in recs[rank]; orders each side of a channel as its process made them */
};

static int end_cmp(const void *pa, const void *pb)
{
    const struct message_end *a = pa, *b = pb;
    const uint32_t ka[] = {a->source, a->destination, a->tag, a->comm, a->receiving};
    const uint32_t kb[] = {b->source, b->destination, b->tag, b->comm, b->receiving};
    for (size_t i = 0; i < sizeof ka / sizeof ka[0]; ++i)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static int is_send(uint8_t op)
{
    return op == OP_SEND || op == OP_ISEND;
}

static int is_receive(uint8_t op)
{
    return op == OP_RECV || op == OP_IRECV;
}

/* Every send and receive of the trace, sorted by channel; NULL if out of
 * memory (or there are none, *N 0). */
static struct message_end *message_ends(const struct trace_data *t, size_t *n)
{
    *n = 0;
    for (int r = 0; r < t->nprocs; ++r)
        for (uint64_t i = 0; i < t->nrecs[r]; ++i)
            if (is_send(t->recs[r][i].op) || is_receive(t->recs[r][i].op)) ++*n;
    struct message_end *ends = *n ? malloc(sizeof *ends * *n) : NULL;
    if (!ends) return NULL;
    size_t k = 0;
    for (int r = 0; r < t->nprocs; ++r) {
        for (uint64_t i = 0; i < t->nrecs[r]; ++i) {
            const struct record *e = &t->recs[r][i];
            if (!is_send(e->op) && !is_receive(e->op)) continue;
            int sending = is_send(e->op);
            ends[k++] = (struct message_end){.source = sending ? (uint32_t)r : e->a,
                                             .destination = sending ? e->a : (uint32_t)r,
                                             .tag = e->b,
                                             .comm = e->d,
                                             .receiving = !sending,
                                             .rank = (uint32_t)r,
                                             .index = i};
        }
    }
    qsort(ends, *n, sizeof *ends, end_cmp);
    return ends;
}

/* The `wait` of each request, by (rank, REQ): made when the first request
 * is left out. */
struct waits {
    struct map by_request;
    int made;
};

static int find_wait(const struct trace_data *t, struct waits *w, uint32_t rank, uint32_t req, struct record **wait)
{
    if (!w->made) {
        for (int r = 0; r < t->nprocs; ++r)
            for (uint64_t i = 0; i < t->nrecs[r]; ++i)
                if (t->recs[r][i].op == OP_WAIT &&
                    !map_put(&w->by_request, ((uint64_t)(uint32_t)r << 32) | t->recs[r][i].c, i))
                    return 0;
        w->made = 1;
    }
    const struct map_slot *hit = map_find(&w->by_request, ((uint64_t)rank << 32) | req);
    *wait = hit ? &t->recs[rank][hit->value] : NULL;
    return 1;
}

/* Leaves END out of the trace, with its `wait` if it opened a request. */
static int leave_out(const struct trace_data *t, struct waits *w, const struct message_end *end)
{
    struct record *e = &t->recs[end->rank][end->index];
    if (e->op == OP_ISEND || e->op == OP_IRECV) {
        struct record *wait;
        if (!find_wait(t, w, end->rank, e->c, &wait)) return 0;
        if (wait) drop_record(wait);
    }
    drop_record(e);
    return 1;
}

static int same_channel(const struct message_end *a, const struct message_end *b)
{
    return a->source == b->source && a->destination == b->destination && a->tag == b->tag && a->comm == b->comm;
}

static struct record *record_of(const struct trace_data *t, const struct message_end *end)
{
    return &t->recs[end->rank][end->index];
}

/* One channel: its sends SENDS[0..NSENDS) and receives RECEIVES[0..NRECEIVES),
 * each side in the order its process made them. */
static int settle_channel(struct trace_data *t, struct waits *w, const struct message_end *sends, size_t nsends,
                          const struct message_end *receives, size_t nreceives)
{
    size_t pairs = nsends < nreceives ? nsends : nreceives;
    for (size_t k = 0; k < pairs; ++k) {
        const struct record *send = record_of(t, &sends[k]);
        struct record *receive = record_of(t, &receives[k]);
        if (receive->size_unsure) {
            receive->bytes = send->bytes;
            receive->size_unsure = 0;
        }
        if (receive->bytes != send->bytes) {
            t->counters[C_SIZE_DIFFERS]++;
            if (!leave_out(t, w, &sends[k]) || !leave_out(t, w, &receives[k])) return 0;
        }
    }
    for (size_t k = pairs; k < nsends; ++k) {
        t->counters[C_ONE_ENDED]++;
        if (!leave_out(t, w, &sends[k])) return 0;
    }
    for (size_t k = pairs; k < nreceives; ++k) {
        t->counters[C_ONE_ENDED]++;
        if (!leave_out(t, w, &receives[k])) return 0;
    }
    return 1;
}

/* Returns 0 if out of memory (the trace may then not validate). */
int settle_messages(struct trace_data *t)
{
    size_t n;
    struct message_end *ends = message_ends(t, &n);
    if (!ends) return n == 0;
    struct waits w = {.made = 0};
    int ok = 1;
    for (size_t from = 0; ok && from < n;) {
        size_t to = from, first_receive = from;
        while (to < n && same_channel(&ends[from], &ends[to])) ++to;
        while (first_receive < to && !ends[first_receive].receiving) ++first_receive;
        ok = settle_channel(t, &w, ends + from, first_receive - from, ends + first_receive, to - first_receive);
        from = to;
    }
    free(ends);
    map_free(&w.by_request);
    return ok;
}
