"""`ibsec cachesim --cards / --card-sessions`: several cards, each with its own sessions and key cache.

The statistics of the mode (identical cards hit as one card; unequal cards give the session-weighted mean of
one-card runs) are checked on the engine's own code in tests/cpp/unit/multi_card_test.cpp; here, what the
Python side adds: the point's parameters, the store's key, the CLI and `ibsec analytic size --simulate`.
"""

import json
import subprocess
import sys

import pytest

from ibsec.errors import ConfigError
from ibsec.models import cachesim

pytestmark = pytest.mark.unit

SMALL = {"entries": 4, "on_mean": 1.0, "off_mean": 9.0, "accesses": 200_000}


def test_one_card_row_has_no_card_statistics_and_cards_adds_them():
    one = cachesim.run_point({**SMALL, "keys": 20})
    assert not set(cachesim.CARD_STATISTICS) & set(one)
    four = cachesim.run_point({**SMALL, "keys": 20, "cards": 4})
    assert four["cards"] == 4 and four["keys"] == 80  # keys: every card's sessions together
    assert four["card_hit_rate_min"] <= four["card_hit_rate_mean"] <= four["card_hit_rate_max"]
    # identical cards: the pooled rate is the mean of the cards' rates (each card has the same look-ups)
    assert four["hit_rate"] == pytest.approx(four["card_hit_rate_mean"], abs=1e-9)


def test_card_sessions_file_sets_each_card(tmp_path):
    path = cachesim.card_sessions_file([3, 0, 30], tmp_path / "cards.txt")  # a card without sessions is left out
    assert path.read_text() == "3\n30\n"
    row = cachesim.run_point({**SMALL, "card_sessions": str(path)})
    assert row["cards"] == 2 and row["keys"] == 33
    # 3 sessions on 4 entries never miss once warm; 30 sessions do: the pooled rate lies between, weighted
    # 3:30 towards the busy card
    assert row["card_hit_rate_max"] == 1.0 and row["card_hit_rate_min"] < 1.0
    busy = row["card_hit_rate_min"]
    assert row["hit_rate"] == pytest.approx((3 * 1.0 + 30 * busy) / 33, abs=1e-5)
    with pytest.raises(ConfigError, match="card_sessions"):
        cachesim.card_sessions_file([0, 0], tmp_path / "none.txt")


def test_keys_or_cards_with_a_file_is_refused(tmp_path):
    path = cachesim.card_sessions_file([5], tmp_path / "cards.txt")
    for extra in ({"keys": 5}, {"cards": 2}):
        with pytest.raises(ConfigError, match=next(iter(extra))):
            cachesim.check_point({"card_sessions": str(path), **extra})
    with pytest.raises(ConfigError, match="cards"):
        cachesim.check_point({"cards": 0})


def test_store_keys_a_card_file_on_its_contents(tmp_path):
    first = cachesim.card_sessions_file([4, 8], tmp_path / "a.txt")
    same = cachesim.card_sessions_file([4, 8], tmp_path / "b.txt")
    other = cachesim.card_sessions_file([4, 9], tmp_path / "c.txt")
    key = [json.dumps(cachesim.identity({"card_sessions": str(p)})["cachesim"]) for p in (first, same, other)]
    assert key[0] == key[1] != key[2]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "ibsec.cli", *args], capture_output=True, text=True)


def test_cli_names_the_file_and_line_of_a_bad_count(tmp_path):
    bad = tmp_path / "cards.txt"
    bad.write_text("# cards\n4\nfour\n")
    done = run_cli("cachesim", "--card-sessions", str(bad), "--accesses", "1000")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{bad}:3" in done.stderr and "four" in done.stderr


def test_cli_prints_the_spread_over_cards():
    done = run_cli("cachesim", "--keys", "20", "--cards", "3", "--entries", "4", "--accesses", "30000")
    assert done.returncode == 0, done.stderr
    assert "3 cards, each its own cache: card hit rate mean" in done.stdout


def test_size_simulates_every_card_when_the_cluster_has_several():
    done = run_cli("analytic", "size", "--preset", "MG", "--nodes", "64", "--target", "0.9", "--simulate",
                   "--accesses", "200000", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    cards = answer["cachesim"]["all_cards"]
    assert cards["cards"] == 64
    low, high = cards["card_hit_rate_min_at_predictor_entries"], cards["card_hit_rate_max_at_predictor_entries"]
    assert 0.0 < low <= cards["hit_rate_at_predictor_entries"] <= high <= 1.0


def test_card_file_gives_the_session_weighted_mean_of_one_card_runs(tmp_path):
    # Three cards of 20, 60 and 120 sessions on 10 entries each, from a file, against independent one-card runs
    # of the same look-ups each (seed 1), weighted by sessions. One run's standard deviation here is about 0.3
    # points at these lengths, so 1 point is about three of the difference's.
    sizes = [20, 60, 120]
    point = {"entries": 10, "on_mean": 1.0, "off_mean": 9.0, "accesses": 8_000_000}
    pooled = cachesim.run_point({**point, "card_sessions": str(cachesim.card_sessions_file(sizes, tmp_path / "c"))})
    alone = [cachesim.run_point({**point, "keys": n})["hit_rate"] for n in sizes]
    weighted = sum(n * rate for n, rate in zip(sizes, alone, strict=True)) / sum(sizes)
    assert pooled["hit_rate"] == pytest.approx(weighted, abs=0.01)
    # the cards differ by far more than the tolerance, so a wrong weighting would show
    assert alone[0] - alone[2] > 0.05
    assert pooled["card_hit_rate_min"] == pytest.approx(alone[2], abs=0.02)
