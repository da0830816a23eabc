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


def with_memory_limit(gib: float = 4):
    """A preexec_fn bounding the engine's address space: a regression that allocates without bound then fails
    with bad_alloc instead of exhausting the machine the tests run on."""
    import resource

    def limit():
        size = int(gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


def tiny_trace(path: Path) -> Path:
    """A valid two-rank trace of one 64-byte message."""
    path.write_text("ibsec-trace 2\nprocesses 2\ntime_unit ns\norigin synthetic hostile test\nevents\n"
                    "0 0 10 send 1 64 0 0\n1 0 20 recv 0 64 0 0 exact\nend 2\n")
    return path
