"""`ibsec trace capture-npb`: NPB benchmarks run under libibsec_capture and written as traces whose header
says how they were made (`note npb: ...` lines: NPB version and tarball digest, compilers, MPI library,
machine, oversubscription, the exact mpirun command, NPB's verification line, the date)."""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..engine.binary import engine_path
from ..errors import IbsecError
from . import npb as npb_source
from .mpi import capture_library, cpu_list_size, tool, version_line

NOTE = "npb:"
SUFFIXES = ("gz", "zst")


@dataclass
class Captured:
    path: Path
    seconds: float  # the benchmark's run under the capture library
    notes: list[str]


def trace_name(bench: str, cls: str, nprocs: int, compression: str) -> str:
    return f"{bench}.{cls}.{nprocs}.trace.{compression}"


def cpu_model() -> str:
    """The CPU's model name as Linux reports it, else what Python knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Processor", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def ascii_text(text: str) -> str:
    """One line of single-spaced printable ASCII, as a trace's header lines are."""
    return "".join(c if " " <= c <= "~" else "?" for c in " ".join(text.split()))


def provenance(npb: npb_source.NpbBuild, bench: str, cls: str, nprocs: int, run: npb_source.NpbRun,
               when: datetime.datetime, cpus: str | None = None) -> list[str]:
    """The note lines (without `note `) that say how the trace was made."""
    cores = cpu_list_size(cpus) if cpus is not None else (os.cpu_count() or 0)
    oversubscribed = "yes" if nprocs > cores else "no"
    notes = [
        f"benchmark {bench.upper()} class {cls}, {nprocs} processes",
        f"NPB {npb_source.VERSION} MPI, unmodified {npb_source.TARBALL} sha256 {npb.tarball_sha256}",
        f"Fortran compiler: {npb.setting('MPIFC')} = {version_line([tool('mpif90'), '--version'])}; "
        f"FFLAGS = {npb.setting('FFLAGS')}",
        f"C compiler: {npb.setting('MPICC')} = {version_line([tool('mpicc'), '--version'])}; "
        f"CFLAGS = {npb.setting('CFLAGS')}",
        f"MPI library: {version_line([tool('mpirun'), '--version'])}",
        f"machine: {cpu_model()}, {cores} cores, {platform.system()} {platform.release()} {platform.machine()}",
        f"oversubscribed: {oversubscribed} ({nprocs} processes on {cores} cores)",
        f"command: {shlex.join(run.command)}",
        f"NPB printed: {run.verification}",
        f"captured {when.isoformat(timespec='seconds')}",
    ]
    return [ascii_text(f"{NOTE} {note}") for note in notes]


def add_notes(source: Path, notes: list[str], target: Path) -> None:
    """Copies the text trace SOURCE to TARGET with NOTES after its own notes (before the communicators), where
    the format wants them."""
    with open(source) as src, open(target, "w") as out:
        pending = list(notes)
        for line in src:
            if pending and not line.startswith(("ibsec-trace ", "processes ", "time_unit ", "origin ", "note")):
                out.writelines(f"note {note}\n" for note in pending)
                pending = []
            out.write(line)
        if pending:
            raise IbsecError(f"{source}: the trace ended inside its header")


def capture(npb: npb_source.NpbBuild, bench: str, cls: str, nprocs: int, out_dir: Path,
            compression: str = "gz", cpus: str | None = None, name: str | None = None) -> Captured:
    """Runs BENCH.CLS on NPROCS processes under the capture library (confined to CPUS, a taskset list, if given),
    checks that NPB verified its result, and writes OUT_DIR/NAME (default <bench>.<cls>.<nprocs>.trace.<compression>)
    with its provenance (checked by the engine on the way, and replaced only once complete)."""
    target = out_dir / (name or trace_name(bench, cls, nprocs, compression))
    with tempfile.TemporaryDirectory(prefix=f"ibsec-npb-{bench}.{cls}.") as scratch:
        raw = Path(scratch) / "captured.trace"
        env = {"LD_PRELOAD": capture_library(), "IBSEC_TRACE": str(raw)}
        run = npb_source.run(npb, bench, cls, nprocs, Path(scratch) / "run", env=env, cpus=cpus)
        if run.verification is None:
            raise IbsecError(f"NPB {bench}.{cls} on {nprocs} processes did not print 'Verification = SUCCESSFUL'; "
                             f"no trace written. Its output ends:\n" + "\n".join(run.stdout.splitlines()[-15:]))
        notes = provenance(npb, bench, cls, nprocs, run, datetime.datetime.now(datetime.timezone.utc), cpus)
        annotated = Path(scratch) / "annotated.trace"
        add_notes(raw, notes, annotated)
        out_dir.mkdir(parents=True, exist_ok=True)
        converted = subprocess.run([engine_path(), "trace", "convert", str(annotated), str(target)],
                                   capture_output=True, text=True, check=False)
        if converted.returncode != 0:
            raise IbsecError(f"writing {target} failed (ibsec-engine trace convert checks the captured trace on "
                             f"the way): {converted.stderr.strip()}")
    return Captured(target, run.seconds, notes)
