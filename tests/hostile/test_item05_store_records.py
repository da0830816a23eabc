"""Issue 16, item 5: a store line `{}` crashed a resumed sweep with KeyError: 'point'; a record whose result
is null became an "ok" row of empty values. Neither may mark a point done."""

import json

import pytest

from ibsec.runs.spec import Spec
from ibsec.runs.spec_sweep import sweep_table
from ibsec.runs.store import load_store, point_key, run_points

POINTS = [{"x": 1}, {"x": 2}, {"x": 3}]


def square(point):
    return {"y": point["x"] ** 2}


def store_with(tmp_path, *lines: str):
    store = tmp_path / "points.jsonl"
    store.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    return store


def record(point, **fields) -> str:
    return json.dumps({"point": point, **fields})


@pytest.mark.unit
@pytest.mark.parametrize("line", [
    "{}",  # KeyError: 'point' before
    "[]",  # TypeError before
    "null",
    '"text"',
    '{"result": {"y": 4}}',  # a result of no point
    "\udcff\udcfe not UTF-8",  # UnicodeDecodeError before
    '{"point": {"x": 1}, "result": {"y": 1',  # torn by a kill
])
def test_a_line_naming_no_point_is_skipped(tmp_path, line):
    """Item 5: the store's other records still count."""
    store = store_with(tmp_path, record(POINTS[0], result={"y": 1}), line, record(POINTS[1], result={"y": 4}))
    assert set(load_store(store)) == {point_key(POINTS[0]), point_key(POINTS[1])}


@pytest.mark.unit
@pytest.mark.parametrize("result", [None, [], "done", 7])
def test_a_result_that_is_not_a_table_marks_the_point_to_run_again(tmp_path, result):
    """Item 5: `"result": null` (or any non-table) is no finished point, even after a good record of it."""
    store = store_with(tmp_path, record(POINTS[0], result={"y": 1}), record(POINTS[0], result=result),
                       record(POINTS[1], result={"y": 4}))
    assert set(load_store(store)) == {point_key(POINTS[1])}


@pytest.mark.unit
def test_a_resumed_run_computes_the_points_with_no_result(tmp_path):
    """Item 5: resuming over `{}` and a null result runs what is missing; every row is a real result."""
    store = store_with(tmp_path, "{}", record(POINTS[0], result=None), record(POINTS[1], result={"y": 4}))
    ran = []
    rows = run_points(POINTS, lambda p: ran.append(p) or square(p), store=store, quiet=True)
    assert rows == [{"y": 1}, {"y": 4}, {"y": 9}]
    assert sorted(p["x"] for p in ran) == [1, 3]


@pytest.mark.unit
def test_no_ok_row_of_empty_values(tmp_path):
    """Item 5: the sweep table of a store holding a null result has that point computed, not an empty ok row."""
    points = [{"kind": "analytic", "parameters": p} for p in POINTS]
    store = store_with(tmp_path, record(points[0], result=None))
    rows = run_points(points, lambda p: square(p["parameters"]), store=store, quiet=True)
    spec = Spec(path=tmp_path / "s.json", kind="analytic", points=POINTS, seeds=[None])
    table = sweep_table(spec, points, rows, {})
    assert table["status"].tolist() == ["ok"] * 3
    assert table["y"].tolist() == [1, 4, 9]
