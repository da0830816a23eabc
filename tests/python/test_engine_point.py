"""EnginePoint: what identifies a run (its store key and result file name), and the row of its result."""

import json
import stat
from pathlib import Path

import pytest

from ibsec.engine.point import EnginePoint, EngineRun

pytestmark = pytest.mark.unit


# What a fake engine answers to `params --json`: the parameters that name input files.
PARAMS = ('[{"key": "trace.file", "file": "input"}, {"key": "trace.jobs", "file": "input"},'
          ' {"key": "nic.cacti_table", "file": "input"}, {"key": "sim.vcd", "file": "output"}]')


# And to `registries --json`: the formats of other tools' traces it imports, whose sources an identity counts by
# their import.
REGISTRIES = '{"import_formats": [{"name": "OTF2", "suffix": ".otf2"}, {"name": "DUMPI", "suffix": ".meta"}]}'


def engine_script(build: int) -> str:
    return (f"#!/bin/sh\n# build {build}\n[ \"$1\" = params ] && echo '{PARAMS}' && exit 0\n"
            f"[ \"$1\" = registries ] && echo '{REGISTRIES}' && exit 0\nexit 1\n")


@pytest.fixture
def fake_engine(tmp_path, monkeypatch) -> Path:
    """An engine binary that runs nothing: it only lists its parameters; its contents are its digest."""
    path = tmp_path / "bin" / "ibsec-engine"
    path.parent.mkdir()
    path.write_text(engine_script(1))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("IBSEC_ENGINE", str(path))
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_identity_holds_the_engine_and_the_contents_of_what_the_run_reads(tmp_path, fake_engine):
    config = write(tmp_path / "a" / "config.json", '{"nic": {"security": "SKC-6"}}')
    trace = write(tmp_path / "a" / "cg.trace", "trace 1")
    point = EnginePoint(str(config), (f"trace.file={json.dumps(str(trace))}", "seed=2"), label="cg")
    identity = point.identity
    assert set(identity) == {"engine", "config", "overrides"}
    assert identity["overrides"][1] == "seed=2"
    assert str(trace) not in json.dumps(identity)  # the trace by its contents, not its path
    assert point.result_name == f"cg_{point.key}.json" and len(point.key) == 16

    # The same files elsewhere, and another label: the same point.
    moved_config = write(tmp_path / "b" / "other.json", config.read_text())
    moved_trace = write(tmp_path / "b" / "renamed.trace", trace.read_text())
    moved = EnginePoint(str(moved_config), (f"trace.file={json.dumps(str(moved_trace))}", "seed=2"), label="x")
    assert moved.identity == identity

    # An edited trace, an edited config, another override or another engine: another point.
    def key_after(change) -> str:
        change()
        return EnginePoint(str(config), (f"trace.file={json.dumps(str(trace))}", "seed=2")).key

    keys = {point.key,
            key_after(lambda: trace.write_text("trace 2")),
            key_after(lambda: config.write_text('{"nic": {"security": "SKC-2"}}')),
            EnginePoint(str(config), (f"trace.file={json.dumps(str(trace))}", "seed=3")).key,
            key_after(lambda: fake_engine.write_text(engine_script(2)))}
    assert len(keys) == 5


def test_input_files_named_in_the_config_or_attack_file_are_part_of_the_identity(tmp_path, fake_engine):
    jobs = [write(tmp_path / f"job{i}.trace", f"job {i}") for i in range(2)]
    config = write(tmp_path / "mix.json", json.dumps({"trace": {"jobs": [str(j) for j in jobs]}}))
    attack = write(tmp_path / "attack.json", json.dumps({"attack.link": "node 0 out"}))
    point = EnginePoint(str(config), ("scheduler.policy=gang",), str(attack))
    first = point.identity
    assert len(first["inputs"]["trace.jobs"]) == 2 and first["attack"]
    jobs[1].write_text("job 1, regenerated")
    assert EnginePoint(str(config), ("scheduler.policy=gang",), str(attack)).identity != first
    # An override of the same key replaces what the file names.
    overridden = EnginePoint(str(config), (f"trace.jobs={json.dumps([str(jobs[0])])}",), str(attack)).identity
    assert "inputs" not in overridden


def test_a_missing_input_file_leaves_the_error_to_the_engine(tmp_path, fake_engine):
    point = EnginePoint(None, ('trace.file="no-such.trace"',))
    assert point.identity["overrides"] == ["trace.file=null"]


def test_arguments_are_those_of_ibsec_engine_run(tmp_path, fake_engine):
    config = tmp_path / "c.json"  # read (bounded, checked) before the engine is given it
    config.write_text("{}")
    point = EnginePoint(str(config), ("a=1", "b=2"), "atk.json")
    assert point.arguments(tmp_path / "r.json") == ["run", str(config), "--attack", "atk.json", "--set", "a=1",
                                                    "--set", "b=2", "--out", str(tmp_path / "r.json"), "--quiet"]


def result(**statistics) -> dict:
    return {"statistics": {"statistics_meta": {}, "packets_measured": 10, "latency_mean_ns": 5.0, **statistics},
            "topology": {"nodes": 16, "links": [1, 2]}, "replay": {"completed": True, "jobs": []},
            "attack": {"link": "node 0 out", "detected": 3, "kinds": {"tamper": {"attacked": 2}}},
            "warnings": [{"kind": "saturated", "message": "..."}, {"kind": "few_packets", "message": "..."}],
            "ibsec_version": "0.1.0", "systemc_version": "2.3.4"}


def test_the_row_of_a_result_has_every_flat_number():
    row = EngineRun(Path("r.json"), 0, result()).row()
    assert row == {"packets_measured": 10, "latency_mean_ns": 5.0, "topology_nodes": 16, "replay_completed": True,
                   "attack_link": "node 0 out", "attack_detected": 3, "attack_tamper_attacked": 2,
                   "warnings": "saturated;few_packets", "exit_code": 0,
                   "result_file": "r.json", "ibsec_version": "0.1.0", "systemc_version": "2.3.4"}
    assert EngineRun(Path("r.json"), 3, result(packets_measured=0)).row()["latency_mean_ns"] is None


def test_a_missing_value_names_the_key_and_the_file():
    run = EngineRun(Path("runs/r.json"), 0, result())
    assert run.value("replay", "completed") is True
    with pytest.raises(Exception, match=r"runs/r.json: the result has no 'replay.mean_job_completion_time_ns'"):
        run.value("replay", "mean_job_completion_time_ns")
