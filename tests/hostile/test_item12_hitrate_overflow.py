"""Issue 16, item 12: `ibsec analytic hitrate --entries 3 --processes 4 --on-mean 1.7e308 --off-mean 1.7e308`
gave 1.0: on + off overflowed to inf and q = on / (on + off) to 0. The answer is 15/16."""

import pytest

from ibsec.models.markov import hit_rate_estimate, on_probability

from .helpers import ibsec

HUGE = 1.7e308


@pytest.mark.unit
def test_the_papers_example_with_equal_huge_means():
    """Item 12: lambda = mu, n = 4, x = 3: F = 1 - (1/2)^4 = 15/16, whatever the (equal) means."""
    for mean in (1.0, 1e-300, 1e300, HUGE):
        assert on_probability(mean, mean) == 0.5
        assert hit_rate_estimate(3, 4, mean, mean) == 15 / 16


@pytest.mark.unit
@pytest.mark.parametrize("on,off,q", [
    (HUGE, HUGE / 3, 0.75),
    (HUGE / 3, HUGE, 0.25),
    (HUGE, 1.0, 1.0),  # off / on underflows: q is 1 to the last bit
    (1e-308, HUGE, 0.0),  # and here 0 (about 6e-617)
])
def test_on_probability_without_overflow(on, off, q):
    """Item 12: q stays in [0, 1] and right when the sum of the means overflows."""
    assert on_probability(on, off) == pytest.approx(q, abs=1e-15)


@pytest.mark.unit
def test_the_command_prints_15_16():
    """Item 12: the reproducer."""
    done = ibsec("analytic", "hitrate", "--entries", "3", "--processes", "4", "--on-mean", "1.7e308",
                 "--off-mean", "1.7e308")
    assert done.returncode == 0 and "F_4(3) = 0.937500" in done.stdout
