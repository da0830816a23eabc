"""Issue 27, item 15 (collect): `ibsec collect d/t.meta.json --out d/t.csv` wrote the table's meta file over its
own input. The outputs of a command are now checked before it writes, distinct from each other and from every
input by device and inode (output/files.py check_distinct_files), so a symlink or another name for an input is
refused too. And no meta file is made beside standard output, a device or a FIFO (it was `-.meta.json` in the
current folder, and the "wrote" line went into the table on standard output)."""

import json
import os

import pytest

from .helpers import REPO, ibsec, no_traceback

pytestmark = pytest.mark.unit

RESULT = REPO / "tests" / "golden" / "expected" / "attack" / "result.json"


@pytest.fixture
def result(tmp_path):
    """A sound result saved under the name of a table's meta file."""
    path = tmp_path / "d" / "t.meta.json"
    path.parent.mkdir()
    path.write_bytes(RESULT.read_bytes())
    return path


def test_n15_the_meta_file_onto_an_input_is_refused(result):
    done = ibsec("collect", str(result), "--out", str(result.with_name("t.csv")))
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert f"is also the result file '{result}' (an input)" in done.stderr
    assert result.read_bytes() == RESULT.read_bytes() and not result.with_name("t.csv").exists()


def test_n15_a_table_through_a_hard_link_onto_an_input_is_refused(result, tmp_path):
    """Another name of the input is the input: compared by device and inode, not by name."""
    link = tmp_path / "link.csv"
    os.link(result, link)
    done = ibsec("collect", str(result), "--out", str(link))
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert "invalid '--out'" in done.stderr and f"is also the result file '{result}'" in done.stderr
    assert result.read_bytes() == RESULT.read_bytes()


def test_n15_a_table_through_a_symlink_onto_an_input_is_refused(result, tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(result)
    done = ibsec("collect", str(result), "--out", str(link))
    assert done.returncode == 2 and no_traceback(done), done.stderr
    assert "--out" in done.stderr and f"'{link}' is a symlink" in done.stderr
    assert result.read_bytes() == RESULT.read_bytes() and link.is_symlink()


def test_n15_a_table_on_standard_output_has_no_meta_file_and_nothing_else_on_it(result, tmp_path, engine):
    done = ibsec("collect", str(result), "--out", "-", cwd=tmp_path)
    assert done.returncode == 0 and no_traceback(done), done.stderr
    assert done.stdout.startswith("result_file,") and "wrote" not in done.stdout
    assert sorted(os.listdir(tmp_path)) == ["d"]


def test_n15_distinct_outputs_still_collect(result, tmp_path, engine):
    out = tmp_path / "table.csv"
    done = ibsec("collect", str(result), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "table.meta.json").read_text())["rows"] == 1
