"""Every figure ibsec draws goes through one style (analytics/ibsec/output/figure_style.py) and is written as
PDF, SVG and a 300-dpi PNG beside its table (CSV and Parquet) and meta file; --seeds reruns simulated points."""

import ast
import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "analytics" / "ibsec"
FIGURE_FILES = (".csv", ".parquet", ".pdf", ".svg", ".png", ".meta.json")

pytestmark = pytest.mark.model


def ibsec(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done


def png_dpi(path: Path) -> float:
    """The PNG's resolution from its pHYs chunk (pixels per metre), in dots per inch."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    at = 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs":
            per_metre, _, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            assert unit == 1, "pHYs in metres"
            return per_metre * 0.0254
        at += 12 + length
    raise AssertionError(f"{path} has no pHYs chunk")


def assert_figure_written(folder: Path, name: str) -> dict:
    """The six files of a figure, each what its suffix says; its meta lists them. Returns the meta."""
    for suffix in FIGURE_FILES:
        assert (folder / f"{name}{suffix}").is_file(), f"{name}{suffix} missing"
    assert (folder / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
    svg = ElementTree.parse(folder / f"{name}.svg").getroot()
    assert svg.tag.endswith("svg") and svg.find(".//{http://www.w3.org/2000/svg}text") is not None, \
        "text kept as text in the SVG"
    assert round(png_dpi(folder / f"{name}.png")) == 300
    assert pd.read_parquet(folder / f"{name}.parquet").shape == pd.read_csv(folder / f"{name}.csv").shape
    meta = json.loads((folder / f"{name}.meta.json").read_text())
    assert sorted(meta["files"]) == sorted(f"{name}{suffix}" for suffix in FIGURE_FILES if suffix != ".meta.json")
    return meta


def test_ibsec_figures_names_every_file_it_wrote(tmp_path):
    done = ibsec("figures", "fig3", "--out", str(tmp_path))
    assert_figure_written(tmp_path, "fig3_capacity")
    named = [line.removeprefix("wrote ") for line in done.stdout.splitlines() if line.startswith("wrote ")]
    assert sorted(named) == sorted(str(tmp_path / f"fig3_capacity{suffix}") for suffix in FIGURE_FILES)
    assert ibsec("figures", "fig3", "--out", str(tmp_path), "--quiet").stdout == ""


def test_the_png_reader_reads_the_resolution(tmp_path):
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(1, 1))
    fig.savefig(tmp_path / "f.png", dpi=72)
    plt.close(fig)
    assert round(png_dpi(tmp_path / "f.png")) == 72


def test_every_cache_figure_is_written_in_every_format_with_seeds(engine, tmp_path):
    """`ibsec figures all --seeds 2`: every figure of the command, two runs per simulated point."""
    from ibsec.paper.figures import ALL_FIGURES

    ibsec("figures", "all", "--accesses", "20000", "--seeds", "2", "--out", str(tmp_path), "--quiet")
    for name in ("fig3_capacity", "fig8_hit_rate_vs_keys", "fig9_associativity", "xval_markov_vs_sim",
                 "security_overhead"):
        assert_figure_written(tmp_path, name)
    assert len(ALL_FIGURES) == 5, "a new figure is added to the list above"
    fig8 = pd.read_csv(tmp_path / "fig8_hit_rate_vs_keys.csv")
    assert sorted(set(fig8["seed"])) == [1, 2]
    per_point = fig8.groupby(["benchmark", "machine", "keys"])["hit_rate"]
    assert (per_point.size() == 2).all()
    assert (per_point.max() > per_point.min()).any(), "two seeds give two samples, not one run twice"
    security = pd.read_csv(tmp_path / "security_overhead.csv")
    assert sorted(security["seed"]) == [1, 1, 1, 1, 2, 2, 2, 2]


def test_a_load_sweep_with_seeds_is_written_in_every_format(engine, tmp_path):
    prefix = tmp_path / "load"
    ibsec("run", "--set", "traffic.messages=300", "--set", "traffic.warmup_messages=100", "--sweep-load", "0.02,0.04",
          "--seeds", "3", "--out", str(prefix), "--quiet")
    meta = assert_figure_written(tmp_path, "load")
    assert meta["parameters"]["seeds"] == 3
    table = pd.read_csv(f"{prefix}.csv")
    assert list(zip(table["offered_load"], table["seed"], strict=True)) == [(0.02, 1), (0.02, 2), (0.02, 3),
                                                                            (0.04, 1), (0.04, 2), (0.04, 3)]
    assert table.groupby("offered_load")["accepted_throughput"].nunique().min() > 1, "the seeds differ"


def test_seeds_need_a_load_sweep(engine, tmp_path):
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", "run", "--seeds", "2"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2 and "--seeds" in done.stderr


def test_the_study_figures_are_written_in_every_format(engine, tmp_path):
    """`ibsec study` on tiny traces of the default set: Fig. 3, Fig. 5, Table 1 and Fig. 5(d)."""
    from ibsec.workloads.defaults import DEFAULT_SET

    traces = tmp_path / "traces"
    for item in DEFAULT_SET:
        ibsec("trace", "gen", item.bench, "--procs", "16", "--class", "S", "--scale", "0.02",
              "--out", str(traces / item.file_name))
    out = tmp_path / "out"
    ibsec("study", "--out", str(out), "--traces", str(traces), "--skip-real", "--quiet")
    for name in ("fig3_capacity", "fig5_workloads", "table1_execution_time", "fig5d_packet_size"):
        assert_figure_written(out, name)


def calls_outside_the_style(path: Path) -> list[str]:
    """Calls that make or save a figure other than through figure_style: plt.subplots/figure, savefig."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
            if node.func.attr == "savefig" or (owner == "plt" and node.func.attr in ("subplots", "figure")):
                found.append(f"{path.name}:{node.lineno}: {owner}.{node.func.attr}")
    return found


def test_every_plot_goes_through_the_style_module():
    style = PACKAGE / "output" / "figure_style.py"
    found = [call for path in sorted(PACKAGE.rglob("*.py")) if path != style for call in calls_outside_the_style(path)]
    assert found == []


def test_the_style_check_finds_a_plot_of_its_own(tmp_path):
    module = tmp_path / "a_plot.py"
    module.write_text("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nfig.savefig('x.png')\n")
    assert calls_outside_the_style(module) == ["a_plot.py:2: plt.subplots", "a_plot.py:3: fig.savefig"]


@pytest.fixture
def tiny_mix(engine, tmp_path) -> Path:
    """A mix of three tiny synthetic jobs (16 processes each)."""
    lines = []
    for bench in ("CG", "MG", "LU"):
        trace = tmp_path / f"{bench.lower()}.trace.gz"
        ibsec("trace", "gen", bench, "--procs", "16", "--class", "S", "--scale", "0.05", "--out", str(trace))
        lines.append(trace.name)
    mix = tmp_path / "tiny.mix"
    mix.write_text("\n".join(lines) + "\n")
    return mix


def test_the_scheduler_figures_with_seeds(tiny_mix, tmp_path):
    """compare-schedulers and prefetch-sweep --seeds 2: a row per seed, the figures in every format, and the
    local scheduler's random start order gives the seeds different runs."""
    out = tmp_path / "out"
    common = ["--mix", str(tiny_mix), "--out", str(out), "--seeds", "2", "--quiet"]
    ibsec("compare-schedulers", *common, "--schedulers", "local,gang", "--configs", "SKC,Prefetch")
    assert_figure_written(out, "fig6_tiny")
    fig6 = pd.read_csv(out / "fig6_tiny.csv")
    assert sorted(fig6["seed"]) == [1] * 4 + [2] * 4
    local = fig6[fig6["scheduler"] == "local"].groupby("configuration")["mean_job_completion_time_ns"]
    assert (local.max() > local.min()).any(), "two seeds, two start orders"
    ibsec("prefetch-sweep", *common, "--schedulers", "gang", "--skc-sizes", "2,5", "--pb-sizes", "2",
          "--skc-fixed", "5", "--pb-fixed", "2")
    assert_figure_written(out, "fig7_tiny")
    assert sorted(set(pd.read_csv(out / "fig7_tiny.csv")["seed"])) == [1, 2]
