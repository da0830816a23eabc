"""ibsec.trace.import_trace, the Python side of `ibsec trace import` (docs/importing.md): an archive EZTrace wrote of
a small MPI program becomes an ibsec trace whose summary it returns; a source it cannot import is an EngineError
naming the file, a missing one a ConfigError, and an output that cannot be written is refused before the engine
runs."""

import shutil
import subprocess

import pytest

import ibsec
from conftest import REPO, run_ibsec
from ibsec.capture.mpi import mpirun_command
from ibsec.engine.binary import EngineError
from ibsec.errors import ConfigError

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
