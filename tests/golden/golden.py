"""Golden results: fixed runs whose outputs must not change unless a change means to.

Each case is one command of `ibsec-engine` or `ibsec` run from tests/golden/inputs
(so that the relative trace and config paths it echoes are always the same),
writing into a fresh folder. Its outputs are compared with
tests/golden/expected/<case>/ in a canonical form: JSON with sorted keys, CSV
with sorted columns, so that the order in which a program lists its figures
is free but every figure, to the last digit printed, is not. Fields that name
files by digest or path (they change whenever the engine is rebuilt) are
replaced by a placeholder.

    python tests/golden/golden.py --check            # compare (what the test does)
    python tests/golden/golden.py --update           # rewrite expected/ (a deliberate change)
    python tests/golden/golden.py --check paper16    # one case

The engine is $IBSEC_ENGINE, else build/ibsec-engine.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
INPUTS = HERE / "inputs"
EXPECTED = HERE / "expected"
PAPER16 = "../../../configs/paper-16.json"
MIX = 'trace.jobs=["cg.trace.gz","mg.trace.gz","ft.trace.gz"]'
SHORT = ["--set", "traffic.messages=20000", "--set", "traffic.warmup_messages=2000"]
# Fields whose value names a file by path or digest: they change with every rebuild.
VOLATILE = {"result_file"}


@dataclass(frozen=True)
class Case:
    name: str
    program: str           # "engine" (ibsec-engine) or "ibsec" (the Python command)
    arguments: tuple[str, ...]
    outputs: tuple[str, ...]  # files in the output folder; "stdout" for what it prints

    def command(self, engine: str, out: Path) -> list[str]:
        program = [engine] if self.program == "engine" else [sys.executable, "-m", "ibsec.cli"]
        return program + [a.replace("{out}", str(out)) for a in self.arguments]


def engine_run(name: str, *arguments: str) -> Case:
    return Case(name, "engine", ("run", *arguments, "--quiet", "--out", "{out}/result.json"), ("result.json",))


CASES = [
    engine_run("paper16", PAPER16),
    engine_run("nosecurity", PAPER16, *SHORT, "--set", "nic.security=NoSecurity"),
    engine_run("noskc", PAPER16, *SHORT, "--set", "nic.security=NoSKC"),
    engine_run("skc10_prefetch8", PAPER16, *SHORT, "--set", "nic.security=SKC-10+Prefetch-8",
               "--set", "traffic.processes_per_node=4", "--set", "nic.skc.policy=fifo"),
    engine_run("replay_cg", PAPER16, "--trace", "cg.trace.gz"),
    engine_run("mix_dcs_sb", PAPER16, "--set", MIX, "--set", "scheduler.policy=dcs-sb",
               "--set", "nic.security=SKC-10+Prefetch-8"),
    engine_run("mix_gang", PAPER16, "--set", MIX, "--set", "scheduler.policy=gang",
               "--set", "nic.security=SKC-10+Prefetch-8"),
    engine_run("attack", PAPER16, *SHORT, "--attack", "../../../configs/attacks/all-kinds.json"),
    engine_run("fat_tree", PAPER16, *SHORT, "--set", "network.topology=fat-tree", "--set", "network.nodes=0",
               "--set", "network.fat_tree.k=4", "--set", "network.fat_tree.n=3", "--set", "network.virtual_lanes=2",
               "--set", "network.link_rate=QDR"),
    engine_run("functional_crypto", PAPER16, *SHORT, "--set", "nic.crypto.mode=functional",
               "--set", "nic.crypto.key_bits=256"),
    Case("cachesim", "ibsec", ("cachesim", "--preset", "FT", "--keys", "2000", "--size", "16KB", "--ways", "16",
                               "--accesses", "200000", "--json"), ("stdout",)),
    Case("analytic_capacity", "ibsec", ("analytic", "capacity", "--size", "2KB", "--preset", "BT",
                                        "--machine", "origin2000", "--target", "0.9", "--json"), ("stdout",)),
    Case("sweep", "ibsec", ("sweep", "skc-grid.toml", "--out", "{out}/sweep", "--quiet", "--workers", "1"),
         ("sweep/sweep.csv",)),
]


def default_engine() -> str:
    return os.environ.get("IBSEC_ENGINE") or str(REPO / "build" / "ibsec-engine")


def run_case(case: Case, engine: str, out: Path) -> dict[str, bytes]:
    """Runs the case into `out`; returns each output's canonical bytes. Raises on a failed command."""
    env = {**os.environ, "IBSEC_ENGINE": engine}
    completed = subprocess.run(case.command(engine, out), cwd=INPUTS, capture_output=True, env=env, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"golden case {case.name}: exit {completed.returncode}\n{completed.stderr.decode()}")
    produced = {}
    for name in case.outputs:
        raw = completed.stdout if name == "stdout" else (out / name).read_bytes()
        produced[name] = canonical(name, raw)
    return produced


def _mask(value):
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else _mask(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def canonical(name: str, raw: bytes) -> bytes:
    if name.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(raw.decode())))
        header = rows[0]
        order = sorted(range(len(header)), key=lambda i: header[i])
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        for row in rows:
            writer.writerow(["<volatile>" if header[i] in VOLATILE and row is not header else row[i] for i in order])
        return text.getvalue().encode()
    return (json.dumps(_mask(json.loads(raw)), sort_keys=True, indent=1) + "\n").encode()


def expected_path(case: Case, output: str) -> Path:
    return EXPECTED / case.name / (output.replace("/", "__") + ("" if "." in output else ".json"))


def json_differences(expected, produced, path: str = "") -> dict[str, list[str]]:
    """Where two JSON documents differ: keys added, keys removed, values changed (dotted paths)."""
    found: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
    if isinstance(expected, dict) and isinstance(produced, dict):
        for key in sorted(expected.keys() | produced.keys()):
            where = f"{path}.{key}" if path else key
            if key not in produced:
                found["removed"].append(where)
            elif key not in expected:
                found["added"].append(where)
            else:
                for kind, paths in json_differences(expected[key], produced[key], where).items():
                    found[kind] += paths
    elif expected != produced:
        found["changed"].append(path or "<document>")
    return found


def csv_differences(expected: bytes, produced: bytes) -> str:
    """Columns added or removed, and the shared columns whose values changed."""
    old = list(csv.DictReader(io.StringIO(expected.decode())))
    new = list(csv.DictReader(io.StringIO(produced.decode())))
    old_columns = set(old[0]) if old else set()
    new_columns = set(new[0]) if new else set()
    changed = sorted(c for c in old_columns & new_columns
                     if len(old) != len(new) or any(a[c] != b[c] for a, b in zip(old, new, strict=True)))
    parts = [f"{kind}: {', '.join(cols[:6])}{' ...' if len(cols) > 6 else ''} ({len(cols)})"
             for kind, cols in (("added columns", sorted(new_columns - old_columns)),
                                ("removed columns", sorted(old_columns - new_columns)),
                                ("changed columns", changed)) if cols]
    return "; ".join(parts) or "row order"


def describe(case: Case, name: str, data: bytes) -> str:
    """What differs in one output, for the person reading the check."""
    expected = expected_path(case, name).read_bytes()
    if name.endswith(".csv"):
        return f"{name} differs in " + csv_differences(expected, data)
    if name == "stdout" and not expected.lstrip().startswith(b"{"):
        return f"{name} differs"
    found = json_differences(json.loads(expected), json.loads(data))
    parts = [f"{kind}: {', '.join(paths[:6])}{' ...' if len(paths) > 6 else ''} ({len(paths)})"
             for kind, paths in found.items() if paths]
    return f"{name} differs in " + "; ".join(parts)


def check(case: Case, engine: str) -> list[str]:
    """What differs between the outputs of `case` and the expected ones (empty: all match)."""
    with tempfile.TemporaryDirectory(prefix=f"golden-{case.name}-") as tmp:
        produced = run_case(case, engine, Path(tmp))
    return [describe(case, name, data) for name, data in produced.items()
            if expected_path(case, name).read_bytes() != data]


def update(case: Case, engine: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"golden-{case.name}-") as tmp:
        produced = run_case(case, engine, Path(tmp))
    for name, data in produced.items():
        path = expected_path(case, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="compare every case with expected/")
    action.add_argument("--update", action="store_true", help="rewrite expected/ from this engine")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    args = parser.parse_args()
    chosen = [c for c in CASES if not args.cases or c.name in args.cases]
    engine = default_engine()
    failed = 0
    for case in chosen:
        if args.update:
            update(case, engine)
            print(f"updated {case.name}")
            continue
        differing = check(case, engine)
        failed += bool(differing)
        print(f"{case.name}: {'; '.join(differing) if differing else 'same'}")
    if args.update:
        shutil.rmtree(HERE / "__pycache__", ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
