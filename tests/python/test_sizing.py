"""`ibsec analytic size`: sessions per card at any scale, the three answers, the paper's worked example."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ibsec.errors import ConfigError
from ibsec.models import markov, onoff_fit, sessions, sizing

pytestmark = pytest.mark.unit

NPB = Path(__file__).resolve().parents[2] / "analytics" / "ibsec" / "data" / "npb"


def test_paper_worked_example_inverted():
    # lambda = mu (q = 1/2), n = 4 sessions: F_4(2) = 11/16 < 0.9 <= F_4(3) = 15/16, so 3 entries; and 3 entries
    # support 4 sessions at p = 0.9 (the paper's capacity), the same boundary read the other way.
    assert sizing.markov_entries(0.9, 4, 0.5) == 3
    assert markov.capacity(3, 1.0, 1.0, 0.9) == 4


@pytest.mark.parametrize("bench", ["cg", "mg"])
def test_decomposition_at_16_ranks_is_the_real_traces_graph(bench):
    # The generator's graph scaled to 16 ranks gives each card the sessions the real class A capture shows.
    messages = onoff_fit.read_messages(NPB / f"{bench}.A.16.trace.zst")
    real = sessions.per_card(zip(messages.sender.tolist(), messages.receiver.tolist(), strict=True), 16, 1, "block")
    scaled = sessions.per_card(sessions.generator_pairs(bench.upper(), 16), 16, 1, "block")
    assert scaled.tolist() == real.tolist()


def test_cg_sessions_grow_with_log_of_ranks():
    # CG's process grid: log2(npcols) row partners, one transpose partner, log2(P) collective-tree partners
    # (overlapping): 13 per card at 4 096 ranks.
    per_card = sessions.per_card(sessions.generator_pairs("CG", 4096), 4096, 1, "block")
    assert per_card.max() == 13 and per_card.mean() == pytest.approx(12.98, abs=0.01)


def test_pairs_inside_a_node_cross_no_card():
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3)]
    # block, 2 per node: nodes {0,1} {2,3}: (0,1) and (2,3) stay inside
    assert sessions.per_card(pairs, 2, 2, "block").tolist() == [2, 2]
    # cyclic: nodes {0,2} {1,3}: (0,2) and (1,3) stay inside
    assert sessions.per_card(pairs, 2, 2, "cyclic").tolist() == [2, 2]
    assert sessions.per_card([(0, 2)], 2, 2, "cyclic").tolist() == [0, 0]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "ibsec.cli", "analytic", "size", *args], capture_output=True,
                          text=True)


def test_cli_gives_three_answers_side_by_side():
    done = run_cli("--preset", "CG", "--nodes", "64", "--target", "0.9", "--simulate", "--accesses", "200000",
                   "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    # CG at 64 ranks: the 3 row-reduction partners differ in one of the low 3 bits, so they are among the 6
    # collective-tree partners; with the transpose partner, 7.
    assert answer["sessions_per_card_max"] == 7
    n, q = answer["sessions_per_card_max"], answer["duty_cycle"]
    x = answer["markov"]["entries"]
    assert markov.hit_rate_estimate(x, n, answer["on_mean_ms"], answer["off_mean_ms"]) >= 0.9
    assert x == 1 or markov.hit_rate_estimate(x - 1, n, answer["on_mean_ms"], answer["off_mean_ms"]) < 0.9
    assert 0.0 < q < 1.0
    assert answer["predictor"]["predicted_hit_rate_at_entries"] >= 0.9
    assert 0.0 < answer["cachesim"]["hit_rate_at_predictor_entries"] <= 1.0
    assert answer["why_they_differ"]


def test_cli_needs_exactly_one_traffic_source():
    done = run_cli("--nodes", "16")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "--trace" in done.stderr


def test_cli_sizes_a_set_associative_cache_of_another_policy_in_whole_sets():
    done = run_cli("--preset", "BT", "--nodes", "64", "--target", "0.95", "--policy", "lru", "--ways", "4",
                   "--simulate", "--accesses", "1000000", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["policy"] == "lru" and answer["ways"] == 4
    assert answer["markov"]["entries"] % 4 == 0 and answer["predictor"]["entries"] % 4 == 0
    assert answer["predictor"]["predicted_hit_rate_at_entries"] >= 0.95
    # the predictor's size is a simulated 4-way cache's too, within the predictor's stated accuracy
    assert answer["cachesim"]["hit_rate_at_predictor_entries"] >= 0.95 - 0.01
    done = run_cli("--preset", "BT", "--nodes", "64", "--policy", "fifo", "--ways", "2")
    assert done.returncode == 2 and "'ways'" in done.stderr and "Traceback" not in done.stderr


def test_cli_refuses_fifo_on_measured_periods_naming_the_policy():
    done = run_cli("--trace", str(NPB / "lu.S.16.trace.zst"), "--nodes", "16", "--policy", "fifo")
    assert done.returncode == 2 and "'policy'" in done.stderr and "exponential" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_a_way_count_that_is_not_a_power_of_two_is_refused_as_the_card_refuses_it():
    traffic = sizing.from_preset("CG", "origin2000", 16, 1, "block")
    with pytest.raises(ConfigError, match="power of two"):
        sizing.size(traffic, 0.9, ways=3)


def test_printed_hit_rates_at_the_two_sizes_say_whose_size_each_is(capsys):
    from ibsec.cli.analytic import print_cachesim, print_exact

    m, p = {"entries": 2}, {"entries": 2}  # both models at one size: the pair must not read as a repetition
    rates = {"hit_rate_at_markov_entries": 0.9433, "hit_rate_at_predictor_entries": 0.9433}
    print_cachesim({**rates, "keys": 13, "accesses": 1000,
                    "all_cards": {**rates, "cards": 16, "card_hit_rate_min_at_predictor_entries": 0.5,
                                  "card_hit_rate_max_at_predictor_entries": 1.0}}, m, p)
    print_exact({**rates, "policy": "lru", "entries": 3, "bytes": 48, "predicted_hit_rate_at_entries": 0.95,
                 "lookups": 100, "cold_lookups": 4, "hit_rate_ceiling": 0.96}, m, p)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line in lines:
        assert "0.9433 at Markov's size (2 entries), 0.9433 at the predictor's (2 entries)" in line, line


def test_cachesim_s_unset_look_ups_count_as_the_engine_s_default(engine):
    # analytic size --simulate without --accesses hands cachesim accesses=None: the engine's default, not a crash.
    from ibsec.models import cachesim

    assert cachesim.expected_events({"accesses": None}) == cachesim.expected_events({})
    assert cachesim.check_point({"accesses": None, "keys": 13})["accesses"] is None
