"""Running many independent points with resume.

Each finished point is appended (fsync'd) to a JSON-lines store as soon as it
finishes, so killing a sweep loses nothing already computed, and running the
same sweep again only computes the points that are missing or failed. The
points run on a local thread pool by default, or on any concurrent.futures
executor given, e.g. a Dask client's (cluster.py), which is how `ibsec sweep`
runs large sweeps.
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import json
import os
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from ..errors import IbsecError
from ..output.files import append_line_durably
from ..output.progress import progress


class PointsFailed(IbsecError):
    """Some points of a sweep failed; the others finished and are kept.

    `results` lists every point's result in order, None where it failed;
    `errors` maps the index of each failed point to its error.
    """

    def __init__(self, message: str, results: list, errors: dict[int, IbsecError]):
        super().__init__(message)
        self.results = results
        self.errors = errors
        first = errors[min(errors)] if errors else None
        self.exit_code = getattr(first, "exit_code", 2)


class StoreBusy(IbsecError):
    """Another process is running points into the same store."""


def point_key(point: dict) -> str:
    return json.dumps(point, sort_keys=True)


def load_store(store: Path | None) -> dict[str, dict]:
    """Finished points of a store, by point key. Later lines win.

    Only a record {"point": ..., "result": {...}} marks a point done. Any other record of a point (a failed
    one's "error", a result that is null or not a table) marks it to run again: taking it for done would put
    a row of empty values in the table as "ok". A line that names no point (torn by a kill, garbage, `{}`)
    is skipped.
    """
    done: dict[str, dict] = {}
    if store is None or not store.exists():
        return done
    for line in store.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if not isinstance(record, dict) or "point" not in record:
            continue
        key = point_key(record["point"])
        if isinstance(record.get("result"), dict):
            done[key] = record["result"]
        else:
            done.pop(key, None)
    return done


def end_torn_line(store: Path | None) -> None:
    """End a line cut short by a kill, so that the next record starts a line of its own."""
    if store is None or not store.exists() or store.stat().st_size == 0:
        return
    with open(store, "rb") as handle:
        handle.seek(-1, 2)
        if handle.read(1) != b"\n":
            append_line_durably(store, "")


# Stores whose lock this process holds (flock is per open file: locking one twice would refuse itself).
_locked: set[Path] = set()


@contextlib.contextmanager
def store_locked(store: Path | None):
    """Hold the store's lock (STORE.lock, beside it) for the block, or raise StoreBusy at once.

    Two runs of one sweep into one folder would both compute nearly every point, each missing what the other
    had not yet finished. The second refuses rather than waits: the first may take hours, and running the
    command again once it is done computes only what it left. The lock is flock(2): the system releases it
    when its holder ends, killed or not, so a stale lock file never blocks a later run.
    """
    if store is None or store.resolve() in _locked:  # a command holding its store's lock runs its points
        yield
        return
    store.parent.mkdir(parents=True, exist_ok=True)
    lock = lock_file(store)
    with open(lock, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreBusy(f"another ibsec is running points into {store.parent} (it holds {lock}); wait for it "
                            "to finish, then run this command again to reuse its points, or choose another "
                            "output") from None
        _locked.add(store.resolve())
        try:
            yield
        finally:
            _locked.discard(store.resolve())
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_file(store: Path) -> Path:
    return store.with_name(f"{store.name}.lock")


def discard_store(store: Path) -> None:
    """Remove a store whose every point is in its output, and its lock file. Called with the lock held: a
    second run refused meanwhile only finds the output complete, and one started after the lock file is gone
    takes a new lock of its own."""
    store.unlink(missing_ok=True)
    lock_file(store).unlink(missing_ok=True)


# The executor run_points uses when its caller names none: `ibsec reproduce`
# puts every figure's points on one Dask cluster this way.
_executor: contextvars.ContextVar[Executor | None] = contextvars.ContextVar("executor", default=None)


@contextlib.contextmanager
def points_run_on(executor: Executor):
    """Within the block, run_points calls that name no executor use this one."""
    token = _executor.set(executor)
    try:
        yield executor
    finally:
        _executor.reset(token)


def run_points(
    points: list,
    run: Callable[[Any], dict],
    store: Path | None = None,
    jobs: int = 1,
    quiet: bool = False,
    label: str = "points",
    executor: Executor | None = None,
    key: Callable[[Any], dict] | None = None,
) -> list[dict]:
    """Run every point not already in `store`; return results in the order of `points`.

    A point's identity in the store is `key(point)` (a JSON object: what
    decides its result; e.g. EnginePoint.identity), or the point itself when
    no `key` is given. Points run on `executor` when given (the caller owns
    it; `jobs` is then unused), else on a pool of `jobs` threads. A failing
    point (one whose `run` raises IbsecError) records its error and does not
    stop the others; if any failed, PointsFailed (an IbsecError holding the
    results of the others) is raised after all have run. The store is
    locked for the call: a second process running into it is refused
    (store_locked).
    """
    with store_locked(store):
        return _run_points(points, run, store, jobs, quiet, label, executor or _executor.get(), key)


def _run_points(points: list, run: Callable[[Any], dict], store: Path | None, jobs: int, quiet: bool, label: str,
                executor: Executor | None, key: Callable[[Any], dict] | None) -> list[dict]:
    """run_points, with the store locked."""
    identities = [p if key is None else key(p) for p in points]
    keys = [point_key(identity) for identity in identities]
    done = load_store(store)
    first_of = {}  # a point asked for twice runs once
    for i, k in enumerate(keys):
        first_of.setdefault(k, i)
    todo = [i for k, i in first_of.items() if k not in done]
    failed: dict[str, IbsecError] = {}
    if todo:
        end_torn_line(store)
        bar = progress(len(first_of), label, "pt", initial=len(first_of) - len(todo), quiet=quiet)
        own_pool = executor is None
        pool = ThreadPoolExecutor(max_workers=max(1, jobs)) if own_pool else executor
        futures = {}
        try:
            futures = {pool.submit(run, points[i]): i for i in todo}
            for future in as_completed(futures):
                i = futures[future]
                try:
                    result = future.result()
                except IbsecError as error:
                    failed[keys[i]] = error
                    record = {"point": identities[i], "error": str(error)}
                else:
                    done[keys[i]] = result
                    record = {"point": identities[i], "result": result}
                if store is not None:
                    append_line_durably(store, json.dumps(record))
                bar.update(1)
                bar.set_postfix(failed=len(failed), refresh=False)  # shown at the next update
        except BaseException:
            # Interrupted (Ctrl-C): start nothing more; what finished is already in the store.
            for future in futures:
                future.cancel()
            if own_pool:
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        if own_pool:
            pool.shutdown()
        bar.close()
    results = [done.get(k) for k in keys]
    if failed:
        errors = {i: failed[k] for i, k in enumerate(keys) if k in failed}
        first = errors[min(errors)]
        raise PointsFailed(f"{len(errors)} of {len(points)} {label} failed; first: {keys[min(errors)]}: {first}",
                           results, errors)
    return results


def default_jobs() -> int:
    """Points run at once on this machine's own pool: its CPUs, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))
