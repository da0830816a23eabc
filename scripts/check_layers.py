#!/usr/bin/env python3
"""Checks that the C++ engine's folders include only downwards.

The layers, lowest first (CMakeLists.txt says the same): a file may include
headers of its own folder and of folders before it, never of a folder after
it. Prints every upward include as FILE:LINE: FOLDER includes HEADER and
exits 1 if there is one.

    scripts/check_layers.py [REPO]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LAYERS = ["core", "traces", "network", "nic", "attack", "schedulers", "hosts", "cachesim", "sim", "apps"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def upward_includes(repo: Path) -> list[str]:
    rank = {folder: i for i, folder in enumerate(LAYERS)}
    found = []
    for folder in LAYERS:
        for path in sorted((repo / folder).rglob("*")):
            if path.suffix not in {".h", ".cpp", ".c", ".def"}:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1).split("/")[0]
                if target in rank and rank[target] > rank[folder]:
                    found.append(f"{path.relative_to(repo)}:{number}: {folder} includes {match.group(1)}")
    return found


def main() -> int:
    repo = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    found = upward_includes(repo)
    for line in found:
        print(line)
    print(f"{len(found)} upward includes across {len(LAYERS)} layers ({' < '.join(LAYERS)})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
