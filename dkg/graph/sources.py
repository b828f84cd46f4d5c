"""Build inputs straight from guideline source files (the corpus YAML), bypassing PDF parsing.

Used to build the reference graph of a guideline version (tests, QA data, `dkg diff` on sources).
"""

from __future__ import annotations

from pathlib import Path

from dkg.corpus.expand import expand_footnotes, gold_arrows
from dkg.corpus.model import Guideline, discover, load_guideline
from dkg.errors import BuildError
from dkg.graph.build_input import BuildInput
from dkg.types import Constraint


def input_from_guideline(guideline: Guideline) -> BuildInput:
    """The build input of a validated guideline source (expanded texts, gold constraints)."""
    build = BuildInput(guideline.guideline, guideline.version, guideline.title, guideline.effective)
    for arrow in gold_arrows(guideline):
        where = f"{guideline.guideline} {guideline.version} page {arrow.page}"
        head = build.add_node(expand_footnotes(arrow.head.text, guideline.footnotes),
                              [Constraint.parse(c) for c in arrow.head.constraints], where, arrow.page, arrow.head.id)
        tail = build.add_node(expand_footnotes(arrow.tail.text, guideline.footnotes),
                              [Constraint.parse(c) for c in arrow.tail.constraints], where, arrow.page, arrow.tail.id)
        build.add_edge(head, tail, arrow.label, [Constraint.parse(c) for c in arrow.label_constraints])
    return build


def source_path(guideline: str, version: str, root: Path | None = None) -> Path:
    """The YAML source of a guideline version, or a :class:`BuildError` listing what exists."""
    available = discover(root)
    for code, ver, path in available:
        if code.casefold() == guideline.casefold() and ver == version:
            return path
    known = ", ".join(f"{c} {v}" for c, v, _ in available) or "none"
    raise BuildError(f"no source for guideline {guideline!r} version {version!r}; available: {known}")


def input_from_source(guideline: str, version: str, root: Path | None = None) -> BuildInput:
    return input_from_guideline(load_guideline(source_path(guideline, version, root)))
