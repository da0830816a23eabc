"""The coscheduling study (paper 4.3): mixes, compare-schedulers and prefetch-sweep.

Most tests replace the engine run (ibsec.engine.binary.run_simulation) by a fake
that writes a result with known numbers, so the tables can be checked
exactly; the last one runs the real engine when it supports schedulers.
"""

import json
import subprocess
import sys

import pandas as pd
import pytest

import ibsec.engine.binary as engine_module
import ibsec.paper.coschedule as coschedule
from ibsec.cli.main import main
from ibsec.engine.registries import names
from ibsec.errors import ConfigError
from ibsec.paper.mixes import BUILTIN_MIXES, MIX_TRACES, MixError, read_mix_file

# ---- a fake engine with known answers ------------------------------------------------

BASE_LATENCY_NS = {"batch": 2000.0, "local": 10_000.0, "sb": 8000.0, "dcs-sb": 6000.0, "pb": 7000.0, "gang": 4000.0}
SWITCHES = {"batch": 0, "local": 500, "sb": 400, "dcs-sb": 300, "pb": 350, "gang": 100}


def known_numbers(security: str) -> tuple[float, float, float]:
    """(latency factor, SKC-only hit rate, buffer hit rate) for a security mode."""
    if security == "NoSKC":
        return 2.0, 0.0, 0.0
    if "+Prefetch-" in security:
        return 0.95, 0.70, 0.13  # against plain SKC: -5 % latency, +13 points of hit rate
    return 1.0, 0.70, 0.0


class FakeEngine:
    """Stands in for run_simulation: writes a result file from the --set overrides, counts the runs."""

    def __init__(self, drop_key: str | None = None):
        self.calls: list[dict] = []
        self.drop_key = drop_key

    def __call__(self, arguments: list[str]) -> int:
        sets = dict(arguments[i + 1].split("=", 1) for i, a in enumerate(arguments) if a == "--set")
        out = arguments[arguments.index("--out") + 1]
        self.calls.append(sets)
        scheduler, security = sets["scheduler.policy"], sets["nic.security"]
        traces = json.loads(sets["trace.jobs"])
        factor, skc_only, buffer = known_numbers(security)
        jobs = [{"job": j, "trace": t, "processes": 16, "completed": True,
                 "completion_time_ns": 1e9 * (j + 1) * factor, "original_execution_time_ns": 1e9}
                for j, t in enumerate(traces)]
        statistics = {"latency_mean_ns": BASE_LATENCY_NS[scheduler] * factor, "skc_hit_rate": skc_only + buffer,
                      "skc_only_hit_rate": skc_only, "prefetch_buffer_hit_rate": buffer, "key_misses": 7,
                      "packets_delivered": 1000, "prefetches_issued": 20, "prefetches_used": 13,
                      "prefetches_wasted": 7, "context_switches": SWITCHES[scheduler]}
        result = {"statistics": statistics, "scheduler": {"policy": scheduler},
                  "replay": {"jobs": jobs, "mean_job_completion_time_ns": sum(j["completion_time_ns"] for j in jobs)
                             / len(jobs)}}
        if self.drop_key:
            del result[self.drop_key.split(".")[0]][self.drop_key.split(".")[1]]
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        return 0


@pytest.fixture
def fake_engine(monkeypatch, engine):
    """Runs stand in for the engine; the engine's registries (the `engine` fixture) still name the schedulers."""
    fake = FakeEngine()
    monkeypatch.setattr(engine_module, "run_simulation", fake)
    monkeypatch.setattr(coschedule, "parameters",
                        lambda: [{"key": k} for k in ("trace.file", "trace.jobs", "scheduler.policy")])
    return fake


@pytest.fixture
def mix_file(tmp_path):
    """A two-job mix of two tiny (never replayed) trace files."""
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.trace").write_text("ibsec-trace 1\n# a\n")
    (traces / "b.trace").write_text("ibsec-trace 1\n# b\n")
    path = tmp_path / "two.mix"
    path.write_text("traces/a.trace\ntraces/b.trace\n")
    return path


def study_args(mix, out, *more):
    return ["--mix", str(mix), "--out", str(out), "--jobs", "2", "--quiet", *more]


# ---- mixes ---------------------------------------------------------------------------

@pytest.mark.unit
def test_mix_file_has_counts_comments_and_paths_relative_to_it(tmp_path):
    (tmp_path / "t").mkdir()
    for name in ("cg.trace", "lu.trace"):
        (tmp_path / "t" / name).write_text("x")
    absolute = tmp_path / "t" / "lu.trace"
    mix = tmp_path / "mixes" / "my.mix"
    mix.parent.mkdir()
    mix.write_text(f"# two CG and one LU\n\n../t/cg.trace 2   # instances\n   \n{absolute}\n")
    loaded = read_mix_file(mix)
    assert loaded.name == "my"
    assert [j.label for j in loaded.jobs] == ["cg.trace", "cg.trace", "lu.trace"]
    assert loaded.traces == [mix.parent / "../t/cg.trace"] * 2 + [absolute]
    assert all(p.is_file() for p in loaded.traces)


@pytest.mark.unit
@pytest.mark.parametrize("content,message", [
    ("a.trace\nnone.trace 2\n", "{mix}:2: field 'TRACE': no such trace file '{dir}/none.trace'"),
    ("a.trace 0\n", "{mix}:1: field 'COUNT': expected a whole number of at least 1, got '0'"),
    ("# c\na.trace x\n", "{mix}:2: field 'COUNT': expected a whole number of at least 1, got 'x'"),
    ("a.trace -3\n", "{mix}:1: field 'COUNT': expected a whole number of at least 1, got '-3'"),
    ("a.trace 2.5\n", "{mix}:1: field 'COUNT': expected a whole number of at least 1, got '2.5'"),
    ("a.trace 2 3\n", "{mix}:1: field 'COUNT': unexpected text after it: '3' (a job line is 'TRACE [COUNT]')"),
    ("# nothing\n\n   # here\n", "{mix}: empty mix: no job lines (each job is a line 'TRACE [COUNT]')"),
])
def test_bad_mix_file_names_file_line_and_field(tmp_path, content, message):
    (tmp_path / "a.trace").write_text("x")
    mix = tmp_path / "bad.mix"
    mix.write_text(content)
    with pytest.raises(MixError) as error:
        read_mix_file(mix)
    assert str(error.value) == message.format(mix=mix, dir=tmp_path)


@pytest.mark.unit
def test_bad_mix_file_exits_2_through_the_cli_before_any_run(tmp_path, fake_engine, capsys):
    (tmp_path / "a.trace").write_text("x")
    mix = tmp_path / "bad.mix"
    mix.write_text("a.trace\na.trace many\n")
    assert main(["compare-schedulers", *study_args(mix, tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"ibsec: error: {mix}:2: field 'COUNT': expected a whole number of at least 1, got 'many'" in err
    assert fake_engine.calls == []
    assert main(["compare-schedulers", *study_args(tmp_path / "missing.mix", tmp_path / "out")]) == 2
    assert "missing.mix: no such mix file (built-in mixes: nas15, ft-jbb6)" in capsys.readouterr().err


@pytest.mark.unit
def test_builtin_mixes_follow_the_paper():
    def counts(name):
        return dict(BUILTIN_MIXES[name])

    assert counts("nas15") == {"CG": 3, "MG": 3, "LU": 3, "SP": 3, "BT": 3}
    assert counts("ft-jbb6") == {"FT": 3, "JBB": 3}
    # The single-application set's classes (FT at W), one iteration each where that is the least possible.
    assert {b: t.cls for b, t in MIX_TRACES.items()} == {"CG": "A", "MG": "A", "LU": "A", "SP": "A", "BT": "A",
                                                         "FT": "W", "JBB": "A"}


# ---- names and configurations --------------------------------------------------------

@pytest.mark.unit
def test_configuration_names_map_to_security_modes():
    assert coschedule.security_mode("NoSKC", 10, 8) == "NoSKC"
    assert coschedule.security_mode("SKC", 10, 8) == "SKC-10"
    assert coschedule.security_mode("Prefetch", 10, 8) == "SKC-10+Prefetch-8"
    assert coschedule.security_mode("Prefetch", 5, 2) == "SKC-5+Prefetch-2"
    with pytest.raises(ConfigError, match=r"unknown 'LRU' \(known: NoSecurity, NoSKC, SKC, Prefetch\)"):
        coschedule.security_mode("LRU", 10, 8)


@pytest.mark.unit
@pytest.mark.parametrize("option,value,needle", [
    ("--schedulers", "local,fifo",
     "invalid '--schedulers': unknown 'fifo' (known: batch, dcs-sb, gang, local, pb, sb)"),
    ("--configs", "SKC,Huge", "invalid '--configs': unknown 'Huge' (known: NoSecurity, NoSKC, SKC, Prefetch)"),
    ("--skc", "0", "argument --skc: must be at least 1, got '0'"),
    ("--set", "nic.security=SKC-2", "invalid '--set': nic.security is set by the study itself"),
    ("--jobs", "0", "argument --jobs: must be at least 1, got '0'"),
])
def test_bad_arguments_exit_2_before_any_engine_run(tmp_path, mix_file, fake_engine, capsys, option, value, needle):
    code = main(["compare-schedulers", *study_args(mix_file, tmp_path / "out"), option, value])
    assert code == 2
    assert needle in capsys.readouterr().err
    assert fake_engine.calls == []
    assert not (tmp_path / "out").exists()


@pytest.mark.unit
def test_prefetch_sweep_rejects_an_unknown_scheduler_and_bad_sizes(tmp_path, mix_file, fake_engine, capsys):
    assert main(["prefetch-sweep", *study_args(mix_file, tmp_path), "--schedulers", "gang,rr"]) == 2
    assert "unknown 'rr'" in capsys.readouterr().err
    assert main(["prefetch-sweep", *study_args(mix_file, tmp_path), "--skc-sizes", "2,x"]) == 2
    assert "invalid '--skc-sizes'" in capsys.readouterr().err
    assert fake_engine.calls == []


@pytest.mark.unit
def test_an_engine_without_schedulers_is_refused_before_any_run(tmp_path, mix_file, fake_engine, monkeypatch, capsys):
    monkeypatch.setattr(coschedule, "parameters", lambda: [{"key": "trace.file"}])
    assert main(["compare-schedulers", *study_args(mix_file, tmp_path)]) == 1
    assert "this ibsec-engine has no trace.jobs, scheduler.policy" in capsys.readouterr().err
    assert fake_engine.calls == []


def engine_registering(tmp_path, real: str, scheduler: str) -> str:
    """An engine whose registries list one more scheduler than the real one."""
    registries = json.loads(subprocess.run([real, "registries", "--json"], capture_output=True, text=True,
                                           check=True).stdout)
    registries["schedulers"].append({"name": scheduler, "description": "registered by a test"})
    listing = tmp_path / "registries.json"
    listing.write_text(json.dumps(registries))
    wrapper = tmp_path / "ibsec-engine"
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = registries ] && exec cat "{listing}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.mark.unit
def test_any_scheduler_the_engine_registers_is_accepted(tmp_path, mix_file, fake_engine, engine, monkeypatch, capsys):
    monkeypatch.setenv("IBSEC_ENGINE", engine_registering(tmp_path, engine, "round-robin"))
    monkeypatch.setitem(BASE_LATENCY_NS, "round-robin", 5000.0)
    monkeypatch.setitem(SWITCHES, "round-robin", 200)
    assert main(["compare-schedulers", *study_args(mix_file, tmp_path / "out"), "--schedulers", "round-robin,gang",
                 "--configs", "SKC"]) == 0
    assert [c["scheduler.policy"] for c in fake_engine.calls] == ["round-robin", "gang"]
    monkeypatch.setenv("IBSEC_ENGINE", engine)
    assert main(["compare-schedulers", *study_args(mix_file, tmp_path / "out"), "--schedulers", "round-robin"]) == 2
    assert "unknown 'round-robin'" in capsys.readouterr().err


@pytest.mark.unit
def test_the_help_lists_the_registered_schedulers(engine):
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", "compare-schedulers", "--help"], capture_output=True,
                          text=True, check=True)
    listed = " ".join(done.stdout.split())
    assert "any of the engine's: " + ", ".join(names("schedulers")) in listed


# ---- Fig. 6 ----------------------------------------------------------------------------

@pytest.mark.unit
def test_compare_schedulers_table_csv_and_prefetch_effect(tmp_path, mix_file, fake_engine, capsys):
    out = tmp_path / "out"
    assert main(["compare-schedulers", *study_args(mix_file, out), "--schedulers", "local,gang"]) == 0
    assert len(fake_engine.calls) == 2 * 3
    call = fake_engine.calls[0]
    traces = [str((mix_file.parent / "traces" / n).resolve()) for n in ("a.trace", "b.trace")]
    assert json.loads(call["trace.jobs"]) == traces
    assert {c["nic.security"] for c in fake_engine.calls} == {"NoSKC", "SKC-10", "SKC-10+Prefetch-8"}

    df = pd.read_csv(out / "fig6_two.csv")
    for suffix in (".csv", ".parquet", ".pdf", ".svg", ".png"):
        assert (out / f"fig6_two{suffix}").stat().st_size > 0
    meta = json.loads((out / "fig6_two.meta.json").read_text())
    assert meta["parameters"]["configurations"]["Prefetch"] == "SKC-10+Prefetch-8"
    assert list(df[["scheduler", "configuration", "security"]].itertuples(index=False, name=None)) == [
        ("local", "NoSKC", "NoSKC"), ("local", "SKC", "SKC-10"), ("local", "Prefetch", "SKC-10+Prefetch-8"),
        ("gang", "NoSKC", "NoSKC"), ("gang", "SKC", "SKC-10"), ("gang", "Prefetch", "SKC-10+Prefetch-8")]
    for column in ("latency_mean_ns", "skc_hit_rate", "skc_only_hit_rate", "prefetch_buffer_hit_rate",
                   "mean_job_completion_time_ns", "context_switches", "prefetches_issued", "jobs", "jobs_completed"):
        assert column in df.columns
    by = df.set_index(["scheduler", "configuration"])
    assert by.loc[("gang", "Prefetch"), "latency_mean_ns"] == pytest.approx(3800.0)
    assert by.loc[("local", "NoSKC"), "mean_job_completion_time_ns"] == pytest.approx(3e9)  # (2 + 4) / 2 s
    assert by.loc[("local", "SKC"), "context_switches"] == 500
    assert (df["jobs_completed"] == 2).all()

    table = coschedule.summary_table(df).set_index(["scheduler", "configuration"])
    assert table.loc[("local", "SKC"), "latency_us"] == pytest.approx(10.0)
    assert table.loc[("gang", "Prefetch"), "hit_rate"] == pytest.approx(0.83)
    assert table.loc[("gang", "Prefetch"), "buffer_hit_rate"] == pytest.approx(0.13)
    assert table.loc[("local", "NoSKC"), "mean_job_completion_s"] == pytest.approx(3.0)

    effect = coschedule.prefetch_effect(df).set_index("scheduler")
    assert effect["latency_change_percent"].tolist() == pytest.approx([-5.0, -5.0])
    assert effect["hit_rate_change_points"].tolist() == pytest.approx([13.0, 13.0])
    printed = capsys.readouterr().out
    assert "local    latency -5.0 %, hit rate +13.0 percentage points" in printed
    assert "mean_job_completion" in printed and "context_switches" in printed
    assert "10 µs" in printed and "3 s" in printed and "e+" not in printed  # times in the unit that suits them


@pytest.mark.model
def test_resume_skips_finished_points(tmp_path, mix_file, fake_engine):
    args = ["compare-schedulers", *study_args(mix_file, tmp_path), "--configs", "SKC,Prefetch"]
    assert main([*args, "--schedulers", "sb"]) == 0
    assert len(fake_engine.calls) == 2
    assert main([*args, "--schedulers", "sb"]) == 0
    assert len(fake_engine.calls) == 2  # nothing run again
    assert main([*args, "--schedulers", "sb,pb"]) == 0
    assert [c["scheduler.policy"] for c in fake_engine.calls[2:]] == ["pb", "pb"]  # only the new points
    assert main([*args, "--schedulers", "sb", "--skc", "12"]) == 0
    assert {c["nic.security"] for c in fake_engine.calls[4:]} == {"SKC-12", "SKC-12+Prefetch-8"}
    # A changed trace is a different run, so it is run afresh.
    (mix_file.parent / "traces" / "a.trace").write_text("ibsec-trace 1\n# changed\n")
    assert main([*args, "--schedulers", "sb"]) == 0
    assert len(fake_engine.calls) == 8
    stored = [json.loads(line) for line in (tmp_path / "two.runs" / "points.jsonl").read_text().splitlines()]
    assert len(stored) == 8 and all("result" in r for r in stored)


@pytest.mark.unit
def test_a_missing_result_key_names_the_key_and_the_file(tmp_path, mix_file, monkeypatch, fake_engine, capsys):
    monkeypatch.setattr(engine_module, "run_simulation", FakeEngine(drop_key="replay.mean_job_completion_time_ns"))
    assert main(["compare-schedulers", *study_args(mix_file, tmp_path), "--schedulers", "gang",
                 "--configs", "SKC"]) != 0
    err = capsys.readouterr().err
    assert "the result has no 'replay.mean_job_completion_time_ns'" in err
    assert str(tmp_path / "two.runs" / "gang_SKC-10_") in err


# ---- Fig. 7 ----------------------------------------------------------------------------

@pytest.mark.model
def test_prefetch_sweep_runs_each_point_once_and_shares_the_store(tmp_path, mix_file, fake_engine):
    assert main(["compare-schedulers", *study_args(mix_file, tmp_path), "--schedulers", "gang",
                 "--configs", "SKC", "--skc", "5"]) == 0
    assert len(fake_engine.calls) == 1
    args = ["prefetch-sweep", *study_args(mix_file, tmp_path), "--schedulers", "dcs-sb,gang",
            "--skc-sizes", "2,5", "--pb-fixed", "2", "--pb-sizes", "1,2,4", "--skc-fixed", "5"]
    assert main(args) == 0
    # Per scheduler: SKC-2, SKC-5 and both with Prefetch-2, then SKC-5+Prefetch-1/-4 (SKC-5, -5+2 already
    # asked for): 6 runs; gang's SKC-5 came from compare-schedulers.
    assert len(fake_engine.calls) == 1 + 6 + 5
    df = pd.read_csv(tmp_path / "fig7_two.csv")
    for suffix in (".csv", ".parquet", ".pdf", ".svg", ".png"):
        assert (tmp_path / f"fig7_two{suffix}").stat().st_size > 0
    assert len(df) == 2 * (2 * 2 + 1 + 3)
    skc = df[(df["scheduler"] == "gang") & (df["sweep"] == "skc")]
    assert skc[["skc_entries", "pb_entries", "security"]].values.tolist() == [
        [2, 0, "SKC-2"], [2, 2, "SKC-2+Prefetch-2"], [5, 0, "SKC-5"], [5, 2, "SKC-5+Prefetch-2"]]
    pb = df[(df["scheduler"] == "dcs-sb") & (df["sweep"] == "pb")]
    assert pb["pb_entries"].tolist() == [0, 1, 2, 4]
    assert pb["latency_mean_ns"].tolist() == pytest.approx([6000.0, 5700.0, 5700.0, 5700.0])
    tables = coschedule.fig7_tables(df)
    wide = tables["gang, SKC size sweep (columns: prefetch buffer entries, 0 = no buffer)"]
    assert wide.loc[5, ("latency_us", 2)] == pytest.approx(3.8)
    assert wide.loc[2, ("hit_rate", 0)] == pytest.approx(0.70)
    assert main(args) == 0
    assert len(fake_engine.calls) == 12  # all resumed


# ---- the real engine -----------------------------------------------------------------

def engine_has_schedulers(engine: str) -> bool:
    done = subprocess.run([engine, "params"], capture_output=True, text=True, check=False)
    return "scheduler.policy" in done.stdout and "trace.jobs" in done.stdout


@pytest.mark.model
def test_tiny_mix_on_the_real_engine(tmp_path, engine):
    if not engine_has_schedulers(engine):
        pytest.skip(f"{engine} has no scheduler.policy / trace.jobs yet (ibsec-engine params)")
    from ibsec.workloads import generate, make_params

    for bench in ("MG", "BT"):
        scale = 0.25 if bench == "MG" else 0.01
        generate(make_params(bench, 16, "S", scale, 1), tmp_path / f"{bench.lower()}.trace.gz")
    mix = tmp_path / "tiny.mix"
    mix.write_text("mg.trace.gz 2\nbt.trace.gz 2\n")
    out = tmp_path / "out"
    assert main(["compare-schedulers", *study_args(mix, out), "--schedulers", ",".join(names("schedulers")),
                 "--configs", "SKC,Prefetch", "--skc", "4", "--pb", "2"]) == 0
    df = pd.read_csv(out / "fig6_tiny.csv").set_index(["scheduler", "configuration"])
    # No policy starves a job: every job of the mix completes under every scheduler.
    assert (df["jobs"] == 4).all() and (df["jobs_completed"] == 4).all()
    assert (df["exit_code"] == 0).all()
    assert (df.loc["batch", "context_switches"] == 0).all()
    for scheduler in ("local", "sb", "dcs-sb", "pb", "gang"):
        assert (df.loc[scheduler, "context_switches"] > 0).all(), scheduler
    assert (df["mean_job_completion_time_ns"] > 0).all()
