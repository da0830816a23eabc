"""The YAML loader of configuration files: safe, YAML 1.2 scalars, no aliases, no key given twice.

PyYAML implements YAML 1.1, whose scalars surprise in a configuration: `nodes: 020` is 16 (octal), `load: 5e-2`
is the text "5e-2" (1.1 wants a dot in a float), `yes`/`on` are true and `1:20` is 80 (base 60). This loader
resolves plain scalars by the YAML 1.2 core schema instead, as TOML and JSON read them:

- null: `~`, `null`, `Null`, `NULL` or nothing;
- true/false: `true`, `True`, `TRUE`, `false`, `False`, `FALSE` (and nothing else: `yes` is text);
- whole numbers: decimal `[-+]?[0-9]+` (`020` is 20), `0o17` octal, `0x1F` hexadecimal;
- numbers: `[-+]?(.5|1|1.|1.5)([eE][-+]?[0-9]+)?`, `.inf`, `-.inf`, `.nan` (NaN and infinity are then refused
  as values, as in TOML and JSON);
- anything else is text (dates too).

Aliases (`*name`) are refused: a configuration has no use for them, and ten lines of nested aliases ("billion
laughs") stand for 10^9 values that every later step (the checks, the JSON twin) would walk. An anchor (`&name`)
that no alias uses is harmless and taken.
"""

from __future__ import annotations

import functools
import re

# The YAML 1.2 core schema's regular expressions (YAML 1.2.2, section 10.3.2), by tag.
NULL = re.compile(r"~|null|Null|NULL|")
BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
DECIMAL = re.compile(r"[-+]?[0-9]+")
OCTAL = re.compile(r"0o[0-7]+")
HEXADECIMAL = re.compile(r"0x[0-9a-fA-F]+")
FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
INFINITY = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
NOT_A_NUMBER = re.compile(r"\.(?:nan|NaN|NAN)")

TAG = "tag:yaml.org,2002:"


@functools.cache
def ConfigLoader(pure_python: bool = False):  # noqa: N802 - returns a class, named as one
    """The loader class (made once, on first use, so that importing ibsec does not import yaml): libyaml's parser
    when PyYAML has it (the same events, several times faster) unless `pure_python` (the tests compare both),
    else PyYAML's own."""
    import yaml
    from yaml.constructor import ConstructorError, SafeConstructor
    from yaml.resolver import BaseResolver

    class CoreSchemaResolver(BaseResolver):
        """Plain scalars resolved by the YAML 1.2 core schema (module docstring); the rest as PyYAML does."""

    for tag, pattern, first in [
        ("null", NULL, ["~", "n", "N", ""]),
        ("bool", BOOL, list("tTfF")),
        ("int", re.compile(f"(?:{DECIMAL.pattern}|{OCTAL.pattern}|{HEXADECIMAL.pattern})$"), list("-+0123456789")),
        ("float", re.compile(f"(?:{FLOAT.pattern}|{INFINITY.pattern}|{NOT_A_NUMBER.pattern})$"), list("-+.0123456789")),
    ]:
        anchored = re.compile(f"^(?:{pattern.pattern})$")
        CoreSchemaResolver.add_implicit_resolver(TAG + tag, anchored, first)

    class ConfigConstructor(SafeConstructor):
        """SafeConstructor (no Python objects) with the core schema's numbers, no aliases, no key given twice."""

        def construct_object(self, node, deep=False):
            # Without aliases, every node is reached once; a node reached again came through an alias.
            if node in self.constructed_objects or node in self.recursive_objects:
                raise ConstructorError(None, None, "a configuration takes no aliases (*name): write out the value "
                                                   "anchored", node.start_mark)
            return super().construct_object(node, deep=deep)

        def construct_mapping(self, node, deep=False):
            if not isinstance(node, yaml.MappingNode):
                raise ConstructorError(None, None, f"expected a mapping, found {node.id}", node.start_mark)
            mapping = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    repeated = key in mapping
                except TypeError:
                    raise ConstructorError(None, None, "a key must be text, not a list or mapping",
                                           key_node.start_mark) from None
                if repeated:
                    raise ConstructorError(None, None, f"{key!r} is given twice in one mapping (keys must be unique)",
                                           key_node.start_mark)
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

        def construct_core_int(self, node):
            text = self.construct_scalar(node)
            for pattern, base, skip in ((DECIMAL, 10, 0), (OCTAL, 8, 2), (HEXADECIMAL, 16, 2)):
                if pattern.fullmatch(text):
                    try:
                        return int(text[skip:], base)
                    except ValueError:  # more than 4300 decimal digits
                        break
            raise ConstructorError(None, None, f"not a whole number of YAML 1.2: {_short(text)}", node.start_mark)

        def construct_core_float(self, node):
            text = self.construct_scalar(node)
            if INFINITY.fullmatch(text):
                return float("-inf") if text.startswith("-") else float("inf")
            if NOT_A_NUMBER.fullmatch(text):
                return float("nan")
            if FLOAT.fullmatch(text) or DECIMAL.fullmatch(text):
                return float(text)
            raise ConstructorError(None, None, f"not a number of YAML 1.2: {_short(text)}", node.start_mark)

        def construct_core_bool(self, node):
            text = self.construct_scalar(node)
            if BOOL.fullmatch(text):
                return text.lower() == "true"
            raise ConstructorError(None, None, f"not true or false: {_short(text)}", node.start_mark)

        def construct_core_null(self, node):
            text = self.construct_scalar(node)
            if NULL.fullmatch(text):
                return None
            raise ConstructorError(None, None, f"not null: {_short(text)}", node.start_mark)

        def construct_timestamp(self, node):
            # The core schema has no dates (an unquoted 2024-01-01 is text); PyYAML's own constructor fails with an
            # AttributeError on an explicit !!timestamp that is not a date.
            raise ConstructorError(None, None, "a configuration takes no dates (!!timestamp)", node.start_mark)

    for tag, method in (("int", ConfigConstructor.construct_core_int),
                        ("timestamp", ConfigConstructor.construct_timestamp),
                        ("float", ConfigConstructor.construct_core_float),
                        ("bool", ConfigConstructor.construct_core_bool),
                        ("null", ConfigConstructor.construct_core_null)):
        ConfigConstructor.add_constructor(TAG + tag, method)

    try:
        from yaml.cyaml import CParser as parser
    except ImportError:  # PyYAML built without libyaml
        parser = None
    if parser is None or pure_python:
        from yaml.composer import Composer
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PurePythonLoader(Reader, Scanner, Parser, Composer, ConfigConstructor, CoreSchemaResolver):
            def __init__(self, stream):
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)
                Composer.__init__(self)
                ConfigConstructor.__init__(self)
                CoreSchemaResolver.__init__(self)

        return PurePythonLoader

    class LibyamlLoader(parser, ConfigConstructor, CoreSchemaResolver):
        def __init__(self, stream):
            parser.__init__(self, stream)
            ConfigConstructor.__init__(self)
            CoreSchemaResolver.__init__(self)

    return LibyamlLoader


def _short(text: str) -> str:
    from ..user_text import excerpt

    return excerpt(text)
