"""`ibsec-engine registries --json`: every name a configuration can choose, from the engine's own tables."""

import json
import subprocess

import pytest

pytestmark = pytest.mark.unit


def registries(engine):
    return json.loads(subprocess.run([engine, "registries", "--json"], capture_output=True, text=True,
                                     check=True).stdout)


def test_lists_every_registry_with_descriptions(engine):
    r = registries(engine)
    assert set(r) == {"replacement_policies", "schedulers", "topologies", "routings", "security_modes", "link_rates",
                      "link_widths", "trace_ops", "collective_algorithms", "collective_ops", "import_formats"}
    assert {t["name"] for t in r["routings"]} == {"minhop", "updn", "ftree", "lft"}
    assert {(f["name"], f["suffix"]) for f in r["import_formats"]} == {("OTF2", ".otf2"), ("DUMPI", ".meta")}
    assert all(isinstance(f["built"], bool) for f in r["import_formats"])
    assert {p["name"] for p in r["replacement_policies"]} >= {"lru", "fifo", "random", "lfu", "opt"}
    assert [p["cycle_model"] for p in r["replacement_policies"] if p["name"] == "opt"] == [False]
    assert {s["name"] for s in r["schedulers"]} == {"batch", "local", "sb", "dcs-sb", "pb", "gang"}
    assert all(entry["description"]
               for key in ("replacement_policies", "schedulers", "topologies", "routings", "security_modes")
               for entry in r[key])
    # The generations the engine lists are the ones it runs: slowest first, the default among them.
    rates = r["link_rates"]
    assert "SDR" in [rate["name"] for rate in rates]
    assert [rate["lane_data_gbps"] for rate in rates] == sorted(rate["lane_data_gbps"] for rate in rates)
    assert all(rate["lane_data_gbps"] < rate["lane_signal_gbps"] for rate in rates)  # every encoding costs something
    assert [w["lanes"] for w in r["link_widths"]] == sorted(w["lanes"] for w in r["link_widths"])


def test_every_listed_generation_and_width_is_accepted_and_others_are_not(engine, tmp_path):
    r = registries(engine)

    def check(*settings):
        out = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
        command = [engine, "run", "--quiet", "--out", str(out), "--set", "traffic.messages=20",
                   "--set", "traffic.warmup_messages=0"] + [a for s in settings for a in ("--set", s)]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    for rate in r["link_rates"]:
        assert check(f"network.link_rate={rate['name']}").returncode == 0, rate
    for width in r["link_widths"]:
        assert check(f"network.link_width={width['name']}").returncode == 0, width
    refused = check("network.link_rate=GDR")
    assert refused.returncode != 0 and "network.link_rate" in refused.stderr
    refused = check("network.link_width=3x")
    assert refused.returncode != 0 and "network.link_width" in refused.stderr


def test_collective_algorithms_name_their_op_and_can_be_forced(engine):
    algorithms = registries(engine)["collective_algorithms"]
    ring = next(a for a in algorithms if a["name"] == "allreduce.ring")
    assert ring["op"] == "allreduce" and ring["algorithm"] == "ring" and not ring["simple"]
    assert {a["op"] for a in algorithms} == {"barrier", "bcast", "reduce", "gather", "scatter", "allreduce",
                                             "allgather", "alltoall", "scan", "exscan"}
    assert sum(a["simple"] for a in algorithms) == 10  # one per op
    params = {p["key"]: p for p in json.loads(subprocess.run([engine, "params", "--json"], capture_output=True,
                                                             text=True, check=True).stdout)}
    for op in {a["op"] for a in algorithms}:
        assert params[f"replay.collective.{op}"]["default"] == "auto"
    # Each op's tuned table: rows by communicator size, the last for any size, each naming registered algorithms.
    names = {a["name"] for a in algorithms}
    for op in registries(engine)["collective_ops"]:
        assert op["tuned"][-1]["below_size"] is None
        for row in op["tuned"]:
            assert row["rules"][-1]["below_bytes"] is None
            assert all(f"{op['name']}.{rule['algorithm']}" in names for rule in row["rules"])


def test_topology_parameters_are_run_parameters(engine):
    r = registries(engine)
    params = {p["key"]: p for p in json.loads(subprocess.run([engine, "params", "--json"], capture_output=True,
                                                             text=True, check=True).stdout)}
    fat_tree = next(t for t in r["topologies"] if t["name"] == "fat-tree")
    assert [p["key"] for p in fat_tree["parameters"]] == ["network.fat_tree.k", "network.fat_tree.n"]
    for p in fat_tree["parameters"]:
        assert params[p["key"]]["default"] == p["default"]


def test_trace_ops_are_the_binary_op_bytes_in_order(engine):
    ops = registries(engine)["trace_ops"]
    assert [op["code"] for op in ops] == list(range(len(ops)))
    send = next(op for op in ops if op["name"] == "send")
    assert send == {"name": "send", "code": 1, "arguments": ["peer", "bytes", "tag", "comm"],
                    "argument_since_version": [1, 1, 1, 2], "role": "send", "collective": False,
                    "blocking_form": "send", "since_version": 1}
    compute = next(op for op in ops if op["name"] == "compute")
    assert (compute["arguments"], compute["argument_since_version"]) == (["cpu"], [3])
    assert all(op["collective"] == (op["arguments"][:1] == ["comm"]) for op in ops)
    assert all(op["collective"] == (op["role"] == "collective") for op in ops)
    roles = {op["name"]: op["role"] for op in ops if op["role"] != "collective"}
    assert roles == {"compute": "compute", "send": "send", "isend": "send", "recv": "receive", "irecv": "receive",
                     "wait": "wait"}


def test_file_parameters_say_whether_the_run_reads_or_writes_them(engine):
    params = json.loads(subprocess.run([engine, "params", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    roles = {p["key"]: p["file"] for p in params if "file" in p}
    assert roles == {"trace.file": "input", "trace.jobs": "input", "trace.placement": "input",
                     "nic.cacti_table": "input", "sim.event_log": "output", "sim.vcd": "output",
                     "attack.capture_file": "output", "network.ibnetdiscover.file": "input",
                     "network.lft.file": "input"}
