"""The NAS Parallel Benchmarks 3.4 (MPI): finding the unmodified source tarball, building benchmarks from it
once into a cache, and running them.

The tarball is input, never part of the repository: it is looked for in $IBSEC_NPB_DIR, else in
`../shared/npb/` beside the source checkout, or given by path. Where it comes from and its SHA-256 are in
docs/real-traces.md. A build is cached under a folder named by the tarball's SHA-256 and the build settings
(config/make.def), so a second build of the same benchmark and class is free and a changed tarball or flag
never reuses old binaries.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..engine.binary import CHECKOUT
from ..errors import ConfigError, IbsecError
from .mpi import mpirun_command, tool

NPB_DIR_ENV = "IBSEC_NPB_DIR"
TARBALL = "NPB3.4-MPI.tar.gz"
TOP = "NPB3.4-MPI"  # the folder the tarball unpacks to
TEMPLATE = f"{TOP}/config/make.def.template"
VERSION = "3.4"
# The tarball the shipped traces (analytics/ibsec/data/npb) were captured from, as their `note npb:` lines
# record it: `ibsec trace capture-npb` expects this one unless told another digest (docs/real-traces.md).
EXPECTED_SHA256 = "48492335d88be7f2556baca09039542e03883b7140f32c3f5e6140b3cb2dd857"
BENCHMARKS = ("bt", "cg", "ep", "ft", "is", "lu", "mg", "sp")  # DT needs a graph argument: not offered
CLASSES = ("S", "W", "A", "B", "C", "D", "E", "F")
# gfortran 10 and later refuse NPB's MPI calls with buffers of several types and its BOZ constants unless told
# to allow them; -O2 rather than the template's -O3 keeps the build short.
FFLAGS = "-O2 -fallow-argument-mismatch -fallow-invalid-boz"
# What each benchmark prints when its result is right (the spacing varies: it is padded).
VERIFIED = re.compile(r"^\s*Verification\s*=\s*SUCCESSFUL\s*$", re.MULTILINE)
BUILD_TIMEOUT_S = 1800


def npb_folder() -> Path:
    """Where the tarball is looked for: $IBSEC_NPB_DIR, else ../shared/npb beside the checkout."""
    explicit = os.environ.get(NPB_DIR_ENV)
    return Path(explicit) if explicit else CHECKOUT.parent / "shared" / "npb"


def default_cache() -> Path:
    """build/npb of the source checkout when ibsec runs from one (beside the engine's build), else the user's
    cache folder."""
    from ..engine.binary import CHECKOUT

    if (CHECKOUT / "build").is_dir():
        return CHECKOUT / "build" / "npb"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ibsec" / "npb"


def find_tarball(folder: Path | None = None) -> Path | None:
    path = (folder or npb_folder()) / TARBALL
    return path if path.is_file() else None


def tarball(folder: Path | None = None) -> Path:
    """The NPB tarball, or an error saying where it was looked for and how to point elsewhere."""
    found = find_tarball(folder)
    if found is None:
        raise IbsecError(f"{TARBALL} not found in {folder or npb_folder()}: put the unmodified NPB 3.4 MPI "
                         f"tarball there or set {NPB_DIR_ENV} to the folder that holds it")
    return found


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str = EXPECTED_SHA256) -> str:
    """The tarball's SHA-256 when it is `expected`, else an error naming the file, both digests and how to take
    another tarball on purpose."""
    actual = sha256(path)
    if actual != expected.lower():
        raise IbsecError(f"{path}: sha256 {actual}, expected {expected.lower()}"
                         + (" (the NPB 3.4 MPI tarball the shipped traces were captured from, docs/real-traces.md)"
                            if expected.lower() == EXPECTED_SHA256 else "")
                         + f"; to capture from this tarball all the same, pass --sha256 {actual}")
    return actual


def check_benchmark(bench: str, cls: str) -> tuple[str, str]:
    """(bench, class) in NPB's spelling (cg, S), or a ConfigError naming the field."""
    if bench.lower() not in BENCHMARKS:
        raise ConfigError("benchmark", f"{bench!r} is not one of {', '.join(BENCHMARKS)}")
    if cls.upper() not in CLASSES:
        raise ConfigError("class", f"{cls!r} is not one of {', '.join(CLASSES)}")
    return bench.lower(), cls.upper()


def make_def(template: str) -> str:
    """config/make.def: NPB's template (mpif90, mpicc, CFLAGS -O3) with the Fortran flags above."""
    text, replaced = re.subn(r"^FFLAGS\s*=.*$", f"FFLAGS\t= {FFLAGS}", template, flags=re.MULTILINE)
    if replaced != 1:
        raise IbsecError(f"{TEMPLATE}: expected one FFLAGS line, found {replaced}")
    return text


def make_setting(text: str, name: str) -> str:
    """The value of NAME (FFLAGS, CFLAGS, ...) in a make.def."""
    found = re.search(rf"^{name}\s*=(.*)$", text, flags=re.MULTILINE)
    return " ".join(found.group(1).split()) if found else ""


@dataclass(frozen=True)
class NpbBuild:
    """An unpacked NPB tree in the cache, with the benchmarks built so far."""

    root: Path  # .../NPB3.4-MPI
    tarball_sha256: str

    def binary(self, bench: str, cls: str) -> Path:
        return self.root / "bin" / f"{bench}.{cls}.x"

    def setting(self, name: str) -> str:
        """A setting of the build's config/make.def (FFLAGS, MPIFC, ...)."""
        return make_setting((self.root / "config" / "make.def").read_text(), name)

    def built(self, bench: str, cls: str) -> bool:
        # The stamp is written after make succeeded: a binary left by a killed build is not trusted.
        return self.binary(bench, cls).is_file() and self._stamp(bench, cls).is_file()

    def _stamp(self, bench: str, cls: str) -> Path:
        return self.root / "bin" / f".{bench}.{cls}.built"

    def make(self, bench: str, cls: str) -> None:
        """`make BENCH CLASS=CLS` in the tree; its log is kept beside the binaries."""
        log = self.root / "bin" / f"make-{bench}.{cls}.log"
        with open(log, "w") as out:
            completed = subprocess.run([tool("make"), bench, f"CLASS={cls}"], cwd=self.root, stdout=out,
                                       stderr=subprocess.STDOUT, check=False, timeout=BUILD_TIMEOUT_S)
        if completed.returncode != 0 or not self.binary(bench, cls).is_file():
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
            raise IbsecError(f"building NPB {bench}.{cls} failed (make exited {completed.returncode}; "
                             f"whole log: {log}):\n{tail}")
        self._stamp(bench, cls).touch()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One builder at a time per cache entry (two test sessions, or a test and a capture, may start together)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _extract(archive: tarfile.TarFile, into: Path, source: Path) -> None:
    """Extracts regular files and folders only, inside INTO: Python's "data" filter where it has one (3.11.4 and
    later), else the same refusal of absolute paths, '..' and links by hand (Debian 12's Python is 3.11.2)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(into, filter="data")
        return
    for member in archive.getmembers():
        parts = Path(member.name).parts
        if Path(member.name).is_absolute() or ".." in parts or not (member.isfile() or member.isdir()):
            raise IbsecError(f"{source}: refusing to unpack {member.name!r} (not a plain file or folder inside)")
    archive.extractall(into)


def _unpack(source: Path, home: Path) -> None:
    """Unpacks the tarball into a temporary folder beside `home`, then renames it: `home` is whole or absent."""
    scratch = Path(tempfile.mkdtemp(prefix=f".{home.name}.", dir=home.parent))
    try:
        try:
            with tarfile.open(source) as archive:
                _extract(archive, scratch, source)
        except (tarfile.TarError, EOFError) as error:
            raise IbsecError(f"{source}: cannot unpack it: {error}") from None
        if not (scratch / TEMPLATE).is_file():
            raise IbsecError(f"{source}: no {TEMPLATE} inside; is it the NPB 3.4 MPI tarball?")
        (scratch / TOP / "bin").mkdir(exist_ok=True)  # NPB's link step does not create it
        os.replace(scratch, home)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def build(benchmarks: Iterable[tuple[str, str]], cache: Path, source: Path | None = None) -> NpbBuild:
    """NPB unpacked under CACHE with each (bench, class) of BENCHMARKS built; only what is missing is built."""
    source = source or tarball()
    cache = cache.resolve()  # the binaries are run from other working folders
    digest = sha256(source)
    settings = make_def(_template(source))
    home = cache / f"{digest[:16]}-{hashlib.sha256(settings.encode()).hexdigest()[:8]}"
    with _locked(cache / f"{home.name}.lock"):
        if not home.is_dir():
            _unpack(source, home)
        npb = NpbBuild(home / TOP, digest)
        (npb.root / "config" / "make.def").write_text(settings)
        for bench, cls in benchmarks:
            if not npb.built(bench, cls):
                npb.make(bench, cls)
    return npb


def _template(source: Path) -> str:
    """NPB's config/make.def.template, read from the tarball (its settings name the build folder)."""
    try:
        with tarfile.open(source) as archive:
            member = archive.extractfile(TEMPLATE)
            if member is None:
                raise KeyError(TEMPLATE)
            return member.read().decode()
    except KeyError:
        raise IbsecError(f"{source}: no {TEMPLATE} inside; is it the NPB 3.4 MPI tarball?") from None
    except (tarfile.TarError, EOFError) as error:
        raise IbsecError(f"{source}: cannot read it as a tar archive: {error}") from None


@dataclass
class NpbRun:
    command: list[str]
    stdout: str
    stderr: str
    seconds: float

    @property
    def verification(self) -> str | None:
        """NPB's `Verification = SUCCESSFUL` line, single-spaced, if it printed one."""
        found = VERIFIED.search(self.stdout)
        return " ".join(found.group(0).split()) if found else None


def run(npb: NpbBuild, bench: str, cls: str, nprocs: int, workdir: Path, env: dict[str, str] | None = None,
        mca: dict[str, str] | None = None, timeout: float = 3600, cpus: str | None = None) -> NpbRun:
    """Runs BENCH.CLS on NPROCS processes in WORKDIR (confined to CPUS, a taskset list, if given); an error with
    the end of its output if mpirun fails."""
    workdir.mkdir(parents=True, exist_ok=True)
    command = mpirun_command(nprocs, npb.binary(bench, cls), env, mca, cpus)
    started = time.monotonic()
    try:
        completed = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False,
                                   timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise IbsecError(f"NPB {bench}.{cls} on {nprocs} processes did not end within {timeout:g} s") from expired
    result = NpbRun(command, completed.stdout, completed.stderr, time.monotonic() - started)
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-20:])
        raise IbsecError(f"NPB {bench}.{cls} on {nprocs} processes: mpirun exited {completed.returncode}:\n{tail}")
    return result
