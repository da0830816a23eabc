// jemalloc's options, read from this symbol when it starts (before main):
// its arenas on transparent huge pages. A large fabric's state (switches,
// links, cards, the session rows, the packets) is tens of MiB touched at
// random, so with 4 KiB pages most misses also miss the TLB and walk the
// page table; with 2 MiB pages the same state takes a few dozen TLB entries
// (docs/performance.md, "Huge pages, session rows and a look-ahead"). THP's own setting still rules: with
// transparent_hugepage "never", the pages stay 4 KiB.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's documented interface
const char* malloc_conf = "thp:always";
}
