"""ibsec.trace.import_trace, the Python side of `ibsec trace import` (docs/importing.md): an archive EZTrace wrote of
a small MPI program becomes an ibsec trace whose summary it returns; a source it cannot import is an EngineError
naming the file, a missing one a ConfigError, and an output that cannot be written is refused before the engine
runs. And the archive where an ibsec trace is expected (`ibsec run --trace`, the API, the trace tools, the Python
reader, a sweep point's identity): imported once into the cache, then read from it."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import ibsec
from conftest import REPO, run_ibsec
from ibsec.capture.mpi import mpirun_command
from ibsec.engine.binary import EngineError
from ibsec.engine.point import EnginePoint
from ibsec.errors import ConfigError
from ibsec.traces.reader import open_trace

pytestmark = pytest.mark.unit

PROGRAM = REPO / "tests" / "capture" / "compute_exchange.c"


@pytest.fixture(scope="module")
def archive(engine, tmp_path_factory):
    """compute_exchange at 4 ranks under EZTrace: the OTF2 anchor."""
    eztrace, mpicc = shutil.which("eztrace"), shutil.which("mpicc")
    if eztrace is None or mpicc is None:
        pytest.skip("EZTrace or mpicc is absent (Debian: apt-get install eztrace libopenmpi-dev)")
    folder = tmp_path_factory.mktemp("eztrace")
    probe = folder / "probe.otf2"
    probe.write_text("not an archive\n")
    answer = run_ibsec("trace", "import", str(probe), "--out", str(folder / "probe.trace"))
    if "was not found when this engine was built" in answer.stderr:
        pytest.skip(f"the engine has no OTF2 reader: {answer.stderr.strip()}")
    subprocess.run([mpicc, "-O1", "-o", str(folder / "ce"), str(PROGRAM)], check=True, capture_output=True)
    command = [*mpirun_command(4, eztrace), "-t", "openmpi", str(folder / "ce")]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder / "ce_trace" / "eztrace_log.otf2"


def test_an_archive_is_imported_and_summarised(archive, tmp_path):
    out = tmp_path / "sub" / "ce.trace.zst"
    summary = ibsec.trace.import_trace(archive, out)
    assert summary["processes"] == 4 and summary["origin_text"].startswith("imported from OTF2")
    assert summary == ibsec.trace.info(out)
    assert run_ibsec("trace", "validate", str(out)).returncode == 0


def test_a_file_that_is_no_archive_is_named(engine, tmp_path):
    source = tmp_path / "notes.otf2"
    source.write_text("not an archive\n")
    with pytest.raises(EngineError, match="notes.otf2"):
        ibsec.trace.import_trace(source, tmp_path / "out.trace")
    assert not (tmp_path / "out.trace").exists()


def test_a_missing_source_and_an_unwritable_output_are_refused(engine, tmp_path):
    with pytest.raises(ConfigError, match="source"):
        ibsec.trace.import_trace(tmp_path / "missing.otf2", tmp_path / "out.trace")
    source = tmp_path / "a.otf2"
    source.write_text("x")
    with pytest.raises(ConfigError, match="out"):
        ibsec.trace.import_trace(source, tmp_path)  # a folder


# ---- another tool's trace where an ibsec trace is expected: imported once into the cache ----------------------

@pytest.fixture
def cache(monkeypatch, tmp_path):
    """A cache folder of the test's own: the engine keeps imports in $XDG_CACHE_HOME/ibsec/imports."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "ibsec" / "imports"


def test_a_run_replays_an_archive_as_it_is(archive, cache, tmp_path):
    """`ibsec run --trace ARCHIVE`: imported on the first run, read from the cache on the second, and the result the
    same as a replay of the trace `trace import` writes; the result names the source by its digest."""
    quick = ["--set", "nic.security=SKC-16", "--set", "replay.compute=wall"]
    first = run_ibsec("run", "paper-16", "--trace", str(archive), *quick, "--out", str(tmp_path / "first.json"))
    assert first.returncode == 0, first.stderr
    assert "importing it (OTF2) once" in first.stderr and str(cache) in first.stderr
    second = run_ibsec("run", "paper-16", "--trace", str(archive), *quick, "--out", str(tmp_path / "second.json"))
    assert second.returncode == 0, second.stderr
    assert "importing" not in second.stderr and "from the cache" in second.stderr
    assert len(list(cache.glob("*.ibtb"))) == 1

    imported = tmp_path / "ce.ibtb"
    assert run_ibsec("trace", "import", str(archive), "--out", str(imported)).returncode == 0
    direct = run_ibsec("run", "paper-16", "--trace", str(imported), *quick, "--out", str(tmp_path / "direct.json"))
    assert direct.returncode == 0, direct.stderr
    results = [json.loads((tmp_path / f"{name}.json").read_text()) for name in ("first", "second", "direct")]
    assert results[0]["statistics"] == results[1]["statistics"] == results[2]["statistics"]
    assert results[0]["config"]["trace"]["file"] == str(archive)
    sha256 = ibsec.trace.info(imported)["notes"]
    assert results[0]["trace_imports"] == [{"source": str(archive), "format": "OTF2",
                                            "source_sha256": results[0]["trace_imports"][0]["source_sha256"]}]
    assert any(results[0]["trace_imports"][0]["source_sha256"] in note for note in sha256)
    assert "trace_imports" not in results[2]


def test_the_api_and_the_trace_tools_read_an_archive_through_the_cache(archive, cache):
    summary = ibsec.trace.import_trace(archive)  # no out: into the cache
    cached = Path(summary.pop("cached_trace"))
    assert cached.parent == cache
    assert summary == ibsec.trace.info(archive) == ibsec.trace.info(cached)
    listed = run_ibsec("trace", "import", str(archive), "--cached")
    assert listed.returncode == 0 and listed.stdout.strip() == str(cached)
    assert "importing" not in listed.stderr  # made once, above
    assert run_ibsec("trace", "validate", str(archive)).returncode == 0
    with open_trace(archive) as trace:  # the one Python reader, through the engine
        assert trace.header.processes == 4
        assert sum(1 for _ in trace.events()) == summary["events"]
    result = ibsec.run("paper-16", set={"nic.security": "NoSecurity", "replay.compute": "wall"}, trace=archive,
                       folder=cache.parent / "runs")
    assert result.drained


def test_a_sweep_point_counts_an_archive_by_every_file(archive, cache, tmp_path):
    """A point's identity holds the digest of the archive's import, so a change to any of its files, not only the
    anchor, makes the point new."""
    copy = tmp_path / "copy"
    shutil.copytree(archive.parent, copy)
    anchor = copy / archive.name
    point = EnginePoint(None, (f"trace.file={json.dumps(str(anchor))}",))
    before = point.identity
    location = next(path for path in sorted((copy / "eztrace_log").rglob("*.evt")))
    location.write_bytes(location.read_bytes() + b"\0")
    after = EnginePoint(None, (f"trace.file={json.dumps(str(anchor))}",)).identity
    assert before["overrides"] != after["overrides"]
    assert before["engine"] == after["engine"]


def test_a_folder_without_a_run_and_no_cache_folder_are_named(archive, engine, monkeypatch, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = run_ibsec("run", "paper-16", "--trace", str(empty), "--out", str(tmp_path / "r.json"))
    assert refused.returncode == 2 and "is a directory, not a trace" in refused.stderr
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    refused = run_ibsec("run", "paper-16", "--trace", str(archive), "--out", str(tmp_path / "r.json"))
    assert refused.returncode == 2 and "trace.file" in refused.stderr and "XDG_CACHE_HOME" in refused.stderr
    assert not (tmp_path / "r.json").exists()
