/* Facts about the hosts the program ran on, for the trace's header: how many
 * CPUs the processes of each host could run on and how many processes it
 * had. A host with more processes than CPUs was oversubscribed: its
 * processes took turns on the CPUs, and the recorded compute times include
 * waiting for a CPU, which a replay must not take for computation. */
#include "capture_internal.h"

#include <sched.h>

/* The CPUs this process may run on, as a mask; all online CPUs if the
 * affinity cannot be read. */
static void own_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0) return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < online && i < CPU_SETSIZE; ++i) CPU_SET((int)i, set);
}

/* This host's name as one word. Hosts simulated for tests
 * (IBSEC_CAPTURE_SIMULATE_HOSTS) share a name: their first rank tells them
 * apart. */
static void host_name(char *name)
{
    char raw[HOST_NAME_SIZE] = "";
    if (gethostname(raw, sizeof raw - 1) != 0 || !raw[0]) snprintf(raw, sizeof raw, "unknown");
    raw[sizeof raw - 1] = '\0';
    for (char *c = raw; *c; ++c)
        if ((unsigned char)*c <= ' ' || (unsigned char)*c == 0x7f) *c = '_';
    if (S.skew || (getenv("IBSEC_CAPTURE_SIMULATE_HOSTS") && getenv("IBSEC_CAPTURE_SIMULATE_HOSTS")[0]))
        snprintf(name, HOST_NAME_SIZE, "%.40s#%d", raw, S.rank);
    else
        snprintf(name, HOST_NAME_SIZE, "%s", raw);
}

/* Collective over the world, at MPI_Finalize (S.node and S.leaders still
 * exist). Rank 0 gets one fact per host in *FACTS, its own host first;
 * the others get none. Returns 0 on rank 0 if out of memory. */
int host_facts(struct host_fact **facts, size_t *n)
{
    struct host_fact mine;
    memset(&mine, 0, sizeof mine); /* sent as bytes: no uninitialised padding */
    cpu_set_t cpus;
    own_cpus(&cpus);
    PMPI_Allreduce(MPI_IN_PLACE, &cpus, (int)sizeof cpus, MPI_BYTE, MPI_BOR, S.node);
    int ranks = 0;
    PMPI_Comm_size(S.node, &ranks);
    mine.cpus = (uint32_t)CPU_COUNT(&cpus);
    mine.ranks = (uint32_t)ranks;
    host_name(mine.name);

    *facts = NULL;
    *n = 0;
    if (S.leaders == MPI_COMM_NULL) return 1;
    int hosts = 0, me = 0;
    PMPI_Comm_size(S.leaders, &hosts);
    PMPI_Comm_rank(S.leaders, &me);
    struct host_fact *all = me == 0 ? calloc((size_t)hosts, sizeof *all) : NULL;
    int ok = me != 0 || all != NULL;
    /* Every leader takes part whether rank 0 could make room or not. */
    PMPI_Bcast(&ok, 1, MPI_INT, 0, S.leaders);
    if (ok) PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, S.leaders);
    if (me == 0 && ok) {
        *facts = all;
        *n = (size_t)hosts;
    }
    return ok;
}

/* One note per host: `host NAME cpus C ranks R`, and `oversubscribed` when
 * it had more processes than CPUs. */
void host_notes(const struct host_fact *hosts, size_t n, struct text *notes)
{
    for (size_t i = 0; i < n; ++i) {
        char name[HOST_NAME_SIZE];
        snprintf(name, sizeof name, "%s", hosts[i].name); /* ends it, whatever came over the wire */
        text_printf(notes, "host %s cpus %" PRIu32 " ranks %" PRIu32 "%s\n", name, hosts[i].cpus, hosts[i].ranks,
                    hosts[i].ranks > hosts[i].cpus ? " oversubscribed" : "");
    }
}
