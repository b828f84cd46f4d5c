"""How answers and their evidence look in a terminal (shared by `dkg ask`, `dkg retrieve` and `dkg demo`).

Everything printed here comes from users, the graph or generated queries, so it is printed as plain
text (never read as rich markup: ``[r:NEXT_STEP]`` and ``facts[k]`` must survive).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dkg.answers import Answer, Evidence

EVIDENCE_TEXT_CHARS = 160


def _label(out: Console, label: str, value: str = "", *, style: str = "bold") -> None:
    line = Text(f"{label}:", style=style)
    if value:
        line.append(f" {value}", style="")
    out.print(line, highlight=False)


def _fields(e: Evidence) -> str:
    return ", ".join(f"{f} {v:.2f}" for f, v in sorted(e.field_contributions.items(), key=lambda x: -x[1]) if v > 0)


def _provenance(e: Evidence) -> str:
    return "" if e.hop is None else "seed" if e.hop == 0 else f"{e.hop} hop(s) from {e.seed_uid}"


def _text(e: Evidence) -> str:
    text = " ".join(e.content.split())
    return text[:EVIDENCE_TEXT_CHARS] + ("…" if len(text) > EVIDENCE_TEXT_CHARS else "")


def print_evidence(out: Console, evidence: Sequence[Evidence]) -> None:
    """A table of evidence items: score, kind, source, provenance and the best-matching fields."""
    from dkg.retrieval.grag import source_of

    table = Table(show_lines=False)
    for col in ("#", "score", "kind", "source", "seed / hop", "text", "fields"):
        table.add_column(col, overflow="fold")
    for i, e in enumerate(evidence, start=1):
        table.add_row(str(i), f"{e.score:.3f}" if e.score is not None else "", Text(e.kind), Text(source_of(e)),
                      Text(_provenance(e)), Text(_text(e)), Text(_fields(e)))
    out.print(table)


def print_answer(out: Console, answer: Answer, *, notes: Sequence[str] = (), elapsed_ms: float | None = None,
                 also_retrieved: Sequence[Evidence] = (), evidence_limit: int | None = None,
                 show_paths: bool = True, show_disclaimer: bool = True) -> None:
    """Route, notes, Cypher and parameters, the answer (or why there is none), evidence and evidence paths.

    ``also_retrieved`` is what the GRAG route found when another route answered (``--explain``).
    """
    route = Text("route:", style="bold")
    route.append(f" {answer.route}", style="")
    if elapsed_ms is not None:
        route.append(f"   ({elapsed_ms:.0f} ms)", style="dim")
    out.print(route, highlight=False)
    for note in notes:
        _label(out, "note", note, style="yellow")
    if answer.cypher:
        _label(out, "cypher")
        out.print(answer.cypher, markup=False, highlight=False)
        if answer.cypher_params:
            _label(out, "params", json.dumps(answer.cypher_params))
    if also_retrieved:
        _label(out, "GRAG retrieved")
        print_evidence(out, also_retrieved)
    _label(out, "answer", answer.answer or answer.no_answer_reason or "")
    evidence = answer.evidence[:evidence_limit] if evidence_limit is not None else answer.evidence
    if evidence:
        _label(out, "evidence")
        print_evidence(out, evidence)
        paths = [e for e in evidence if e.path][:3] if show_paths else []
        if paths:
            _label(out, "evidence path (root → node; GRAG: seed → node)")
            for e in paths:
                via = f"   (reached from seed {e.seed_uid}, {e.hop} hop(s))" if e.hop else ""
                out.print(f"  {' > '.join(e.path)}{via}", markup=False, highlight=False)
    if show_disclaimer:
        out.print(answer.disclaimer, style="dim", markup=False, highlight=False)
