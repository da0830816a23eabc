"""Running ibsec-engine on a hostile input, for the tests of tests/hostile/test_engine_*.py."""

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAPER16 = str(REPO / "configs" / "paper-16.json")


def engine() -> str:
    return os.environ.get("IBSEC_ENGINE") or str(REPO / "build" / "ibsec-engine")


def run(*arguments: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """ibsec-engine ARGUMENTS; a hang fails the test through the timeout."""
    return subprocess.run([engine(), *arguments], capture_output=True, text=True, timeout=timeout, check=False,
                          **kwargs)


def refused(result: subprocess.CompletedProcess, field: str, *words: str) -> bool:
    """Exit 2 with one error line naming `field` (and containing `words`)."""
    error = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
    return (result.returncode == 2 and error.startswith(f"ibsec-engine: error: invalid '{field}'")
            and all(w in error for w in words))
