/*
 * The CPU time a fixed piece of work takes right after its process gets the
 * CPU back (docs/real-traces.md, "Execution time on real traces"): two
 * processes pass a turn through a flag in shared memory, and between turns
 * each reads a buffer once. The waiting process either polls the flag (as
 * Open MPI's processes do on a host it does not know to be oversubscribed)
 * or yields the CPU while it polls (mpi_yield_when_idle, which Open MPI
 * takes by itself on a host it knows to be oversubscribed).
 *
 *   cc -O2 -o bench_switch_cost bench/bench_switch_cost.c
 *   ./bench_switch_cost BYTES TURNS poll|yield                  # a CPU each
 *   taskset -c 0 ./bench_switch_cost BYTES TURNS poll|yield     # one CPU
 *
 * Prints the median CPU time (CLOCK_THREAD_CPUTIME_ID) and wall time of one
 * piece of work. Confined and polling, each turn waits for the other
 * process's time slice to run out, so keep TURNS small (100 takes seconds).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[3], "poll") != 0 && strcmp(argv[3], "yield") != 0)) {
    fprintf(stderr, "usage: %s BYTES TURNS poll|yield\n", argv[0]);
    return 2;
  }
  const size_t doubles = strtoul(argv[1], NULL, 0) / sizeof(double);
  const int turns = atoi(argv[2]);
  const int yield = strcmp(argv[3], "yield") == 0;
  if (doubles == 0 || turns <= 0) {
    fprintf(stderr, "%s: BYTES must be at least 8 and TURNS at least 1\n", argv[0]);
    return 2;
  }
  volatile int* turn = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (turn == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  *turn = 0;
  const pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  const int me = child == 0;
  volatile double* buffer = calloc(doubles, sizeof(double));
  long *cpu = malloc(turns * sizeof(long)), *wall = malloc(turns * sizeof(long));
  if (!buffer || !cpu || !wall) {
    perror("malloc");
    return 1;
  }
  double sum = 0;
  for (int t = 0; t < turns; ++t) {
    while (*turn != me) {
      if (yield) sched_yield();
    }
    const long cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = now_ns(CLOCK_MONOTONIC);
    for (size_t i = 0; i < doubles; i += 8) sum += buffer[i];  // one read a 64-byte line
    cpu[t] = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    wall[t] = now_ns(CLOCK_MONOTONIC) - wall0;
    *turn = !me;
  }
  if (me) return sum != 0;  // the buffer is zero: 0, and the reads are not optimised away
  qsort(cpu, turns, sizeof(long), by_value);
  qsort(wall, turns, sizeof(long), by_value);
  printf("%s, %zu bytes: median CPU time %ld ns, wall %ld ns\n", argv[3], doubles * sizeof(double), cpu[turns / 2],
         wall[turns / 2]);
  waitpid(child, NULL, 0);
  return 0;
}
