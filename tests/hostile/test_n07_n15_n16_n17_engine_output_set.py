"""Issue 27, items 7, 15, 16 and 17 (engine): all outputs of one run are checked together before it starts.

Item 7: two outputs naming the same file (`--set sim.event_log=r.json --out r.json`) were not detected and one was
lost. Item 15: an output that is also an input (`--trace t.trace --out t.trace`, `--out` onto the config) destroyed
it. Item 16: `sim.vcd=F` writes F.vcd but the check looked at F. Item 17: sim.detail tables beside a device, FIFO or
symlink `--out` were created next to it. Outputs are now regular files or new paths only (never a device, FIFO,
symlink or directory; `-` is standard output), compared by device and inode where they exist and by normalized path
where they do not (core/atomic_file.h, CommandFiles).
"""

import os
import shutil
import stat

import pytest

from .engine import PAPER16, REPO, refused, run, tiny_trace

pytestmark = pytest.mark.unit
QUICK = ["--set", "traffic.messages=200", "--set", "traffic.warmup_messages=0", "-q"]
SNOOP = REPO / "configs" / "attacks" / "snoop.json"


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("out, other, field", [
    ("r.json", ["--set", "sim.event_log=r.json"], "sim.event_log"),  # the reproducer
    ("r.json", ["--perf-json", "r.json"], "--perf-json"),
    ("r.vcd", ["--set", "sim.vcd=r"], "sim.vcd"),  # the VCD by the name SystemC gives it
    ("r.json", ["--attack", str(SNOOP), "--set", "attack.capture_file=r.json"], "attack.capture_file"),
])
def test_n07_two_outputs_naming_one_new_file_are_refused(tmp_path, out, other, field):
    """Item 7: the issue's reproducer and its neighbours, both outputs new files."""
    result = run("run", PAPER16, *QUICK, "--out", out, *other, cwd=tmp_path)
    assert refused(result, field, f"'{out}'", "also where --out goes")
    assert listing(tmp_path) == []


def test_n07_paths_are_compared_normalized_and_by_inode(tmp_path):
    """Item 7: `d/../r.json` is `r.json`; a hard link to an existing result is that result."""
    (tmp_path / "d").mkdir()
    result = run("run", PAPER16, *QUICK, "--out", "d/../r.json", "--set", "sim.event_log=./r.json", cwd=tmp_path)
    assert refused(result, "sim.event_log", "also where --out goes")
    (tmp_path / "old.json").write_text("{}")
    os.link(tmp_path / "old.json", tmp_path / "hard.json")
    result = run("run", PAPER16, *QUICK, "--out", "old.json", "--perf-json", "hard.json", cwd=tmp_path)
    assert refused(result, "--perf-json", "also where --out goes")
    assert (tmp_path / "old.json").read_text() == "{}"


def test_n07_a_detail_table_that_is_another_output_is_refused(tmp_path):
    """Item 7: the derived table names are outputs like the others (r.json -> r.links.csv)."""
    result = run("run", PAPER16, *QUICK, "--out", "r.json", "--set", "sim.detail=links",
                 "--set", "sim.event_log=r.links.csv", cwd=tmp_path)
    assert refused(result, "sim.detail (links table)", "also where sim.event_log goes")


def test_n07_two_outputs_to_standard_output_are_refused():
    """Item 7: `-` takes one output: the result and the perf figures would be interleaved."""
    assert refused(run("run", PAPER16, *QUICK, "--out", "-", "--perf-json", "-"), "--perf-json", "also where --out")


def test_n15_an_output_onto_the_replayed_trace_is_refused_and_the_trace_kept(tmp_path):
    """Item 15: `E run $C --trace t.trace --out t.trace` replaced the trace with the result."""
    trace = tiny_trace(tmp_path / "t.trace")
    before = trace.read_text()
    result = run("run", PAPER16, "-q", "--trace", str(trace), "--out", str(trace))
    assert refused(result, "--out", "is trace.file", "which the run reads")
    assert trace.read_text() == before


@pytest.mark.parametrize("option", ["--out", "--perf-json"])
def test_n15_an_output_onto_the_config_file_is_refused_and_the_config_kept(tmp_path, option):
    """Item 15: `--out` onto the config destroyed it; so would --perf-json."""
    config = tmp_path / "c.json"
    shutil.copy(PAPER16, config)
    before = config.read_text()
    assert refused(run("run", str(config), *QUICK, option, str(config)), option, "is config", "which the run reads")
    assert config.read_text() == before


def test_n15_an_output_through_a_symlink_onto_an_input_is_refused(tmp_path):
    """Item 15: inputs are compared by inode, so another name of the trace is the trace."""
    trace = tiny_trace(tmp_path / "t.trace")
    (tmp_path / "alias.trace").symlink_to(trace)
    result = run("run", PAPER16, "-q", "--trace", str(tmp_path / "alias.trace"), "--set", f"sim.event_log={trace}")
    assert refused(result, "sim.event_log", "is trace.file")


def test_n15_trace_convert_onto_its_input_is_refused(tmp_path):
    """Item 15: `trace convert` follows the same discipline: its output is not the trace it reads."""
    trace = tiny_trace(tmp_path / "t.trace")
    assert refused(run("trace", "convert", str(trace), str(trace)), "out", "is in")


def test_n16_a_vcd_whose_file_is_a_directory_is_refused_before_the_run(tmp_path):
    """Item 16: `sim.vcd=F` with F.vcd a directory: the check looked at F, SystemC then failed (E701, exit 1)."""
    (tmp_path / "F.vcd").mkdir()
    result = run("run", PAPER16, *QUICK, "--set", f"sim.vcd={tmp_path / 'F'}")
    assert refused(result, "sim.vcd", f"'{tmp_path / 'F.vcd'}' is a directory")


def test_n16_a_vcd_whose_file_is_a_symlink_is_refused(tmp_path):
    """Item 16: F.vcd a symlink (to /dev/null in the issue; here to a file of ours, which must stay as it was)."""
    target = tmp_path / "target"
    target.write_text("keep")
    (tmp_path / "link.vcd").symlink_to(target)
    result = run("run", PAPER16, *QUICK, "--set", f"sim.vcd={tmp_path / 'link'}")
    assert refused(result, "sim.vcd", "is a symbolic link")
    assert target.read_text() == "keep" and listing(tmp_path) == ["link.vcd", "target"]


def test_n16_the_vcd_is_written_under_the_checked_name(tmp_path):
    """Item 16: F and F.vcd both give F.vcd, and nothing else is left beside it."""
    for given in ("F", "F.vcd"):
        assert run("run", PAPER16, *QUICK, "--set", f"sim.vcd={tmp_path / given}").returncode == 0
        assert listing(tmp_path) == ["F.vcd"] and (tmp_path / "F.vcd").read_text().startswith("$date")


def test_n17_detail_tables_beside_a_symlink_out_are_not_made(tmp_path):
    """Item 17: `--out LINK --set sim.detail=links` wrote LINK.links.csv beside the link; the link is refused."""
    (tmp_path / "data").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "data" / "r.json")
    result = run("run", PAPER16, *QUICK, "--set", "sim.detail=links", "--out", str(tmp_path / "link.json"))
    assert refused(result, "--out", "is a symbolic link")
    assert listing(tmp_path) == ["data", "link.json"] and listing(tmp_path / "data") == []


def test_n17_detail_tables_beside_a_fifo_out_are_not_made(tmp_path):
    """Item 17: a FIFO as --out is refused before anything is written (the run never blocks on it either)."""
    fifo = tmp_path / "r.fifo"
    os.mkfifo(fifo)
    result = run("run", PAPER16, *QUICK, "--set", "sim.detail=links", "--out", str(fifo), timeout=20)
    assert refused(result, "--out", "is a FIFO")
    assert listing(tmp_path) == ["r.fifo"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_n17_detail_tables_beside_a_device_out_are_not_made(tmp_path):
    """Item 17: the issue's `/dev/null.links.csv`, with a private null device instead of the machine's."""
    device = tmp_path / "mynull"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    result = run("run", PAPER16, *QUICK, "--set", "sim.detail=links", "--out", str(device))
    assert refused(result, "--out", "is a device")
    assert listing(tmp_path) == ["mynull"] and stat.S_ISCHR(os.lstat(device).st_mode)
