"""The rule that turns a comparison with the paper into a verdict, in one place (docs/reproducing.md, "Verdicts").

A comparison states what the paper says as numbers, ours beside them, each a `Value` (a number), a `Bound` (a
limit: "less than 9 %") or an `Ordering` (an order among named items: "DCS-SB and SB shortest, local longest").
Each part gets a verdict by the rule below, and the comparison the weakest of its parts', unless its
configuration was calibrated to that very figure: then it says "calibrated", whatever the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# agrees: within ±25 % of the paper's value, or, for a rate in percent or percentage points, within ±3 points
AGREE_RELATIVE = 0.25
AGREE_POINTS = 3.0
# same trend: the same sign as the paper's value and within a factor of 2 of it
TREND_FACTOR = 2.0

AGREES, SAME_TREND, DIFFERS, CALIBRATED = "agrees", "same trend", "differs", "calibrated"
STRENGTH = (AGREES, SAME_TREND, DIFFERS)  # from the best to the worst


def weakest(verdicts) -> str:
    return max(verdicts, key=STRENGTH.index)


def _number(value: float, points: bool) -> str:
    if not math.isfinite(value):
        return "none"
    shown = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.4g}"
    return f"{shown} %" if points else shown


def _sign(value: float) -> int:
    return int(value > 0) - int(value < 0)


@dataclass(frozen=True)
class Value:
    """A number the paper states and ours for it. `points`: a rate in percent (or percentage points), to which
    the absolute band of AGREE_POINTS applies beside the relative one."""

    what: str
    paper: float
    ours: float
    points: bool = False

    def verdict(self) -> str:
        if not math.isfinite(self.ours):
            return DIFFERS
        gap = abs(self.ours - self.paper)
        if gap <= AGREE_RELATIVE * abs(self.paper) or (self.points and gap <= AGREE_POINTS):
            return AGREES
        if _sign(self.ours) == _sign(self.paper) and self._within_factor():
            return SAME_TREND
        return DIFFERS

    def _within_factor(self) -> bool:
        if self.paper == 0:
            return self.ours == 0
        ratio = self.ours / self.paper
        return 1 / TREND_FACTOR <= ratio <= TREND_FACTOR

    def shown(self) -> str:
        ratio = f", ×{self.ours / self.paper:.2g}" if self.paper and math.isfinite(self.ours) else ""
        return f"{self.what}: {_number(self.paper, self.points)} → {_number(self.ours, self.points)}{ratio}"


@dataclass(frozen=True)
class Bound:
    """A limit the paper states: ours agrees when it keeps it, and is otherwise judged against the limit as a
    Value."""

    what: str
    limit: float
    ours: float
    points: bool = False
    upper: bool = True  # "less than"; False: "at least"

    def verdict(self) -> str:
        kept = self.ours <= self.limit if self.upper else self.ours >= self.limit
        return AGREES if kept else Value(self.what, self.limit, self.ours, self.points).verdict()

    def shown(self) -> str:
        relation = "≤" if self.upper else "≥"
        return f"{self.what}: {relation} {_number(self.limit, self.points)} → {_number(self.ours, self.points)}"


@dataclass(frozen=True)
class Ordering:
    """An order the paper states, smallest first: `groups` of item names, each group before the next; items of one
    group are not ordered against each other. `ours` holds each item's value (smaller comes first).

    agrees: every pair the paper orders (items of different groups) is in its order; same trend: not every pair,
    but the statement's ends hold (our smallest item is in the first group and our largest in the last); else
    differs. A tie breaks no order and keeps none."""

    what: str
    groups: tuple[tuple[str, ...], ...]
    ours: Mapping[str, float]

    def pairs(self) -> list[tuple[str, str]]:
        return [(a, b) for i, first in enumerate(self.groups) for later in self.groups[i + 1:]
                for a in first for b in later]

    def kept(self) -> int:
        return sum(self.ours[a] < self.ours[b] for a, b in self.pairs())

    def verdict(self) -> str:
        if self.kept() == len(self.pairs()):
            return AGREES
        named = [item for group in self.groups for item in group]
        smallest = min(named, key=self.ours.__getitem__)
        largest = max(named, key=self.ours.__getitem__)
        ends = smallest in self.groups[0] and largest in self.groups[-1]
        return SAME_TREND if ends else DIFFERS

    def shown(self) -> str:
        paper = " < ".join("{" + ", ".join(group) + "}" if len(group) > 1 else group[0] for group in self.groups)
        return f"{self.what}: {paper} → {self.kept()} of {len(self.pairs())} ordered pairs kept"


Part = Value | Bound | Ordering


def verdict(parts: tuple[Part, ...], calibrated: str | None = None) -> str:
    """The comparison's verdict: CALIBRATED when its configuration was tuned to the paper's figure, else the
    weakest of its parts' (DIFFERS for a comparison without numbers)."""
    if calibrated:
        return CALIBRATED
    return weakest(part.verdict() for part in parts) if parts else DIFFERS


RULE = (f"**The rule** (analytics/ibsec/paper/verdicts.py; docs/reproducing.md). A number *agrees* when it is within "
        f"±{AGREE_RELATIVE * 100:g} % of the paper's value, or, for a rate in percent or percentage points, within "
        f"±{AGREE_POINTS:g} points of it; it shows the *same trend* when it has the paper's sign and is within a "
        f"factor of {TREND_FACTOR:g} of it; otherwise it *differs*. A limit (\"less than 9 %\") agrees when ours "
        "keeps it, else is judged as a number against the limit. An ordering agrees when every pair of items the "
        "paper orders is in its order, shows the same trend when only its ends hold (our smallest is among the "
        "paper's first, our largest among its last), and otherwise differs. A statement with several numbers gets "
        "the weakest of their verdicts. A statement whose configuration was tuned to that same figure says "
        "*calibrated* instead: agreeing with a number one has fitted shows nothing.")
