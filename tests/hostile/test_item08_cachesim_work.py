"""Issue 16, item 8 (Python): `ibsec cachesim --on-mean 1e-300` ran without end. The work a point asks for
(look-ups plus ON/OFF switches, models/cachesim.py expected_events) is bounded before the engine is called:
events = (warmup + accesses) x (1 + 2 / (on_mean x access_rate)) <= MAX_EVENTS."""

import json
import re

import pytest

from ibsec.errors import ConfigError
from ibsec.models.cachesim import MAX_EVENTS, check_point, expected_events
from ibsec.runs.spec import load_spec

from .helpers import ibsec, no_traceback, recording_engine


@pytest.mark.unit
def test_a_tiny_on_mean_is_refused_before_the_engine_runs(tmp_path, monkeypatch):
    """Item 8: the reproducer, refused at once, naming on_mean and the work it would take."""
    fake, calls = recording_engine(tmp_path)
    monkeypatch.setenv("IBSEC_ENGINE", str(fake))
    done = ibsec("cachesim", "--on-mean", "1e-300", "--off-mean", "1", timeout=60)
    assert done.returncode == 2 and no_traceback(done)
    assert "invalid 'on_mean'" in done.stderr and "2.2e+305 look-ups and ON/OFF switches" in done.stderr
    assert not calls.exists()


@pytest.mark.unit
@pytest.mark.parametrize("point,allowed", [
    ({}, True),  # the defaults (the engine's 10 M accesses): 11 M look-ups, 220 000 switches
    ({"accesses": 800_000_000_000}, True),  # 8.98e11 events
    ({"accesses": 900_000_000_000}, False),  # 1.01e12
    ({"on_mean": 1e-7, "accesses": 1000}, True),  # 2e5 switches per look-up: 2.2e8
    ({"on_mean": 1e-300}, False),
    ({"on_mean": 5e-324, "access_rate": 5e-324}, False),  # 2 / (on_mean x access_rate) is inf: no error
    ({"access_rate": 1e-300}, False),
])
def test_the_bound(point, allowed):
    """Item 8: the bound as a function of accesses, warm-up, on_mean and access_rate."""
    if allowed:
        assert check_point(point) is not None
    else:
        with pytest.raises(ConfigError, match=re.escape(f"at most {MAX_EVENTS:.0e} are run")):
            check_point(point)


@pytest.mark.unit
def test_expected_events_counts_the_default_warm_up():
    """Item 8: warm-up defaults to a tenth of the accesses, as the engine's."""
    assert expected_events({"accesses": 1000, "on_mean": 1.0, "access_rate": 100.0}) == pytest.approx(1100 * 1.02)
    assert expected_events({"accesses": 1000, "warmup": 0, "on_mean": 2.0, "access_rate": 1.0}) == 2000


@pytest.mark.unit
def test_the_formula_is_what_the_engine_does(engine):
    """Item 8: the engine's own count of ON/OFF switches matches 2 / (on_mean x access_rate) per look-up."""
    import subprocess

    point = {"accesses": 20000, "warmup": 0, "on_mean": 0.01, "access_rate": 100.0}
    done = subprocess.run([engine, "cachesim", "--keys", "100", "--accesses", "20000", "--warmup", "0", "--on-mean",
                           "0.01", "--access-rate", "100", "--json", "--quiet"], capture_output=True, text=True,
                          check=True, timeout=60)
    transitions = json.loads(done.stdout)["transitions"]
    assert transitions + 20000 == pytest.approx(expected_events(point), rel=0.05)


@pytest.mark.unit
def test_a_sweep_spec_point_over_the_bound_is_refused_before_any_run(tmp_path):
    """Item 8: the same bound for every point of a cachesim sweep spec, naming the point."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"kind": "cachesim", "grid": {"on_mean": [1.0, 1e-300]}}))
    with pytest.raises(ConfigError, match="invalid 'on_mean'.*the point on_mean=1e-300"):
        load_spec(path)
