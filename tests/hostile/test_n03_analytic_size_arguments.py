"""Issue 27, item 3: `ibsec.analytic.size(target=2, preset='CG', nodes=16)` raised a ValueError from inside the
model and `nodes=None` a TypeError. Each argument of `analytic size` has one check (models/sizing.py ARGUMENTS)
that the command's option and the Python API both use: a bad value is a ConfigError naming the argument from
the API, and exit 2 naming the option from the command."""

import pytest

import ibsec
from ibsec.errors import ConfigError

from .helpers import ibsec as run_ibsec
from .helpers import no_traceback

pytestmark = pytest.mark.unit

# (argument, bad value): each refused by both before any model or engine runs
BAD = [("target", 2), ("target", 0), ("target", float("nan")), ("nodes", None), ("nodes", 0), ("nodes", -3),
       ("nodes", 2.5), ("nodes", True), ("processes_per_node", 0), ("entry_bytes", -16), ("ways", -1),
       ("accesses", 0), ("gap_threshold_ms", -1.0), ("target_overhead", -5), ("placement", "spiral"),
       ("policy", "mru"), ("family", "normal"), ("machine", "")]


@pytest.mark.parametrize(("argument", "value"), BAD, ids=[f"{a}={v!r}" for a, v in BAD])
def test_n03_the_api_names_the_argument(argument, value):
    arguments = {"nodes": 16, "preset": "CG", argument: value}
    with pytest.raises(ConfigError) as raised:
        ibsec.analytic.size(**arguments)
    assert raised.value.field == argument


@pytest.mark.parametrize(("argument", "value"), [case for case in BAD if case[1] is not None and case[1] is not True],
                         ids=[f"{a}={v!r}" for a, v in BAD if v is not None and v is not True])
def test_n03_the_command_refuses_the_same_values(argument, value):
    option = "--" + argument.replace("_", "-")
    arguments = {"--nodes": "16", "--preset": "CG", option: str(value)}
    done = run_ibsec("analytic", "size", *[item for pair in arguments.items() for item in pair], "--json")
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert option in done.stderr


def test_n03_the_markov_functions_name_their_arguments():
    with pytest.raises(ConfigError, match="'processes'"):
        ibsec.analytic.hitrate(None, entries=64, preset="BT")
    with pytest.raises(ConfigError, match="'target'"):
        ibsec.analytic.capacity(entries=64, preset="BT", target=1.5)
    with pytest.raises(ConfigError, match="'entries'"):
        ibsec.analytic.capacity(entries=-1, preset="BT")
