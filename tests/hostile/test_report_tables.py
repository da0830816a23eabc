"""REPORT.md reads the CSV tables of the output folder, which a user may have edited, cut short or replaced: each
bad table is an error naming the file, never a traceback, and a device or FIFO in a table's place is not read."""

from __future__ import annotations

import os

import pytest

from ibsec.input_files import InputError
from ibsec.paper import report

pytestmark = pytest.mark.unit

GOOD_FIG3 = "benchmark,machine,size_kb,entries,capacity\nBT,origin2000,2,128,1000\n"


def comparisons(folder):
    return report.comparisons(folder, running_engine="engine")


def test_a_good_table_is_compared(tmp_path):
    (tmp_path / "fig3_capacity.csv").write_text(GOOD_FIG3)
    rows = [row for row in comparisons(tmp_path) if row.figure == "Fig. 3"]
    assert len(rows) == 2


@pytest.mark.parametrize("text, expected", [
    ("benchmark,machine\nBT,origin2000\n", "fig3_capacity.csv: lacks what REPORT.md compares (the column 'size_kb'"),
    (GOOD_FIG3.replace("BT,", "CG,"), "fig3_capacity.csv: lacks what REPORT.md compares (IndexError"),
    ("", "fig3_capacity.csv: not a CSV table"),
    ('a,b\n"x,1\n', "fig3_capacity.csv: not a CSV table"),
    ("benchmark\n\xff\n", "fig3_capacity.csv:2: not UTF-8 text"),
], ids=["columns", "rows", "empty", "unclosed-quote", "not-utf8"])
def test_a_bad_table_names_its_file(tmp_path, text, expected):
    (tmp_path / "fig3_capacity.csv").write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError, match=expected.replace("(", r"\(")):
        comparisons(tmp_path)


def test_a_fifo_in_a_tables_place_is_refused_not_read(tmp_path):
    os.mkfifo(tmp_path / "fig3_capacity.csv")  # no writer: reading it would block forever
    with pytest.raises(InputError, match="fig3_capacity.csv: a FIFO, not a regular file"):
        comparisons(tmp_path)
