#!/usr/bin/env bash
# Sets ibsec up on a Debian machine (as root, or with sudo) and runs the main
# job: installs the system packages, builds and installs the C++ engine,
# installs the Python package into .venv, links `ibsec` onto the PATH.
#   ./scripts/setup.sh            set up, then run the main job
#   ./scripts/setup.sh --no-run   set up only
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
run_main_job=1
[[ "${1:-}" == "--no-run" ]] && run_main_job=0

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

echo "== system packages"
apt_packages=(build-essential cmake ninja-build pkg-config python3 python3-venv python3-pip
              libsystemc-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
              nlohmann-json3-dev libfmt-dev libboost-iostreams-dev libssl-dev
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
as_root cmake --install build --prefix /usr/local >/dev/null

echo "== Python package (.venv/)"
[[ -x .venv/bin/python ]] || python3 -m venv .venv
pip_log=.venv/pip-install.log
if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e "analytics[test]"; } >"$pip_log" 2>&1; then
  tail -30 "$pip_log"; echo "setup: pip install failed (full log: $pip_log)" >&2; exit 1
fi
as_root ln -sf "$root/.venv/bin/ibsec" /usr/local/bin/ibsec

echo "== ready: $(ibsec --version), $(ibsec-engine --version | head -1)"
if ((run_main_job)); then
  echo "== main job: ibsec study"
  ibsec study --out results
fi
