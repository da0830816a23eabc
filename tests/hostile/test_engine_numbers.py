"""Items 2, 9, 10: clocks, times and counts out of range are refused naming their key, never wrapped."""

import pytest

from .engine import PAPER16, refused, run

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("value", ["1e7", "1e-300", "0", "-270"])
def test_item02_a_clock_whose_period_is_not_a_whole_tick_is_refused(value):
    assert refused(run("run", PAPER16, "--set", f"nic.clock_mhz={value}"), "nic.clock_mhz")


@pytest.mark.parametrize("setting", ["nic.key_memory_ns=1e300", "network.link_delay_ns=1e20",
                                     "network.switch_latency_ns=1e20", "network.fec_latency_ns=1e300",
                                     "scheduler.context_switch_us=1e300", "attack.replay_delay_us=1e15",
                                     "nic.skc.access_ns=1e300", "sim.drain_timeout_us=1e300"])
def test_item09_a_time_beyond_the_models_clock_is_refused(setting):
    key = setting.split("=")[0]
    assert refused(run("run", PAPER16, "--set", setting), key, "too long")


def test_item09_a_positive_time_that_rounds_to_nothing_is_refused():
    assert refused(run("run", PAPER16, "--set", "scheduler.gang_slot_ms=1e-308"), "scheduler.gang_slot_ms",
                   "at least 1 ps")


@pytest.mark.parametrize("key", ["seed", "traffic.warmup_messages", "traffic.messages"])
def test_item10_a_count_of_2_to_the_64_is_refused_not_wrapped_to_0(key):
    assert refused(run("run", PAPER16, "--set", f"{key}=18446744073709551616"), key, "at most")


@pytest.mark.parametrize("option", ["--accesses", "--seed", "--warmup", "--keys", "--entries", "--ways"])
def test_item07_a_negative_count_on_the_command_line_is_refused_not_wrapped(option):
    result = run("cachesim", "--keys", "100", "--entries", "10", option, "-1", "--json", timeout=20)
    assert result.returncode == 2 and "must be a whole number >= 0" in result.stderr


@pytest.mark.parametrize("arguments, field", [
    (["--on-mean", "1e-300"], "on_mean"),                        # 10^300 switches for one look-up
    (["--on-mean", "1e-9", "--accesses", "1000000"], "on_mean"),  # 2e10 switches per look-up
    (["--accesses", "1000000000000"], "accesses"),               # 1.1e12 look-ups
])
def test_item08_runs_asking_for_unbounded_work_are_refused(arguments, field):
    result = run("cachesim", "--keys", "100", "--entries", "10", *arguments, "--json", timeout=20)
    assert refused(result, field, "at most 1e12")
