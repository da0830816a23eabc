"""What each trace op means, as the engine's op table says (`ibsec-engine registries --json`, `trace_ops`).

The table is written once, in traces/trace_ops.def; the engine lists every op with its role (compute, send,
receive, wait or collective), its arguments in text order with the format version that added each, and its
blocking form. Python classifies ops from here and never by a list of names of its own, so an op added to the
engine is either understood from its role and arguments or refused by name (`TraceOps.require`); a role Python
does not know is an error when the table is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import registries
from ..errors import IbsecError

ROLES = ("compute", "send", "receive", "wait", "collective")


@dataclass(frozen=True)
class TraceOp:
    """One row of the engine's op table."""

    name: str
    code: int
    role: str
    arguments: tuple[str, ...]  # after RANK START END OP, in text order; `counts` last when it has them
    argument_since: tuple[int, ...]  # the format version that added each argument
    blocking_form: str  # the op whose messages it sends: itself, or a non-blocking collective's blocking form
    since: int

    @property
    def is_collective(self) -> bool:
        return self.role == "collective"

    @property
    def is_point_to_point(self) -> bool:
        return self.role in ("send", "receive")

    @property
    def rooted(self) -> bool:
        return "root" in self.arguments

    @property
    def has_counts(self) -> bool:
        """The line ends with COUNTS, one byte count per member of the communicator (the `v` kinds)."""
        return "counts" in self.arguments

    @property
    def nonblocking(self) -> bool:
        """A non-blocking collective, or a point-to-point op that opens a request."""
        return self.role != "wait" and "req" in self.arguments

    def arguments_in(self, version: int) -> tuple[str, ...]:
        """The arguments a line of format `version` carries: those that version had, which come first."""
        return tuple(name for name, since in zip(self.arguments, self.argument_since, strict=True) if since <= version)


class TraceOps(dict):
    """The engine's ops by name, with the sets the Python readers ask for."""

    def named(self, role: str) -> frozenset[str]:
        """The names of the ops of one role (a name of ROLES)."""
        if role not in ROLES:
            raise ValueError(f"{role!r} is not an op role ({', '.join(ROLES)})")
        return frozenset(name for name, op in self.items() if op.role == role)

    def blocking_collectives(self) -> frozenset[str]:
        """The collectives that are their own blocking form: every kind of collective once."""
        return frozenset(op.name for op in self.values() if op.is_collective and op.blocking_form == op.name)


def _op(entry: dict) -> TraceOp:
    role = entry.get("role")
    if role not in ROLES:
        raise IbsecError(f"ibsec-engine registries: trace op {entry.get('name')!r} has role {role!r}, which this "
                         f"ibsec does not know ({', '.join(ROLES)}): update the Python package or rebuild the engine")
    return TraceOp(entry["name"], entry["code"], role, tuple(entry["arguments"]),
                   tuple(entry["argument_since_version"]), entry["blocking_form"], entry["since_version"])


def trace_ops() -> TraceOps:
    """The op table of the engine ibsec runs, read once per engine binary."""
    return TraceOps((entry["name"], _op(entry)) for entry in registries.entries("trace_ops"))
