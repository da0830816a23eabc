"""Issue 27, item 25 (engine) and "ibsec-engine bogus".

Item 25: `ibsec trace info big.trace --json | head` reported the closed pipe as "a bug in ibsec-engine": the engine
was killed by SIGPIPE. It now ignores SIGPIPE; a write to a standard output whose reader has gone ends the engine
quietly with status 141 (128 + SIGPIPE, what a shell reports for a program a closed pipe ended; docs/running.md,
"Exit codes"), and a closed standard error costs only the progress lines. Also: `ibsec-engine bogus` exited 2
without naming `bogus`.
"""

import subprocess

import pytest

from .engine import PAPER16, REPO, engine, run

pytestmark = pytest.mark.unit
TRACE = str(REPO / "tests" / "golden" / "inputs" / "mg.trace.gz")


def with_closed_stdout(*arguments: str) -> tuple[int, str]:
    """The engine's status and standard error when its standard output's reader closes before it writes."""
    process = subprocess.Popen([engine(), *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # as `| head` does once it has what it wants
    error = process.stderr.read().decode()
    return process.wait(timeout=120), error


@pytest.mark.parametrize("arguments", [
    ["trace", "info", TRACE, "--json"],
    ["trace", "info", TRACE],
    ["run", PAPER16, "--set", "traffic.messages=200", "--set", "traffic.warmup_messages=0", "-q"],
    ["cachesim", "--keys", "100", "--entries", "10", "--accesses", "1000", "--json", "--quiet"],
    ["trace", "convert", TRACE, "-"],
])
def test_n25_a_closed_standard_output_ends_the_engine_quietly_with_141(arguments):
    """Item 25: not killed by a signal (the Python wrapper's "bug in ibsec-engine"), no message on stderr."""
    status, error = with_closed_stdout(*arguments)
    assert status == 141 and error == ""


def test_n25_a_full_standard_output_is_still_an_error():
    """Item 25's neighbour (item 11 of the first pass): a full disk is not a closed pipe."""
    with open("/dev/full", "w") as full:
        result = subprocess.run([engine(), "trace", "info", TRACE, "--json"], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=60, check=False)
    assert result.returncode == 2 and "cannot write standard output" in result.stderr


@pytest.mark.parametrize("arguments, message", [
    (["bogus"], "unknown command 'bogus' (known: cachesim, run, params, registries, trace, topology)"),
    (["trace", "bogus"], "unknown command 'trace bogus' (known: info, validate, convert, import)"),
])
def test_an_unknown_command_is_named(arguments, message):
    """`ibsec-engine bogus` said only that a command was required."""
    result = run(*arguments)
    assert result.returncode == 2 and f"ibsec-engine: error: {message}" in result.stderr
