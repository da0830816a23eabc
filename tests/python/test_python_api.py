"""The Python API (docs/python-api.md): the document's example runs as written, `import ibsec` stays cheap, and
the API gives what the command gives."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python-api.md"


@pytest.fixture
def ibsec_cli(engine):
    """The ibsec command in a fresh interpreter; a non-zero exit fails the test unless check=False."""
    from conftest import run_ibsec

    def call(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = run_ibsec(*args)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    return call

pytestmark = pytest.mark.model


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_documented_example_runs(engine, tmp_path, monkeypatch):
    """The ```python block of docs/python-api.md, run as it stands: its asserts are the test."""
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) == 1, "the document has one example"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], str(DOC), "exec"), {"__name__": "python_api_example"})  # noqa: S102


def test_the_block_finder_finds_blocks():
    assert python_blocks("x\n```python\na = 1\n```\n```sh\nls\n```\n") == ["a = 1\n"]


def test_import_ibsec_imports_neither_pandas_nor_matplotlib():
    code = ("import sys, ibsec; ibsec.__version__; "
            "print(sorted(m for m in ('pandas', 'matplotlib', 'ibsec.api.simulate') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error():
    import ibsec

    with pytest.raises(AttributeError, match="no attribute 'runn'"):
        ibsec.runn  # noqa: B018


def test_the_capacity_is_the_commands(ibsec_cli):
    import ibsec

    given = ibsec.analytic.capacity(size="2KB", preset="FT", machine="sp2", target=0.95)
    printed = json.loads(ibsec_cli("analytic", "capacity", "--size", "2KB", "--preset", "FT", "--machine", "sp2",
                                   "--target", "0.95", "--json").stdout)
    assert given == {key: value for key, value in printed.items() if key != "source"}


def test_a_run_is_the_commands_run(tmp_path, ibsec_cli):
    """Same config and overrides: the API's statistics equal those of `ibsec run --out`."""
    import ibsec

    result = ibsec.run("nosecurity-16", set={"traffic.messages": 500}, folder=tmp_path / "api")
    ibsec_cli("run", str(ROOT / "configs" / "nosecurity-16.json"), "--set", "traffic.messages=500",
              "--out", str(tmp_path / "cli.json"), "-q")
    cli = json.loads((tmp_path / "cli.json").read_text())
    assert result.statistics.to_dict() == {k: v for k, v in cli["statistics"].items() if k != "statistics_meta"}
    assert result.config == cli["config"]


def test_bad_input_names_the_field(engine, tmp_path):
    import ibsec
    from ibsec.errors import IbsecError

    with pytest.raises(IbsecError, match="no-such-config"):
        ibsec.run("no-such-config", folder=tmp_path)
    with pytest.raises(IbsecError, match="invalid 'set'"):
        ibsec.run(set=[("nic.security", "SKC-2")], folder=tmp_path)
    with pytest.raises(IbsecError, match="nic.secruity"):
        ibsec.run(set={"nic.secruity": "SKC-2"}, folder=tmp_path)
    with pytest.raises(IbsecError, match="invalid 'trace'"):
        ibsec.trace.info(tmp_path / "missing.trace")


def test_collect_writes_parquet_and_csv_with_units(tmp_path, ibsec_cli):
    import pandas as pd

    import ibsec

    runs = tmp_path / "runs"
    for load in (0.02, 0.04):
        ibsec.run(set={"traffic.load": load, "traffic.messages": 300}, folder=runs, label=f"load-{load}")
    for name in ("t.parquet", "t.csv"):
        ibsec_cli("collect", str(runs), "--out", str(tmp_path / name))
    parquet, csv = pd.read_parquet(tmp_path / "t.parquet"), pd.read_csv(tmp_path / "t.csv")
    assert len(parquet) == len(csv) == 2
    assert sorted(parquet["config.traffic.load"]) == [0.02, 0.04]
    assert list(parquet.columns) == list(csv.columns)
    meta = json.loads((tmp_path / "t.meta.json").read_text())
    assert meta["columns"]["latency_mean_ns"]["unit"] == "ns"
    assert meta["columns"]["config.traffic.load"]["unit"] != "" or "load" in meta["columns"]["config.traffic.load"][
        "description"]
    refused = ibsec_cli("collect", str(tmp_path / "t.meta.json"), "--out", str(tmp_path / "x.csv"), check=False)
    assert refused.returncode == 2 and "not an ibsec-engine result" in refused.stderr
    refused = ibsec_cli("collect", str(runs), "--out", str(tmp_path / "x.txt"), check=False)
    assert refused.returncode == 2 and ".csv or .parquet" in refused.stderr


def test_the_sizing_is_the_commands(ibsec_cli):
    import ibsec

    given = ibsec.analytic.size(256, preset="CG", target=0.9, policy="fifo", ways=1)
    printed = json.loads(ibsec_cli("analytic", "size", "--nodes", "256", "--preset", "CG", "--policy", "fifo",
                                   "--ways", "1", "--json").stdout)
    assert given == printed
    prediction = ibsec.analytic.predict(given["sessions_per_card_max"], entries=given["predictor"]["entries"],
                                        preset="CG", policy="fifo", ways=1)
    assert prediction["hit_rate"] == given["predictor"]["predicted_hit_rate_at_entries"]
