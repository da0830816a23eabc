"""One statement of the paper beside our numbers, as REPORT.md shows it (paper/report.py, paper/anchors.py)."""

from __future__ import annotations

from dataclasses import dataclass

from . import verdicts
from .verdicts import Part

FOREIGN_MARK = "‡"  # a row that read a table the running engine did not make


@dataclass(frozen=True)
class Comparison:
    """One statement of the paper and what we measured for it.

    `parts` are the numbers the rule reads; `calibrated` says how our configuration was tuned to this figure
    ("" when it was not); `tables` are the tables it read and `foreign` whether one of them was not made by the
    running engine (both set by `comparisons`)."""

    figure: str
    paper: str
    ours: str
    parts: tuple[Part, ...]
    why: str = ""
    calibrated: str = ""
    tables: tuple[str, ...] = ()
    foreign: bool = False

    @property
    def verdict(self) -> str:
        return verdicts.verdict(self.parts, self.calibrated)

    def verdict_shown(self) -> str:
        rule_alone = verdicts.verdict(self.parts) if self.calibrated else ""
        shown = f"{self.verdict} (by the rule alone: {rule_alone})" if rule_alone else self.verdict
        return f"{shown} {FOREIGN_MARK}" if self.foreign else shown

    def numbers(self) -> str:
        return "; ".join(part.shown() for part in self.parts)

    def reason(self) -> str:
        calibration = f"Calibrated: {self.calibrated}." if self.calibrated else ""
        return " ".join(text for text in (calibration, self.why) if text)
