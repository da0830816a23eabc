"""`ibsec reproduce --skip STEP`: a step left out by name, and a name that is no step refused before anything
runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ibsec.errors import ConfigError
from ibsec.paper.reproduce import FULL, QUICK, Context, chosen_steps, steps

pytestmark = pytest.mark.unit


def _context(plan, skip=()) -> Context:
    return Context(Path("out"), Path("workloads"), Path("mixes"), plan, 1, True, ["reproduce"], skip=skip)


def test_step_names_are_unique_in_every_plan():
    for plan in (QUICK, FULL):
        names = [step.name for step in steps(_context(plan))]
        assert len(names) == len(set(names))


def test_a_skipped_step_is_left_out_and_the_others_keep_their_order():
    every = [step.name for step in steps(_context(FULL))]
    kept = [step.name for step in chosen_steps(_context(FULL, ("predictor-fitted", "fig7")))]
    assert kept == [name for name in every if name not in ("predictor-fitted", "fig7")]


def test_an_unknown_step_is_refused_with_the_closest_name():
    with pytest.raises(ConfigError, match="did you mean 'predictor-fitted'"):
        chosen_steps(_context(FULL, ("predictor-fited",)))
    # The quick plan has no predictor steps: naming one is an error there, not a silent no-op.
    with pytest.raises(ConfigError, match="no step of the quick plan"):
        chosen_steps(_context(QUICK, ("predictor-fitted",)))
