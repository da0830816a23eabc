#!/usr/bin/env bash
# Sets ibsec up on a Debian machine (as root, or with sudo) and runs the main
# job: installs the system packages, builds the C++ engine in build/,
# installs the Python package into .venv, then installs the engine and links
# `ibsec` onto the PATH.
#   ./scripts/setup.sh               set up, then run the main job
#   ./scripts/setup.sh --no-run      set up only
#   ./scripts/setup.sh --no-install  leave /usr/local alone: everything stays in
#                                    this checkout (build/, .venv/), as CI runs
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
run_main_job=1
install_system_wide=1
for option in "$@"; do
  case "$option" in
    --no-run) run_main_job=0 ;;
    --no-install) install_system_wide=0 ;;
    *) echo "setup: unknown option $option (known: --no-run, --no-install)" >&2; exit 2 ;;
  esac
done

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

echo "== system packages"
# Open MPI, gfortran and make also build and run the MPI programs the tests capture: tests/capture and the NAS
# Parallel Benchmarks (tests/python/test_npb.py, docs/real-traces.md).
apt_packages=(build-essential make cmake ninja-build pkg-config python3 python3-venv python3-pip
              libsystemc-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
              nlohmann-json3-dev libboost-iostreams-dev libzstd-dev libssl-dev
              libopenmpi-dev openmpi-bin gfortran)
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== C++ engine (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build

echo "== Python package (.venv/)"
[[ -x .venv/bin/python ]] || python3 -m venv .venv
pip_log=.venv/pip-install.log
if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e "analytics[test]"; } >"$pip_log" 2>&1; then
  tail -30 "$pip_log"; echo "setup: pip install failed (full log: $pip_log)" >&2; exit 1
fi

if ((install_system_wide)); then
  echo "== install: ibsec-engine and ibsec in /usr/local/bin"
  as_root cmake --install build --prefix /usr/local >/dev/null
  as_root ln -sf "$root/.venv/bin/ibsec" /usr/local/bin/ibsec
  ibsec=ibsec
else
  export IBSEC_ENGINE="$root/build/ibsec-engine"
  ibsec="$root/.venv/bin/ibsec"
fi

echo "== ready: $("$ibsec" --version | tr '\n' ' ')"
if ((run_main_job)); then
  echo "== main job: ibsec study"
  "$ibsec" study --out results
fi
