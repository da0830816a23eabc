"""Item 16: a run the machine's memory cannot hold is refused before it starts, naming the parameter."""

import pytest

from .engine import PAPER16, refused, run


@pytest.mark.unit
@pytest.mark.parametrize("setting, key", [
    ("nic.security=SKC-1000000000", "nic.security"),             # 16 caches of 10^9 entries: ~700 GiB
    ("traffic.sessions_per_node=1000000000", "traffic.sessions_per_node"),  # ~180 GiB of sessions
])
def test_item16_a_run_beyond_memory_is_refused_naming_its_parameter(setting, key):
    assert refused(run("run", PAPER16, "--set", setting, timeout=30), key, "would need about", "--force")


@pytest.mark.unit
def test_item16_four_gigabyte_messages_on_many_nodes_are_refused():
    result = run("run", PAPER16, "--set", "network.nodes=128", "--set", "traffic.sizes_bytes=[4294967295]",
                 timeout=30)
    assert refused(result, "traffic.sizes_bytes", "largest message")


@pytest.mark.model
def test_item16_traces_declaring_millions_of_ranks_are_refused(tmp_path):
    trace = tmp_path / "idle.trace"
    trace.write_text("ibsec-trace 1\nprocesses 1048576\ntime_unit ns\n"
                     "origin synthetic hostile test: a million ranks that do nothing\nevents\nend 0\n")
    jobs = "[" + ",".join([f'"{trace}"'] * 64) + "]"
    assert refused(run("run", PAPER16, "--set", f"trace.jobs={jobs}", timeout=60), "trace.jobs",
                   "67108864 processes")


@pytest.mark.unit
def test_a_fabric_beyond_memory_is_refused_before_its_switches_are_built():
    # 10 240 switch ports of a 4-ary 5-tree with 64 MiB lanes: 16 MiB of buffer slots a port, ~160 GiB.
    result = run("run", "--set", "network.topology=fat-tree", "--set", "network.fat_tree.k=4", "--set",
                 "network.fat_tree.n=5", "--set", "network.vl_buffer_bytes=67108864", timeout=30)
    assert refused(result, "network.topology", "10240 switch ports", "would need about", "--force")


@pytest.mark.unit
def test_a_fabric_of_millions_of_ports_is_refused_before_it_is_laid_out():
    result = run("run", "--set", "network.topology=fat-tree", "--set", "network.fat_tree.k=2", "--set",
                 "network.fat_tree.n=20", timeout=30)
    assert refused(result, "network.fat_tree.n", "41943040 switch ports in all")
