"""The paper-mode card (analytics/ibsec/paper/card_design.py): its settings come from the shipped configuration,
and REPORT.md's rows for it follow the table."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ibsec.paper import card_design, report

pytestmark = pytest.mark.unit


def test_paper_card_overrides_are_read_from_the_shipped_config():
    settings = card_design.paper_card_overrides()
    nic = json.loads(card_design.PAPER_CARD_FILE.read_text())["nic"]
    assert f"nic.key_memory.requests_in_flight={nic['key_memory']['requests_in_flight']}" in settings
    assert f"nic.lookup.outstanding_misses={nic['lookup']['outstanding_misses']}" in settings
    assert not any(s.startswith("nic.security=") for s in settings), "the study chooses the security mode"


def _table(noskc: float, skc6: float, small: float, large: float) -> pd.DataFrame:
    rows = [("Fig. 5(a)", "NoSKC", 256, 160.0, noskc), ("Fig. 5(a)", "SKC-6", 256, 29.0, skc6),
            ("Fig. 5(d)", "NoSKC", 32, 180.0, small), ("Fig. 5(d)", "NoSKC", 2048, 28.0, large)]
    return pd.DataFrame([{"card": "paper-mode", "figure": f, "configuration": c, "mtu_bytes": m,
                          "paper_overhead_percent": p, "ibsec_overhead_percent": o} for f, c, m, p, o in rows])


def test_report_rows_for_the_paper_mode_card(tmp_path):
    _table(173.0, 28.0, 647.0, 45.0).to_csv(tmp_path / "card_paper_mode.csv", index=False)
    rows = report.paper_mode_card(report.Tables(tmp_path))
    verdicts = {(r.figure, r.paper.split(":")[0]): r.verdict for r in rows}
    # the card's overlap was chosen for NoSKC's +160 %: that row cannot agree, it is calibrated
    assert verdicts[("Fig. 5(a), paper-mode card", "NoSKC")] == "calibrated"
    assert verdicts[("Fig. 5(a), paper-mode card", "SKC-6")] == "agrees"
    assert verdicts[("Fig. 5(d), paper-mode card", "NoSKC")] == "differs"  # 647 % is 3.6 x the paper's 180 %


def test_report_says_differs_when_the_paper_mode_card_misses(tmp_path):
    _table(900.0, 90.0, 20.0, 40.0).to_csv(tmp_path / "card_paper_mode.csv", index=False)
    verdicts = [r.verdict for r in report.paper_mode_card(report.Tables(tmp_path))]
    # NoSKC stays calibrated however far it drifts; its row says what the rule alone would say
    assert verdicts == ["calibrated", "differs", "differs"]
    assert report.paper_mode_card(report.Tables(tmp_path))[0].verdict_shown() == (
        "calibrated (by the rule alone: differs)")
