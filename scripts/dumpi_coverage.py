#!/usr/bin/env python3
"""The list of DUMPI records `ibsec trace import` can read, in docs/importing.md, made from the record-layout
table itself (traces/import/dumpi_calls.def), so that the table is the only place a call is written.

    python3 scripts/dumpi_coverage.py --write docs/importing.md   # replaces the text between the markers
    python3 scripts/dumpi_coverage.py --check docs/importing.md   # exits 1 if that text is not what the table says
    python3 scripts/dumpi_coverage.py                             # prints it

The markers are `<!-- dumpi-calls:begin -->` and `<!-- dumpi-calls:end -->`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "traces" / "import" / "dumpi_calls.def"
BEGIN, END = "<!-- dumpi-calls:begin -->", "<!-- dumpi-calls:end -->"
CALL = re.compile(r"^DUMPI_CALL\((\d+), (\w+),")

# Groups by name, first match wins; the rest are "other".
GROUPS = [
    ("point-to-point", re.compile(r"^(I?[bsr]?send|I?recv|Sendrecv.*|[BSR]?send_init|Recv_init|Start(all)?|"
                                  r"Get_count|Get_elements|I?probe|Cancel|Test_cancelled|Request_.*)$", re.I)),
    ("request completion", re.compile(r"^(Wait|Test)(all|any|some)?$")),
    ("collectives", re.compile(r"^(Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|Alltoall[vw]?|"
                               r"Reduce|Allreduce|Reduce_scatter|Scan|Exscan)$")),
    ("communicators and groups", re.compile(r"^(Comm_|Group_|Intercomm_|Cart|Graph|Topo_|Dims_)")),
    ("datatypes and packing", re.compile(r"^(Type_|Pack|Unpack|Address|Get_address)")),
    ("one-sided (read, not imported)", re.compile(r"^(Win_|Put$|Get$|Accumulate$|Alloc_mem|Free_mem)")),
    ("MPI-IO (read, not imported)", re.compile(r"^(File_|IO_|Register_datarep)")),
]


def calls() -> list[tuple[int, str]]:
    found = []
    for line in TABLE.read_text().splitlines():
        match = CALL.match(line)
        if match:
            found.append((int(match.group(1)), match.group(2)))
    return found


def mpi_name(name: str) -> str:
    if name.startswith("IO_"):
        return "MPIO_" + name[3:]
    if name.startswith("Function_"):
        return "DUMPI " + name.replace("_", " ").lower()
    return "MPI_" + name


def block() -> str:
    groups: dict[str, list[str]] = {title: [] for title, _ in GROUPS}
    groups["other"] = []
    table = calls()
    for _, name in table:
        title = next((t for t, pattern in GROUPS if pattern.search(name)), "other")
        groups[title].append(f"`{mpi_name(name)}`")
    lines = [BEGIN, f"The {len(table)} record layouts of `traces/import/dumpi_calls.def` "
             "(made by `scripts/dumpi_coverage.py`; every DUMPI function id but `MPI_Pcontrol`, which DUMPI never "
             "writes as a record of its own):", ""]
    for title, names in groups.items():
        if names:
            lines.append(f"- {title} ({len(names)}): {', '.join(names)}")
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path, help="the Markdown file whose marked block to replace")
    parser.add_argument("--check", type=Path, help="the Markdown file whose marked block to compare")
    args = parser.parse_args()
    text = block()
    target = args.write or args.check
    if target is None:
        print(text)
        return 0
    document = target.read_text()
    start, stop = document.find(BEGIN), document.find(END)
    if start < 0 or stop < start:
        print(f"{target}: no {BEGIN} ... {END} block", file=sys.stderr)
        return 1
    updated = document[:start] + text + document[stop + len(END):]
    if args.check:
        if updated != document:
            print(f"{target}: the DUMPI call list differs from {TABLE.relative_to(ROOT)}; run "
                  f"scripts/dumpi_coverage.py --write {target}", file=sys.stderr)
            return 1
        return 0
    target.write_text(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
