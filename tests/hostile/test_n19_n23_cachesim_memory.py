"""Issue 27, items 19 and 23: cachesim estimates its memory as `run` does.

Item 19: `cachesim --keys 1000000000 --entries 4 --accesses 20000` reached 7.8 GB with no refusal (also with
`--card-sessions` of 10^9 sessions, and `--cards 1e8`). Item 23: `--cards 18446744073709551616` ended in "cannot
create std::vector larger than max_size()", naming no option. cachesim now lists its allocations
(cachesim/memory_estimate.h) and refuses, naming the option, the need and the machine's memory (core/memory_estimate.h,
as `run`), unless --force; and its whole-number options are read in decimal within 64 bits.

The sizes asked for here exceed any machine's memory (hundreds of GiB to exabytes), so the refusal does not depend
on where the tests run; each engine runs with its address space bounded, so that one that does not refuse fails
with bad_alloc instead of exhausting the machine.
"""

import subprocess
import time

import pytest

from .engine import engine, refused, with_memory_limit

pytestmark = pytest.mark.unit
SMALL = ["--quiet", "--json"]


def cachesim(*arguments: str) -> subprocess.CompletedProcess:
    if "--accesses" not in arguments:
        arguments = (*arguments, "--accesses", "20000")
    return subprocess.run([engine(), "cachesim", *arguments, *SMALL], capture_output=True, text=True, timeout=30,
                          check=False, preexec_fn=with_memory_limit(4))


@pytest.mark.parametrize("arguments, option", [
    (["--keys", "4294967295", "--entries", "4", "--on-period", "lognormal:0,1"], "keys"),  # ~160 GiB of sessions
    (["--keys", "1000", "--entries", "4294967295"], "entries"),                          # ~224 GiB of cache
    (["--keys", "1", "--entries", "4", "--cards", "100000000000"], "cards"),             # ~44 TiB of results
    (["--keys", "1", "--entries", "4", "--cards", "18446744073709551615"], "cards"),
    (["--keys", "1000", "--entries", "4", "--policy", "opt", "--accesses", "100000000000000"], "accesses"),
])
def test_n19_cachesim_beyond_memory_is_refused_naming_its_option(arguments, option):
    """Item 19: refused at once, naming the option, the estimate, the machine's memory and --force."""
    start = time.monotonic()
    result = cachesim(*arguments)
    assert refused(result, option, "would need about", "GiB", "this machine has", "--force")
    assert time.monotonic() - start < 10


def test_n19_a_card_sessions_file_beyond_memory_is_refused(tmp_path):
    """Item 19: the per-card sessions of a file count like --keys."""
    sessions = tmp_path / "cards.txt"
    sessions.write_text("10\n4294967295\n")
    result = cachesim("--card-sessions", str(sessions), "--entries", "4", "--on-period", "lognormal:0,1")
    assert refused(result, "card_sessions", "would need about", "4294967295 sessions of a card")


def test_n23_a_count_beyond_64_bits_names_its_option():
    """Item 23: 2^64 was read as 2^64 - 1 and ended in a std::vector error naming nothing."""
    result = cachesim("--keys", "1", "--entries", "4", "--cards", "18446744073709551616")
    assert result.returncode == 2
    assert "--cards" in result.stderr and "from 0 to 18446744073709551615" in result.stderr
    assert "max_size" not in result.stderr


def test_n23_whole_numbers_are_decimal():
    """Item 23's neighbour: `--keys 010` was read as octal 8; it is ten."""
    result = cachesim("--keys", "010", "--entries", "4")
    assert result.returncode == 0, result.stderr
    assert '"keys": 10,' in result.stdout
