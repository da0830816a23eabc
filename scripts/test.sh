#!/usr/bin/env bash
# Runs the test suite: the C++ GoogleTest cases (one process each, through
# ctest) and the Python tests of pytest.ini's testpaths (tests/python and the
# hostile-input reproducers of tests/hostile), the unit and model tiers. Builds first if
# needed. The model tier includes the NAS Parallel Benchmarks end to end
# (marker npb, about half a minute on two cores; skipped, with the reason
# printed, without ../shared/npb or Open MPI). The soak tier (long runs) is
# left to CI (.ci/run) or:
#   ./scripts/test.sh --soak     also the soak tier
#   ./scripts/test.sh --quick    the unit tier alone (no simulation longer than a second)
# pytest prints why a test was skipped and which known failures (xfail) remain.
set -euo pipefail
case "${1:-}" in
  "" | --quick | --soak) ;;
  *) echo "usage: scripts/test.sh [--quick | --soak]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
[[ -x build/tests/cpp/ibsec_unit_tests ]] || {
  echo "test: the C++ tests were not built: GoogleTest is missing (as root: apt-get install -y libgtest-dev)" >&2
  exit 1
}
export IBSEC_ENGINE="$(pwd)/build/ibsec-engine"
# pytest: the tests on every core (pytest-xdist; worksteal keeps both busy when a long test comes late), then those
# that measure CPU time against wall time (marker quiet) one at a time, on a machine left to them.
pytest_on_every_core() { .venv/bin/python -m pytest -q -rsx -n auto --dist worksteal -m "($1) and not quiet"; }
pytest_quietly() { .venv/bin/python -m pytest -q -rsx -m "($1) and quiet"; }
case "${1:-}" in
  --quick) ctest_selection=(-L unit) pytest_selection="unit and not soak and not hours" ;;
  --soak) ctest_selection=() pytest_selection="not hours" ;;
  *) ctest_selection=(-LE soak) pytest_selection="not soak and not hours" ;;
esac
ctest --test-dir build --output-on-failure -j "$(nproc)" "${ctest_selection[@]}"
pytest_on_every_core "$pytest_selection"
# Exit code 5: nothing selected (--quick has no quiet test).
pytest_quietly "$pytest_selection" || [[ $? -eq 5 ]]
