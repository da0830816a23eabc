"""Printed tables show times in the unit that suits them: '3.71 s', never '3.71e+03 ms'."""

import math

import pandas as pd
import pytest

from ibsec.units import human_time, table_text

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("value, unit, shown", [
    (3710.0, "ms", "3.71 s"), (6751.24, "ns", "6.75 µs"), (812.0, "ns", "812 ns"), (72.89, "us", "72.9 µs"),
    (0.5, "ns", "0.5 ns"), (103.2, "s", "103 s"), (1.5e6, "ns", "1.5 ms"), (0.0, "ms", "0 ns"),
    (float("nan"), "ns", "-"), (None, "ns", "-"),
])
def test_human_time(value, unit, shown):
    assert human_time(value, unit) == shown


def test_a_table_with_time_columns_and_a_table_in_a_unit():
    table = pd.DataFrame({"scheduler": ["local", "gang"], "latency_us": [72.89, 1234.0],
                          "mean_job_completion_s": [51.94, 0.013], "hit_rate": [0.99213, math.nan]})
    _, text = table_text(table, index=False)
    assert "e+" not in text
    header = text.splitlines()[0].split()
    assert header == ["scheduler", "latency", "mean_job_completion", "hit_rate"]
    assert "72.9 µs" in text and "1.23 ms" in text and "51.9 s" in text and "13 ms" in text and "0.9921" in text
    wide = pd.DataFrame({"NoSKC": [3710.0], "SKC-6": [812.5]}, index=["CG"])
    title, text = table_text(wide, "completion time (ms)")
    assert title == "completion time" and "3.71 s" in text and "812 ms" in text
