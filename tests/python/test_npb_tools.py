"""What `ibsec trace capture-npb` and test_npb.py stand on, without MPI or NPB: NPB's build settings and names,
its verification line, provenance notes in a trace's header, and the command's errors."""

import io
import tarfile
from pathlib import Path

import pytest

from conftest import run_engine, run_ibsec
from ibsec.capture import npb
from ibsec.capture.npb_capture import add_notes, ascii_text, trace_name
from ibsec.errors import ConfigError, IbsecError

pytestmark = pytest.mark.unit

TRACE = """\
ibsec-trace 2
processes 2
time_unit ns
origin synthetic npb-tools
comm 1 1 0
events
0 0 10 send 1 100 7 0
1 0 20 recv 0 100 7 0 exact
end 2
"""


def test_npb_build_settings_and_names():
    template = "MPIFC = mpif90\nFFLAGS\t= -O3\nCFLAGS\t= -O3\n"
    settings = npb.make_def(template)
    assert npb.make_setting(settings, "FFLAGS") == npb.FFLAGS and npb.make_setting(settings, "CFLAGS") == "-O3"
    with pytest.raises(IbsecError, match="expected one FFLAGS line, found 0"):
        npb.make_def("CFLAGS = -O3\n")
    assert npb.check_benchmark("CG", "s") == ("cg", "S")
    with pytest.raises(ConfigError, match="invalid 'benchmark': 'xx' is not one of bt, cg"):
        npb.check_benchmark("xx", "S")
    with pytest.raises(ConfigError, match="invalid 'class': 'Q'"):
        npb.check_benchmark("cg", "Q")
    assert trace_name("cg", "S", 16, "gz") == "cg.S.16.trace.gz"


def test_processes_confined_to_fewer_cpus_yield_while_they_wait(monkeypatch):
    from ibsec.capture import mpi

    monkeypatch.setattr(mpi, "tool", lambda name: name)  # no MPI needed to build the command

    def mca(command: list[str]) -> dict[str, str]:
        return {command[i + 1]: command[i + 2] for i, word in enumerate(command) if word == "--mca"}

    assert mpi.cpu_list_size("0") == 1 and mpi.cpu_list_size("0,2-4") == 4
    # Open MPI yields by itself when it runs more processes than cores, but it cannot see a taskset.
    assert mca(mpi.mpirun_command(2, "a.out", cpus="0")) == {"mpi_yield_when_idle": "1"}
    assert mca(mpi.mpirun_command(2, "a.out", cpus="0-1")) == {}
    assert mca(mpi.mpirun_command(16, "a.out")) == {}
    assert mca(mpi.mpirun_command(2, "a.out", mca={"mpi_yield_when_idle": "0"}, cpus="0")) == {
        "mpi_yield_when_idle": "0"}
    confined = mpi.mpirun_command(2, "a.out", env={"A": "1"}, cpus="0")
    assert confined[:3] == ["taskset", "-c", "0"] and confined[-1] == "a.out" and "A=1" in confined


def test_npb_prints_its_verification_with_padding():
    run = npb.NpbRun([], " Verification    =               SUCCESSFUL\n", "", 1.0)
    assert run.verification == "Verification = SUCCESSFUL"
    assert npb.NpbRun([], " Verification    =               UNSUCCESSFUL\n", "", 1.0).verification is None


def test_provenance_notes_go_after_the_trace_s_own_notes_and_validate(tmp_path, engine):
    source = tmp_path / "raw.trace"
    source.write_text(TRACE.replace("origin synthetic npb-tools\n", "origin synthetic npb-tools\nnote its own\n"))
    target = tmp_path / "annotated.trace"
    add_notes(source, ["npb: one", "npb: two"], target)
    lines = target.read_text().splitlines()
    assert lines[3:8] == ["origin synthetic npb-tools", "note its own", "note npb: one", "note npb: two", "comm 1 1 0"]
    assert run_engine(engine, "trace", "validate", str(target)).returncode == 0
    assert ascii_text("AMD  EPYC\u2122 7B13\t 64-Core") == "AMD EPYC? 7B13 64-Core"


def test_capture_npb_refuses_a_bad_benchmark_and_names_a_missing_tarball(tmp_path, monkeypatch):
    bad = run_ibsec("trace", "capture-npb", "xx", "--out", str(tmp_path))
    assert bad.returncode == 2 and "invalid 'benchmark': 'xx' is not one of" in bad.stderr
    monkeypatch.setenv(npb.NPB_DIR_ENV, str(tmp_path / "nowhere"))
    absent = run_ibsec("trace", "capture-npb", "cg", "--out", str(tmp_path / "out"))
    assert absent.returncode == 2
    assert f"NPB3.4-MPI.tar.gz not found in {tmp_path / 'nowhere'}" in absent.stderr
    assert npb.NPB_DIR_ENV in absent.stderr


def tarball(path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))


@pytest.mark.parametrize(("members", "problem"), [
    ({"README": b"x"}, "no NPB3.4-MPI/config/make.def.template inside; is it the NPB 3.4 MPI tarball?"),
    ({npb.TEMPLATE: b"CFLAGS = -O3\n"}, "expected one FFLAGS line, found 0"),
    ({npb.TEMPLATE: b"FFLAGS = -O3\n", "../outside": b"x"}, "outside"),
])
def test_a_tarball_that_is_not_npb_or_reaches_outside_is_refused(tmp_path, members, problem):
    source = tmp_path / npb.TARBALL
    tarball(source, members)
    with pytest.raises(IbsecError, match=problem):
        npb.build([("cg", "S")], tmp_path / "cache", source)
    assert not (tmp_path / "outside").exists()
    assert not any(p.is_dir() for p in (tmp_path / "cache").glob("*")), "no half-unpacked tree is left"


def test_a_file_that_is_no_tar_archive_is_named(tmp_path):
    source = tmp_path / npb.TARBALL
    source.write_bytes(b"not a tarball")
    with pytest.raises(IbsecError, match=f"{source}: cannot read it as a tar archive"):
        npb.build([("cg", "S")], tmp_path / "cache", source)


def test_capture_npb_takes_a_tarball_by_path_and_refuses_a_wrong_sha256(tmp_path):
    source = tmp_path / "anywhere" / "npb-download.tar.gz"
    source.parent.mkdir()
    tarball(source, {"README": b"not NPB"})
    actual = npb.sha256(source)
    wrong = run_ibsec("trace", "capture-npb", "cg", "--tarball", str(source), "--out", str(tmp_path / "out"))
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert f"{source}: sha256 {actual}, expected {npb.EXPECTED_SHA256}" in wrong.stderr
    assert f"pass --sha256 {actual}" in wrong.stderr
    # Told its digest, the same file is taken from where it is, and found not to be NPB.
    taken = run_ibsec("trace", "capture-npb", "cg", "--tarball", str(source), "--sha256", actual.upper(),
                      "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out"))
    assert taken.returncode == 2 and f"{source}: no {npb.TEMPLATE} inside" in taken.stderr


@pytest.mark.parametrize(("extra", "problem"), [
    (["--tarball", "missing.tar.gz"], "invalid '--tarball': missing.tar.gz is not a file"),
    (["--tarball", "t.tar.gz", "--npb", "."], "invalid '--tarball': give the tarball by --tarball PATH or its folder"),
    (["--sha256", "abc"], "'abc' is not a SHA-256 (64 hexadecimal digits)"),
])
def test_capture_npb_names_a_bad_tarball_option(tmp_path, monkeypatch, extra, problem):
    monkeypatch.chdir(tmp_path)
    tarball(tmp_path / "t.tar.gz", {"README": b"x"})
    done = run_ibsec("trace", "capture-npb", "cg", *extra, "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and problem in done.stderr, done.stderr


def test_the_shared_npb_tarball_has_the_expected_sha256():
    found = npb.find_tarball()
    if found is None:
        pytest.skip(f"NPB is absent: no {npb.TARBALL} in {npb.npb_folder()}")
    assert npb.check_sha256(found) == npb.EXPECTED_SHA256


@pytest.mark.parametrize("name", ["cg.S.16.trace.zst", "ft.A.16.trace.zst"])
def test_the_expected_sha256_is_the_one_the_shipped_traces_record(engine, name):
    from importlib import resources

    from ibsec.traces.reader import read_header

    notes = read_header(Path(str(resources.files("ibsec.data") / "npb" / name))).notes
    assert f"npb: NPB 3.4 MPI, unmodified {npb.TARBALL} sha256 {npb.EXPECTED_SHA256}" in notes


def test_the_readme_and_real_traces_doc_give_the_expected_sha256_and_the_nas_site():
    from conftest import REPO

    for doc in (REPO / "README.md", REPO / "docs" / "real-traces.md"):
        text = doc.read_text()
        assert npb.EXPECTED_SHA256 in text, f"{doc} does not give the SHA-256 capture-npb expects"
        assert "https://www.nas.nasa.gov/software/npb.html" in text and "--tarball" in text, doc
