"""Job mixes for the coscheduling study (paper 4.3): several jobs sharing the cluster.

A mix is a list of job traces; the engine runs job j's rank r on node
r mod nodes (`trace.jobs`, with the default `trace.placement`). Two mixes are built in, as in the paper:

- `nas15`: 15 jobs, three instances each of CG, MG, LU, SP and BT;
- `ft-jbb6`: 6 jobs, three FT and three SPECjbb-style (JBB).

Each job is a synthetic 16-process trace (one process per node of the
16-node cluster), generated on first use into a folder (`workloads/mixes/`
by default) with the workload generator. The three instances of a benchmark
share one trace file: the paper ran three copies of the same program, so
identical traces are the faithful choice, and the engine reads the file
once per job anyway. What sets the instances apart is the scheduler.

The traces are "scaled down" far below the shipped single-application set
(workloads/defaults.py) because a mix multiplies them by 15: the same class
as that set (A; W for FT) at the fewest iterations the generator allows --
one -- for every benchmark:

| trace | class | scale | iterations | packets (256 B) |
|---|---|---|---|---|
| CG | A | 0.07 | 1 of 15 | 127 551 |
| MG | A | 0.25 | 1 of 4 | 169 711 |
| LU | A | 0.004 | 1 of 250 | 39 840 |
| SP | A | 0.0025 | 1 of 400 | 80 919 |
| BT | A | 0.005 | 1 of 200 | 91 935 |
| FT | W | 0.17 | 1 of 6 | 61 519 |
| JBB | A | 0.01 | 150 of 15 000 transactions | 70 205 |

so `nas15` is 3 x 509 956 = 1.53 M packets and `ft-jbb6` 3 x 131 724 =
0.40 M packets per engine run (one CG or MG iteration at class A is already
130-170 k packets, which keeps `nas15` above 1 M).

A mix file lists one job per line, `TRACE [COUNT]` (COUNT instances,
default 1); `#` starts a comment, blank lines are ignored, and relative
paths are relative to the mix file. A name that is a built-in mix means the
built-in mix; write `./nas15` for a file of that name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import IbsecError
from ..workloads import GenerationResult, generate, make_params

PROCS = 16
DEFAULT_MIX_DIR = Path("workloads") / "mixes"


class MixError(IbsecError):
    """A mix file is wrong; the message names the file, the line and the field. Exit code 2."""

    exit_code = 2


@dataclass(frozen=True)
class MixTrace:
    """One generated trace of a built-in mix."""

    bench: str
    cls: str
    scale: float

    @property
    def file_name(self) -> str:
        # Class and scale in the name, so that changing them never reuses a stale trace.
        return f"{self.bench.lower()}_{self.cls}_{self.scale:g}.trace.gz"


MIX_TRACES = {t.bench: t for t in (
    MixTrace("CG", "A", 0.07),
    MixTrace("MG", "A", 0.25),
    MixTrace("LU", "A", 0.004),
    MixTrace("SP", "A", 0.0025),
    MixTrace("BT", "A", 0.005),
    MixTrace("FT", "W", 0.17),
    MixTrace("JBB", "A", 0.01),
)}

# Built-in mixes: (benchmark, instances).
BUILTIN_MIXES = {
    "nas15": (("CG", 3), ("MG", 3), ("LU", 3), ("SP", 3), ("BT", 3)),
    "ft-jbb6": (("FT", 3), ("JBB", 3)),
}


@dataclass(frozen=True)
class Job:
    label: str  # the benchmark, or the trace's file name for a mix file
    trace: Path


@dataclass(frozen=True)
class Mix:
    name: str  # names the outputs: fig6_<name>.csv, <name>.runs/
    jobs: tuple[Job, ...]

    @property
    def traces(self) -> list[Path]:
        return [job.trace for job in self.jobs]


def builtin_mix(name: str, traces_dir: str | Path = DEFAULT_MIX_DIR,
                progress: Callable[[GenerationResult], None] | None = None) -> Mix:
    """A built-in mix, its traces generated into traces_dir first if missing."""
    traces_dir = Path(traces_dir)
    jobs = []
    for bench, count in BUILTIN_MIXES[name]:
        path = ensure_trace(MIX_TRACES[bench], traces_dir, progress)
        jobs += [Job(bench, path)] * count
    return Mix(name, tuple(jobs))


def ensure_trace(item: MixTrace, traces_dir: Path,
                 progress: Callable[[GenerationResult], None] | None = None) -> Path:
    path = traces_dir / item.file_name
    if not path.is_file():
        result = generate(make_params(item.bench, PROCS, item.cls, item.scale, seed=1), path)
        if progress:
            progress(result)
    return path


def read_mix_file(path: str | Path) -> Mix:
    """The jobs of a mix file; MixError names file:line and the field at fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MixError(f"{path}: no such mix file (built-in mixes: {', '.join(BUILTIN_MIXES)})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MixError(f"{path}: cannot read the mix file ({error})") from None
    jobs = []
    for number, line in enumerate(text.splitlines(), start=1):
        jobs += _jobs_of_line(path, number, line)
    if not jobs:
        raise MixError(f"{path}: empty mix: no job lines (each job is a line 'TRACE [COUNT]')")
    return Mix(path.stem, tuple(jobs))


def _jobs_of_line(path: Path, number: int, line: str) -> list[Job]:
    fields = line.split("#", 1)[0].split()
    if not fields:
        return []
    where = f"{path}:{number}"
    if len(fields) > 2:
        raise MixError(f"{where}: field 'COUNT': unexpected text after it: {' '.join(fields[2:])!r} "
                       "(a job line is 'TRACE [COUNT]')")
    trace = Path(fields[0])
    if not trace.is_absolute():
        trace = path.parent / trace
    if not trace.is_file():
        raise MixError(f"{where}: field 'TRACE': no such trace file {str(trace)!r}")
    count = _count(where, fields[1]) if len(fields) == 2 else 1
    return [Job(trace.name, trace)] * count


def _count(where: str, text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise MixError(f"{where}: field 'COUNT': expected a whole number of at least 1, got {text!r}")
    return int(text)


def load_mix(spec: str, traces_dir: str | Path = DEFAULT_MIX_DIR,
             progress: Callable[[GenerationResult], None] | None = None) -> Mix:
    """A built-in mix by name, else a mix file."""
    if spec in BUILTIN_MIXES:
        return builtin_mix(spec, traces_dir, progress)
    return read_mix_file(spec)
