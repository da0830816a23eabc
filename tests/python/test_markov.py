"""The Markov ON/OFF model against the paper's worked example and Eq. (1)-(3) in closed form."""

from fractions import Fraction
from math import comb

import pytest

from ibsec.errors import ConfigError
from ibsec.models import markov

pytestmark = pytest.mark.unit


def test_paper_example_state_probabilities():
    # lambda = mu, n = 4: P0 = P4 = 1/16, P1 = P3 = 1/4, P2 = 3/8 (paper 3.2).
    p = markov.state_probabilities(4, on_mean=1.0, off_mean=1.0)
    assert p.tolist() == pytest.approx([1 / 16, 1 / 4, 3 / 8, 1 / 4, 1 / 16], abs=1e-15)


def test_paper_example_hit_rate_and_capacity():
    assert markov.hit_rate_estimate(3, 4, 1.0, 1.0) == pytest.approx(15 / 16, abs=1e-15)
    assert markov.hit_rate_estimate(3, 5, 1.0, 1.0) == pytest.approx(13 / 16, abs=1e-15)
    assert markov.capacity(3, 1.0, 1.0, 0.9) == 4


def exact_states(n: int, on_mean: Fraction, off_mean: Fraction) -> list[Fraction]:
    """Eq. (1)-(2) as printed, in exact rationals: P_i = P_0 C(n,i) (lambda/mu)^i."""
    ratio = (1 / off_mean) / (1 / on_mean)
    weights = [comb(n, i) * ratio**i for i in range(n + 1)]
    total = sum(weights)
    return [w / total for w in weights]


@pytest.mark.parametrize("n,on,off", [(1, 1, 1), (7, 2, 5), (20, 1, 9), (33, 3, 1)])
def test_binomial_form_equals_equations_one_and_two(n, on, off):
    exact = exact_states(n, Fraction(on), Fraction(off))
    expected = [float(f) for f in exact]
    assert markov.state_probabilities(n, on, off).tolist() == pytest.approx(expected, rel=1e-12, abs=1e-300)
    for x in range(1, n + 1):
        assert markov.hit_rate_estimate(x, n, on, off) == pytest.approx(float(sum(exact[: x + 1])), rel=1e-12)


@pytest.mark.parametrize(
    "entries,on,off,target",
    [(128, 2.0, 19.0526, 0.9), (1024, 8.0, 24.0, 0.9), (3, 1.0, 1.0, 0.5), (1000, 1.0, 1.0, 0.99),
     (64, 1.0, 99.0, 0.999)],
)
def test_capacity_is_the_boundary(entries, on, off, target):
    n = markov.capacity(entries, on, off, target)
    assert n >= entries
    assert markov.hit_rate_estimate(entries, n, on, off) >= target
    assert markov.hit_rate_estimate(entries, n + 1, on, off) < target


def test_capacity_exact_beyond_ten_million_sessions():
    # x = 10^6 entries at duty cycle 0.05: capacity near 2 * 10^7.
    n = markov.capacity(1_000_000, 1.0, 19.0, 0.9)
    assert 19_000_000 < n < 21_000_000
    assert (markov.hit_rate_estimate(1_000_000, n, 1.0, 19.0) >= 0.9
            > markov.hit_rate_estimate(1_000_000, n + 1, 1.0, 19.0))


def test_capacity_grows_with_entries_and_shrinks_with_duty_cycle():
    caps = [markov.capacity(x, 1.0, 9.0, 0.9) for x in (128, 256, 512, 1024)]
    assert caps == sorted(caps) and len(set(caps)) == 4
    assert markov.capacity(128, 1.0, 9.0, 0.9) > markov.capacity(128, 2.0, 9.0, 0.9)


@pytest.mark.parametrize(
    "call,field",
    [
        (lambda: markov.capacity(0, 1, 1, 0.9), "entries"),
        (lambda: markov.capacity(-4, 1, 1, 0.9), "entries"),
        (lambda: markov.capacity(8, 0, 1, 0.9), "on_mean"),
        (lambda: markov.capacity(8, 1, -1, 0.9), "off_mean"),
        (lambda: markov.capacity(8, 1, float("nan"), 0.9), "off_mean"),
        (lambda: markov.capacity(8, 1, 1, 1.0), "target"),
        (lambda: markov.capacity(8, 1, 1, 0.0), "target"),
        (lambda: markov.capacity(8, 1, 1, -0.5), "target"),
        (lambda: markov.hit_rate_estimate(8, 0, 1, 1), "processes"),
        (lambda: markov.hit_rate_estimate(2.5, 4, 1, 1), "entries"),
    ],
)
def test_bad_parameters_name_their_field(call, field):
    with pytest.raises(ConfigError) as error:
        call()
    assert error.value.field == field
