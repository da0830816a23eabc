"""Issue 27, items 10 and 18 (engine): side inputs are read whole-field and within bounds.

Item 10: `cachesim --on-period empirical:F` read `1.0abc` and `1.0 2.0` as 1.0. Item 18: the placement,
empirical-period and card-sessions readers read before bounding: pointed at /dev/zero they reached 4.2 GB, and a
300 MB line cost 538 MB before the 1 MiB line check. All three (and the configuration and attack files) now go
through one bounded reader (core/bounded_input.h): bytes and line length are bounded before they are held, and
errors say `FILE:LINE: problem`. An explicitly given FIFO or character device is read as a stream (within the same
bounds); a folder is refused.

Each engine here runs with its address space bounded (engine.with_memory_limit), so that the reader as it was fails
with bad_alloc instead of exhausting the machine.
"""

import os
import subprocess
import sys
import threading

import pytest

from .engine import PAPER16, engine, refused, tiny_trace, with_memory_limit

pytestmark = pytest.mark.unit
CACHESIM = ["cachesim", "--keys", "10", "--entries", "4", "--accesses", "1000", "--json", "--quiet"]


def bounded_run(*arguments: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([engine(), *arguments], capture_output=True, text=True, timeout=timeout, check=False,
                          preexec_fn=with_memory_limit(4))


@pytest.mark.parametrize("line", ["1.0abc", "1.0 2.0", "1.0,2.0", "0x1p3", "nan", "inf", "-1", "1e400"])
def test_n10_a_period_length_is_the_whole_field(tmp_path, line):
    """Item 10: a length followed by anything else is refused, naming the file and line."""
    periods = tmp_path / "on.periods"
    periods.write_text(f"# lengths\n2.5\n{line}\n")
    result = bounded_run(*CACHESIM, "--on-period", f"empirical:{periods}")
    assert refused(result, "on_period", f"{periods}:3: expected one positive period length, got '{line}'")


def test_n10_well_formed_lengths_are_read(tmp_path):
    """Item 10: the form `ibsec analytic fit` writes (%.9g, a comment line) still reads."""
    periods = tmp_path / "on.periods"
    periods.write_text("# ON period lengths (ms)\n2.5\n1e-05\n  3.25  \r\n")
    assert bounded_run(*CACHESIM, "--on-period", f"empirical:{periods}").returncode == 0


@pytest.mark.parametrize("field, option", [("on_period", "empirical:/dev/zero"), ("card_sessions", "/dev/zero")])
def test_n18_cachesim_side_inputs_on_dev_zero_stop_at_the_line_bound(field, option):
    """Item 18: /dev/zero is one endless line: refused at 1 MiB, not read to memory's end."""
    flag = "--on-period" if field == "on_period" else "--card-sessions"
    arguments = [a for a in CACHESIM if a != "--keys" and a != "10"] if field == "card_sessions" else CACHESIM
    result = bounded_run(*arguments, flag, option, timeout=30)
    assert refused(result, field, "/dev/zero:1: line longer than 1 MiB")


def test_n18_a_placement_file_on_dev_zero_stops_at_the_line_bound(tmp_path):
    """Item 18: the same for trace.placement, before the replay is built."""
    trace = tiny_trace(tmp_path / "t.trace")
    result = bounded_run("run", PAPER16, "-q", "--trace", str(trace), "--set", "trace.placement=/dev/zero",
                         timeout=30)
    assert refused(result, "trace.placement", "/dev/zero:1: line longer than 1 MiB")


def test_n18_a_long_line_is_refused_before_it_is_held(tmp_path):
    """Item 18: a 48 MiB line is refused once 1 MiB of it is read: the engine's peak memory stays far below the
    line (the reader as it was held all of it, and more, before checking)."""
    periods = tmp_path / "long.periods"
    with open(periods, "wb") as out:
        out.write(b"1" * (48 << 20))
    # Measured from a fresh, small interpreter: a child forked from this big one would count its pages as its
    # own peak memory until it executes the engine.
    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE, "
               "text=True); print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "print(done.stderr)")
    report = subprocess.run([sys.executable, "-c", measure, engine(), *CACHESIM, "--on-period", f"empirical:{periods}"],
                            capture_output=True, text=True, timeout=60, check=True,
                            preexec_fn=with_memory_limit(4)).stdout
    status, peak_kib = map(int, report.split("\n", 1)[0].split())
    assert status == 2 and f"{periods}:1: line longer than 1 MiB" in report
    assert peak_kib < 40 << 10, f"peak memory {peak_kib} KiB for a refused 48 MiB line"


def test_n18_an_endless_stream_of_short_lines_is_refused_at_the_byte_bound(tmp_path):
    """Item 18: a FIFO given explicitly is read (as a stream), but not without end: `yes 1.0` into it stops at the
    bound of a side input (64 MiB)."""
    fifo = tmp_path / "periods.fifo"
    os.mkfifo(fifo)
    # A writer of its own, which the closed FIFO ends (SIGPIPE), whatever this process does with that signal.
    writer = subprocess.Popen(["sh", "-c", f'exec yes 1.0 > "{fifo}"'])
    try:
        result = bounded_run(*CACHESIM, "--on-period", f"empirical:{fifo}", timeout=60)
    finally:
        writer.kill()
        writer.wait()
    assert refused(result, "on_period", f"{fifo}: holds more than the 64 MiB a period file may")


def test_n18_a_fifo_given_explicitly_is_read(tmp_path):
    """Item 18's decision: a FIFO (or process substitution) named as a side input is read like a file."""
    fifo = tmp_path / "periods.fifo"
    os.mkfifo(fifo)

    def once():
        with open(fifo, "w") as out:
            out.write("2.5\n3.5\n")

    writer = threading.Thread(target=once, daemon=True)
    writer.start()
    result = bounded_run(*CACHESIM, "--on-period", f"empirical:{fifo}", timeout=30)
    writer.join(timeout=10)
    assert result.returncode == 0, result.stderr


def test_n18_a_folder_is_refused(tmp_path):
    """Item 18: a folder is no side input, said as such (it was read as an empty file)."""
    result = bounded_run(*CACHESIM, "--on-period", f"empirical:{tmp_path}")
    assert refused(result, "on_period", "is refused: it is a folder")


def test_n18_a_config_file_beyond_its_bound_is_refused_from_its_size(tmp_path):
    """Item 18's neighbour: configuration files go through the same reader, bounded at 16 MiB."""
    config = tmp_path / "big.json"
    with open(config, "wb") as out:
        out.write(b"{" + b" " * (17 << 20) + b"}")
    result = bounded_run("run", str(config), "-q")
    assert result.returncode == 2 and "more than the 16 MiB a configuration file may" in result.stderr
