/* MPI_Init: libibsec_capture starts recording (see capture_internal.h). */
#include "capture_internal.h"

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
char *temp_path(const char *path)
{
    return format("%s.tmp.%ld", path, (long)getpid());
}

/* Called after PMPI_Init(_thread) succeeded. ARGV0 may be NULL. */
void capture_start(const char *argv0, int thread_level)
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
    if (grow((void **)&S.comms, &S.capcomms, 1, sizeof *S.comms) && map_put(&S.comm_by_handle, world.key, 0)) {
        S.comms[0] = world;
        S.ncomms = 1;
    } else {
        S.failed = 1;
    }
    S.next_comm_id = 1;
    if (S.failed) warn("out of memory at MPI_Init: no trace will be written");

    /* Find out now, not after a long run, whether the trace can be
     * written where it is asked for. Only rank 0 knows (the path is its
     * own), and the others are already on their way into the barrier below:
     * MPI_Abort is how one process ends an MPI job, and mpirun then exits
     * with its status. */
    if (S.rank == 0 && S.trace_path) {
        char why[1024];
        if (!trace_output_usable(S.trace_path, why, sizeof why)) {
            warn("IBSEC_TRACE '%s' %s; stopping at MPI_Init rather than losing the trace at MPI_Finalize", S.trace_path,
                 why);
            PMPI_Abort(MPI_COMM_WORLD, 1);
            exit(EXIT_FAILURE); /* not reached */
        }
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
    S.cpu_clock = cpu_clock_from_environment();
    S.last_end_cpu = cpu_ns();
    S.last_end_cpu_known = S.cpu_clock != CPU_CLOCK_NONE;
    S.last_end_thread = pthread_self();
    S.active = 1;
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
