"""The shipped real NPB traces: each valid, captured, with its provenance in its header; and the study part
that replays them beside the generators' traces of the same benchmark and class."""

from pathlib import Path

import pyarrow as pa
import pytest

from conftest import run_engine
from ibsec.paper.real_workloads import GENERATED, comparison_tables, plan, real_vs_synthetic, shipped_real_traces

SHIPPED = shipped_real_traces(("S", "W", "A"))
PROVENANCE = ("npb: NPB 3.4 MPI, unmodified NPB3.4-MPI.tar.gz sha256 ", "npb: MPI library: ", "npb: machine: ",
              "npb: oversubscribed: ", "npb: command: ", "npb: NPB printed: Verification = SUCCESSFUL",
              "npb: captured ")


def header_lines(path: Path) -> list[str]:
    """The header of a zstd-compressed text trace (read with pyarrow's zstd, a dependency already)."""
    with pa.CompressedInputStream(pa.OSFile(str(path)), "zstd") as stream:
        head = stream.read(200_000).decode("ascii").split("events\n", 1)[0]
    return head.splitlines()


@pytest.mark.unit
def test_every_benchmark_is_shipped_at_class_s_and_w():
    for cls in ("S", "W"):
        assert {bench for bench, c in SHIPPED if c == cls} == {"BT", "CG", "FT", "IS", "LU", "MG", "SP"}


@pytest.mark.unit
@pytest.mark.parametrize("key", sorted(SHIPPED), ids=lambda k: f"{k[0]}.{k[1]}")
def test_shipped_trace_says_how_it_was_made(key):
    lines = header_lines(SHIPPED[key])
    assert lines[0] == "ibsec-trace 3"
    assert lines[3].startswith("origin captured libibsec_capture ")
    # Each compute event's CPU time, beside its wall time (docs/replay.md, "Compute time").
    assert "cpu_time thread" in lines
    notes = [line[len("note "):] for line in lines if line.startswith("note ")]
    for wanted in PROVENANCE:
        assert any(note.startswith(wanted) for note in notes), f"{SHIPPED[key].name}: no note '{wanted}...'"
    bench, cls = key
    assert f"npb: benchmark {bench} class {cls}, 16 processes" in notes


@pytest.mark.model
@pytest.mark.parametrize("key", sorted(SHIPPED), ids=lambda k: f"{k[0]}.{k[1]}")
def test_shipped_trace_is_valid(key, engine):
    done = run_engine(engine, "trace", "validate", str(SHIPPED[key]))
    assert done.returncode == 0, done.stderr


@pytest.mark.model
def test_plan_pairs_each_real_trace_with_its_generated_twin(tmp_path):
    points = plan(("S",), tmp_path, ("NoSecurity",), quiet=True)
    sources = {(p["bench"], p["source"]) for p in points}
    for bench, _cls in shipped_real_traces(("S",)):
        assert (bench, "captured") in sources
        if bench in GENERATED:
            assert (bench, "synthetic") in sources


@pytest.mark.model
def test_real_and_synthetic_replays_side_by_side(tmp_path, engine, monkeypatch):
    import ibsec.paper.real_workloads as real

    ft = {k: v for k, v in shipped_real_traces(("S",)).items() if k[0] == "FT"}
    monkeypatch.setattr(real, "shipped_real_traces", lambda classes: ft)
    df = real_vs_synthetic(tmp_path, tmp_path / "traces", ("S",), jobs=1, quiet=True,
                           configs=("NoSecurity", "NoSKC"))
    assert sorted(set(df["source"])) == ["captured", "synthetic"]
    assert (df["completed"] == True).all()  # noqa: E712
    # Security costs time on both, and more without a key cache.
    nosec = df[df["configuration"] == "NoSecurity"].set_index("source")
    noskc = df[df["configuration"] == "NoSKC"].set_index("source")
    assert (noskc["latency_mean_ns"] > nosec["latency_mean_ns"]).all()
    tables = comparison_tables(df)
    assert list(tables) == ["mean network latency (µs)", "SKC hit rate", "execution time (ms)"]
    for suffix in (".csv", ".parquet", ".pdf", ".svg", ".png"):
        assert (tmp_path / f"real_workloads{suffix}").is_file()
    table = (tmp_path / "real_workloads.md").read_text().splitlines()
    assert [row.split(" | ")[:3] for row in table[2:]] == [["| FT", "S", "captured"], ["| FT", "S", "synthetic"]]
    assert table[0].endswith("| NoSKC time / NoSecurity |")
