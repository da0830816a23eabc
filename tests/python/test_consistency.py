"""The consistency step's plan (paper/consistency.py): which traces it replays where, and how it averages the
card-level predictions. The replays themselves run in `ibsec reproduce` / `ibsec figures consistency`."""

import numpy as np
import pytest

from ibsec.models import hitrate, markov, renewal, sizing
from ibsec.paper import consistency, reproduce
from ibsec.workloads import BENCHMARKS

pytestmark = pytest.mark.unit


def traffic(per_card):
    return sizing.Traffic("test", np.array(per_card), "given", renewal.exponential(1.0), renewal.exponential(9.0),
                          20.0)


def test_card_average_weights_each_card_by_its_sessions():
    # cards of 3, 3, 8 and 0 sessions: the empty card has no look-ups; each other card counts by its sessions
    t = traffic([3, 3, 8, 0])
    predicted, markov_f = consistency.card_average(t, 2)
    by_card = [(n, hitrate.predict(2, [hitrate.SessionGroup(n, t.on, t.off, t.access_rate)]).hit_rate,
                markov.hit_rate_estimate(2, n, 1.0, 9.0)) for n in (3, 3, 8)]
    assert predicted == pytest.approx(sum(n * p for n, p, _ in by_card) / 14, abs=1e-12)
    assert markov_f == pytest.approx(sum(n * f for n, _, f in by_card) / 14, abs=1e-12)
    assert by_card[0][1] > by_card[2][1]  # the weights matter: the cards differ


def test_every_generator_benchmark_has_a_length():
    assert set(consistency.SYNTHETIC_LENGTH) == set(BENCHMARKS)
    assert all(0 < scale <= 1 for scale in consistency.SYNTHETIC_LENGTH.values())


def test_plan_replays_real_traces_at_16_nodes_and_synthetic_ones_on_their_ranks(tmp_path, monkeypatch, capsys):
    made = []

    def fake_generate(params, path):
        made.append((params.bench, params.procs, params.scale))
        path.write_text("")

    monkeypatch.setattr("ibsec.workloads.generate", fake_generate)
    points = consistency.replay_plan(tmp_path, ("S",), (64, 256), quiet=False)
    # FT class A cannot be cut into 256 slabs: left out with a message, every other benchmark at both counts
    assert "no synthetic FT at 256 ranks" in capsys.readouterr().out
    expected = {(b, r) for b in BENCHMARKS for r in (64, 256)} - {("FT", 256)}
    assert {(b, r) for b, r, _ in made} == expected
    assert all(scale == consistency.SYNTHETIC_LENGTH[b] for b, _, scale in made)
    for point in points:
        nodes = [o for o in point["overrides"] if o.startswith("network.nodes=")]
        if point["source"] == "real":
            assert point["ranks"] == consistency.NODES and nodes == []
        else:
            assert nodes == [f"network.nodes={point['ranks']}"]
    real = consistency.shipped_real_traces(("S",))
    assert len(points) == len(consistency.SKC_ENTRIES) * (len(real) + len(expected))
    # made once: a second plan finds the traces
    made.clear()
    consistency.replay_plan(tmp_path, ("S",), (64,), quiet=True)
    assert made == []


def test_quick_plan_keeps_to_64_ranks_and_full_plan_to_every_count():
    assert reproduce.QUICK.consistency_ranks == (64,)
    assert reproduce.FULL.consistency_ranks is None  # consistency.SYNTHETIC_RANKS
    assert consistency.SYNTHETIC_RANKS == (64, 256)


def test_a_plan_without_synthetic_ranks_replays_only_the_real_traces(tmp_path, monkeypatch):
    monkeypatch.setattr("ibsec.workloads.generate", lambda params, path: pytest.fail("nothing to generate"))
    points = consistency.replay_plan(tmp_path, ("S",), (), quiet=True)
    assert points and all(p["source"] == "real" for p in points)
