"""A Hypothesis fuzz target for the configuration files ibsec reads and hands to the engine (issue 27, must-show).

What every config file, however hostile, must give (check_config_file):
- read_config returns a table or raises ConfigError naming the file, with a short message; never another
  exception, never more than TIME_LIMIT seconds of CPU (inputs are at most a few KB);
- a table it returns is what the engine's JSON reader takes (core/json_input.h, sim/config.cpp): strict JSON
  (no NaN or infinity), UTF-8, nested at most 32 levels, no key given twice dotted and nested; so an error the
  engine finds later can only be about a key's value, and names that key, never the JSON twin;
- YAML read by libyaml's parser and by PyYAML's own gives the same table whenever both take the file.

And for tables written out by the writers below (check_round_trip): read back, a TOML or YAML file gives the table
it was written from, or is refused exactly when the engine's rules refuse the table (YAML's plain scalars read
by the YAML 1.2 core schema: `020` is 20, `5e-2` a number, `yes` text).

Inputs come from three strategies: tables written as TOML, YAML or JSON; the seed files of
tests/fuzz/config_formats_corpus/ cut and spliced with tokens that matter to the parsers; and raw text over the
same tokens. Findings are kept as files in tests/fuzz/config_formats_regressions/ and as @example cases of the
unit-tier test (tests/hostile/test_config_formats_fuzz.py), which also runs a short derandomized pass.

A long run (the issue asks for at least ten minutes), from the repository root:

    .venv/bin/python tests/hostile/config_fuzz.py --seconds 600

runs batches of fresh random examples until the time is up and prints each failure (Hypothesis shrinks it) with
the input to save as a regression.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ibsec.engine.config import MAX_DEPTH, parameter_values, read_config
from ibsec.errors import ConfigError
from ibsec.user_text import excerpt

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "fuzz" / "config_formats_corpus"
REGRESSIONS = HERE.parent / "fuzz" / "config_formats_regressions"
SUFFIXES = (".toml", ".yaml", ".yml", ".json")
TIME_LIMIT = 2.0  # seconds for one file of a few KB: far above what a sane parse takes, far below a spin
MESSAGE_LIMIT = 600  # characters of an error message beyond the file's name

# Pieces of text that steer the TOML, YAML and JSON parsers into their corners.
TOKENS = [
    "\n", "  ", "    ", "\t", " ", ": ", "- ", "? ", "= ", ",", "[", "]", "{", "}", "[[", "]]", '"', "'", '"""', "'''",
    "#", "&a ", "*a", "&b ", "*b", "<<: ", "!!binary ", "!!int ", "!!float ", "!!str ", "!!set ", "!!omap ",
    "!!timestamp ", "!!python/object:os.system ", "!tag ", "%YAML 1.1\n", "---\n", "...\n", "|\n", ">-\n", "\\u",
    "\\ud800", "\\U0010ffff", "\\x00", "\ufeff", "\x00", "\x85", "\u2028", "\r\n", "\r", "0o", "0x", "0b", "020",
    "5e-2", "1e400", "1_000", "1:20", "yes", "on", "~", "null", "true", ".inf", "-.inf", ".nan", "nan", "inf",
    "9" * 30, "1" * 5000, "2024-01-01", "2024-01-01T00:00:00Z", "traffic", "load", "traffic.load", "network",
    "nodes", "nic", "security", "trace", "jobs", "sim", "seed", "\"traffic.load\"", "a.b",
]

KEYS = st.sampled_from(["traffic", "load", "traffic.load", "network", "nodes", "nic", "security", "a", "a.b", "b",
                        "", "é", "x" * 70]) | st.text(max_size=8)
SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(1 << 70), max_value=1 << 70)
           | st.floats() | st.text(max_size=12)
           | st.sampled_from(["020", "5e-2", "yes", "on", "1:20", "~", "null", ".inf", "0x1F", "1_000", "", " x",
                              "a: b", "- x", "#", "\ud800"]))
TABLES = st.recursive(st.dictionaries(KEYS, SCALARS, max_size=4),
                      lambda inner: st.dictionaries(KEYS, inner | st.lists(SCALARS, max_size=3), max_size=4),
                      max_leaves=12)


# ---- writers of tables, for the round trip -----------------------------------------------------------------------

def yaml_scalar(value) -> str:
    """A value as YAML reads it back by the 1.2 core schema: numbers plain (020-style zeros kept for whole numbers
    where the writer chose them), text double-quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    return quoted(value)


def quoted(text: str) -> str:
    """A YAML double-quoted scalar or a TOML basic string: printable ASCII as it is, the rest escaped (\\u for 16
    bits, \\U above; neither has JSON's surrogate pairs)."""
    def escaped(char: str) -> str:
        if " " <= char <= "~" and char not in '"\\':
            return char
        return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"

    return '"' + "".join(escaped(char) for char in text) + '"'


def yaml_text(table: dict, indent: str = "") -> str:
    lines = []
    for key, value in table.items():
        head = f"{indent}{quoted(key)}:"
        if isinstance(value, dict) and value:
            lines.append(head + "\n" + yaml_text(value, indent + "  "))
        elif isinstance(value, dict):
            lines.append(head + " {}\n")
        elif isinstance(value, list):
            lines.append(head + " [" + ", ".join(yaml_scalar(item) for item in value) + "]\n")
        else:
            lines.append(f"{head} {yaml_scalar(value)}\n")
    return "".join(lines)


def toml_scalar(value) -> str | None:
    """A value as TOML writes it; None for what TOML has no spelling of (null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "nan"
        if isinstance(value, float) and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, list):
        items = [toml_scalar(item) for item in value]
        return None if None in items else "[" + ", ".join(items) + "]"
    return quoted(value)


def toml_text(table: dict, prefix: tuple = ()) -> str | None:
    """The table as TOML ([a."b.c"] headers for sub-tables); None if it holds a value TOML cannot write."""
    plain, tables = [], []
    for key, value in table.items():
        if isinstance(value, dict):
            inner = toml_text(value, (*prefix, key))
            if inner is None:
                return None
            tables.append(inner)
        else:
            text = toml_scalar(value)
            if text is None:
                return None
            plain.append(f"{quoted(key)} = {text}\n")
    header = "[" + ".".join(quoted(key) for key in prefix) + "]\n" if prefix else ""
    return header + "".join(plain) + "".join(tables)


def json_normal(value):
    """A table as JSON gives it back (tuples are lists)."""
    return json.loads(json.dumps(value))


# ---- the properties ------------------------------------------------------------------------------------------------

def read_checked(path: Path):
    """read_config(path) under the properties of every config file: the table, or None if refused."""
    started = time.process_time()  # CPU time: a machine busy with other work does not make a slow parse
    try:
        table = read_config(path)
    except ConfigError as error:
        message = str(error)
        assert str(path) in message, f"the error does not name the file: {message[:300]}"
        assert len(message) < len(str(path)) + MESSAGE_LIMIT, f"a message of {len(message)} characters"
        return None
    finally:
        elapsed = time.process_time() - started
        assert elapsed < TIME_LIMIT, f"{elapsed:.1f} s of CPU for {path.stat().st_size} bytes"
    assert isinstance(table, dict), f"read as {excerpt(table)}"
    twin = json.dumps(table, allow_nan=False, ensure_ascii=False)  # what engine_config writes for TOML and YAML
    twin.encode("utf-8")
    back = json.loads(twin)
    assert depth(back) <= MAX_DEPTH + 1, f"nested {depth(back)} deep"
    parameter_values(back, "the JSON twin")
    return table


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    return 0


def check_config_file(folder: Path, name: str, data: bytes) -> None:
    """The properties of every config file (module docstring) for one file's bytes."""
    path = folder / name
    path.write_bytes(data)
    table = read_checked(path)
    if Path(name).suffix in (".yaml", ".yml"):
        check_parsers_agree(data, table)


def check_parsers_agree(data: bytes, table) -> None:
    """libyaml and PyYAML's own parser give the same table when both take the file (libyaml refuses some escapes
    PyYAML takes, such as a lone surrogate, which the value checks then refuse: either way it is an error)."""
    import yaml

    from ibsec.engine.yaml_config import ConfigLoader

    if table is None:
        return
    text = data.decode("utf-8").removeprefix("\ufeff")
    try:
        pure = yaml.load(text, Loader=ConfigLoader(pure_python=True))
    except yaml.YAMLError:
        return
    assert json_normal({} if pure is None else pure) == json_normal(table), \
        f"libyaml read {excerpt(table)}, PyYAML {excerpt(pure)}"


def check_round_trip(folder: Path, table: dict, suffix: str) -> None:
    """A table written as TOML, YAML or JSON reads back as itself, or is refused when the engine's rules refuse it."""
    text = {".toml": toml_text, ".yaml": yaml_text, ".json": lambda t: json.dumps(t)}[suffix](table)
    if text is None:
        return
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate written raw: no file can hold it
        return
    path = folder / f"table{suffix}"
    path.write_bytes(data)
    got = read_checked(path)
    try:
        parameter_values(table, "the table")
        acceptable = True
    except ConfigError:
        acceptable = False
    if got is None:
        assert not acceptable, "a table the engine takes was refused"
        return
    assert acceptable, "a table the engine refuses was taken"
    assert json_normal(got) == json_normal(table)


# ---- strategies --------------------------------------------------------------------------------------------------

def seeds() -> list[tuple[str, bytes]]:
    return sorted((path.name, path.read_bytes()) for path in CORPUS.iterdir() if path.suffix in SUFFIXES)


@st.composite
def spliced(draw) -> tuple[str, bytes]:
    """A seed file cut and spliced: pieces removed, tokens inserted, pieces of other seeds pasted in."""
    corpus = seeds()
    name, data = draw(st.sampled_from(corpus))
    text = data.decode("utf-8", errors="surrogateescape")
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "paste", "repeat"]))
        if action == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
        elif action == "paste":
            other = draw(st.sampled_from(corpus))[1].decode("utf-8", errors="surrogateescape")
            start = draw(st.integers(0, len(other)))
            text = text[:at] + other[start:start + draw(st.integers(1, 40))] + text[at:]
        else:
            piece = text[at:at + draw(st.integers(1, 20))]
            text = text[:at] + piece * draw(st.integers(2, 20)) + text[at:]
    suffix = draw(st.sampled_from([Path(name).suffix, *SUFFIXES]))
    return f"spliced{suffix}", text.encode("utf-8", errors="surrogateescape")[:8192]


@st.composite
def token_soup(draw) -> tuple[str, bytes]:
    """Raw text over the tokens and a few characters."""
    pieces = draw(st.lists(st.sampled_from(TOKENS) | st.text(max_size=3), max_size=40))
    suffix = draw(st.sampled_from(SUFFIXES))
    return f"soup{suffix}", "".join(pieces).encode("utf-8", errors="surrogatepass")[:8192]


FILES = spliced() | token_soup()
FUZZ_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)


def fuzz_files(folder: Path):
    @given(FILES)
    def files(named):
        name, data = named
        check_config_file(folder, name, data)

    return files


def fuzz_round_trips(folder: Path):
    @given(TABLES, st.sampled_from([".toml", ".yaml", ".json"]))
    def round_trips(table, suffix):
        check_round_trip(folder, table, suffix)

    return round_trips


def main() -> int:
    parser = argparse.ArgumentParser(description="Fuzz ibsec's config files (TOML, YAML, JSON) for SECONDS.")
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--batch", type=int, default=2000, help="examples per Hypothesis run")
    args = parser.parse_args()
    deadline = time.monotonic() + args.seconds
    runs = examples = failures = 0
    with tempfile.TemporaryDirectory(prefix="ibsec-config-fuzz-") as folder:
        while time.monotonic() < deadline:
            for make in (fuzz_files, fuzz_round_trips):
                test = settings(max_examples=args.batch, **FUZZ_SETTINGS)(make(Path(folder)))
                runs += 1
                try:
                    test()
                except Exception as error:  # noqa: BLE001 - a finding: report it and go on
                    failures += 1
                    notes = "\n".join(getattr(error, "__notes__", []))  # Hypothesis' falsifying example
                    print(f"FINDING in {make.__name__} (run {runs}): {error!r}\n{notes}\n", flush=True)
                examples += args.batch
            print(f"{time.monotonic() - deadline + args.seconds:.0f} s: {runs} runs, ~{examples} examples, "
                  f"{failures} findings", flush=True)
    print(f"done: {runs} runs, ~{examples} examples, {failures} findings")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
