"""Real NPB traces beside the synthetic ones: the cost of security on captured programs.

The package ships traces of the unmodified NPB 3.4 MPI programs captured at 16 processes
(ibsec/data/npb/, provenance in each header's `note npb:` lines, docs/real-traces.md). Each is
replayed on the 16-node cluster under NoSecurity, NoSKC and SKC-n, next to the synthetic trace the
generator makes for the same benchmark and class, so that a table says, for every benchmark, what
security costs on the real program and on its imitation. Rows say which is which (`source`).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pandas as pd

from ..errors import ConfigError
from ..output import figure_style as style
from ..output.files import write_text_output
from .workload_study import replay_points, with_overheads

REAL_CONFIGS = ("NoSecurity", "NoSKC", "SKC-2", "SKC-6")
REAL_NAME = re.compile(r"(?P<bench>[a-z]+)\.(?P<cls>[A-Z])\.(?P<procs>[0-9]+)\.trace\.(gz|zst)")
# Generated traces have a generator for these; IS has none (its traffic is one alltoallv per iteration).
GENERATED = ("CG", "MG", "LU", "SP", "BT", "FT")


def shipped_real_traces(classes: tuple[str, ...] = ("S",)) -> dict[tuple[str, str], Path]:
    """The shipped captured traces of the given classes, by (BENCH, class), in name order."""
    folder = Path(str(resources.files("ibsec.data") / "npb"))
    found = {}
    for path in sorted(folder.glob("*.trace.*")):
        match = REAL_NAME.fullmatch(path.name)
        if match and match["cls"] in classes:
            found[(match["bench"].upper(), match["cls"])] = path
    return found


def synthetic_twin(bench: str, cls: str, procs: int, traces_dir: Path, quiet: bool) -> Path:
    """The generator's trace of the same benchmark, class and processes, made once in traces_dir."""
    from ..workloads import generate, make_params

    path = traces_dir / f"{bench.lower()}.{cls}.{procs}.synthetic.trace.gz"
    if not path.is_file():
        if not quiet:
            print(f"generating {path.name} (once)")
        generate(make_params(bench, procs, cls, 1.0, 1), path)
    return path


def plan(classes: tuple[str, ...], traces_dir: Path, configs: tuple[str, ...], quiet: bool) -> list[dict]:
    """One replay per (trace, configuration): each shipped real trace and its synthetic twin."""
    points = []
    for (bench, cls), real in shipped_real_traces(classes).items():
        procs = int(REAL_NAME.fullmatch(real.name)["procs"])
        sources = {"captured": real}
        if bench in GENERATED:
            try:
                sources["synthetic"] = synthetic_twin(bench, cls, procs, traces_dir, quiet)
            except ConfigError as refused:
                print(f"{bench} class {cls}: no synthetic trace to compare with ({refused})")
        for source, trace in sources.items():
            points += [{"bench": bench, "class": cls, "source": source, "trace": str(trace), "configuration": config,
                        "overrides": [f"nic.security={config}"]} for config in configs]
    return points


def real_vs_synthetic(out: Path, traces_dir: Path, classes: tuple[str, ...] = ("S",), jobs: int = 2,
                      quiet: bool = False, configs: tuple[str, ...] = REAL_CONFIGS) -> pd.DataFrame:
    """Replays every shipped real trace of `classes` and its synthetic twin; writes real_workloads.csv/png/md."""
    points = plan(classes, traces_dir, configs, quiet)
    if not points:
        raise FileNotFoundError(f"no shipped real traces of class {', '.join(classes)} in the ibsec package")
    df = replay_points(points, out / "real_workloads.runs", jobs, quiet, "real and synthetic replays")
    df = with_overheads(df, ["bench", "class", "source"])
    df = df.drop(columns=["trace"]).assign(trace=[Path(p["trace"]).name for p in points])
    fig = _figure(df, configs)
    write_text_output(out / "real_workloads.md", markdown_table(df))
    style.save_figure(df, fig, out, "real_workloads",
                {"configurations": list(configs), "classes": list(classes),
                 "traces": sorted(set(df["trace"])), "procs": 16,
                 "network": "defaults (16 nodes, single switch, 4x SDR, 256 B packets)"})
    return df


def _figure(df: pd.DataFrame, configs: tuple[str, ...]):
    """Completion time over NoSecurity per benchmark, captured (solid) beside synthetic (hatched)."""
    fig, ax = style.subplots(width=10.0, height=3.8)
    labels = list(dict.fromkeys(df["bench"] + "." + df["class"]))
    shown = [c for c in configs if c != "NoSecurity"]
    width = 0.8 / (2 * len(shown))
    for i, config in enumerate(shown):
        for j, source in enumerate(("captured", "synthetic")):
            part = df[(df["configuration"] == config) & (df["source"] == source)]
            part = part.assign(label=part["bench"] + "." + part["class"]).set_index("label").reindex(labels)
            xs = [k + (2 * i + j - len(shown) + 0.5) * width for k in range(len(labels))]
            ax.bar(xs, part["completion_vs_nosecurity"], width, color=style.config_style(config, i)["color"],
                   hatch="//" if source == "synthetic" else None, edgecolor="black", linewidth=0.3,
                   label=f"{config}, {source}")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_ylabel("completion time / NoSecurity")
    ax.set_yscale("log")
    # Ratios of 1 to a few: plain numbers on the log axis, not powers of ten.
    style.plain_numbers(ax)
    ax.set_title("Real NPB traces (captured) beside the generators' (synthetic), 16 nodes", loc="left")
    style.legend_outside(ax)
    return fig


def comparison_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Latency (us), SKC hit rate and execution time (ms): one row per benchmark, class and source."""
    order = list(dict.fromkeys(df["configuration"]))
    tables = {}
    for title, column, scale, configs in (
            ("mean network latency (µs)", "latency_mean_ns", 1e-3, order),
            ("SKC hit rate", "skc_hit_rate", 1.0, [c for c in order if c.startswith("SKC")]),
            ("execution time (ms)", "simulated_execution_time_ns", 1e-6, order)):
        wide = df.pivot_table(index=["bench", "class", "source"], columns="configuration", values=column,
                              sort=False) * scale
        tables[title] = wide.reindex(columns=configs)
    return tables


def markdown_table(df: pd.DataFrame) -> str:
    """The comparison as one Markdown table: a row per benchmark, class and source; per configuration the mean
    latency (µs), the SKC hit rate and the execution time (ms), and the execution time over NoSecurity."""
    configs = list(dict.fromkeys(df["configuration"]))
    header = ["benchmark", "class", "source"]
    for config in configs:
        header += [f"{config} latency (µs)"] + ([f"{config} hit rate"] if config.startswith("SKC") else [])
    header += [f"{config} time (ms)" for config in configs]
    header += [f"{config} time / NoSecurity" for config in configs if config != "NoSecurity"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (bench, cls, source), group in df.groupby(["bench", "class", "source"], sort=False):
        by = group.set_index("configuration")
        cells = [bench, cls, source]
        for config in configs:
            cells.append(f"{by.at[config, 'latency_mean_ns'] * 1e-3:.3g}")
            if config.startswith("SKC"):
                cells.append(f"{by.at[config, 'skc_hit_rate']:.3f}")
        cells += [f"{by.at[config, 'simulated_execution_time_ns'] * 1e-6:.3g}" for config in configs]
        cells += [f"{by.at[config, 'completion_vs_nosecurity']:.3f}" for config in configs if config != "NoSecurity"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
