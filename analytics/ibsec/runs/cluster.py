"""Where the points of a large sweep run: a Dask cluster.

Three places, one interface (`dask_executor`, a concurrent.futures executor
that store.run_points accepts):

- this machine (default): a `distributed.LocalCluster` of one single-threaded
  worker per core. The workers are threads of the sweep's own process: each
  point runs in its own engine process, so threads give full parallelism
  without spawning Python interpreters, and killing the sweep kills its
  workers with it;
- a batch cluster (`--cluster slurm|pbs`): dask-jobqueue submits
  `--batch-jobs` batch jobs, each one Dask worker with `--cores` threads (one engine run
  per core); the workers use this process's Python and ibsec-engine, so both
  (and the sweep's folder and inputs) must be on a file system they see;
- a running Dask scheduler (`--scheduler ADDRESS`), whatever its workers are.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import sys
import warnings
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass

from ..errors import ConfigError, IbsecError
from ..numeric import count, optional

BATCH_SYSTEMS = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
BATCH_OPTIONS = ("queue", "walltime", "memory", "cores", "batch_jobs")
DASK_LOGGERS = ("distributed", "dask", "dask_jobqueue", "tornado", "bokeh")
# The local cluster shares the sweep's process: its stack sampling (for the dashboard's profile, which
# a sweep does not show) and 50 Hz event-loop checks would cost 5-8 % of a core for nothing.
LOCAL_DASK_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}
JOB_NAME = "ibsec-worker"


@dataclass(frozen=True)
class ClusterOptions:
    """Where to run: `cluster` is local, slurm or pbs; `scheduler` an address to connect to instead."""

    cluster: str = "local"
    scheduler: str | None = None
    workers: int | None = None
    queue: str | None = None
    walltime: str | None = None
    memory: str | None = None
    cores: int | None = None
    batch_jobs: int | None = None
    verbose: bool = False

    def __post_init__(self):
        """The counts checked here, where the command's options and ibsec.sweep's `workers` both arrive: a count
        below 1 would start no worker (a sweep that never ends) or quietly mean "the CPUs"."""
        for name in ("workers", "cores", "batch_jobs"):
            object.__setattr__(self, name, optional(count)(getattr(self, name), name))


# ---- Dask ----------------------------------------------------------------------

def quiet_dask(verbose: bool) -> None:
    """Dask reports every worker start, stop and slow event loop; only errors matter to a sweep."""
    level = logging.INFO if verbose else logging.ERROR
    for name in DASK_LOGGERS:
        logging.getLogger(name).setLevel(level)
    # A point that fails is recorded with its error; the worker's report of it would only repeat that.
    logging.getLogger("distributed.worker").setLevel(level if verbose else logging.CRITICAL)
    if not verbose:
        warnings.filterwarnings("ignore", module=r"distributed(\.|$)")
        warnings.filterwarnings("ignore", module=r"dask_jobqueue(\.|$)")


def local_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def start_local_cluster(options: ClusterOptions):
    from distributed import LocalCluster

    return LocalCluster(n_workers=options.workers or local_workers(), threads_per_worker=1, processes=False,
                        dashboard_address=None, silence_logs=logging.INFO if options.verbose else logging.ERROR)


def worker_prologue() -> list[str]:
    """Batch workers run the engine this process would run (its digest keys the store)."""
    from ..engine.binary import ENGINE_ENV, engine_path

    try:
        return [f"export {ENGINE_ENV}={shlex.quote(os.path.abspath(engine_path()))}"]
    except IbsecError:
        return []  # no engine here: the workers find their own


def start_batch_cluster(options: ClusterOptions):
    import dask_jobqueue

    given = {name: getattr(options, name) for name in ("queue", "walltime", "memory", "cores")
             if getattr(options, name) is not None}
    cluster_class = getattr(dask_jobqueue, BATCH_SYSTEMS[options.cluster])
    try:
        return cluster_class(processes=1, job_name=JOB_NAME, job_script_prologue=worker_prologue(),
                             python=sys.executable, **given)
    except ValueError as error:
        if "cores" in str(error) and "memory" in str(error):
            raise ConfigError("--cores", "give the cores and memory of one batch job, e.g. --cores 8 --memory 24GiB "
                                         "(or set them in dask-jobqueue's configuration)") from None
        raise ConfigError(f"--cluster {options.cluster}", str(error)) from None


def job_script(options: ClusterOptions) -> str:
    """The batch script dask-jobqueue would submit for one job; nothing is submitted."""
    quiet_dask(options.verbose)
    with start_batch_cluster(options) as cluster:
        return cluster.job_script()


def connect(address: str):
    from distributed import Client

    try:
        return Client(address)
    except (OSError, ValueError, TimeoutError) as error:
        raise IbsecError(f"cannot reach the Dask scheduler at {address} ({error})") from None


@contextlib.contextmanager
def dask_executor(options: ClusterOptions) -> Iterator[Executor]:
    """A concurrent.futures executor on the cluster `options` name; the cluster is closed on leaving."""
    from distributed import Client

    quiet_dask(options.verbose)
    with contextlib.ExitStack() as stack:
        if options.scheduler is not None:
            client = stack.enter_context(connect(options.scheduler))
        else:
            if options.cluster in BATCH_SYSTEMS:
                cluster = stack.enter_context(start_batch_cluster(options))
                cluster.scale(jobs=options.batch_jobs or 1)
            else:
                import dask

                stack.enter_context(dask.config.set(LOCAL_DASK_CONFIG))
                cluster = stack.enter_context(start_local_cluster(options))
            client = stack.enter_context(Client(cluster))
        if options.verbose:
            print(f"dask: {client}", file=sys.stderr)
        yield client.get_executor()
