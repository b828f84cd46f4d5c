"""The graph and service modules keep their Cypher in cypher/*.cypher named sections, not in Python strings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MODULES = sorted([*(ROOT / "dkg" / "graph").glob("*.py"), *(ROOT / "dkg" / "services").glob("*.py")])
CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND)\s*\(|\bRETURN\s+\w+(\.\w+)?\s+AS\b|\bDETACH\s+DELETE\b")


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_no_cypher_in_python_strings(module: Path) -> None:
    tree = ast.parse(module.read_text())
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and CYPHER.search(node.value)]
    assert not found, f"{module.name}: Cypher in Python strings at lines {found}; move it to cypher/*.cypher"


def test_the_check_finds_cypher() -> None:
    assert CYPHER.search("MATCH (g:GuidelineVersion {uid: $gv}) RETURN g.source_sha AS sha")
    assert not CYPHER.search("schema statement must be CREATE … IF NOT EXISTS or DROP … IF EXISTS")
