#!/usr/bin/env bash
# Runs the whole test suite: the C++ GoogleTest cases (one process each,
# through ctest) and the Python tests. Builds first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)"
IBSEC_ENGINE="$(pwd)/build/ibsec-engine" .venv/bin/python -m pytest tests/python -q
