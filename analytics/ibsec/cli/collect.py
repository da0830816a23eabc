"""`ibsec collect RESULTS... --out TABLE`: single-run result files flattened into one table (runs/collect.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from .options import output_file

META_OPTION = "--out (its meta file)"


def meta_file(out: Path) -> Path | None:
    """TABLE.meta.json beside the table; none beside standard output, a device or a FIFO."""
    from ..output.files import is_stream

    return None if is_stream(out) else out.with_name(f"{out.stem}.meta.json")


def execute(args) -> int:
    from ..output.figures import command_line
    from ..output.files import STDOUT, check_distinct_files, check_output_file, write_json_output
    from ..output.tables import table_format, write_table
    from ..runs.collect import result_documents, results_table
    from ..version import __version__

    table_format(args.out, "--out")  # before reading anything
    out = Path(args.out)
    meta_path = meta_file(out)
    if meta_path is not None:
        check_output_file(meta_path, META_OPTION)
    results = result_documents(args.results)
    outputs = {"--out": out, **({META_OPTION: meta_path} if meta_path is not None else {})}
    check_distinct_files(outputs, {f"the result file {str(path)!r} (an input)": path for path, _ in results})
    table, columns = results_table(results)
    write_table(table, out)
    if meta_path is not None:
        meta = {"table": out.stem, "command": command_line(args.argv), "ibsec_version": __version__,
                "rows": len(table), "files": [out.name], "columns": columns}
        write_json_output(meta_path, meta)
    if not args.quiet:  # beside a table on standard output, on standard error
        where = f"; units and descriptions in {meta_path}" if meta_path is not None else ""
        print(f"wrote {out} ({len(table)} results, {len(table.columns)} columns{where})",
              file=sys.stderr if str(out) == STDOUT else sys.stdout)
    return 0


def add_parser(commands) -> None:
    collect = commands.add_parser(
        "collect", help="gather single-run result files into one table (CSV or Parquet)",
        description="Flatten ibsec-engine result files (`ibsec run --out`, a sweep's runs/, a load sweep's "
                    "PREFIX.runs/) into one table: a row per result, a column per configuration key "
                    "(config.<section>.<key>) and per statistic. Units and descriptions of the columns go to "
                    "TABLE.meta.json beside it (none beside standard output, a device or a FIFO). A folder is "
                    "searched for its *.json results; a device, FIFO or unreadable file found there is skipped "
                    "with a warning.")
    collect.add_argument("results", nargs="+", metavar="RESULT",
                         help="result files, or folders searched for them (*.json holding 'statistics')")
    collect.add_argument("-o", "--out", type=output_file, required=True,
                         help="table to write: .parquet or .csv ('-': CSV on standard output)")
    collect.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    collect.set_defaults(func=execute)
