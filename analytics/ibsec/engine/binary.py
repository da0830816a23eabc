"""Finding and calling ibsec-engine, the C++ simulator."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from ..errors import IbsecError
from .digests import file_digest

ENGINE_ENV = "IBSEC_ENGINE"
ENGINE_NAME = "ibsec-engine"
# The source checkout this package sits in (analytics/ibsec/engine/binary.py), if it is one.
CHECKOUT = Path(__file__).resolve().parents[3]


def checkout_engine() -> Path | None:
    """build/ibsec-engine of the source checkout, when the package runs from one and it is built."""
    path = CHECKOUT / "build" / ENGINE_NAME
    return path if path.is_file() and os.access(path, os.X_OK) else None


def engine_path() -> str:
    """$IBSEC_ENGINE, else the build tree of the source checkout this package runs from, else ibsec-engine on PATH.

    A package installed from a checkout (scripts/setup.sh: an editable install into the checkout's .venv) runs
    the engine built beside it, wherever `ibsec` is started from and whatever PATH holds, so that the Python
    code and the engine always come from the same checkout; PATH serves only a package installed on its own."""
    explicit = os.environ.get(ENGINE_ENV)
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise IbsecError(f"{ENGINE_ENV}={explicit} is not an executable file")
        return explicit
    built = checkout_engine()
    if built is not None:
        return str(built)
    on_path = shutil.which(ENGINE_NAME)
    if on_path:
        return on_path
    raise IbsecError(
        f"{ENGINE_NAME} not found: run ./scripts/setup.sh (or build with CMake into {CHECKOUT / 'build'}) or point "
        f"{ENGINE_ENV} at the binary"
    )


def engine_source(path: str) -> str:
    """Where `engine_path()` found `path`: $IBSEC_ENGINE, build (the checkout's) or PATH."""
    if os.environ.get(ENGINE_ENV):
        return f"${ENGINE_ENV}"
    built = checkout_engine()
    return "build" if built is not None and str(built) == path else "PATH"


def describe_engine() -> str:
    """Which engine ibsec runs: its path and digest (`ibsec --version`), or why none is found."""
    try:
        path = engine_path()
    except IbsecError as error:
        return f"engine: none ({error})"
    return f"engine: {path} (from {engine_source(path)}; digest {file_digest(path)})"


def engine_json(arguments: list[str]):
    """Run `ibsec-engine ARGUMENTS` and parse the JSON it prints; EngineError if it fails."""
    completed = subprocess.run([engine_path(), *arguments], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise EngineError(engine_message(completed.stderr, completed.returncode), exit_code_of(completed.returncode))
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise IbsecError(f"ibsec-engine {arguments[0]} printed unreadable JSON ({error})") from None


def run_engine(arguments: list[str]) -> dict:
    """Run one engine command with --json and return its parsed result; EngineError if it fails."""
    return engine_json([*arguments, "--json", "--quiet"])


# ---- `ibsec-engine run`: one cycle-level simulation -------------------------

# Exit codes of `ibsec-engine run`.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_CONFIG = 2
EXIT_NOT_DRAINED = 3  # the result is still written
# Lines of a killed engine's captured standard error that its error message repeats.
STDERR_LINES_SHOWN = 5


class EngineError(IbsecError):
    """ibsec-engine failed; `exit_code` is the code to leave with."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILED):
        super().__init__(message)
        self.exit_code = exit_code

    def __reduce__(self):  # crosses from Dask workers with its exit code
        return EngineError, (str(self), self.exit_code)


def exit_code_of(returncode: int) -> int:
    """A child's return code as a shell reports it (killed by signal N -> 128 + N)."""
    return 128 - returncode if returncode < 0 else returncode


def killed_by(returncode: int, stderr_went: str) -> str:
    """What to say when the engine died on a signal: which one, that it is a bug, and where its stderr went."""
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return (f"ibsec-engine was killed by {name} ({number}); unless you sent it, this is a bug in ibsec-engine: "
            f"please report it with the command that ran ({stderr_went})")


def engine_message(stderr: str, returncode: int) -> str:
    """The engine's error message without its 'ibsec-engine: error: ' prefix; for a signal, which one, and the
    last lines of its standard error, which was captured and would otherwise be lost."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    if returncode < 0:
        tail = " | ".join(lines[-STDERR_LINES_SHOWN:])
        return killed_by(returncode, f"its standard error ended: {tail}" if tail else "it wrote nothing on "
                                                                                       "standard error")
    errors = [line for line in lines if line.startswith("ibsec-engine: error: ")]
    if errors:
        return errors[-1].removeprefix("ibsec-engine: error: ")
    if lines:
        return lines[-1]
    return f"ibsec-engine exited with code {exit_code_of(returncode)}"


def run_arguments(config: str | Path | None, overrides: list[str], out: str | Path | None = None,
                  quiet: bool = False, perf_json: str | Path | None = None,
                  attack: str | Path | None = None) -> list[str]:
    """Arguments of `ibsec-engine run` (without the binary)."""
    arguments = ["run"]
    if config is not None:
        arguments.append(str(config))
    if attack is not None:
        arguments += ["--attack", str(attack)]
    for override in overrides:
        arguments += ["--set", override]
    if out is not None:
        arguments += ["--out", str(out)]
    if perf_json is not None:
        arguments += ["--perf-json", str(perf_json)]
    if quiet:
        arguments.append("--quiet")
    return arguments


def engine_digest() -> str:
    """A digest of the engine binary: every point's identity holds it, so a rebuilt engine runs the points again."""
    return file_digest(engine_path())


def run_to_our_stdout(arguments: list[str]) -> int:
    """Run `ibsec-engine ARGUMENTS` writing to our standard output and error; the exit code to leave with.

    A reader that goes away (`ibsec trace info T --json | head`) ends the engine as it ends any tool: by SIGPIPE,
    or by an error exit after EPIPE. That is no bug: its status is passed on quietly (SIGPIPE as a shell reports
    it, 141). Any other signal is (EngineError)."""
    sys.stdout.flush()  # what was printed before comes first
    returncode = subprocess.run([engine_path(), *arguments], check=False).returncode
    if returncode < 0 and returncode != -signal.SIGPIPE:
        raise EngineError(killed_by(returncode, "its standard error is above"), exit_code_of(returncode))
    return exit_code_of(returncode)


def run_simulation_streaming(arguments: list[str]) -> int:
    """Run `ibsec-engine run ...` with its progress and errors on the terminal's stderr; return its exit code.

    Its standard output (the result, without --out) passes through ours, so that ibsec's own check of standard
    output at exit reports a result lost to a full disk, whatever the engine does.
    """
    completed = subprocess.run([engine_path(), *arguments], stdout=subprocess.PIPE, check=False)
    sys.stdout.flush()
    sys.stdout.buffer.write(completed.stdout)
    if completed.returncode < 0:
        raise EngineError(killed_by(completed.returncode, "its standard error is above"),
                          exit_code_of(completed.returncode))
    return exit_code_of(completed.returncode)


def run_simulation(arguments: list[str]) -> int:
    """Run `ibsec-engine run ...` quietly; return 0 or 3 (not drained), raise EngineError otherwise."""
    completed = subprocess.run([engine_path(), *arguments], capture_output=True, text=True, check=False)
    if completed.returncode in (EXIT_OK, EXIT_NOT_DRAINED):
        return completed.returncode
    raise EngineError(engine_message(completed.stderr, completed.returncode), exit_code_of(completed.returncode))


def run_to_result(arguments: list[str], result_file: Path) -> tuple[int, dict]:
    """Run `ibsec-engine run ...` writing `result_file`; return (exit code 0 or 3, the result it wrote)."""
    from ..input_files import read_input_text

    code = run_simulation(arguments)
    try:
        return code, json.loads(read_input_text(result_file, "the engine's result"))
    except (ValueError, RecursionError) as error:
        raise IbsecError(f"cannot read the engine's result {result_file} ({error})") from None


def parameters() -> list[dict]:
    """`ibsec-engine params --json`: every `run` key with default, unit and description (and "file": "input" or
    "output" for a file name)."""
    return _parameters(engine_digest())


def input_file_keys() -> tuple[str, ...]:
    """The `run` parameters that name files the run reads: their content is part of what decides a result."""
    return tuple(p["key"] for p in parameters() if p.get("file") == "input")


@functools.cache
def _parameters(digest: str) -> list[dict]:  # one call per engine binary
    return engine_json(["params", "--json"])


def cachesim_parameters() -> list[dict]:
    """`ibsec-engine params --command cachesim --json`: every option of `cachesim` with its key, default (null:
    none of its own, as the description says), unit, description and command-line option."""
    return _cachesim_parameters(engine_digest())


@functools.cache
def _cachesim_parameters(digest: str) -> list[dict]:  # one call per engine binary
    return engine_json(["params", "--command", "cachesim", "--json"])
