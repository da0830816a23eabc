"""Issue 16, item 17: two copies of one sweep into one folder both computed nearly every point. The store is
locked (flock on STORE.lock beside it); a second run refuses at once with a message naming the folder."""

import fcntl
import json
import subprocess
import sys

import pytest

from ibsec.runs.store import StoreBusy, run_points, store_locked

from .helpers import ibsec, no_traceback, recording_engine


def hold_lock(store):
    """The lock as another process holds it (flock is per open file: this handle is not the store's own)."""
    handle = open(store.with_name(f"{store.name}.lock"), "a")  # closed by the test
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return handle


@pytest.mark.unit
def test_a_second_run_into_a_locked_store_is_refused_naming_the_folder(tmp_path):
    """Item 17: run_points refuses to run into a store another run holds, and runs nothing."""
    store = tmp_path / "sweep" / "points.jsonl"
    store.parent.mkdir()
    holder = hold_lock(store)
    ran = []
    try:
        with pytest.raises(StoreBusy, match=f"another ibsec is running points into {store.parent}"):
            run_points([{"x": 1}], lambda p: ran.append(p) or {"y": 1}, store=store, quiet=True)
    finally:
        holder.close()
    assert ran == [] and not store.exists()
    assert run_points([{"x": 1}], lambda p: {"y": 1}, store=store, quiet=True) == [{"y": 1}]  # released: runs


@pytest.mark.unit
def test_the_lock_is_released_when_its_holder_is_killed(tmp_path):
    """Item 17: a killed sweep leaves a lock file but no lock (flock ends with its process)."""
    store = tmp_path / "points.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", f"""
import fcntl, sys, time
handle = open({str(store) + '.lock'!r}, "a")
fcntl.flock(handle, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(600)
"""], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreBusy):
            run_points([{"x": 1}], lambda p: {"y": 1}, store=store, quiet=True)
    finally:
        holder.kill()
        holder.wait()
    assert run_points([{"x": 1}], lambda p: {"y": 1}, store=store, quiet=True) == [{"y": 1}]


@pytest.mark.unit
def test_a_command_holding_its_store_runs_its_points():
    """Item 17: `ibsec sweep` locks its folder for the whole command; its own run_points does not refuse it."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "points.jsonl"
        with store_locked(store):
            assert run_points([{"x": 1}], lambda p: {"y": 1}, store=store, quiet=True) == [{"y": 1}]


@pytest.mark.unit
def test_ibsec_sweep_into_a_busy_folder_refuses_before_writing_or_starting_a_cluster(tmp_path):
    """Item 17: the second `ibsec sweep SPEC --out DIR` exits 2 naming DIR, and leaves DIR as it was."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"kind": "analytic", "set": {"model": "hitrate", "entries": 3, "on_mean": 1,
                                                          "off_mean": 1}, "grid": {"processes": [4, 5]}}))
    out = tmp_path / "out"
    out.mkdir()
    holder = hold_lock(out / "points.jsonl")
    try:
        done = ibsec("sweep", str(spec), "--out", str(out), "--quiet", timeout=60)
    finally:
        holder.close()
    assert done.returncode == 2 and no_traceback(done)
    assert f"another ibsec is running points into {out}" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["points.jsonl.lock"]


@pytest.mark.unit
def test_a_cachesim_sweep_into_a_busy_store_refuses_before_any_engine_run(tmp_path, monkeypatch):
    """Item 17: every command's store is locked (here `ibsec cachesim --sweep`'s, beside its CSV)."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    holder = hold_lock(tmp_path / ".x.csv.points.jsonl")
    try:
        done = ibsec("cachesim", "--sweep", "keys=10,20", "--out", str(tmp_path / "x.csv"), timeout=60)
    finally:
        holder.close()
    assert done.returncode == 2 and "another ibsec is running points" in done.stderr
    assert not calls.exists()
