"""Every module keeps its Cypher in cypher/*.cypher named sections, not in Python strings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Strings that look like Cypher but are not statements the module runs, by module and the names that hold them.
NOT_STATEMENTS = {
    "api/adversarial.py": {"INJECTIONS"},  # attack payloads sent as user text, never run as Cypher
    # the start clause of cypher/qa.cypher's bodies, swapped, and the step after a done one, spliced into next_step
    "qa/pathway.py": {"_ROOT_CLAUSE", "_FROM_STARTS", "_NEXT_STEP_EDITS"},
}
MODULES = sorted((ROOT / "dkg").rglob("*.py"))


def _exempt_lines(module: Path, tree: ast.Module) -> set[int]:
    names = NOT_STATEMENTS.get(module.relative_to(ROOT / "dkg").as_posix(), set())
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in names for t in targets):
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines
CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND)\s*\(|\bRETURN\s+\w+(\.\w+)?\s+AS\b|\bDETACH\s+DELETE\b")


@pytest.mark.parametrize("module", MODULES, ids=[m.relative_to(ROOT / "dkg").as_posix() for m in MODULES])
def test_no_cypher_in_python_strings(module: Path) -> None:
    tree = ast.parse(module.read_text())
    exempt = _exempt_lines(module, tree)
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and CYPHER.search(node.value)
             and node.lineno not in exempt]
    assert not found, f"{module.name}: Cypher in Python strings at lines {found}; move it to cypher/*.cypher"


def test_the_check_finds_cypher() -> None:
    assert CYPHER.search("MATCH (g:GuidelineVersion {uid: $gv}) RETURN g.source_sha AS sha")
    assert not CYPHER.search("schema statement must be CREATE … IF NOT EXISTS or DROP … IF EXISTS")
