"""Configuration files of `ibsec-engine run` (JSON, or TOML and YAML turned into JSON for it) and their
`--set KEY=VALUE` overrides, as Python reads them."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .. import user_json
from ..errors import ConfigError, IbsecError
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
    """The table of a config file ({} for none): JSON, TOML (.toml) or YAML (.yaml, .yml); IbsecError naming the
    file and line."""
    if path is None:
        return {}
    path = check_config_file(path)
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8")
        if suffix in TOML_SUFFIXES:
            data = _read_toml(path, text)
        elif suffix in YAML_SUFFIXES:
            data = _read_yaml(path, text)
        else:
            data = user_json.loads(text)
    except user_json.DuplicateKeyError as error:
        raise ConfigError(str(path), str(error)) from None
    except UnicodeDecodeError as error:
        raise ConfigError(str(path), f"not UTF-8 text ({error})") from None
    except json.JSONDecodeError as error:
        raise ConfigError(str(path),
                          f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:  # the parsers recurse once per level: objects nested thousands deep
        raise ConfigError(str(path), "nested too deeply (a configuration is a few levels of objects)") from None
    if not isinstance(data, dict):
        raise ConfigError(str(path), "a configuration must be a table of parameters (a JSON object, a TOML "
                                     "document, a YAML mapping)")
    if suffix in TOML_SUFFIXES + YAML_SUFFIXES:
        _check_json_values(path, data, "")
    return data


def _read_toml(path: Path, text: str) -> dict:
    from ..compat import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:  # its message ends "(at line L, column C)"
        raise ConfigError(str(path), f"not valid TOML: {error}") from None


@functools.cache
def _unique_key_loader():
    """PyYAML's safe loader, refusing a key given twice in one mapping (PyYAML keeps the last without a word)."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"{key!r} is given twice in one mapping (keys must be unique)", key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def _read_yaml(path: Path, text: str):
    import yaml

    try:
        return yaml.load(text, Loader=_unique_key_loader())  # a SafeLoader: no Python objects
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(str(path), f"not valid YAML: {error.problem or error.context}{where}") from None
    except yaml.YAMLError as error:
        raise ConfigError(str(path), f"not valid YAML: {error}") from None


def _check_json_values(path: Path, value, where: str) -> None:
    """TOML and YAML have dates and times, which no parameter takes: name the first one found."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigError(str(path), f"key {key!r}{' in ' + where if where else ''} is not text")
            _check_json_values(path, item, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_values(path, item, f"{where}[{i}]")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        raise ConfigError(str(path), f"'{where}': {value!r} is a {type(value).__name__}; parameters take numbers, "
                                     "text, true/false or lists of them")


def check_config_keys(path: str | Path, config: dict) -> None:
    """Every key of a config table is an engine parameter; else ConfigError naming the file, the key and the
    nearest parameter. (The engine checks JSON files itself; this names a TOML or YAML file, not its JSON twin.)"""
    import difflib

    known = {p["key"] for p in parameters()}
    for key in _dotted_keys(config, known):
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError(key, f"unknown parameter (in {path}); {hint}`ibsec params` lists them")


def _dotted_keys(table: dict, known: set[str], prefix: str = "") -> list[str]:
    """The dotted keys of a nested table, descending into a sub-table unless its own key is a parameter."""
    keys = []
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and dotted not in known:
            keys += _dotted_keys(value, known, dotted + ".")
        else:
            keys.append(dotted)
    return keys


def engine_config(path: str | Path | None, folder: str | Path) -> str | None:
    """The config file as the engine reads it: a JSON file as it is; a TOML or YAML file as its JSON twin, written
    into `folder` (once per content: CONFIG.<digest>.json), after its keys are checked."""
    if path is None or Path(path).suffix.lower() not in TOML_SUFFIXES + YAML_SUFFIXES:
        return None if path is None else str(path)
    from ..output.files import write_text_output
    from .digests import text_digest

    config = read_config(path)
    check_config_keys(path, config)
    text = json.dumps(config, indent=2) + "\n"
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
