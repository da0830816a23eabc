"""The package runs on the oldest Python pyproject.toml allows (3.10, Ubuntu 22.04): no syntax and no standard
library names that came later, outside the one module that picks a fallback for them (compat.py)."""

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "analytics" / "ibsec"
OLDEST = (3, 10)
# Standard-library modules and names that Python 3.11 or later added (What's New in Python 3.11, 3.12, 3.13).
NEWER_MODULES = {"tomllib": "tomllib (3.11): import it from ibsec.compat"}
NEWER_NAMES = {
    ("typing", "Self"): "3.11", ("typing", "LiteralString"): "3.11", ("typing", "Never"): "3.11",
    ("typing", "override"): "3.12", ("enum", "StrEnum"): "3.11", ("asyncio", "TaskGroup"): "3.11",
    ("datetime", "UTC"): "3.11: use datetime.timezone.utc", ("hashlib", "file_digest"): "3.11",
    ("itertools", "batched"): "3.12",
}
NEWER_BUILTINS = {"ExceptionGroup": "3.11", "BaseExceptionGroup": "3.11"}


def sources() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path.name != "compat.py")


def test_requires_python_is_the_oldest_checked_here():
    text = (REPO / "analytics" / "pyproject.toml").read_text()
    assert re.search(r'requires-python = ">=3\.10"', text)
    assert "tomli>=1.1; python_version < '3.11'" in text


def newer_uses(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.TryStar):  # except* (3.11)
            found.append(f"{where}: except* (3.11)")
        elif isinstance(node, ast.Import):
            found += [f"{where}: {NEWER_MODULES[a.name]}" for a in node.names if a.name in NEWER_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module in NEWER_MODULES:
                found.append(f"{where}: {NEWER_MODULES[node.module]}")
            found += [f"{where}: {node.module}.{a.name} ({NEWER_NAMES[node.module, a.name]})" for a in node.names
                      if (node.module, a.name) in NEWER_NAMES]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and (node.value.id, node.attr) in NEWER_NAMES:
            found.append(f"{where}: {node.value.id}.{node.attr} ({NEWER_NAMES[node.value.id, node.attr]})")
        elif isinstance(node, ast.Name) and node.id in NEWER_BUILTINS:
            found.append(f"{where}: {node.id} ({NEWER_BUILTINS[node.id]})")
    return found


def test_the_check_finds_what_it_looks_for():
    code = ("import tomllib\nfrom typing import Self\nimport datetime\nx = datetime.UTC\n"
            "try:\n    pass\nexcept* ValueError:\n    pass\n")
    assert len(newer_uses(ast.parse(code))) == 4
    assert newer_uses(ast.parse("override = 1\nfrom ..compat import tomllib\n")) == []


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_module_parses_and_uses_nothing_newer_than_python_3_10(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), feature_version=OLDEST)
    found = newer_uses(tree)
    assert not found, f"{path}: " + "; ".join(found)
