"""Named ON/OFF workloads: the NAS benchmarks on the SGI Origin 2000 and IBM SP-2.

The values are estimates (see data/nas_onoff.csv and docs/nas-onoff-presets.md);
they live in one CSV so that measured values can replace them without code changes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import ConfigError, IbsecError
from ..numeric import positive_real

MACHINES = {"origin2000": "SGI Origin 2000", "sp2": "IBM SP-2"}
MACHINE_ALIASES = {"o2k": "origin2000", "origin": "origin2000", "origin2000": "origin2000", "sp2": "sp2", "sp-2": "sp2"}


@dataclass(frozen=True)
class OnOffPreset:
    benchmark: str
    machine: str
    on_mean_ms: float
    off_mean_ms: float
    status: str
    basis: str

    @property
    def name(self) -> str:
        return f"{self.benchmark}/{self.machine}"

    @property
    def duty_cycle(self) -> float:
        return self.on_mean_ms / (self.on_mean_ms + self.off_mean_ms)


def _parse(text: str, source: str) -> list[OnOffPreset]:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    required = ["benchmark", "machine", "on_mean_ms", "off_mean_ms", "status", "basis"]
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise IbsecError(f"{source}: missing column(s) {', '.join(missing)}")
    presets = []
    for row_number, row in enumerate(reader, start=2):
        where = f"{source}: row {row_number}"
        try:
            presets.append(
                OnOffPreset(
                    benchmark=row["benchmark"].strip().upper(),
                    machine=row["machine"].strip().lower(),
                    on_mean_ms=positive_real(row["on_mean_ms"], "on_mean_ms"),
                    off_mean_ms=positive_real(row["off_mean_ms"], "off_mean_ms"),
                    status=row["status"].strip(),
                    basis=row["basis"].strip(),
                )
            )
        except ConfigError as error:
            raise IbsecError(f"{where}: {error}") from None
    return presets


def load(path: str | Path | None = None) -> list[OnOffPreset]:
    """All presets, from `path` or the packaged table."""
    if path is None:
        text = resources.files("ibsec").joinpath("data/nas_onoff.csv").read_text()
        return _parse(text, "nas_onoff.csv")
    path = Path(path)
    try:
        return _parse(path.read_text(), str(path))
    except FileNotFoundError:
        raise IbsecError(f"{path}: no such preset file") from None


def get(benchmark: str, machine: str = "origin2000", path: str | Path | None = None) -> OnOffPreset:
    """The preset for a benchmark on a machine (aliases: o2k, sp-2)."""
    machine_key = MACHINE_ALIASES.get(machine.strip().lower())
    if machine_key is None:
        raise ConfigError("machine", f"unknown machine {machine!r} (known: {', '.join(MACHINES)})")
    table = load(path)
    for preset in table:
        if preset.benchmark == benchmark.strip().upper() and preset.machine == machine_key:
            return preset
    known = sorted({p.benchmark for p in table})
    raise ConfigError("preset", f"no preset {benchmark!r} on {machine_key} (known benchmarks: {', '.join(known)})")


def with_preset(parameters: dict) -> dict:
    """preset/machine replaced by the preset's ON/OFF means (explicit on_mean/off_mean win)."""
    parameters = dict(parameters)
    if "preset" not in parameters:
        if "machine" in parameters:
            raise ConfigError("machine", "a machine goes with a preset")
        return parameters
    preset = get(str(parameters.pop("preset")), str(parameters.pop("machine", "origin2000")))
    parameters.setdefault("on_mean", preset.on_mean_ms)
    parameters.setdefault("off_mean", preset.off_mean_ms)
    return parameters
