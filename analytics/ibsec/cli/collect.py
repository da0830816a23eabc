"""`ibsec collect RESULTS... --out TABLE`: single-run result files flattened into one table (runs/collect.py)."""

from __future__ import annotations

from pathlib import Path

from .options import output_file


def execute(args) -> int:
    from ..output.figures import command_line
    from ..output.files import write_json_output
    from ..output.tables import table_format, write_table
    from ..runs.collect import collect
    from ..version import __version__

    table_format(args.out, "--out")  # before reading anything
    table, columns = collect(args.results)
    out = Path(args.out)
    write_table(table, out)
    meta = {"table": out.stem, "command": command_line(args.argv), "ibsec_version": __version__,
            "rows": len(table), "files": [out.name], "columns": columns}
    meta_path = out.with_name(f"{out.stem}.meta.json")
    write_json_output(meta_path, meta)
    if not args.quiet:
        print(f"wrote {out} ({len(table)} results, {len(table.columns)} columns; units and descriptions in "
              f"{meta_path})")
    return 0


def add_parser(commands) -> None:
    collect = commands.add_parser(
        "collect", help="gather single-run result files into one table (CSV or Parquet)",
        description="Flatten ibsec-engine result files (`ibsec run --out`, a sweep's runs/, a load sweep's "
                    "PREFIX.runs/) into one table: a row per result, a column per configuration key "
                    "(config.<section>.<key>) and per statistic. Units and descriptions of the columns go to "
                    "TABLE.meta.json beside it.")
    collect.add_argument("results", nargs="+", metavar="RESULT",
                         help="result files, or folders searched for them (*.json holding 'statistics')")
    collect.add_argument("-o", "--out", type=output_file, required=True,
                         help="table to write: .parquet or .csv")
    collect.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    collect.set_defaults(func=execute)
