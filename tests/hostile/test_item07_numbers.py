"""Issue 16, item 7 (and "Must show": numeric parsing in one place, tested at the edges).

Negative values for counts wrapped to 2^64 - 1 in the engine (`ibsec cachesim --accesses -1` ran forever);
`--seed -1`, `--jobs 0`, `--warmup -5` were accepted. Every number ibsec reads goes through ibsec.numeric,
and the options are refused by their argparse type, naming the option, before anything runs.
"""

import json
import math

import pytest

from ibsec.errors import ConfigError
from ibsec.numeric import UINT64_MAX, positive_real, real_number, whole_number, whole_option
from ibsec.runs.spec import load_spec

from .helpers import ibsec, no_traceback, recording_engine

# ---- the parser at the edges: 0, max, max + 1, negative, NaN, inf, 1e308, 1e-308 -------------------------

WHOLE_EDGES = [  # whole_number(value, minimum=0, maximum=2^64 - 1)
    ("0", 0),
    (0, 0),
    (str(UINT64_MAX), UINT64_MAX),
    (UINT64_MAX, UINT64_MAX),
    ("4e6", 4_000_000),
    (4e6, 4_000_000),
    (" 17 ", 17),
    (str(UINT64_MAX + 1), "must be at most 18446744073709551615"),
    (UINT64_MAX + 1, "must be at most"),
    ("-1", "must be at least 0"),
    (-1, "must be at least 0"),
    ("nan", "expected a finite number"),
    (math.nan, "expected a finite number"),
    ("inf", "expected a finite number"),
    ("-inf", "expected a finite number"),
    (math.inf, "expected a finite number"),
    ("1e308", "must be at most"),
    (1e308, "must be at most"),
    ("1e-308", "expected a whole number"),
    (1e-308, "expected a whole number"),
    ("2.5", "expected a whole number"),
    (True, "expected a number"),
    ("", "expected a number"),
    ("12 apples", "expected a number"),
    (None, "expected a number"),
    ([1], "expected a number"),
]


@pytest.mark.unit
@pytest.mark.parametrize("value,expected", WHOLE_EDGES)
def test_whole_numbers_at_the_edges(value, expected):
    """Item 7: a count or seed: 0 .. 2^64 - 1, nothing else (no wrap, no rounding of 2^64 to 2^64 - 1)."""
    if isinstance(expected, int):
        assert whole_number(value, "seed") == expected
    else:
        with pytest.raises(ConfigError, match=f"invalid 'seed': {expected}"):
            whole_number(value, "seed")


@pytest.mark.unit
@pytest.mark.parametrize("value,expected", [("1", 1), ("0", "must be at least 1"), ("-1", "must be at least 1"),
                                            ("1048576", 1048576), ("1048577", "must be at most 1048576")])
def test_whole_numbers_with_their_own_range(value, expected):
    """Item 7: the bounds a field gives (here 1 .. 2^20, the trace format's ranks)."""
    if isinstance(expected, int):
        assert whole_number(value, "procs", minimum=1, maximum=1 << 20) == expected
    else:
        with pytest.raises(ConfigError, match=expected):
            whole_number(value, "procs", minimum=1, maximum=1 << 20)


POSITIVE_EDGES = [  # positive_real: finite and > 0
    ("1e308", 1e308),
    (1.7976931348623157e308, 1.7976931348623157e308),  # the largest float
    ("1e-308", 1e-308),
    (5e-324, 5e-324),  # the smallest
    ("0.5", 0.5),
    (3, 3.0),
    ("0", "must be greater than 0"),
    (0, "must be greater than 0"),
    ("-0.0", "must be greater than 0"),
    ("-1", "must be greater than 0"),
    ("nan", "expected a finite number"),
    (math.nan, "expected a finite number"),
    ("inf", "expected a finite number"),
    ("1e309", "expected a finite number"),  # overflows to inf as it is read
    (False, "expected a number"),
    ("fast", "expected a number"),
]


@pytest.mark.unit
@pytest.mark.parametrize("value,expected", POSITIVE_EDGES)
def test_positive_numbers_at_the_edges(value, expected):
    """Item 7: durations, rates, clocks."""
    if isinstance(expected, float):
        assert positive_real(value, "on_mean") == expected
    else:
        with pytest.raises(ConfigError, match=f"invalid 'on_mean': {expected}"):
            positive_real(value, "on_mean")


@pytest.mark.unit
def test_real_numbers_with_bounds():
    """Item 7: inclusive (minimum, maximum) and exclusive (above, below) bounds, as --scale and --target use."""
    assert real_number("1", "scale", above=0.0, maximum=1.0) == 1.0
    with pytest.raises(ConfigError, match="must be at most 1"):
        real_number("1.0000001", "scale", above=0.0, maximum=1.0)
    with pytest.raises(ConfigError, match="must be less than 1"):
        real_number("1", "target", above=0.0, below=1.0)
    assert real_number("0", "x", minimum=0.0) == 0.0


# ---- the options -----------------------------------------------------------------------------------------

REFUSED_OPTIONS = [
    (["cachesim", "--keys", "100", "--entries", "10", "--accesses", "-1"], "argument --accesses: must be at least 1"),
    (["cachesim", "--accesses", "18446744073709551616"], "argument --accesses: must be at most"),
    (["cachesim", "--seed", "-1"], "argument --seed: must be at least 0"),
    (["cachesim", "--seed", "18446744073709551616"], "argument --seed: must be at most 18446744073709551615"),
    (["cachesim", "--warmup", "-5"], "argument --warmup: must be at least 0"),  # also item 19
    (["cachesim", "--keys", "4294967296"], "argument --keys: must be at most 4294967295"),
    (["cachesim", "--keys", "nan"], "argument --keys: expected a finite number"),
    (["cachesim", "--ways", "-1"], "argument --ways: must be at least 0"),
    (["cachesim", "--access-rate", "inf"], "argument --access-rate: expected a finite number"),
    (["cachesim", "--on-mean", "-1", "--off-mean", "1"], "argument --on-mean: must be greater than 0"),
    (["cachesim", "--jobs", "0", "--sweep", "keys=1,2", "--out", "x.csv"], "argument --jobs: must be at least 1"),
    (["figures", "fig8", "--accesses", "-5"], "argument --accesses: must be at least 1"),
    (["figures", "fig8", "--jobs", "0"], "argument --jobs: must be at least 1"),
    (["study", "--jobs", "0"], "argument --jobs: must be at least 1"),  # also item 19: 0 meant "the default"
    (["run", "--sweep-load", "0.1", "--out", "x", "--jobs", "-2"], "argument --jobs: must be at least 1"),
    (["sweep", "s.toml", "--workers", "0"], "argument --workers: must be at least 1"),
    (["trace", "gen", "CG", "--seed", "-1", "--out", "t.trace"], "argument --seed: must be at least 0"),
    (["trace", "gen", "CG", "--scale", "nan", "--out", "t.trace"], "argument --scale: expected a finite number"),
    (["trace", "gen", "JBB", "--procs", "-4", "--out", "t.trace"], "argument --procs: must be at least 1"),
    (["analytic", "states", "--processes", "-3", "--on-mean", "1", "--off-mean", "1"],
     "argument --processes: must be at least 1"),
    (["analytic", "capacity", "--entries", "1e-308", "--on-mean", "1", "--off-mean", "1"],
     "argument --entries: must be at least 1"),
    (["analytic", "capacity", "--entries", "2.5", "--on-mean", "1", "--off-mean", "1"],
     "argument --entries: expected a whole number"),
    (["hwcost", "--gcm-mhz", "1e309"], "argument --gcm-mhz: expected a finite number"),
    (["compare-schedulers", "--pb", "-1"], "argument --pb: must be at least 1"),
]


@pytest.mark.unit
@pytest.mark.parametrize("args,message", REFUSED_OPTIONS, ids=[" ".join(a) for a, _ in REFUSED_OPTIONS])
def test_out_of_range_options_are_refused_naming_the_option(args, message, tmp_path, monkeypatch):
    """Item 7: refused by the option's type (exit 2, the option named), before any engine run."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec(*args, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and no_traceback(done)
    assert message in done.stderr
    assert not calls.exists()


@pytest.mark.unit
def test_trace_gen_refuses_more_ranks_than_the_format_has(tmp_path):
    """Items 7 and 16: `ibsec trace gen JBB --procs 100000000` (the format's maximum is 1 048 576)."""
    done = ibsec("trace", "gen", "JBB", "--procs", "100000000", "--out", str(tmp_path / "t.trace"), timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "invalid '--procs': must be at most 1048576" in done.stderr
    assert not (tmp_path / "t.trace").exists()


@pytest.mark.unit
def test_the_option_type_is_the_same_check():
    """Item 7: one parser: the argparse type and the value check agree."""
    import argparse

    assert whole_option(minimum=1)("4e6") == 4_000_000
    with pytest.raises(argparse.ArgumentTypeError, match="must be at least 1, got '-1'"):
        whole_option(minimum=1)("-1")


# ---- sweep specs ---------------------------------------------------------------------------------------------

def spec_file(tmp_path, spec: dict):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.unit
@pytest.mark.parametrize("spec,field,problem", [
    ({"kind": "cachesim", "grid": {"accesses": [1000, -1]}}, "grid.accesses", "must be at least 1"),
    ({"kind": "cachesim", "set": {"warmup": -5}}, "set.warmup", "must be at least 0"),
    ({"kind": "cachesim", "points": [{"keys": 1.5}]}, "points[0].keys", "expected a whole number"),
    ({"kind": "cachesim", "set": {"access_rate": 0}}, "set.access_rate", "must be greater than 0"),
    ({"kind": "cachesim", "seeds": [2**64]}, "seeds[0]", "expected a whole number from 0 to 18446744073709551615"),
    ({"kind": "run", "seeds": [-1]}, "seeds[0]", "expected a whole number from 0"),
])
def test_sweep_specs_are_checked_the_same_way(tmp_path, spec, field, problem):
    """Item 7: sweep specs likewise, naming the SPEC file and the field, before any point runs."""
    path = spec_file(tmp_path, spec)
    with pytest.raises(ConfigError) as caught:
        load_spec(path)
    assert f"invalid '{field}': {problem}" in str(caught.value) and str(path) in str(caught.value)
