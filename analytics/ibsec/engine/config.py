"""Configuration files of `ibsec-engine run` (JSON, or TOML and YAML turned into JSON for it) and their
`--set KEY=VALUE` overrides, as Python reads them."""

from __future__ import annotations

import json
import math
from pathlib import Path

from .. import user_json
from ..errors import ConfigError, IbsecError
from ..user_text import excerpt, read_user_text, shortened
from .binary import parameters


def check_config_file(path: str | Path) -> Path:
    """The config file as a Path, or IbsecError naming it if it is not a readable file."""
    path = Path(path)
    if not path.exists():
        raise IbsecError(f"config file {str(path)!r} does not exist")
    if not path.is_file():
        raise IbsecError(f"config file {str(path)!r} is not a file")
    return path


# Config file formats by suffix; the engine reads JSON, the others are turned into JSON for it (engine_config).
TOML_SUFFIXES = (".toml",)
YAML_SUFFIXES = (".yaml", ".yml")


def read_config(path: str | Path | None) -> dict:
    """The table of a config file ({} for none): JSON, TOML (.toml) or YAML (.yaml, .yml), read as user_text reads
    (a regular file, at most MAX_USER_TEXT_BYTES, UTF-8 with or without a byte-order mark) and checked as the
    engine's JSON reader checks (parameter_values); IbsecError naming the file and the line or key."""
    if path is None:
        return {}
    path = check_config_file(path)
    suffix = path.suffix.lower()
    text = read_user_text(path, "configuration file")
    try:
        if suffix in TOML_SUFFIXES:
            data = _read_toml(path, text)
        elif suffix in YAML_SUFFIXES:
            data = _read_yaml(path, text)
        else:
            data = user_json.loads(text)
    except ConfigError:  # _read_toml's and _read_yaml's own, naming the file already
        raise
    except user_json.DuplicateKeyError as error:
        raise ConfigError(str(path), str(error)) from None
    except json.JSONDecodeError as error:
        raise ConfigError(str(path),
                          f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except ValueError as error:  # json's int(): a number of more than 4300 digits
        raise ConfigError(str(path), f"not valid JSON: {error}") from None
    except RecursionError:  # the parsers recurse once per level: objects nested thousands deep
        raise ConfigError(str(path), "nested too deeply (a configuration is a few levels of objects)") from None
    if data is None:  # an empty YAML file, a JSON null: no parameters, as the engine reads a null document
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(str(path), "a configuration must be a table of parameters (a JSON object, a TOML "
                                     "document, a YAML mapping)")
    parameter_values(data, str(path))
    return data


def _read_toml(path: Path, text: str) -> dict:
    from ..compat import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:  # its message ends "(at line L, column C)"
        raise ConfigError(str(path), f"not valid TOML: {error}") from None
    except ValueError as error:  # int() of a number of more than 4300 digits
        raise ConfigError(str(path), f"not valid TOML: {error}") from None


def _read_yaml(path: Path, text: str):
    import yaml

    from .yaml_config import ConfigLoader

    try:
        return yaml.load(text, Loader=ConfigLoader())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(str(path), f"not valid YAML: {error.problem or error.context}{where}") from None
    except yaml.YAMLError as error:
        raise ConfigError(str(path), f"not valid YAML: {error}") from None


# The engine's JSON reader (core/json_input.h, kMaxJsonDepth) refuses values nested deeper than this.
MAX_DEPTH = 32
# The widest whole numbers a parameter takes: counts and seeds are 64-bit.
WHOLE_NUMBER_RANGE = (-(1 << 63), (1 << 64) - 1)


def parameter_values(table: dict, origin: str) -> dict:
    """The table as the engine reads a layer of parameters: nested tables become dotted keys ({"traffic": {"load":
    0.1}} -> {"traffic.load": 0.1}). ConfigError naming `origin` (a file, `set`) and the key: a key given twice,
    once dotted and once nested (the engine's own rule); a key that is not text; nesting deeper than the engine
    reads; a value JSON cannot carry to the engine (a date, NaN or infinity, a whole number beyond 64 bits, text
    that is not UTF-8). Every path that hands the engine a table checks it here: config files in every format
    before their JSON twin is written, and the API's `config=` and `set=` dicts."""
    values: dict = {}
    _flatten(table, "", 1, values, origin)
    return values


def _flatten(table: dict, prefix: str, depth: int, values: dict, origin: str) -> None:
    if depth > MAX_DEPTH:
        raise ConfigError(origin, f"'{shortened(prefix[:-1])}': nested deeper than {MAX_DEPTH} levels")
    for key, value in table.items():
        if not isinstance(key, str) or not _is_utf8(key):
            where = f" in {shortened(prefix[:-1])}" if prefix else ""
            raise ConfigError(origin, f"key {excerpt(key)}{where} is not text")
        dotted = prefix + key
        if isinstance(value, dict):
            _flatten(value, dotted + ".", depth + 1, values, origin)
            continue
        _check_value(value, dotted, depth, origin)
        if dotted in values:
            raise ConfigError(origin, f"'{shortened(dotted)}' is given twice (once with dots in its name, "
                                      "once nested)")
        values[dotted] = value


def _check_value(value, where: str, depth: int, origin: str) -> None:
    """A value as JSON carries it to the engine: numbers, text, true/false, null and lists or tables of them."""
    def refuse(problem: str):
        raise ConfigError(origin, f"'{shortened(where)}': {problem}")

    if depth > MAX_DEPTH:
        refuse(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_value(item, f"{where}[{i}]", depth + 1, origin)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or not _is_utf8(key):
                refuse(f"key {excerpt(key)} is not text")
            _check_value(item, f"{where}.{key}", depth + 1, origin)
    elif isinstance(value, float) and not math.isfinite(value):
        refuse(f"{value!r} is not a number a parameter takes (JSON has no NaN or infinity)")
    elif isinstance(value, int) and not isinstance(value, bool) and \
            not WHOLE_NUMBER_RANGE[0] <= value <= WHOLE_NUMBER_RANGE[1]:
        refuse(f"{excerpt(value)} is beyond the 64-bit whole numbers parameters take")
    elif isinstance(value, str) and not _is_utf8(value):
        refuse(f"{excerpt(value)} is not UTF-8 text")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        refuse(f"{excerpt(value)} is a {type(value).__name__}; parameters take numbers, text, true/false or lists "
               "of them")


def _is_utf8(text) -> bool:
    """False for a str holding lone surrogates (YAML's "\\ud800"), which no UTF-8 file can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_config_keys(path: str | Path, config: dict) -> None:
    """Every key of a config table is an engine parameter; else ConfigError naming the file, the key and the
    nearest parameter. (The engine checks JSON files itself; this names a TOML or YAML file, not its JSON twin.)"""
    import difflib

    known = {p["key"] for p in parameters()}
    for key in parameter_values(config, str(path)):
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1) if len(key) <= 200 else []
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError(shortened(key), f"unknown parameter (in {path}); {hint}`ibsec params` lists them")


def engine_config(path: str | Path | None, folder: str | Path) -> str | None:
    """The config file as the engine reads it, after read_config has checked it (bounded, and everything the
    engine's JSON reader refuses): a JSON file as it is; a TOML or YAML file, its keys checked too (so that an
    error names the user's file, never the twin), as its JSON twin, written into `folder` (once per content:
    CONFIG.<digest>.json)."""
    if path is None:
        return None
    config = read_config(path)
    if Path(path).suffix.lower() not in TOML_SUFFIXES + YAML_SUFFIXES:
        return str(path)  # the engine checks a JSON file's keys itself, naming the file
    check_config_keys(path, config)
    from ..output.files import write_text_output
    from .digests import text_digest

    text = json.dumps(config, indent=2, allow_nan=False) + "\n"
    twin = Path(folder) / f"{Path(path).name}.{text_digest(text)}.json"
    if not twin.is_file():
        Path(folder).mkdir(parents=True, exist_ok=True)
        write_text_output(twin, text)
    return str(twin)


def parse_override(text: str) -> tuple[str, object]:
    """'key=value' -> (key, value); the value is JSON if it parses, else a string (as the engine reads it)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError("--set", f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def config_value(config: dict, key: str):
    """The value of a dotted key in a config object, nested or dotted ({"a": {"b": 1}} or {"a.b": 1}); else KeyError."""
    if key in config:
        return config[key]
    parts = key.split(".")
    for i in range(1, len(parts)):
        head = ".".join(parts[:i])
        if isinstance(config.get(head), dict):
            try:
                return config_value(config[head], ".".join(parts[i:]))
            except KeyError:
                pass
    raise KeyError(key)


def effective_value(key: str, config: dict, overrides: list[str]):
    """What `key` will be in the run: the last --set, else the config file, else the engine's default."""
    for text in reversed(overrides):
        name, value = parse_override(text)
        if name == key:
            return value
    try:
        return config_value(config, key)
    except KeyError:
        pass
    for parameter in parameters():
        if parameter["key"] == key:
            return parameter["default"]
    raise IbsecError(f"ibsec-engine does not know the parameter {key!r}")
