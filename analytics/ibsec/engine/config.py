"""Configuration files of `ibsec-engine run` and their `--set KEY=VALUE` overrides, as Python reads them."""

from __future__ import annotations

import json
from pathlib import Path

from .. import user_json
from ..errors import ConfigError, IbsecError
from .binary import CHECKOUT, parameters

# The configurations shipped with the source checkout (configs/README.md), found by name from anywhere.
SHIPPED_CONFIGS = CHECKOUT / "configs"


def check_config_file(path: str | Path) -> Path:
    """The config file as a Path, or IbsecError naming it if it is not a readable file."""
    path = Path(path)
    if not path.exists():
        raise IbsecError(f"config file {str(path)!r} does not exist")
    if not path.is_file():
        raise IbsecError(f"config file {str(path)!r} is not a file")
    return path


def shipped_config_names() -> list[str]:
    """The names of the shipped configurations ('paper-16', ...), sorted."""
    return sorted(path.stem for path in SHIPPED_CONFIGS.glob("*.json")) if SHIPPED_CONFIGS.is_dir() else []


def config_path(config: str | Path) -> Path:
    """A config file: the path given when it names a file, else a shipped configuration by name
    ('paper-16' -> configs/paper-16.json of the checkout); IbsecError naming both and the shipped names if neither."""
    path = Path(config)
    if path.exists():
        return check_config_file(path)
    shipped = SHIPPED_CONFIGS / f"{path.name}.json"
    if path.name == str(config) and shipped.is_file():
        return shipped
    names = shipped_config_names()
    raise IbsecError(f"config file {str(config)!r} does not exist, nor is it a shipped configuration "
                     f"(shipped: {', '.join(names) if names else 'none found'})")


def read_config(path: str | Path | None) -> dict:
    """The JSON object of a config file ({} for none), or IbsecError naming the file and line."""
    if path is None:
        return {}
    path = check_config_file(path)
    try:
        data = user_json.loads(path.read_text(encoding="utf-8"))
    except user_json.DuplicateKeyError as error:
        raise ConfigError(str(path), str(error)) from None
    except UnicodeDecodeError as error:
        raise ConfigError(str(path), f"not UTF-8 text ({error})") from None
    except json.JSONDecodeError as error:
        raise ConfigError(str(path),
                          f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:  # json recurses once per level: objects nested thousands deep
        raise ConfigError(str(path), "nested too deeply (a configuration is a few levels of objects)") from None
    if not isinstance(data, dict):
        raise ConfigError(str(path), "a configuration must be a JSON object")
    return data


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
