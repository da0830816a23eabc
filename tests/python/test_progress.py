"""Progress: a tqdm bar with an ETA on a terminal; plain periodic lines, never a carriage return, elsewhere."""

import io

import pytest

from ibsec.output import progress as progress_module
from ibsec.output.progress import progress

pytestmark = pytest.mark.unit


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_on_a_terminal_each_update_is_a_plain_line_with_an_eta(monkeypatch):
    monkeypatch.setattr(progress_module, "PLAIN_PERIOD_S", 0.0)
    log = io.StringIO()
    with progress(4, "load sweep", "pt", stream=log) as bar:
        for _ in range(4):
            bar.update(1)
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[-1].startswith("load sweep: 4/4 pt (100%)")
    assert any(line.startswith("load sweep: 2/4 pt (50%)") and "ETA" in line for line in lines), lines


def test_not_on_a_terminal_lines_are_rate_limited():
    log = io.StringIO()
    with progress(1000, "points", "pt", stream=log) as bar:
        for _ in range(1000):
            bar.update(1)
    assert len(log.getvalue().splitlines()) <= 3  # the first, perhaps one more, the last: not a thousand


def test_on_a_terminal_the_bar_is_redrawn_in_place():
    terminal = Terminal()
    with progress(3, "points", "pt", stream=terminal) as bar:
        bar.update(3)
    assert "\r" in terminal.getvalue() and "3/3" in terminal.getvalue()


def test_quiet_prints_nothing():
    log = Terminal()
    with progress(3, "points", "pt", quiet=True, stream=log) as bar:
        bar.update(3)
    assert log.getvalue() == ""
