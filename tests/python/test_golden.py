"""Fixed runs compared with their committed results (tests/golden/golden.py).

A difference means a change altered what ibsec computes. If that is the
intent, rerun `python tests/golden/golden.py --update` and say why in the
commit message.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
import golden  # noqa: E402


@pytest.mark.parametrize("case", golden.CASES, ids=lambda c: c.name)
def test_golden_outputs_are_unchanged(case, engine):
    differing = golden.check(case, engine)
    assert not differing, (f"{case.name}: {', '.join(differing)} differ from tests/golden/expected/{case.name}; "
                           f"see `python tests/golden/golden.py --check {case.name}`")


def test_canonical_form_is_strict_about_values():
    a = golden.canonical("r.json", b'{"b": 1.5, "a": [1, 2]}')
    assert a == golden.canonical("r.json", b'{"a": [1, 2], "b": 1.5}')
    assert a != golden.canonical("r.json", b'{"a": [1, 2], "b": 1.50001}')
    assert golden.canonical("t.csv", b"b,a\n1,2\n") == golden.canonical("t.csv", b"a,b\n2,1\n")
    assert golden.canonical("t.csv", b"b,a\n1,2\n") != golden.canonical("t.csv", b"a,b\n1,2\n")
    assert golden.canonical("t.csv", b"result_file,a\nx.json,2\n") == golden.canonical("t.csv", b"result_file,a\ny.json,2\n")
