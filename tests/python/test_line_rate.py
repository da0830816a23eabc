"""`ibsec study line-rate` (analytics/ibsec/paper/line_rate.py): which card is the cheapest, and a study run on a
tiny grid whose NoSecurity baseline is the yardstick of every other run."""

from __future__ import annotations

import pandas as pd
import pytest

from ibsec.paper import line_rate


def _card(engines: int, overlap: int, share: float, overhead: float, workload: str = "uniform") -> dict:
    return {"workload": workload, "generation": "NDR", "mtu_bytes": 256, "kind": "card", "engines": engines,
            "overlap": overlap, "throughput_share": share, "latency_overhead_percent": overhead}


@pytest.mark.unit
def test_cheapest_card_meets_both_targets_before_fewer_engines_meeting_one():
    df = pd.DataFrame([_card(1, 1, 0.5, 5.0), _card(2, 1, 0.99, 50.0), _card(2, 4, 0.99, 8.0),
                       _card(4, 1, 0.99, 7.0)])
    best = line_rate.cheapest_cards(df).iloc[0]
    assert (best.engines_needed, best.overlap_needed, best.latency_target_met) == (2, 4, True)


@pytest.mark.unit
def test_cheapest_card_falls_back_to_throughput_alone_then_to_none():
    throughput_only = pd.DataFrame([_card(1, 1, 0.5, 5.0), _card(2, 1, 0.99, 50.0), _card(4, 1, 0.99, 20.0)])
    best = line_rate.cheapest_cards(throughput_only).iloc[0]
    assert (best.engines_needed, best.latency_target_met) == (2, False)
    nothing = line_rate.cheapest_cards(pd.DataFrame([_card(1, 1, 0.5, 5.0), _card(32, 16, 0.7, 900.0)])).iloc[0]
    assert pd.isna(nothing.engines_needed) and nothing.throughput_share == pytest.approx(0.7)


@pytest.mark.model
def test_tiny_study_measures_every_card_against_its_own_baseline(tmp_path):
    grid = line_rate.Grid(generations=("SDR",), mtus=(256,), engines=(1, 2), overlaps=(1,), skc_sizes=(2,),
                          messages=600)
    df, cheapest = line_rate.study(tmp_path, None, grid, jobs=1, quiet=True)
    assert len(df) == 1 + 2 + 1  # baseline, two cards, one SKC size
    baseline = df[df.kind == "baseline"].iloc[0]
    assert baseline.throughput_share == pytest.approx(1.0) and baseline.latency_overhead_percent == pytest.approx(0)
    assert (df[df.kind != "baseline"].latency_overhead_percent > 0).all(), "a secure card adds latency"
    assert list(cheapest.workload) == ["uniform"]
    for name in ("line_rate.csv", "line_rate.png", "line_rate_runs.csv"):
        assert (tmp_path / name).is_file()


@pytest.mark.model
def test_uniform_runs_grow_with_the_link_so_each_generation_simulates_as_long():
    grid = line_rate.Grid(messages=20_000)
    assert line_rate.uniform_messages(grid, "SDR") == 20_000
    assert line_rate.uniform_messages(grid, "QDR") == 80_000  # 8 Gb/s a lane against 2
    assert line_rate.uniform_messages(grid, "NDR") == 1_000_000  # 100 Gb/s a lane
