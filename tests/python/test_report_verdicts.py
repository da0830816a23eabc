"""REPORT.md's verdicts by rule (paper/verdicts.py), its calibrated rows and its account of where each table came
from: a value just inside and just outside each band, an ordering, a limit, a row tuned to the paper's figure, a
table made by another engine, and a header that says "Regenerated" only when steps ran."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from ibsec.cli.main import main
from ibsec.paper import report
from ibsec.paper.comparison import FOREIGN_MARK, Comparison
from ibsec.paper.report_tables import NO_ENGINE, OTHER_ENGINE, SAME_ENGINE, UNRECORDED, Tables
from ibsec.paper.verdicts import AGREES, CALIBRATED, DIFFERS, SAME_TREND, Bound, Ordering, Value, verdict

pytestmark = pytest.mark.unit


# ---- the rule -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ours, expected", [
    (200.0, AGREES),  # +25 %: the edge of the band
    (120.0, AGREES),  # -25 %
    (200.1, SAME_TREND),
    (119.9, SAME_TREND),
    (320.0, SAME_TREND),  # x2: the edge of the trend
    (80.0, SAME_TREND),  # x0.5
    (320.1, DIFFERS),
    (79.9, DIFFERS),
    (-160.0, DIFFERS),  # the other sign
    (1234.0, DIFFERS),  # 7.7 x the paper's: no longer "the same trend"
    (float("nan"), DIFFERS),  # no number of ours
])
def test_a_number_against_the_papers_relative_bands(ours, expected):
    assert Value("NoSKC", 160.0, ours).verdict() == expected


@pytest.mark.parametrize("ours, points, expected", [
    (-2.0, True, AGREES),  # 3 points from -5: inside the absolute band though 60 % off
    (-8.0, True, AGREES),
    (-8.1, True, SAME_TREND),  # 3.1 points off, x1.62
    (-1.9, True, DIFFERS),  # 3.1 points off, x0.38
    (-2.0, False, DIFFERS),  # not a rate: only the relative band, and x0.4 is beyond the trend
    (0.2, True, DIFFERS),  # the other sign, 5.2 points away
])
def test_a_rate_has_an_absolute_band_of_three_points(ours, points, expected):
    assert Value("latency change", -5.0, ours, points=points).verdict() == expected


def test_a_rate_of_zero_is_met_only_within_three_points():
    assert Value("gap", 0.0, 2.99, points=True).verdict() == AGREES
    assert Value("gap", 0.0, 3.01, points=True).verdict() == DIFFERS


@pytest.mark.parametrize("ours, expected", [
    (8.99, AGREES),  # keeps the limit
    (11.99, AGREES),  # misses it by less than 3 points
    (12.01, SAME_TREND),  # 3.01 points over, x1.33
    (18.01, DIFFERS),  # beyond x2
])
def test_a_limit_is_kept_or_judged_as_a_number(ours, expected):
    assert Bound("overhead", 9.0, ours, points=True).verdict() == expected


def test_an_at_least_limit():
    assert Bound("share", 98.0, 99.0, points=True, upper=False).verdict() == AGREES
    assert Bound("share", 98.0, 50.0, points=True, upper=False).verdict() == SAME_TREND


FIG6_GROUPS = (("dcs-sb", "sb"), ("gang", "pb"), ("local",))


@pytest.mark.parametrize("completion, expected, kept", [
    ({"dcs-sb": 1, "sb": 2, "gang": 3, "pb": 4, "local": 5}, AGREES, 8),
    ({"sb": 1, "dcs-sb": 2, "pb": 3, "gang": 4, "local": 5}, AGREES, 8),  # within a group: no order
    ({"dcs-sb": 1, "gang": 2, "sb": 3, "pb": 4, "local": 5}, SAME_TREND, 7),  # the ends hold
    ({"gang": 1, "sb": 2, "dcs-sb": 3, "pb": 4, "local": 5}, DIFFERS, 6),  # gang shortest: an end fails
    ({"dcs-sb": 1, "sb": 2, "gang": 3, "local": 4, "pb": 5}, DIFFERS, 7),  # local not longest
    ({"dcs-sb": 1, "sb": 3, "gang": 3, "pb": 4, "local": 5}, SAME_TREND, 7),  # a tie keeps no order
])
def test_an_ordering(completion, expected, kept):
    ordering = Ordering("completion", FIG6_GROUPS, completion)
    assert ordering.verdict() == expected and ordering.kept() == kept and len(ordering.pairs()) == 8


def test_a_statement_takes_the_weakest_of_its_numbers_and_calibrated_overrides_them():
    agree, trend, differ = Value("a", 10, 10), Value("b", 10, 15), Value("c", 10, 100)
    assert verdict((agree, trend)) == SAME_TREND
    assert verdict((agree, trend, differ)) == DIFFERS
    assert verdict((agree,), calibrated="tuned to it") == CALIBRATED
    assert verdict((differ,), calibrated="tuned to it") == CALIBRATED


def test_a_calibrated_row_shows_what_the_rule_alone_would_say():
    row = Comparison("Fig. 5(a)", "NoSKC +160 %", "+173 %", (Value("NoSKC", 160, 173, points=True),),
                     calibrated="the overlap was chosen for it")
    assert row.verdict == CALIBRATED
    assert row.verdict_shown() == "calibrated (by the rule alone: agrees)"
    assert row.reason().startswith("Calibrated: the overlap was chosen for it.")


# ---- the rows of the report -------------------------------------------------------------------------

def write(out, name, rows, meta: dict | None = None):
    path = out / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, index=False)
    if meta is not None:
        (out / f"{name}.meta.json").write_text(json.dumps(meta))


def paper_mode_rows(noskc: float, skc6: float):
    return [{"card": card, "figure": "Fig. 5(a)", "configuration": config, "mtu_bytes": 256,
             "paper_overhead_percent": paper, "ibsec_overhead_percent": value}
            for card in ("blocking", "paper-mode")
            for config, paper, value in (("NoSKC", 160, noskc), ("SKC-6", 29, skc6))]


def test_the_paper_mode_cards_noskc_is_calibrated_and_its_skc6_is_judged(tmp_path):
    write(tmp_path, "card_paper_mode", paper_mode_rows(noskc=173.0, skc6=28.0))
    rows = report.comparisons(tmp_path)
    noskc, skc6 = [r for r in rows if r.figure == "Fig. 5(a), paper-mode card"]
    assert noskc.verdict == CALIBRATED and skc6.verdict == AGREES
    (headline,) = [r for r in rows if r.figure == "Headline (Fig. 5(a)), paper-mode card"]
    assert headline.verdict == CALIBRATED  # it reads the calibrated NoSKC


def test_the_presets_figures_are_calibrated(tmp_path):
    write(tmp_path, "fig3_capacity", [{"benchmark": "BT", "machine": "origin2000", "size_kb": 2, "entries": 128,
                                       "capacity": 1213}])
    assert [r.verdict for r in report.comparisons(tmp_path) if r.figure == "Fig. 3"] == [CALIBRATED] * 2


def fig5_rows(noskc: float, skc6: float):
    return [{"bench": "CG", "configuration": config, "latency_overhead_percent": value, "skc_hit_rate": 1.0}
            for config, value in (("NoSecurity", 0.0), ("NoSKC", noskc), ("SKC-6", skc6))]


@pytest.mark.parametrize("skc6, noskc, expected", [
    (29.0, 160.0, AGREES),  # the paper's own numbers: 1.29 / 2.60 - 1 = -50.4 %
    (93.3, 1234.0, SAME_TREND),  # the blocking card: -85.5 %
    (500.0, 160.0, DIFFERS),  # latency up, not down
])
def test_the_papers_headline_is_a_row(tmp_path, skc6, noskc, expected):
    write(tmp_path, "fig5_workloads", fig5_rows(noskc, skc6))
    (row,) = [r for r in report.comparisons(tmp_path) if r.figure == "Headline (Fig. 5(a))"]
    assert row.verdict == expected
    assert row.parts[0].paper == -50.0
    assert row.parts[0].ours == pytest.approx(((1 + skc6 / 100) / (1 + noskc / 100) - 1) * 100)


# ---- where the tables came from -------------------------------------------------------------------

@pytest.mark.parametrize("meta, status, marked", [
    ({"engine_digest": "running", "written_utc": "2026-01-01T00:00:00Z"}, SAME_ENGINE, False),
    ({"engine_digest": "another", "written_utc": "2026-01-01T00:00:00Z"}, OTHER_ENGINE, True),
    ({"engine_digest": None, "written_utc": "2026-01-01T00:00:00Z"}, NO_ENGINE, False),
    ({"command": "an older ibsec"}, UNRECORDED, True),
    (None, UNRECORDED, True),  # no meta file at all
])
def test_a_table_from_another_engine_is_marked(tmp_path, meta, status, marked):
    write(tmp_path, "fig5_workloads", fig5_rows(160.0, 29.0), meta)
    tables = Tables(tmp_path, running_engine="running")
    tables.get("fig5_workloads")
    assert tables.origins["fig5_workloads"].status == status
    rows = [r for r in report.comparisons(tmp_path, running_engine="running") if r.figure == "Fig. 5(a)"]
    assert all(r.foreign == marked for r in rows) and rows
    text = report.render(tmp_path, report.Run("ibsec reproduce", "full", 1.0, "running"))
    assert (f"agrees {FOREIGN_MARK}" in text) == marked
    assert f"| fig5_workloads.csv | {(meta or {}).get('written_utc', 'not recorded')} |" in text and status in text


def test_a_table_written_since_the_run_started_is_the_runs_own(tmp_path):
    write(tmp_path, "fig5_workloads", fig5_rows(160.0, 29.0),
          {"engine_digest": "running", "written_utc": "2026-05-01T10:00:05Z"})
    made = Tables(tmp_path, "running", since="2026-05-01T10:00:00Z")
    made.get("fig5_workloads")
    assert made.origins["fig5_workloads"].status == "made by this run"
    earlier = Tables(tmp_path, "running", since="2026-05-01T10:00:06Z")
    earlier.get("fig5_workloads")
    assert earlier.origins["fig5_workloads"].status == SAME_ENGINE


def test_the_header_says_regenerated_only_when_steps_ran(tmp_path):
    reused = report.render(tmp_path, report.Run("ibsec reproduce --skip fig3", "full", 0.0, "e1",
                                                 skipped=("fig3",)))
    assert "Regenerated" not in reused and "no step ran (1 of 1 skipped)" in reused
    ran = report.render(tmp_path, report.Run("ibsec reproduce --skip fig3", "full", 60.0, "e1", ran=("fig5",),
                                             skipped=("fig3",)))
    assert "Regenerated by `ibsec reproduce --skip fig3` (full plan)" in ran
    assert "1 steps ran (fig5)" in ran and "1 steps were skipped (fig3)" in ran


def test_reproduce_with_every_step_skipped_writes_the_report_alone(tmp_path, monkeypatch, engine):
    import ibsec.paper.reproduce as reproduce_module

    monkeypatch.setattr(reproduce_module, "check_paper_names", lambda: None)
    write(tmp_path, "fig5_workloads", fig5_rows(1234.0, 93.3), {"engine_digest": "0123456789abcdef"})
    plan = reproduce_module.Context(tmp_path, tmp_path, tmp_path, reproduce_module.QUICK, 1, True, [])
    names = [step.name for step in reproduce_module.steps(plan)]  # every step of the quick plan, skipped
    argv = ["reproduce", "--quick", "--out", str(tmp_path), "--quiet", *[a for n in names for a in ("--skip", n)]]
    assert main(argv) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "Regenerated" not in text and f"no step ran ({len(names)} of {len(names)} skipped)" in text
    assert f"| differs {FOREIGN_MARK} |" in text  # Fig. 5(a): 7.7 x the paper's, from another engine's table
    assert "| fig5_workloads.csv | not recorded | 0123456789abcdef | reused, made by ANOTHER engine |" in text


def test_a_figures_meta_names_its_engine_and_when_it_was_written(tmp_path, engine):
    from ibsec.engine.binary import engine_digest
    from ibsec.output import figure_style as style

    for name, engine_made in (("from_runs", True), ("from_python", False)):
        fig, _ = style.subplots()
        style.save_figure(pd.DataFrame({"x": [1]}), fig, tmp_path, name, {}, argv=["test"], engine_made=engine_made)
        meta = json.loads((tmp_path / f"{name}.meta.json").read_text())
        assert meta["engine_digest"] == (engine_digest() if engine_made else None)
        assert meta["written_utc"].endswith("Z") and len(meta["written_utc"]) == len("2026-01-01T00:00:00Z")


# ---- today's anchors ------------------------------------------------------------------------------

def anchor_rows(anchor: str, overheads: list[float], share: float = 1.0):
    return [{"anchor": anchor, "mtu_bytes": 256 * (i + 1), "load": 0.1, "latency_overhead_percent": value,
             "throughput_share": share} for i, value in enumerate(overheads)]


@pytest.mark.parametrize("lee, srdma, share, expected", [
    ([1.0, 12.0], [3.0, 8.9], 1.0, [AGREES, AGREES]),
    ([38.0, 50.0], [75.0, 124.0], 1.0, [DIFFERS, DIFFERS]),  # the card of the paper, on their networks
    ([1.0, 12.0], [3.0, 8.9], 0.5, [AGREES, SAME_TREND]),  # sRDMA keeps line rate; half of it is not
])
def test_the_anchors_are_judged_by_the_same_rule(tmp_path, lee, srdma, share, expected):
    from ibsec.paper import anchors

    write(tmp_path, anchors.TABLE, anchor_rows(anchors.LEE_KIM.name, lee) + anchor_rows(anchors.SRDMA.name, srdma,
                                                                                          share))
    rows = anchors.comparisons(Tables(tmp_path))
    assert [r.figure for r in rows] == [anchors.LEE_KIM.name, anchors.SRDMA.name]
    assert [r.verdict for r in rows] == expected
    assert "0.7 % → " in rows[0].numbers() and "≤ 9 % → " in rows[1].numbers()
    assert anchors.INTRO in report.render(tmp_path, report.Run("ibsec reproduce", "full", 1.0, "e"))


def test_the_anchor_runs_pair_every_card_with_nosecurity_on_its_network(engine):
    from ibsec.paper import anchors

    points = anchors.plan()
    assert len(points) == 2 * sum(len(a.mtus) * len(anchors.LOADS) for a in anchors.ANCHORS)
    srdma = [p for p in points if p["anchor"] == anchors.SRDMA.name]
    assert {p["security"] for p in srdma} == {"NoSecurity", anchors.EVERY_KEY_CARD}
    # 20 000 messages at 4x SDR (8 Gb/s) scaled to one 25 Gb/s lane
    assert "traffic.messages=62500" in srdma[0]["overrides"] and "network.link_width=1x" in srdma[0]["overrides"]


def test_every_row_of_the_report_has_its_six_cells(tmp_path):
    """A bar inside a cell (|x|) would split it and shift every cell after it."""
    write(tmp_path, "fig5_workloads", fig5_rows(1234.0, 93.3))
    write(tmp_path, "table1_execution_time", [{"bench": "CG", "simulated_over_original": 0.44}])
    rows = report.comparisons(tmp_path)
    rows.append(Comparison("x", "a | b", "c", (Value("|d|", 1, 1),), "e | f"))
    for line in report._table(rows)[2:]:
        cells = [cell for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == len(report.COLUMNS), line
