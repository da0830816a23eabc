"""Running MPI programs under libibsec_capture: where the library is, and the mpirun command line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ..engine.binary import CHECKOUT, engine_path
from ..errors import IbsecError

CAPTURE_LIB_ENV = "IBSEC_CAPTURE_LIB"
CAPTURE_LIB_NAME = "libibsec_capture.so"
# What each MPI tool comes in on Debian, for the message when one is missing.
DEBIAN_PACKAGE = {"mpirun": "openmpi-bin", "mpicc": "libopenmpi-dev", "mpif90": "libopenmpi-dev gfortran",
                  "make": "make", "taskset": "util-linux"}


def capture_library() -> str:
    """$IBSEC_CAPTURE_LIB, else the build tree of a source checkout, else lib/ beside the installed engine's bin/
    (where `cmake --install` puts both)."""
    explicit = os.environ.get(CAPTURE_LIB_ENV)
    if explicit:
        if not os.path.isfile(explicit):
            raise IbsecError(f"{CAPTURE_LIB_ENV}={explicit} is not a file")
        return explicit
    candidates = [CHECKOUT / "build" / "traces" / "capture" / CAPTURE_LIB_NAME]
    try:
        candidates.append(Path(engine_path()).resolve().parent.parent / "lib" / CAPTURE_LIB_NAME)
    except IbsecError:
        pass
    for path in candidates:
        if path.is_file():
            return str(path)
    raise IbsecError(f"{CAPTURE_LIB_NAME} not found (looked for {', '.join(map(str, candidates))}): build it "
                     f"(CMake builds it when MPI is installed) or point {CAPTURE_LIB_ENV} at it")


def tool(name: str) -> str:
    """The path of an MPI or build tool on PATH; an error naming the Debian package that has it."""
    path = shutil.which(name)
    if path is None:
        package = DEBIAN_PACKAGE.get(name, name)
        raise IbsecError(f"{name} not found on PATH (Debian: apt-get install {package})")
    return path


def cpu_list_size(cpus: str) -> int:
    """How many CPUs a taskset list such as "0", "0,2" or "0-3" names."""
    count = 0
    for part in cpus.split(","):
        low, _, high = part.partition("-")
        count += int(high or low) - int(low) + 1
    return count


def mpirun_command(nprocs: int, program: str | os.PathLike, env: dict[str, str] | None = None,
                   mca: dict[str, str] | None = None, cpus: str | None = None) -> list[str]:
    """mpirun of PROGRAM on NPROCS processes of this machine, whatever its number of cores (--oversubscribe)
    and whoever runs it (--allow-run-as-root under root, as in CI); ENV is passed to the processes only (-x),
    MCA sets Open MPI parameters. CPUS (a taskset list such as "0" or "0,1") confines every process to those
    CPUs, unbound within them (Open MPI would otherwise bind each to a core of its own choosing).

    More processes than CPUS name also get `mpi_yield_when_idle 1` (unless MCA sets it): Open MPI takes that mode
    by itself when it runs more processes than the machine has cores, but it cannot see a taskset, and its
    processes would then poll for a whole time slice while the one they wait for cannot run
    (docs/real-traces.md, "Execution time on real traces")."""
    command = [tool("mpirun"), "-np", str(nprocs), "--oversubscribe"]
    mca = dict(mca or {})
    if cpus is not None:
        command = [tool("taskset"), "-c", cpus, *command, "--bind-to", "none"]
        if nprocs > cpu_list_size(cpus):
            mca.setdefault("mpi_yield_when_idle", "1")
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    for name, value in (env or {}).items():
        command += ["-x", f"{name}={value}"]
    for name, value in mca.items():
        command += ["--mca", name, str(value)]
    return [*command, str(program)]


def version_line(command: list[str]) -> str:
    """The first line a tool prints for `--version` (compilers, mpirun), or why there is none."""
    try:
        completed = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    except OSError as error:
        return f"unknown ({error.strerror})"
    lines = [line.strip() for line in completed.stdout.splitlines() if line.strip()]
    return lines[0] if lines else f"unknown ({' '.join(command)} printed nothing)"
