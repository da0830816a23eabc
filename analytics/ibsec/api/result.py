"""One engine run as the Python API returns it: statistics with their units, the configuration it ran, warnings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.point import EngineRun

if TYPE_CHECKING:
    import pandas as pd

# The result's own table of what each statistic means (docs/running.md, "The result file").
META_KEY = "statistics_meta"


@dataclass(frozen=True)
class Result:
    """A finished `ibsec-engine run`: its result file, exit code (0, or 3: did not drain) and result document.

    `statistics` is a pandas Series of every statistic by name, its units in `statistics.attrs["units"]` and in
    `units`; `table` has one row per statistic (value, unit, description); `config` is the configuration the
    engine resolved and ran (every parameter, defaults included); `warnings` what the engine warned about.
    """

    result_file: Path
    exit_code: int
    document: dict

    @classmethod
    def from_file(cls, path: str | Path, exit_code: int = 0) -> Result:
        """The result file `path`, read and checked as `ibsec collect` reads one (IbsecError naming the file)."""
        from ..runs.collect import read_result

        path = Path(path)
        return cls(path, exit_code, read_result(path))

    @property
    def _engine_run(self) -> EngineRun:
        return EngineRun(self.result_file, self.exit_code, self.document)

    @cached_property
    def statistics(self) -> pd.Series:
        import pandas as pd

        values = {name: value for name, value in self._engine_run.value("statistics").items() if name != META_KEY}
        series = pd.Series(values, name="value", dtype=object)
        series.attrs["units"] = self.units.to_dict()
        return series

    @cached_property
    def units(self) -> pd.Series:
        """The unit of each statistic ('' for a count without one)."""
        return self._meta_column("unit")

    @cached_property
    def descriptions(self) -> pd.Series:
        return self._meta_column("description")

    def _meta_column(self, column: str) -> pd.Series:
        import pandas as pd

        meta = self.document.get("statistics", {}).get(META_KEY, {})
        names = [name for name in self.document.get("statistics", {}) if name != META_KEY]
        return pd.Series({name: meta.get(name, {}).get(column, "") for name in names}, name=column, dtype=object)

    @property
    def table(self) -> pd.DataFrame:
        """One row per statistic: value, unit, description."""
        import pandas as pd

        return pd.DataFrame({"value": self.statistics, "unit": self.units, "description": self.descriptions})

    @property
    def config(self) -> dict:
        """The configuration the engine ran: every parameter, nested by section, defaults resolved."""
        return self.document.get("config", {})

    @property
    def seed(self) -> int | None:
        return self.document.get("seed")

    @property
    def warnings(self) -> list:
        """What the engine's result says went wrong (saturated, not drained, too few packets), if it says any."""
        return list(self.document.get("warnings", []))

    @property
    def drained(self) -> bool:
        return bool(self.document.get("statistics", {}).get("drained", self.exit_code == 0))

    def row(self) -> dict:
        """The flat row every ibsec table starts from (EngineRun.row): statistics, section scalars, attack counts."""
        return self._engine_run.row()

    def __repr__(self) -> str:
        stats = self.document.get("statistics", {})
        shown = ", ".join(f"{name}={stats[name]:.4g}" if isinstance(stats.get(name), float) else f"{name}={stats[name]}"
                          for name in ("packets_delivered", "accepted_throughput", "latency_mean_ns", "skc_hit_rate",
                                       "drained") if name in stats)
        warned = f", warnings: {len(self.warnings)}" if self.warnings else ""
        return f"Result({self.result_file.name}: {shown}{warned})"
