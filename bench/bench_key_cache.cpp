// KeyCache look-ups per second, and the ON/OFF generator + cache end to end.
// Run: build/bench/bench_key_cache --benchmark_min_time=1s
#include <benchmark/benchmark.h>

#include <vector>

#include "cachesim/onoff_cachesim.h"
#include "cachesim/onoff_generator.h"
#include "core/random.h"
#include "nic/key_cache.h"

namespace {

using ibsec::SessionKeyId;

// Look-ups from 10 000 distinct keys with ON/OFF locality (BT-like duty
// cycle), pre-generated so that only the cache is timed.
const std::vector<SessionKeyId>& onoff_keys() {
  static const std::vector<SessionKeyId> keys = [] {
    ibsec::cachesim::OnOffGenerator gen({10000, 2.0, 16.0, 100.0, 1});
    std::vector<SessionKeyId> v(1 << 22);
    for (auto& k : v) k = gen.next();
    return v;
  }();
  return keys;
}

const std::vector<SessionKeyId>& uniform_keys() {
  static const std::vector<SessionKeyId> keys = [] {
    ibsec::Rng rng(1);
    std::vector<SessionKeyId> v(1 << 22);
    for (auto& k : v) k = SessionKeyId(rng.below(10000));
    return v;
  }();
  return keys;
}

// One cache, one pre-generated key stream, one policy: only the cache is timed.
void BM_KeyCacheLookup(benchmark::State& state, const std::vector<SessionKeyId>& (*keys_of)(), const char* policy) {
  const auto entries = static_cast<uint32_t>(state.range(0));
  const auto ways = static_cast<uint32_t>(state.range(1));
  ibsec::nic::KeyCache cache({entries, ways, policy, 1});
  const auto& keys = keys_of();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.access(keys[i]));
    i = (i + 1) & (keys.size() - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = cache.stats().hit_rate();
}
BENCHMARK_CAPTURE(BM_KeyCacheLookup, onoff_lru, onoff_keys, "lru")
    ->Name("KeyCacheLookup/onoff10k")
    ->Args({512, 0})
    ->Args({512, 16})
    ->Args({1024, 0})
    ->Args({1024, 16});
BENCHMARK_CAPTURE(BM_KeyCacheLookup, uniform_lru, uniform_keys, "lru")
    ->Name("KeyCacheLookup/uniform10k")
    ->Args({512, 0})
    ->Args({512, 16});
// The other online policies on the same trace: the index and the miss path
// are shared, so they should move with LRU.
BENCHMARK_CAPTURE(BM_KeyCacheLookup, fifo, onoff_keys, "fifo")->Name("BM_KeyCachePolicy/fifo")->Args({512, 16});
BENCHMARK_CAPTURE(BM_KeyCacheLookup, random, onoff_keys, "random")->Name("BM_KeyCachePolicy/random")->Args({512, 16});
BENCHMARK_CAPTURE(BM_KeyCacheLookup, lfu, onoff_keys, "lfu")->Name("BM_KeyCachePolicy/lfu")->Args({512, 16});

void BM_OnOffGenerator(benchmark::State& state) {
  ibsec::cachesim::OnOffGenerator gen({10000, 2.0, 16.0, 100.0, 1});
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OnOffGenerator);

void BM_CacheSimEndToEnd(benchmark::State& state) {
  for (auto _ : state) {
    ibsec::cachesim::CacheSimConfig c;
    c.workload = {10000, 2.0, 16.0, 100.0, 1};
    c.cache = {1024, 0, "lru", 1};
    c.accesses = 10'000'000;
    c.warmup = 0;
    benchmark::DoNotOptimize(ibsec::cachesim::run_cachesim(c));
  }
  state.SetItemsProcessed(state.iterations() * 10'000'000);
}
BENCHMARK(BM_CacheSimEndToEnd)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
