"""Every command of the README's "Using it" block, run in order from a copy of the checkout (its tracked files, a git
repository of their own): each exits 0, and afterwards `git status` is clean, no tracked file changed, and what
the commands wrote is under out/ (ignored by git) alone.

The commands are the README's, word for word, with the options of CHEAPER appended where one as written runs
for minutes: each appended option only shrinks the work (fewer look-ups, messages, points or steps) and the
command still reads and writes the same files, so what is checked here, that it runs and where it writes, is
the README's command. Before them, workloads/ is given the traces the main job of scripts/setup.sh would have
generated there (small copies; `ibsec sweep skc-ways` reads them).
"""

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"
GOLDEN_INPUTS = REPO / "tests" / "golden" / "inputs"
CAPTURE_LIB = REPO / "build" / "traces" / "capture" / "libibsec_capture.so"
MPI_PROGRAM = REPO / "tests" / "capture" / "ring_halo.c"

# The quick plan's steps but the two analytic ones (Fig. 3, the hardware cost): `reproduce` still runs, writes
# those steps' tables and REPORT.md into its --out, in seconds rather than the quick plan's minutes.
REPRODUCE_SKIPPED = ["fig8", "fig9", "consistency", "fig5", "fig5d", "card-noskc-overlap", "card-paper-mode",
                     "fig6-nas15", "fig6-ft-jbb6", "fig7", "table1-real", "anchors"]

# The start of a README command -> (options appended, why that leaves it the same command).
CHEAPER = {
    "ibsec cachesim --preset FT --keys 10000": (["--accesses", "50000"], "fewer look-ups: the same cache model"),
    "ibsec cachesim --preset LU --sweep": (["--accesses", "20000"], "fewer look-ups per point: the same ten points "
                                                                    "and the same table and store beside out/lu.csv"),
    "ibsec analytic size --target 0.9 --trace analytics/ibsec/data/npb/cg.A.16.trace.zst --nodes 4096": (
        ["--accesses", "50000"], "fewer cachesim look-ups: the same sizes and models"),
    "ibsec figures fig3 fig8 fig9 xval": (["--accesses", "5000"], "fewer look-ups per point: the same figures, "
                                                                  "files and points"),
    "ibsec run paper-16 --sweep-load": (["--set", "traffic.messages=2000"], "fewer messages per load: the same "
                                                                            "seven runs and files"),
    "ibsec compare-schedulers --mix nas15": (["--schedulers", "gang", "--configs", "SKC"],
                                             "one scheduler and one card of the fifteen: the same mix, store and "
                                             "files"),
    "ibsec prefetch-sweep --mix nas15": (["--schedulers", "gang", "--skc-sizes", "5", "--pb-sizes", "2",
                                          "--skc-fixed", "5"], "one scheduler and one size of each sweep: the same "
                                                               "mix, store and files"),
    "ibsec reproduce --quick": ([word for step in REPRODUCE_SKIPPED for word in ("--skip", step)],
                                "the analytic steps and REPORT.md: the same plan, output folder and report"),
    "ibsec trace capture-npb": (["--cache", str(REPO / "build" / "npb")],
                                "NPB built once, in the checkout's build/ (the copy has none, build/ is not tracked): "
                                "the same benchmarks and traces"),
}
# The capture one-liner's placeholder program, and the library's path: build/ is not tracked, so the copy has none.
CAPTURE_LINE = "LD_PRELOAD=build/traces/capture/libibsec_capture.so"
CAPTURE_NPB = "ibsec trace capture-npb"
# The NPB tarball: beside the checkout as the README says (../shared/npb), which the copy is not.
NPB_DIR = Path(os.environ.get("IBSEC_NPB_DIR") or REPO.parent / "shared" / "npb")


def readme_commands() -> list[str]:
    """The lines of the first ```sh block of the README's "Using it" section."""
    section = README.read_text(encoding="utf-8").split("\n## Using it\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def words_of(line: str) -> list[str]:
    return shlex.split(line, comments=True)


def cheaper(line: str) -> list[str]:
    """The command's words, with CHEAPER's options appended when one of its keys starts it."""
    words = words_of(line)
    for start, (extra, _why) in CHEAPER.items():
        if " ".join(words).startswith(start):
            return [*words, *extra]
    return words


def copy_checkout(destination: Path) -> None:
    """The checkout's tracked files as they are now (edits included), committed in a repository of their own."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, text=True,
                           check=True).stdout.split("\0")
    for name in filter(None, names):
        source, target = REPO / name, destination / name
        if not os.path.lexists(source):  # deleted in the working tree, not yet committed
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    git = ["git", "-C", str(destination), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run([*git, *args], check=True, capture_output=True)


def give_workloads(checkout: Path) -> None:
    """workloads/ as the main job leaves it, with small traces: the shipped sweep skc-ways reads CG, FT, LU, MG."""
    folder = checkout / "workloads"
    folder.mkdir()
    for name, source in (("cg", "cg"), ("ft", "ft"), ("lu", "cg"), ("mg", "mg")):
        shutil.copy(GOLDEN_INPUTS / f"{source}.trace.gz", folder / f"{name}.trace.gz")


def missing_for(line: str) -> str | None:
    """Why a README command cannot run on this machine (what it needs and is not here), or None."""
    tools = {CAPTURE_LINE: ("mpicc", "mpirun"), CAPTURE_NPB: ("mpicc", "mpif90", "mpirun", "make")}
    for start, needed in tools.items():
        if line.startswith(start):
            absent = [tool for tool in needed if shutil.which(tool) is None]
            if absent:
                return f"{', '.join(absent)} not installed (Open MPI, gfortran)"
    if line.startswith((CAPTURE_LINE, CAPTURE_NPB)) and not CAPTURE_LIB.is_file():
        return f"{CAPTURE_LIB} not built"
    if line.startswith(CAPTURE_NPB) and not (NPB_DIR / "NPB3.4-MPI.tar.gz").is_file():
        return f"no NPB tarball in {NPB_DIR}"
    return None


def mpi_program(folder: Path) -> Path:
    """A small MPI program for the capture line's ./my_mpi_program, built outside the copy."""
    program = folder / "my_mpi_program"
    subprocess.run(["mpicc", "-o", str(program), str(MPI_PROGRAM)], check=True, capture_output=True)
    return program


def command_line(words: list[str], program: Path) -> tuple[list[str], dict[str, str]]:
    """(argv, extra environment) of a README line: `ibsec` is the copy's package (PYTHONPATH) on this
    interpreter, as .venv/bin/ibsec is the checkout's; leading NAME=VALUE words are environment."""
    env = {}
    while "=" in words[0] and not words[0].startswith("-"):
        name, value = words[0].split("=", 1)
        env[name] = value
        words = words[1:]
    if words[0] == "ibsec":
        return [sys.executable, "-m", "ibsec.cli", *words[1:]], env
    if words[0] == "mpirun":
        env["LD_PRELOAD"] = str(CAPTURE_LIB)  # the checkout's build (build/ is not copied)
        return [program if word == "./my_mpi_program" else word for word in words], env
    raise AssertionError(f"README command of an unknown program: {' '.join(words)}")


# Open MPI refuses root and more ranks than cores unless told (the README's line is run as a user would on a
# machine of enough cores).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


@pytest.fixture(scope="module")
def ran(tmp_path_factory, engine):
    """Every README command, in order, from a fresh copy: {line: (CompletedProcess, or why it was not run;
    seconds)}, and the copy. The package, its shipped configs and the checkout it finds are the copy's; Python's
    caches and the user's cache folder are outside it; the engine, the capture library and the NPB tarball are
    the checkout's (build/ and ../shared are not tracked)."""
    root = tmp_path_factory.mktemp("readme")
    checkout = root / "checkout"
    copy_checkout(checkout)
    give_workloads(checkout)
    env = {**os.environ, "IBSEC_ENGINE": engine, "PYTHONPATH": str(checkout / "analytics"),
           "PYTHONPYCACHEPREFIX": str(root / "pycache"), "XDG_CACHE_HOME": str(root / "cache"),
           "IBSEC_NPB_DIR": str(NPB_DIR), "IBSEC_CAPTURE_LIB": str(CAPTURE_LIB), **MPI_ENV}
    results = {}
    for line in readme_commands():
        missing = missing_for(line)
        if missing is not None:
            results[line] = (missing, 0.0)
            continue
        program = mpi_program(root) if line.startswith(CAPTURE_LINE) else root
        argv, extra = command_line(cheaper(line), program)
        started = time.monotonic()
        done = subprocess.run([str(word) for word in argv], cwd=checkout, env={**env, **extra}, capture_output=True,
                              text=True, check=False, timeout=600)
        results[line] = (done, time.monotonic() - started)
        print(f"{time.monotonic() - started:6.1f} s  exit {done.returncode}  {line[:100]}")
    return results, checkout


@pytest.mark.unit
def test_every_cheaper_option_names_one_readme_command():
    starts = [" ".join(words_of(line)) for line in readme_commands()]
    for start in CHEAPER:
        assert sum(command.startswith(start) for command in starts) == 1, f"CHEAPER's {start!r}: not one README line"
    assert sum(line.startswith(CAPTURE_LINE) for line in readme_commands()) == 1


@pytest.mark.unit
def test_the_readme_block_is_found():
    commands = readme_commands()
    assert len(commands) > 20 and all(line.startswith(("ibsec ", CAPTURE_LINE)) for line in commands)


@pytest.mark.model
def test_every_readme_command_exits_0(ran):
    results, _ = ran
    failed = [f"{line}\n  exit {done.returncode} after {seconds:.0f} s: {done.stderr[-1500:]}"
              for line, (done, seconds) in results.items() if not isinstance(done, str) and done.returncode != 0]
    assert not failed, "\n".join(failed)


@pytest.mark.model
def test_readme_commands_leave_the_checkout_clean(ran):
    _, checkout = ran
    status = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--ignored"], capture_output=True,
                            text=True, check=True).stdout.splitlines()
    changed = [line for line in status if not line.startswith("!! ")]
    assert not changed, f"tracked files changed or untracked files left: {changed}"
    ignored = sorted(line[3:] for line in status if line.startswith("!! "))
    assert ignored == ["out/", "workloads/"], f"written outside out/: {ignored}"  # workloads/: given by the test


@pytest.mark.model
@pytest.mark.parametrize("start, written", [
    (CAPTURE_LINE, "out/my.trace"),
    pytest.param(CAPTURE_NPB, "out/npb-traces/lu.S.16.trace.gz", marks=pytest.mark.npb),
])
def test_the_capture_commands_wrote_their_traces(ran, start, written):
    """The two commands that need Open MPI (and the NPB tarball) ran where those are, else are reported skipped."""
    results, checkout = ran
    done, _ = next(result for line, result in results.items() if line.startswith(start))
    if isinstance(done, str):
        pytest.skip(f"`{start} ...` not run: {done}")
    assert done.returncode == 0, done.stderr
    assert (checkout / written).is_file()
