"""Per-component statistics (sim.detail): the link, switch and card tables beside the result.

Each table is checked against what the run counts elsewhere: the cluster-wide
statistics of the same run, the per-packet log (sim.event_log), the topology's
route lengths and the input buffers' capacity; and against each other (a
switch's outputs are links; a card's sends are its link's packets).
"""

import csv
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, run_engine, run_ibsec

PAPER16 = str(REPO / "configs" / "paper-16.json")
# A 4-ary 2-tree (16 nodes, 8 switches on two levels), two virtual lanes, cards that miss.
FAT_TREE = ["network.topology=fat-tree", "network.nodes=0", "network.fat_tree.k=4", "network.fat_tree.n=2",
            "network.virtual_lanes=2", "nic.security=SKC-4", "traffic.processes_per_node=2",
            "traffic.messages=4000", "traffic.warmup_messages=400"]
TINY = ["traffic.messages=300", "traffic.warmup_messages=30"]
CREDIT_BYTES = 64  # one InfiniBand flow-control credit (network/credit_link.h)


def engine_run(engine: str, out: Path, *overrides: str, config: str = PAPER16) -> dict:
    arguments = ["run", config, "--quiet", "--out", str(out)]
    for item in overrides:
        arguments += ["--set", item]
    completed = run_engine(engine, *arguments)
    assert completed.returncode == 0, completed.stderr
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def fat_tree_run(engine, tmp_path_factory):
    """One fat-tree run with every table and the packet log."""
    folder = tmp_path_factory.mktemp("detail")
    log = folder / "packets.csv"
    result = engine_run(engine, folder / "run.json", *FAT_TREE, "sim.detail=all", f"sim.event_log={log}")
    tables = {name: pd.read_csv(folder / f"run.{name}.csv") for name in ("links", "switches", "cards")}
    return result, tables, pd.read_csv(log)


@pytest.mark.model
def test_every_packet_crosses_one_link_more_than_it_crosses_switches(fat_tree_run):
    result, tables, _ = fat_tree_run
    stats = result["statistics"]
    assert stats["drained"] and stats["packets_delivered"] > 0
    # A route of h switches uses h + 1 cables, and every hop is one packet on one link.
    assert tables["links"]["link_packets"].sum() == stats["packets_delivered"] + stats["switch_hops_total"]


@pytest.mark.model
def test_node_links_carry_exactly_the_logged_packets_and_bytes(fat_tree_run):
    _, tables, packets = fat_tree_run
    links = tables["links"]
    for side, end in (("from", "source_node"), ("to", "destination_node")):
        node_links = links[links[f"{side}_kind"] == "node"].set_index(f"{side}_id").sort_index()
        logged = packets.groupby(end)["wire_bytes"].agg(["count", "sum"])
        assert list(node_links.index) == list(range(16))
        assert (node_links["link_packets"] == logged["count"].reindex(node_links.index, fill_value=0)).all()
        assert (node_links["link_bytes"] == logged["sum"].reindex(node_links.index, fill_value=0)).all()


@pytest.mark.model
def test_link_bytes_sum_to_every_packets_bytes_times_its_route_length(fat_tree_run):
    result, tables, packets = fat_tree_run
    k = 4
    # 4-ary 2-tree: nodes on one leaf (same p // k) cross 1 switch, others 3 (docs/topology.md, 2L + 1).
    switches = (packets["source_node"] // k != packets["destination_node"] // k) * 2 + 1
    assert tables["links"]["link_bytes"].sum() == ((switches + 1) * packets["wire_bytes"]).sum()
    assert switches.sum() == result["statistics"]["switch_hops_total"]


@pytest.mark.model
def test_link_utilizations_give_the_cluster_mean_and_the_named_maximum(fat_tree_run):
    result, tables, _ = fat_tree_run
    stats, links = result["statistics"], tables["links"]
    elapsed_ps = stats["simulated_time_us"] * 1e6
    assert len(links) == result["topology"]["links"]
    assert links["link_busy"].sum() / (len(links) * elapsed_ps) == pytest.approx(stats["link_utilization_mean"])
    assert links["utilization"].max() == pytest.approx(stats["link_utilization_max"])
    busiest = links.loc[links["link_busy"].idxmax()]
    assert busiest["name"] == stats["link_utilization_max_link"]
    assert busiest["name"] == (f"{busiest['from_kind']} {busiest['from_id']}"
                               + (f" port {busiest['from_port']}" if busiest["from_kind"] == "switch" else "")
                               + f" -> {busiest['to_kind']} {busiest['to_id']}"
                               + (f" port {busiest['to_port']}" if busiest["to_kind"] == "switch" else ""))


@pytest.mark.model
def test_switch_rows_are_their_output_links_and_sum_to_the_cluster_hops(fat_tree_run):
    result, tables, _ = fat_tree_run
    switches, links = tables["switches"], tables["links"]
    assert switches["switch_hops_total"].sum() == result["statistics"]["switch_hops_total"]
    assert sorted(switches["level"]) == [0] * 4 + [1] * 4
    outputs = links[links["from_kind"] == "switch"].groupby("from_id")
    for _, row in switches.iterrows():
        mine = outputs.get_group(row["switch"])
        # Every packet a switch forwards leaves it on one of its output links.
        assert row["output_link_packets"] == mine["link_packets"].sum() == row["switch_hops_total"]
        assert row["output_link_bytes"] == mine["link_bytes"].sum()
        assert row["ports_connected"] == len(mine) == (4 if row["level"] == 1 else 8)  # top up ports are free
        assert row["link_utilization_max"] == pytest.approx(mine["utilization"].max())
        assert row["link_utilization_mean"] == pytest.approx(mine["utilization"].mean())
        into = links[(links["to_kind"] == "switch") & (links["to_id"] == row["switch"])]
        assert row["input_queue_high_water"] == into["receiver_queue_high_water"].max()


@pytest.mark.model
def test_input_buffer_high_water_marks_stay_within_the_buffer(fat_tree_run):
    result, tables, packets = fat_tree_run
    links = tables["links"]
    credits_per_lane = result["config"]["network"]["vl_buffer_bytes"] // CREDIT_BYTES
    smallest_packet = math.ceil(packets["wire_bytes"].min() / CREDIT_BYTES)
    into_switch = links[links["to_kind"] == "switch"]
    into_card = links[links["to_kind"] == "node"]
    assert into_card["receiver_queue_high_water"].isna().all()  # a card keeps no such buffer
    high = into_switch["receiver_queue_high_water"]
    assert (high * smallest_packet <= credits_per_lane).all()
    # A link that carried a packet filled its receiver's buffer with at least that one.
    assert ((high >= 1) == (into_switch["link_packets"] > 0)).all()


@pytest.mark.model
def test_card_rows_sum_to_the_cluster_key_statistics(fat_tree_run):
    result, tables, _ = fat_tree_run
    stats, cards, links = result["statistics"], tables["cards"], tables["links"]
    assert list(cards["node"]) == list(range(16))
    for counter in ("key_lookups", "key_misses", "key_misses_merged", "key_memory_accesses", "prefetch_triggers"):
        assert cards[counter].sum() == stats[counter], counter
    assert stats["key_misses"] > 0 and cards["skc_hits"].sum() > 0
    hits = cards["skc_hits"].sum() + cards["buffer_hits"].sum()
    assert hits / cards["key_lookups"].sum() == pytest.approx(stats["skc_hit_rate"])
    # Every look-up is a hit or a miss, card by card.
    assert (cards["skc_hits"] + cards["buffer_hits"] + cards["key_misses"] == cards["key_lookups"]).all()
    assert cards["max_send_backlog"].max() == stats["max_send_backlog"]
    assert cards["key_memory_utilization"].mean() == pytest.approx(stats["key_memory_utilization"])
    assert cards["gcm_busy_fraction"].mean() == pytest.approx(stats["gcm_busy_fraction"])
    waits = cards["key_memory_total_wait"].sum() / cards["key_memory_accesses"].sum() / 1000
    assert waits == pytest.approx(stats["key_memory_wait_mean_ns"])
    # A card's sends are its link's packets; what it receives came over the link into it.
    out_links = links[links["from_kind"] == "node"].set_index("from_id").sort_index()
    in_links = links[links["to_kind"] == "node"].set_index("to_id").sort_index()
    assert (cards["packets_sent"].to_numpy() == out_links["link_packets"].to_numpy()).all()
    assert (cards["packets_received"].to_numpy() == in_links["link_packets"].to_numpy()).all()


@pytest.mark.model
def test_credit_stall_time_is_counted_only_where_senders_stalled(engine, tmp_path):
    # Everyone sends to node 0 at full load: its card frees buffer space more slowly than its link could fill
    # it, so the switch's link into node 0 waits for credits, and the links into the switch wait behind it.
    result = engine_run(engine, tmp_path / "run.json", "traffic.pattern=hotspot", "traffic.hotspot.fraction=1",
                        "traffic.load=0.9", "network.vl_buffer_bytes=2304", "traffic.messages=3000",
                        "traffic.warmup_messages=0", "sim.detail=links")
    links = pd.read_csv(tmp_path / "run.links.csv")
    elapsed_ps = result["statistics"]["simulated_time_us"] * 1e6
    assert links["credit_stall_time"].sum() > 0
    assert ((links["credit_stalls"] > 0) | (links["credit_stall_time"] == 0)).all()
    assert (links["credit_stall_time"] <= elapsed_ps).all()
    assert links["credit_stall_fraction"].to_numpy() == pytest.approx(links["credit_stall_time"] / elapsed_ps)
    # The saturated link always has a packet to send: it is either sending or waiting for credits.
    hot = links.set_index("name").loc["switch 0 port 0 -> node 0"]
    assert hot["credit_stall_fraction"] > 0.5
    assert hot["utilization"] + hot["credit_stall_fraction"] == pytest.approx(1.0, abs=0.02)
    others = links[(links["to_kind"] == "node") & (links["to_id"] != 0)]
    assert (others["credit_stall_time"] == 0).all()


@pytest.mark.unit
@pytest.mark.parametrize("level, tables", [("none", []), ("links", ["links"]), ("switches", ["switches"]),
                                           ("cards", ["cards"]), ("all", ["links", "switches", "cards"])])
def test_tables_are_written_only_when_asked(engine, tmp_path, level, tables):
    result = engine_run(engine, tmp_path / "run.json", *TINY, f"sim.detail={level}")
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(["run.json", *(f"run.{name}.csv" for name in tables)])
    assert list(result.get("detail", {})) == tables
    for name in tables:
        about = result["detail"][name]
        with open(tmp_path / about["file"]) as table:
            rows = list(csv.reader(table))
        assert rows[0] == list(about["columns"]) and len(rows) - 1 == about["rows"]
        assert all(column["unit"] is not None and column["description"] for column in about["columns"].values())


@pytest.mark.unit
def test_asking_for_tables_changes_no_statistic(engine, tmp_path):
    plain = engine_run(engine, tmp_path / "plain.json", *TINY)
    detailed = engine_run(engine, tmp_path / "detailed.json", *TINY, "sim.detail=all")
    assert plain["statistics"] == detailed["statistics"]
    assert "detail" not in plain and plain["config"]["sim"]["detail"] == "none"


@pytest.mark.unit
def test_tables_are_byte_identical_for_the_same_config_and_seed(engine, tmp_path):
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        engine_run(engine, tmp_path / run / "run.json", *TINY, "sim.detail=all")
    for name in ("links", "switches", "cards"):
        assert (tmp_path / "a" / f"run.{name}.csv").read_bytes() == (tmp_path / "b" / f"run.{name}.csv").read_bytes()


@pytest.mark.unit
@pytest.mark.parametrize("arguments, message", [
    (["--set", "sim.detail=link", "--out", "{tmp}/r.json"],
     "invalid 'sim.detail': expected none, links, switches, cards or all, got 'link'"),
    (["--set", "sim.detail=links"], "invalid 'sim.detail': the tables are written beside the result file"),
    # A folder where the cards table would go.
    (["--set", "sim.detail=all", "--out", "{tmp}/r.json"], "invalid 'sim.detail (cards table)': '"),
])
def test_bad_detail_requests_fail_before_the_run_naming_the_key(engine, tmp_path, arguments, message):
    (tmp_path / "r.cards.csv").mkdir()
    completed = run_engine(engine, "run", *[a.replace("{tmp}", str(tmp_path)) for a in arguments])
    assert completed.returncode == 2
    assert message in completed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.cards.csv"]  # nothing written


@pytest.mark.unit
def test_ibsec_run_writes_each_table_as_parquet_with_units(engine, tmp_path):
    out = tmp_path / "run.json"
    completed = run_ibsec("run", PAPER16, "--quiet", "--out", str(out), "--set", "sim.detail=all",
                          *[f"--set={item}" for item in TINY])
    assert completed.returncode == 0, completed.stderr
    result = json.loads(out.read_text())
    import pyarrow.parquet as pq

    for name, about in result["detail"].items():
        table = pq.read_table(tmp_path / f"run.{name}.parquet")
        frame = table.to_pandas()
        pd.testing.assert_frame_equal(frame, pd.read_csv(tmp_path / about["file"]), check_dtype=False)
        for column, meta in about["columns"].items():
            field_meta = table.schema.field(column).metadata
            assert field_meta[b"unit"].decode() == meta["unit"]
            assert field_meta[b"description"].decode() == meta["description"]


def vcd_final_values(path: Path) -> dict[str, int]:
    """The last value of every signal of a VCD file, by its full name (scope.signal)."""
    codes, scopes, last = {}, [], {}
    for line in path.read_text().splitlines():
        words = line.split()
        if words[:1] == ["$scope"]:
            scopes.append(words[2])
        elif words[:1] == ["$upscope"]:
            scopes.pop()
        elif words[:1] == ["$var"]:
            codes[words[3]] = ".".join([*scopes[1:], words[4]])
        elif re.fullmatch(r"b[01]+", words[0] if words else "") and len(words) == 2:
            last[words[1]] = int(words[0][1:], 2)
    return {name: last.get(code, 0) for code, name in codes.items()}


@pytest.mark.model
def test_the_vcd_traces_every_links_packets_and_bytes(engine, tmp_path):
    engine_run(engine, tmp_path / "run.json", *TINY, "sim.detail=links", f"sim.vcd={tmp_path / 'trace.vcd'}")
    values = vcd_final_values(tmp_path / "trace.vcd")
    links = pd.read_csv(tmp_path / "run.links.csv")
    assert len(links) == 32
    for _, link in links.iterrows():
        ends = [f"node{link['from_id']}" if link["from_kind"] == "node"
                else f"switch{link['from_id']}_port{link['from_port']}",
                f"node{link['to_id']}" if link["to_kind"] == "node"
                else f"switch{link['to_id']}_port{link['to_port']}"]
        signal = f"{ends[0]}_to_{ends[1]}"
        assert values[f"{signal}.link_packets"] == link["link_packets"]
        assert values[f"{signal}.link_bytes"] == link["link_bytes"]
