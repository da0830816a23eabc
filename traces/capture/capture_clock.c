/* The clocks of libibsec_capture: each process's own (events are kept in ns
 * since it left MPI_Init) and the common one of the trace (rank 0's), with
 * the offsets between hosts measured at MPI_Init and MPI_Finalize; and the
 * CPU-time clock that says how much of a compute event the process spent
 * on a CPU. */
#include "capture_internal.h"

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec + S.skew;
}

/* -- CPU time --
 *
 * A compute event is the time between two recorded calls. On a host with
 * more processes than CPUs much of that wall time is spent waiting for a
 * CPU while other processes run; the CPU-time clock counts only the time the
 * process ran. Every now() also reads the CPU-time clock and keeps the pair
 * in a small ring of this thread's latest readings, so that the CPU time at
 * a call's start or end (times that now() returned) can be found when the
 * call is recorded. The calling thread's clock is the default: time MPI or
 * its helper threads spend in other threads is not the program's
 * computation (docs/trace-format.md, "CPU time"). */

#define CPU_READINGS 16 /* a recorded call reads the clock 2 to 4 times */

struct cpu_reading {
    uint64_t wall, cpu;
};
static __thread struct cpu_reading readings[CPU_READINGS];
static __thread unsigned next_reading;
static __thread int readings_used;

/* The clock IBSEC_CAPTURE_CPU_CLOCK names: thread (the default), process or none. */
enum cpu_clock cpu_clock_from_environment(void)
{
    const char *name = getenv("IBSEC_CAPTURE_CPU_CLOCK");
    if (!name || !name[0] || strcmp(name, "thread") == 0) return CPU_CLOCK_THREAD;
    if (strcmp(name, "process") == 0) return CPU_CLOCK_PROCESS;
    if (strcmp(name, "none") == 0) return CPU_CLOCK_NONE;
    warn("IBSEC_CAPTURE_CPU_CLOCK='%s' is not one of thread, process, none: the thread's clock is used", name);
    return CPU_CLOCK_THREAD;
}

uint64_t cpu_ns(void)
{
    if (S.cpu_clock == CPU_CLOCK_NONE) return 0;
    struct timespec ts;
    clockid_t id = S.cpu_clock == CPU_CLOCK_PROCESS ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
    if (clock_gettime(id, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* ns since this process left the barrier ending MPI_Init. Events are kept
 * on this clock and put on the common one at MPI_Finalize. */
uint64_t now(void)
{
    uint64_t t = mono_ns();
    uint64_t wall = t > S.t0 ? t - S.t0 : 0;
    if (S.cpu_clock != CPU_CLOCK_NONE) {
        readings[next_reading] = (struct cpu_reading){wall, cpu_ns()};
        next_reading = (next_reading + 1) % CPU_READINGS;
        if (readings_used < CPU_READINGS) ++readings_used;
    }
    return wall;
}

/* CPU time this thread spent inside MPI calls that record no event (a
 * communicator's creation, a test that completes nothing, a call the
 * library only counts) since its last recorded event: such a call sits
 * inside a compute event's wall time, but what it spends (an internal
 * collective polling for its partners) is MPI's, not the program's. */
static __thread uint64_t cpu_in_unrecorded_calls;

uint64_t unrecorded_call_begin(void)
{
    return S.cpu_clock == CPU_CLOCK_NONE ? 0 : cpu_ns();
}

void unrecorded_call_end(uint64_t began)
{
    if (S.cpu_clock == CPU_CLOCK_NONE) return;
    uint64_t ended = cpu_ns();
    if (ended > began) cpu_in_unrecorded_calls += ended - began;
}

/* The same for a call whose start and end now() returned as T0 and T1. */
void unrecorded_call_between(uint64_t t0, uint64_t t1)
{
    uint64_t began = 0, ended = 0;
    if (cpu_at(t0, &began) && cpu_at(t1, &ended) && ended > began) cpu_in_unrecorded_calls += ended - began;
}

uint64_t take_cpu_in_unrecorded_calls(void)
{
    uint64_t taken = cpu_in_unrecorded_calls;
    cpu_in_unrecorded_calls = 0;
    return taken;
}

/* The CPU time this thread read with the wall time WALL, if now() returned
 * WALL to it lately: 1 and *CPU, else 0. The latest such reading wins. */
int cpu_at(uint64_t wall, uint64_t *cpu)
{
    for (int k = 1; k <= readings_used; ++k) {
        const struct cpu_reading *r = &readings[(next_reading + CPU_READINGS - (unsigned)k) % CPU_READINGS];
        if (r->wall == wall) {
            *cpu = r->cpu;
            return 1;
        }
    }
    return 0;
}

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
void clock_setup(void)
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
int64_t clock_offset(void)
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

/* Time T of this process (ns since its t0) on the common clock, in ns since
 * the trace's origin. OFF_FIN is the offset measured at T_FIN. */
static uint64_t common_time(uint64_t t, int64_t off_fin, uint64_t t_fin)
{
    double drift = t_fin > 0 ? (double)(off_fin - S.off_init) * ((double)t / (double)t_fin) : 0.0;
    int64_t g = (int64_t)(S.t0 + t) + S.off_init + (int64_t)(drift + (drift < 0 ? -0.5 : 0.5)) - S.origin;
    return g > 0 ? (uint64_t)g : 0;
}

/* Puts this process's events on the common clock. */
void to_common_clock(int64_t off_fin, uint64_t t_fin)
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
