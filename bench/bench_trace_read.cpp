// Trace reader throughput: events per second read from one synthetic trace in
// each encoding, (a) with TraceReader::next alone and (b) through all the
// cross-event checks (check_whole_trace), as `ibsec trace validate` and the
// replay do. Targets: >= 5 M events/s from binary, >= 1 M/s from text.
//
// Run: build/bench/bench_trace_read [--benchmark_filter=...]
// IBSEC_BENCH_TRACE_EVENTS=N changes the trace size (default 2 000 000),
// e.g. a smaller one under callgrind. The traces are written once, to a
// directory under $TMPDIR that is removed at exit.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace {

namespace fs = std::filesystem;
using ibsec::traces::TraceEvent;
using ibsec::traces::TraceOp;

constexpr uint32_t kProcesses = 16;

// One trace written in every encoding; the files go when the program ends.
struct BenchTraces {
  fs::path dir;
  uint64_t events = 0;
  std::string text, binary, text_gz, binary_zst;

  BenchTraces() {
    uint64_t wanted = 2'000'000;
    if (const char* n = std::getenv("IBSEC_BENCH_TRACE_EVENTS")) wanted = std::strtoull(n, nullptr, 10);
    dir = fs::temp_directory_path() / ("ibsec_bench_trace_read." + std::to_string(::getpid()));
    fs::create_directories(dir);
    text = (dir / "bench.trace").string();
    binary = (dir / "bench.ibtb").string();
    text_gz = (dir / "bench.trace.gz").string();
    binary_zst = (dir / "bench.ibtb.zst").string();
    write(wanted);
  }
  ~BenchTraces() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  // Iterations of a BSP-like loop over 16 ranks, 1000 ns each: compute; a
  // ring exchange with isend/irecv; blocking send/recv between rank pairs;
  // the two waits; an allreduce every 4th iteration. About 100 events an
  // iteration, sorted by start, valid for every check.
  void write(uint64_t wanted) {
    ibsec::traces::TraceHeader header;
    header.processes = kProcesses;
    header.origin = ibsec::traces::TraceOrigin::kSynthetic;
    header.origin_text = "bench_trace_read";
    header.notes.push_back("reader benchmark: compute, isend/irecv ring, send/recv pairs, allreduce");
    std::vector<std::unique_ptr<ibsec::traces::TraceWriter>> writers;
    for (const auto* path : {&text, &binary, &text_gz, &binary_zst}) {
      writers.push_back(std::make_unique<ibsec::traces::TraceWriter>(*path, header));
    }
    std::vector<TraceEvent> batch;
    for (uint64_t it = 0; events < wanted; ++it) {
      const uint64_t t = it * 1000;
      const uint64_t bytes = 1024 + (it % 8) * 512;
      batch.clear();
      for (uint32_t r = 0; r < kProcesses; ++r) {
        const uint32_t next = (r + 1) % kProcesses;
        const uint32_t prev = (r + kProcesses - 1) % kProcesses;
        auto ev = [&](uint64_t start, uint64_t end, TraceOp op) -> TraceEvent& {
          TraceEvent& e = batch.emplace_back();
          e.rank = r;
          e.start_ns = t + start;
          e.end_ns = t + end;
          e.op = op;
          return e;
        };
        ev(0, 100 + (r * 7 + it) % 50, TraceOp::kCompute);
        TraceEvent& is = ev(200, 210, TraceOp::kIsend);
        is.peer = next, is.bytes = bytes, is.tag = 1, is.request = 0;
        TraceEvent& ir = ev(210, 220, TraceOp::kIrecv);
        ir.peer = prev, ir.bytes = bytes, ir.tag = 1, ir.request = 1;
        TraceEvent& p2p = (r % 2 == 0) ? ev(300, 350, TraceOp::kSend) : ev(300, 400, TraceOp::kRecv);
        p2p.peer = r ^ 1u, p2p.bytes = 64 + (it % 16), p2p.tag = 2;
        ev(400, 500, TraceOp::kWait).request = 0;
        ev(500, 600, TraceOp::kWait).request = 1;
        if (it % 4 == 0) ev(700, 800, TraceOp::kAllreduce).bytes = 8;
      }
      std::stable_sort(batch.begin(), batch.end(),
                       [](const TraceEvent& a, const TraceEvent& b) { return a.start_ns < b.start_ns; });
      for (const auto& e : batch) {
        for (auto& w : writers) w->write(e);
      }
      events += batch.size();
    }
    for (auto& w : writers) w->finish();
  }
};

const BenchTraces& traces() {
  static const BenchTraces all;
  return all;
}

void BM_TraceRead(benchmark::State& state, const std::string BenchTraces::*path, bool check) {
  const BenchTraces& t = traces();
  uint64_t events = 0;
  for (auto _ : state) {
    try {
      ibsec::traces::TraceReader reader(t.*path);
      if (check) {
        ibsec::traces::check_whole_trace(reader);
      } else {
        TraceEvent event;
        while (reader.next(event)) benchmark::DoNotOptimize(event);
      }
      events += reader.events_read();
      if (reader.events_read() != t.events) {
        state.SkipWithError("the reader returned the wrong number of events");
        break;
      }
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fs::file_size(t.*path)));
  state.counters["events"] = static_cast<double>(t.events);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(t.*path)) / 1e6;
}

#define IBSEC_TRACE_READ_BENCH(encoding)                                            \
  BENCHMARK_CAPTURE(BM_TraceRead, encoding, &BenchTraces::encoding, false)          \
      ->Name("TraceRead/next/" #encoding)                                           \
      ->Unit(benchmark::kMillisecond)                                               \
      ->UseRealTime();                                                              \
  BENCHMARK_CAPTURE(BM_TraceRead, encoding##_checked, &BenchTraces::encoding, true) \
      ->Name("TraceRead/checked/" #encoding)                                        \
      ->Unit(benchmark::kMillisecond)                                               \
      ->UseRealTime()

IBSEC_TRACE_READ_BENCH(binary);
IBSEC_TRACE_READ_BENCH(text);
IBSEC_TRACE_READ_BENCH(text_gz);
IBSEC_TRACE_READ_BENCH(binary_zst);

}  // namespace

BENCHMARK_MAIN();
