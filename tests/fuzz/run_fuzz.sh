#!/usr/bin/env bash
# Builds a fuzz target with clang + libFuzzer (ASan, UBSan) in build-fuzz/
# and fuzzes it for SECONDS (default 60) from a copy of its seed corpus:
# TARGET trace (default: the trace reader) or config (the configuration
# layer: config file, attack file, --set). Exits non-zero when the run left a
# crash, leak, timeout or OOM artifact (in build-fuzz/fuzz-artifacts-TARGET/),
# or when the build fails.
#
#   bash tests/fuzz/run_fuzz.sh [SECONDS] [trace|config]
#
# Environment: IBSEC_FUZZ_KNOWN sets known findings aside (see
# trace_reader_fuzz.cpp); FUZZ_JOBS=N runs N fuzzing processes in libFuzzer's fork mode
# and keeps going after a finding (default 1: a single process that stops at
# the first one); FUZZ_ARGS adds libFuzzer options.
# Reproduce a finding: build-fuzz/tests/fuzz/trace_reader_fuzz ARTIFACT
set -euo pipefail

seconds=${1:-60}
target=${2:-trace}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build-fuzz
here=$root/tests/fuzz

mkdir -p "$build"
clang=$(command -v clang++ || command -v clang++-14 || true)
[ -n "$clang" ] || { echo "run_fuzz: clang++ not found (Debian: clang-14 libclang-rt-14-dev)"; exit 2; }
CC=${clang%++*}${clang##*++} CXX=$clang cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DIBSEC_FUZZ=ON -DIBSEC_BUILD_TESTS=OFF -DIBSEC_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
case "$target" in
  trace) program=trace_reader_fuzz; corpus=$here/corpus; regressions=$here/regressions; dict=$here/trace.dict ;;
  config) program=config_fuzz; corpus=$here/config_corpus; regressions=$here/config_regressions
          dict=$build/config.dict ;;
  *) echo "run_fuzz: unknown target '$target' (trace or config)"; exit 2 ;;
esac
cmake --build "$build" --target "$program"
fuzzer=$build/tests/fuzz/$program
if [ "$target" = config ]; then
  # Every parameter key, from the engine's own list, as a dictionary entry.
  cmake --build "$build" --target ibsec-engine
  "$build/ibsec-engine" params --json | grep -oE '"key": "[^"]+"' | sed -E 's/"key": (.*)/\1/' >"$dict"
  printf '"{"\n"}"\n"\\x00"\n"="\n"cacti"\n"functional"\n"fat-tree"\n"node 0 out"\n' >>"$dict"
fi

# libFuzzer adds what it finds to the corpus directory: work on a copy.
work=$build/fuzz-corpus-$target
artifacts=$build/fuzz-artifacts-$target
mkdir -p "$work" "$artifacts"
cp -n "$corpus"/* "$work"/ 2>/dev/null || true
before=$(find "$artifacts" -type f | wc -l)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# The saved reproducers of earlier findings are replayed first, for
# information only (they are not part of the corpus: one that still crashes
# would stop the fuzzer at once). FUZZ_REGRESSIONS=0 skips this.
if [ "${FUZZ_REGRESSIONS:-1}" != 0 ] && compgen -G "$regressions/*" >/dev/null; then
  for f in "$regressions"/*; do
    [[ "$f" == *.md ]] && continue
    if "$fuzzer" -timeout=5 -rss_limit_mb=2048 "$f" >"$build/regression.log" 2>&1; then
      echo "regression $(basename "$f"): passes"
    else
      echo "regression $(basename "$f"): STILL FAILS: $(grep -m1 -E 'ERROR|round trip|what\(\)' "$build/regression.log" | cut -c1-160)"
    fi
  done
fi

log=$build/fuzz-$(date +%Y%m%d-%H%M%S).log
args=(-max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -dict="$dict"
      -artifact_prefix="$artifacts/" -print_final_stats=1)
jobs=${FUZZ_JOBS:-1}
if [ "$jobs" -gt 1 ]; then
  args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
# shellcheck disable=SC2206
extra=(${FUZZ_ARGS:-})
echo "fuzzing for ${seconds}s (log: $log)"
status=0
"$fuzzer" "${args[@]}" "${extra[@]}" "$work" >"$log" 2>&1 || status=$?

# Summary: the last status line (cov/ft), executions and their rate.
last=$(grep -E '#[0-9]+.*(cov|ft):' "$log" | tail -n 1 || true)
runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1 || true)
rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1 || true)
if [ -z "$runs" ]; then runs=$(echo "$last" | grep -oE '^#[0-9]+' | tr -d '#' || true); fi
if [ -z "$rate" ]; then rate=$(echo "$last" | grep -oE 'exec/s: *[0-9]+' | grep -oE '[0-9]+' || true); fi
echo "last status line: ${last:-none}"
echo "executions: ${runs:-?}  executions/s: ${rate:-?}  libFuzzer exit status: $status"

found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) -newer "$build/configure.log" | sort)
if [ -n "$found" ] || [ "$(find "$artifacts" -type f | wc -l)" -gt "$before" ]; then
  echo "FINDINGS (reproduce with: $fuzzer FILE):"
  for f in $found; do echo "  $f ($(stat -c %s "$f") bytes)"; done
  grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*deadly signal|.*ALARM|.*out-of-memory|.*round trip)' "$log" | sort -u | head -n 20 || true
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "the fuzzer failed without an artifact; see $log"
  tail -n 30 "$log"
  exit "$status"
fi
echo "no findings"
