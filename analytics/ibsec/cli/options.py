"""Options and helpers that several commands share."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..engine.registries import SECTIONS as REGISTRY_SECTIONS
from ..engine.registries import listed
from ..errors import ConfigError
from ..numeric import as_option, count_option, positive_real_option
from ..output.files import check_output_file, check_output_folder
from ..runs.cluster import BATCH_OPTIONS, BATCH_SYSTEMS, ClusterOptions
from ..units import parse_size


class RegistryHelpFormatter(argparse.HelpFormatter):
    """Help texts may name an engine registry as {schedulers}, {replacement_policies}, ..., and a default of
    `ibsec-engine cachesim` as {cachesim:NAME}: both are read from the engine only when the help is shown, so
    they are never copied here."""

    def _expand_help(self, action):
        text = super()._expand_help(action)
        for section in REGISTRY_SECTIONS:
            if "{" + section + "}" in text:
                text = text.replace("{" + section + "}", listed(section))
        return CACHESIM_DEFAULT.sub(lambda match: _cachesim_default(match.group(1)), text)


CACHESIM_DEFAULT = re.compile(r"\{cachesim:(\w+)\}")


def _cachesim_default(name: str) -> str:
    from ..models.cachesim import default

    value = default(name)
    return f"{value:g}" if isinstance(value, float) else str(value)  # digits unspaced: help wraps at spaces


def print_json(data) -> None:
    print(json.dumps(data, indent=2))


# ---- outputs, checked when the options are read, so a run never ends unable to write its result ----------

def output_file(text: str) -> str:
    """argparse type= of an output file (`-`: standard output): its folder exists or can be made, it is no
    folder (output/files.py)."""
    return as_option(lambda path, field: check_output_file(path, field) or path)(text)


def output_folder(text: str) -> str:
    """argparse type= of an output folder: a writable folder, or one that can be made."""
    return as_option(lambda path, field: check_output_folder(path, field) or path)(text)


# ---- cache models: sizes and ON/OFF traffic --------------------------------------

def add_size_options(parser: argparse.ArgumentParser, required: bool, engine_defaults: bool = False) -> None:
    """--entries, --size and --entry-bytes; `engine_defaults`: a command that runs `ibsec-engine cachesim` leaves
    what is not given to the engine, whose defaults its help shows."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--entries", type=count_option, help="cache size in entries (x)")
    group.add_argument("--size", help="cache size in bytes, e.g. 2KB, 16KB"
                                      + (" (default {cachesim:size})" if engine_defaults else ""))
    parser.add_argument("--entry-bytes", type=count_option, default=None if engine_defaults else 16,
                        help="bytes per entry (default: "
                             + ("{cachesim:entry_bytes}" if engine_defaults else "%(default)s") + ", one 128-bit key)")


def entries_from(args) -> int:
    if args.entries is not None:
        return args.entries
    size = parse_size(args.size)
    if args.entry_bytes <= 0 or size % args.entry_bytes:
        raise ConfigError("size", f"{size} bytes is not a whole number of {args.entry_bytes}-byte entries")
    return size // args.entry_bytes


def add_onoff_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("ON/OFF traffic (give the means, or a preset)")
    group.add_argument("--on-mean", type=positive_real_option, help="mean ON duration, ms (1/mu)")
    group.add_argument("--off-mean", type=positive_real_option, help="mean OFF duration, ms (1/lambda)")
    group.add_argument("--preset", help="NAS benchmark preset: BT, CG, FT, LU, MG, SP (see `ibsec presets`)")
    group.add_argument("--machine", default="origin2000",
                       help="preset machine: origin2000 or sp2 (default: %(default)s)")


def on_off_from(args) -> tuple[float, float, str]:
    """ON/OFF means (ms) from --on-mean/--off-mean or --preset/--machine, and where they came from: the
    preset's name, "custom" when both were given (a preset they both override contributes nothing), or the
    preset's name with the mean that was given instead of its own."""
    from ..models import presets

    if args.preset:
        preset = presets.get(args.preset, args.machine)
        on = args.on_mean if args.on_mean is not None else preset.on_mean_ms
        off = args.off_mean if args.off_mean is not None else preset.off_mean_ms
        given = [name for name in ("on_mean", "off_mean") if getattr(args, name) is not None]
        if len(given) == 2:
            return on, off, "custom"
        return on, off, preset.name + "".join(f" with custom {name}" for name in given)
    if args.on_mean is None or args.off_mean is None:
        raise ConfigError("on_mean", "give --on-mean and --off-mean, or --preset BENCH [--machine M]")
    return args.on_mean, args.off_mean, "custom"


# ---- where the points run (Dask) ---------------------------------------------------

def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that runs its points on Dask. `--jobs` means what it means in every other
    command, points run at once; batch jobs are `--batch-jobs`."""
    group = parser.add_argument_group("where the points run (Dask)")
    group.add_argument("--cluster", choices=["local", *BATCH_SYSTEMS],
                       help="local: a Dask LocalCluster on this machine (default); slurm or pbs: batch jobs "
                            "submitted through dask-jobqueue")
    group.add_argument("--jobs", type=count_option,
                       help="local cluster: points run at once (default: the CPUs). With --cluster slurm|pbs the "
                            "old meaning, batch jobs, is still taken, with a warning: say --batch-jobs")
    group.add_argument("--workers", type=count_option, help="deprecated spelling of --jobs (local cluster)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="connect to a running Dask scheduler (e.g. tcp://host:8786) instead of starting one")
    group.add_argument("--queue", help="batch: queue (SLURM partition)")
    group.add_argument("--walltime", help="batch: wall time of each job, e.g. 02:00:00")
    group.add_argument("--memory", help="batch: memory of each job, e.g. 16GiB")
    group.add_argument("--cores", type=count_option, help="batch: cores of each job = engine runs at once in it")
    group.add_argument("--batch-jobs", type=count_option, help="batch: how many jobs to scale to (default 1)")
    group.add_argument("--print-job-script", action="store_true",
                       help="batch: print the job script dask-jobqueue would submit, and exit without submitting")
    group.add_argument("--verbose", action="store_true", help="show Dask's own log messages")


def deprecated(old: str, new: str) -> None:
    print(f"ibsec: warning: {old} is deprecated: say {new}", file=sys.stderr)


def cluster_options(args: argparse.Namespace) -> ClusterOptions:
    """ClusterOptions from parsed options, or ConfigError naming the option that does not fit."""
    if args.scheduler is not None and args.cluster not in (None, "local"):
        raise ConfigError("--scheduler", f"connects to a running scheduler; drop --cluster {args.cluster}")
    cluster = args.cluster or "local"
    remote = args.scheduler is not None
    workers, batch_jobs = args.jobs, args.batch_jobs
    if args.workers is not None:
        deprecated("--workers", "--jobs")
        workers = args.workers if workers is None else workers
    if args.jobs is not None and cluster in BATCH_SYSTEMS:
        deprecated(f"--jobs with --cluster {cluster} (batch jobs)", f"--batch-jobs {args.jobs}")
        workers, batch_jobs = None, args.jobs if batch_jobs is None else batch_jobs
    if workers is not None and (cluster != "local" or remote):
        raise ConfigError("--jobs", "only for the local cluster (a batch cluster has --batch-jobs and --cores)")
    given = {"queue": args.queue, "walltime": args.walltime, "memory": args.memory, "cores": args.cores,
             "batch_jobs": batch_jobs}
    for name in BATCH_OPTIONS:
        if given[name] is not None and cluster not in BATCH_SYSTEMS:
            raise ConfigError(f"--{name.replace('_', '-')}", "only with --cluster slurm or --cluster pbs")
    if args.print_job_script and cluster not in BATCH_SYSTEMS:
        raise ConfigError("--print-job-script", "only with --cluster slurm or --cluster pbs")
    return ClusterOptions(cluster=cluster, scheduler=args.scheduler, workers=workers, queue=args.queue,
                          walltime=args.walltime, memory=args.memory, cores=args.cores, batch_jobs=batch_jobs,
                          verbose=args.verbose)
