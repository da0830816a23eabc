"""Wall time of `ibsec --version` and `ibsec --help` (a fresh interpreter each), median and range of repeats, and
the modules that cost most at import (python -X importtime). The target is under 0.3 s each (docs/performance.md).

Run: .venv/bin/python bench/bench_cli_startup.py [REPEATS]
"""

import statistics
import subprocess
import sys
import time

COMMANDS = [["--version"], ["--help"], ["run", "--help"]]
TARGET_S = 0.3


def wall_times(arguments: list[str], repeats: int) -> list[float]:
    command = [sys.executable, "-m", "ibsec.cli", *arguments]
    subprocess.run(command, capture_output=True, check=True)  # the first run fills the page cache and .pyc files
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def slowest_imports(arguments: list[str], shown: int = 8) -> list[tuple[float, str]]:
    """(cumulative seconds, module) of the top-level imports that took longest."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "ibsec.cli", *arguments], capture_output=True,
                          text=True, check=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if cumulative.strip().isdigit() and not name.startswith("   "):  # top level: at most 2 spaces of nesting
            rows.append((int(cumulative) / 1e6, name.strip()))
    return sorted(rows, reverse=True)[:shown]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    print(f"{'command':<24} {'median':>8} {'min':>8} {'max':>8}  (s, {repeats} runs, target < {TARGET_S} s)")
    for arguments in COMMANDS:
        times = wall_times(arguments, repeats)
        name = "ibsec " + " ".join(arguments)
        print(f"{name:<24} {statistics.median(times):8.3f} {min(times):8.3f} {max(times):8.3f}")
    print("\nslowest imports of `ibsec --help` (cumulative s):")
    for seconds, module in slowest_imports(["--help"]):
        print(f"  {seconds:6.3f}  {module}")


if __name__ == "__main__":
    main()
