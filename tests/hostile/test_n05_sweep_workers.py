"""Issue 27, item 5: `ibsec.sweep(..., workers=-2)` never returned (a Dask cluster of -2 workers) and `workers=0`
was taken for "the CPUs", where the command refuses `--jobs 0`. The counts of where points run are checked where
the command's options and the API's argument both arrive (runs/cluster.py ClusterOptions), before anything runs:
a ConfigError naming `workers`."""

import json
import subprocess
import sys
import textwrap

import pytest

from ibsec.errors import ConfigError
from ibsec.runs.cluster import ClusterOptions

from .helpers import ibsec, no_traceback

pytestmark = pytest.mark.unit

SPEC = {"kind": "analytic", "grid": {"processes": [4, 8]}, "set": {"model": "hitrate", "entries": 64,
                                                                    "preset": "BT"}}


@pytest.mark.parametrize("workers", [-2, 0, 1.5, True, "many"])
def test_n05_a_sweep_with_a_bad_worker_count_is_refused_at_once(tmp_path, workers):
    """In a fresh interpreter with a timeout: the old code waited forever for -2 workers."""
    script = textwrap.dedent(f"""
        import ibsec
        from ibsec.errors import ConfigError
        try:
            ibsec.sweep({SPEC!r}, out={str(tmp_path / 'sweep')!r}, workers={workers!r})
        except ConfigError as error:
            print(error.field)
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "workers", done.stderr
    assert not (tmp_path / "sweep").exists()  # refused before the sweep's folder was made


def test_n05_the_command_and_the_api_refuse_the_same_counts(tmp_path):
    for name in ("workers", "cores", "batch_jobs"):
        with pytest.raises(ConfigError, match=f"'{name}'"):
            ClusterOptions(cluster="slurm", **{name: 0})
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    done = ibsec("sweep", str(spec), "--out", str(tmp_path / "sweep"), "--jobs", "0")
    assert done.returncode == 2 and no_traceback(done) and "--jobs" in done.stderr
