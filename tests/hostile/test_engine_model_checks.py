"""Items 15, 19, 20: configurations the model cannot run are refused; figures without data are null."""

import json

import pytest

from .engine import PAPER16, refused, run

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("size", [306, 310, 319])
def test_item15_a_buffer_that_holds_no_whole_packet_in_credits_is_refused(size):
    # 256 B payload + 26 B headers + 24 B security = 306 B = 5 credits of 64 B = 320 B of buffer.
    assert refused(run("run", PAPER16, "--set", f"network.vl_buffer_bytes={size}"), "network.vl_buffer_bytes",
                   "at least 320 bytes")


def test_item15_a_buffer_of_exactly_five_credits_runs():
    result = run("run", PAPER16, "--set", "network.vl_buffer_bytes=320", "--set", "traffic.messages=500", "-q")
    assert result.returncode == 0 and json.loads(result.stdout)["statistics"]["drained"]


@pytest.mark.parametrize("shift", [16, 32, 0])
def test_item19_a_shift_that_sends_every_node_to_itself_is_refused(shift):
    assert refused(run("run", PAPER16, "--set", "traffic.pattern=shift", "--set", f"traffic.shift={shift}"),
                   "traffic.shift")


def test_item19_a_bad_subcommand_is_a_usage_error():
    assert run("bogus").returncode == 2
    assert run("run", "--no-such-option").returncode == 2
    assert run("--help").returncode == 0


def test_item20_hit_rates_without_lookups_are_null_not_zero():
    result = run("run", PAPER16, "--set", "nic.security=NoSecurity", "--set", "traffic.messages=500", "-q")
    stats = json.loads(result.stdout)["statistics"]
    assert stats["key_lookups"] == 0
    assert stats["skc_hit_rate"] is None and stats["skc_only_hit_rate"] is None
    assert stats["prefetch_buffer_hit_rate"] is None
