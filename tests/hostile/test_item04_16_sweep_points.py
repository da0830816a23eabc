"""Issue 16, items 4 and 16 (Python): the number of sweep points is bounded, with an error naming the count,
before anything is expanded (a range of 4 x 10^10 points filled the memory; a 1 M-point grid took 2.4 GB
before its first point)."""

import json

import pytest

from ibsec.errors import ConfigError
from ibsec.runs.ranges import MAX_POINTS, parse_sweep
from ibsec.runs.spec import load_spec, spec_from_data

from .helpers import PAPER_16, ibsec, no_traceback, recording_engine


@pytest.mark.unit
def test_a_load_range_of_forty_billion_points_is_refused_at_once(tmp_path, monkeypatch):
    """Item 4: `ibsec run $C --sweep-load 0.01:0.05:1e-12 --out x` (MemoryError before)."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec("run", str(PAPER_16), "--sweep-load", "0.01:0.05:1e-12", "--out", str(tmp_path / "x"), timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "40,000,000,001 points" in done.stderr and f"at most {MAX_POINTS:,}" in done.stderr
    assert not calls.exists()


@pytest.mark.unit
def test_a_cachesim_range_of_a_billion_points_is_refused_at_once(tmp_path, monkeypatch):
    """Item 4: `ibsec cachesim --sweep keys=1:1e9:1 --out x.csv`."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec("cachesim", "--sweep", "keys=1:1e9:1", "--out", str(tmp_path / "x.csv"), timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "1,000,000,000 points" in done.stderr and not calls.exists()


@pytest.mark.unit
@pytest.mark.parametrize("values,problem", [
    ("1:2:1e-308", r"about 1e\+308 points"),  # (STOP - START) / STEP overflows: an OverflowError before
    ("-1e308:1e308:1", r"more than 10\^308 points"),  # STOP - START overflows
    ("1:nan:1", "expected a finite number"),  # int(nan) was a ValueError
    ("1:2:inf", "expected a finite number"),
    ("1:2:0", "must be greater than 0"),
    ("1:2:-1", "must be greater than 0"),
    ("5:4:1", "STOP is below START"),  # was the one point 5
])
def test_a_range_is_counted_safely_before_it_is_expanded(values, problem):
    """Items 4 and 7: the count of START:STOP:STEP never overflows or meets NaN."""
    with pytest.raises(ConfigError, match=problem):
        parse_sweep(f"keys={values}")


@pytest.mark.unit
def test_ranges_at_the_bound():
    """Item 4: MAX_POINTS points are a sweep; one more is refused, in ranges and in lists."""
    assert len(parse_sweep(f"keys=1:{MAX_POINTS}:1")[1]) == MAX_POINTS
    with pytest.raises(ConfigError, match=f"{MAX_POINTS + 1:,} points"):
        parse_sweep(f"keys=1:{MAX_POINTS + 1}:1")
    with pytest.raises(ConfigError, match=f"{MAX_POINTS + 1:,} points"):
        parse_sweep("keys=" + ",".join(["1"] * (MAX_POINTS + 1)))


def write_spec(tmp_path, spec: dict):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.unit
def test_a_million_point_grid_is_refused_before_it_is_built(tmp_path):
    """Item 16: 1000 x 1000 grid values (a million points) refused from the sizes, naming the count."""
    values = list(range(1, 1001))
    path = write_spec(tmp_path, {"kind": "cachesim", "grid": {"keys": values, "entries": values}})
    with pytest.raises(ConfigError, match="1,000,000 points"):
        load_spec(path)


@pytest.mark.unit
def test_a_million_values_in_one_list_are_refused_before_they_are_compared(tmp_path):
    """Item 16: the repeat check compared every value with every earlier one (10^12 comparisons: a hang). A spec
    file of a million values is now refused by its size first (issue 27, items 20 and 26): the spec as a dict
    (ibsec.sweep takes one) still reaches the count."""
    spec = {"kind": "cachesim", "grid": {"keys": list(range(1, 1_000_001))}}
    with pytest.raises(ConfigError, match="1,000,000 points"):
        spec_from_data(tmp_path / "spec.json", spec)
    with pytest.raises(ConfigError, match="at most 1048576 bytes"):
        load_spec(write_spec(tmp_path, spec))


@pytest.mark.unit
def test_seeds_multiply_the_count(tmp_path):
    """Item 16: grid x seeds is what runs."""
    path = write_spec(tmp_path, {"kind": "cachesim", "grid": {"keys": list(range(1, 1001))},
                                 "seeds": list(range(101))})
    with pytest.raises(ConfigError, match="101,000 points"):
        load_spec(path)
