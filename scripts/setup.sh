#!/usr/bin/env bash
# Sets ibsec up inside this checkout and runs the main job: checks the Debian
# packages it needs (installing them when run as root), builds the C++ engine
# in build/, installs the Python package into .venv/ (it runs build/ibsec-engine
# from wherever it is started), then runs `ibsec study` into out/ (ignored by
# git: setup never changes a tracked file). Nothing is written outside the
# checkout unless --prefix is given.
#   ./scripts/setup.sh                  set up, then run the main job
#   ./scripts/setup.sh --no-run         set up only
#   ./scripts/setup.sh --packages-only  (as root) only install the Debian packages, e.g. for users who then
#                                       run ./scripts/setup.sh as themselves
#   ./scripts/setup.sh --prefix DIR     also install ibsec-engine into DIR/bin (and the capture library into
#                                       DIR/lib) and link DIR/bin/ibsec to .venv/bin/ibsec, e.g. --prefix ~/.local
# Without root, the system packages must be there already; if some are not, setup prints the apt-get command
# that installs them (for root to run) and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
run_main_job=1
packages_only=0
prefix=
while (($#)); do
  case "$1" in
    --no-run) run_main_job=0 ;;
    --packages-only) packages_only=1 ;;
    --prefix)
      [[ $# -ge 2 && -n $2 ]] || { echo "setup: --prefix needs a folder, e.g. --prefix ~/.local" >&2; exit 2; }
      prefix=$2
      shift
      ;;
    --prefix=*) prefix=${1#--prefix=} ;;
    --no-install) echo "setup: --no-install is the default now (nothing outside the checkout without --prefix)" >&2 ;;
    *) echo "setup: unknown option $1 (known: --no-run, --packages-only, --prefix DIR)" >&2; exit 2 ;;
  esac
  shift
done

echo "== system packages"
# What the simulator needs (engine and Python package); what only the test suite needs (GoogleTest, Google
# Benchmark); what only the capture library and the NPB tests need (Open MPI, gfortran: tests/capture,
# tests/python/test_npb.py, docs/real-traces.md). Root installs all three; without root only a missing package of
# the first kind stops setup. ccache makes a second build of the same sources (another checkout, CI's non-root
# setup) nearly free.
simulator_packages=(build-essential make cmake ninja-build pkg-config ccache python3 python3-venv
                    libsystemc-dev libcli11-dev nlohmann-json3-dev libboost-iostreams-dev libzstd-dev libssl-dev
                    libabsl-dev libjemalloc-dev)
# ibsim, OpenSM and the diagnostics regenerate the reference fabrics' routes live (tests/fabrics/README.md); the
# comparison with the committed dumps runs without them.
# EZTrace writes the OTF2 traces the import conformance test compares with the capture library's
# (tests/python/test_otf2_conformance.py, skipped without it). Autoconf, automake and libtool build SST's DUMPI
# tracer from ../shared/sst-dumpi for the DUMPI conformance test (tests/python/test_dumpi_conformance.py).
test_packages=(libgtest-dev libbenchmark-dev ibsim-utils opensm infiniband-diags eztrace autoconf automake libtool)
capture_packages=(libopenmpi-dev openmpi-bin gfortran)
import_packages=(libotf2-trace-dev)  # `trace import` of OTF2 archives (traces/import); left out of the engine without it
missing_of() { local p; for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done; }
mapfile -t missing < <(missing_of "${simulator_packages[@]}" "${test_packages[@]}" "${capture_packages[@]}" \
                                  "${import_packages[@]}")
if ((${#missing[@]})) && [[ $(id -u) -eq 0 ]]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
elif ((${#missing[@]})); then
  mapfile -t missing_simulator < <(missing_of "${simulator_packages[@]}")
  if ((${#missing_simulator[@]})); then
    echo "setup: the simulator needs these Debian packages, which are missing: ${missing_simulator[*]}" >&2
    echo "setup: as root (e.g. with sudo), run:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    echo "setup: then run ./scripts/setup.sh again (as yourself: no root needed once they are there)" >&2
    exit 1
  fi
  echo "note: not installed: ${missing[*]}; the simulator does not need them, so setup goes on." >&2
  echo "note: ./scripts/test.sh needs libgtest-dev (libbenchmark-dev for bench/; ibsim-utils, opensm and" >&2
  echo "      infiniband-diags to regenerate OpenSM's routes live, eztrace for the OTF2 conformance test," >&2
  echo "      autoconf, automake and libtool to build SST's DUMPI tracer for the DUMPI conformance test);" >&2
  echo "      the capture library" >&2
  echo "      (LD_PRELOAD of MPI programs) and the NPB tests need libopenmpi-dev, openmpi-bin and gfortran;" >&2
  echo "      'trace import' of OTF2 archives needs libotf2-trace-dev (then build again)." >&2
  echo "note: as root: apt-get install -y ${missing[*]}" >&2
fi
((packages_only)) && exit 0

echo "== C++ engine (build/)"
# CMakeLists.txt uses ccache when it is installed.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only what `ibsec` runs: the engine, and the capture library where MPI is installed. ./scripts/test.sh builds
# the tests, fuzz replays and benchmarks.
targets=(ibsec-engine)
if cmake --build build --target help | grep -q '^ibsec_capture:'; then targets+=(ibsec_capture); fi
echo "   building ${targets[*]}: about 3 minutes on 2 cores with a cold compiler cache, seconds with a warm one"
cmake --build build --target "${targets[@]}"

echo "== Python package (.venv/)"
[[ -x .venv/bin/python ]] || python3 -m venv .venv
pip_log=.venv/pip-install.log
if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e "analytics[test]"; } >"$pip_log" 2>&1; then
  tail -30 "$pip_log"; echo "setup: pip install failed (full log: $pip_log)" >&2; exit 1
fi
ibsec="$root/.venv/bin/ibsec"

if [[ -n $prefix ]]; then
  echo "== install: ibsec-engine and ibsec into $prefix/bin"
  mkdir -p "$prefix/bin"
  cmake --install build --prefix "$prefix" >/dev/null
  ln -sf "$ibsec" "$prefix/bin/ibsec"
fi

echo "== ready: $("$ibsec" --version | tr '\n' ' ')"
if [[ -z $prefix ]]; then
  echo "   ibsec is $ibsec: put $root/.venv/bin on your PATH (or 'source .venv/bin/activate'),"
  echo "   or link it into a folder on your PATH with ./scripts/setup.sh --no-run --prefix ~/.local"
fi
if ((run_main_job)); then
  echo "== main job: ibsec study (into out/)"
  "$ibsec" study --out out
fi
