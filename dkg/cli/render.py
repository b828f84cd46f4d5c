"""How answers and their evidence look in a terminal (shared by `dkg ask`, `dkg retrieve` and `dkg demo`).

Everything printed here comes from users, the graph or generated queries, so it is printed as plain
text (never read as rich markup: ``[r:NEXT_STEP]`` and ``facts[k]`` must survive).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from dkg.answers import Answer, Evidence

EVIDENCE_TEXT_CHARS = 160
# Below this many columns the evidence is a list, not a table; the table's column bounds keep its text
# column wide enough that words are not split.
WIDE_MIN_COLUMNS = 100
TEXT_MIN_WIDTH = 30
WHERE_MAX_WIDTH = 24
FIELDS_MAX_WIDTH = 20


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
    """The evidence text on one line, cut between words after at most :data:`EVIDENCE_TEXT_CHARS` characters."""
    text = " ".join(e.content.split())
    if len(text) <= EVIDENCE_TEXT_CHARS:
        return text
    return text[: EVIDENCE_TEXT_CHARS + 1].rsplit(" ", 1)[0] + " …"


def print_evidence(out: Console, evidence: Sequence[Evidence]) -> None:
    """Evidence items with score, kind, source, provenance, text and the best-matching fields: a table when the
    terminal has at least :data:`WIDE_MIN_COLUMNS` columns, else an indented list whose text wraps between
    words (a table's text column would be about 11 characters wide at 80 columns and split words)."""
    if out.width >= WIDE_MIN_COLUMNS:
        _evidence_table(out, evidence)
    else:
        _evidence_list(out, evidence)


def _where(e: Evidence) -> list[str]:
    """Kind, source (guideline, version and pages, or the PDQ URL) and GRAG provenance of an evidence item."""
    from dkg.retrieval.grag import source_of

    return [part for part in (e.kind, source_of(e), _provenance(e), e.reason or "") if part]


def _evidence_table(out: Console, evidence: Sequence[Evidence]) -> None:
    table = Table(show_lines=False)
    table.add_column("#", no_wrap=True)
    table.add_column("score", no_wrap=True)
    table.add_column("where", max_width=WHERE_MAX_WIDTH, overflow="fold")
    table.add_column("text", ratio=1, min_width=TEXT_MIN_WIDTH)
    table.add_column("fields", max_width=FIELDS_MAX_WIDTH)
    for i, e in enumerate(evidence, start=1):
        table.add_row(str(i), f"{e.score:.3f}" if e.score is not None else "", Text("\n".join(_where(e))),
                      Text(_text(e)), Text(_fields(e)))
    out.print(table)


def _evidence_list(out: Console, evidence: Sequence[Evidence]) -> None:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for i, e in enumerate(evidence, start=1):
        score = f"{e.score:.3f}  " if e.score is not None else ""
        lines = [Text(score + " · ".join(_where(e)), style="dim"), Text(_text(e))]
        if _fields(e):
            lines.append(Text(f"fields: {_fields(e)}", style="dim"))
        grid.add_row(Text(f"{i}.", style="bold"), Group(*lines))
    out.print(grid)


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
    if answer.missing_facts:
        from dkg.qa.pathway import clarification, stated_facts

        _label(out, "to go further", clarification(stated_facts(answer.cypher_params), answer.missing_facts))
    evidence = answer.evidence[:evidence_limit] if evidence_limit is not None else answer.evidence
    if evidence:
        _label(out, "evidence")
        print_evidence(out, evidence)
        paths = [e for e in evidence if e.path][:3] if show_paths else []
        if paths:
            _label(out, "evidence path (root → node; GRAG: seed → node)")
            for e in paths:
                via = f"   (reached from seed {e.seed_uid}, {e.hop} hop(s))" if e.hop else ""
                out.print(Padding(Text(f"{' > '.join(e.path)}{via}"), (0, 0, 0, 2), expand=False), highlight=False)
    if show_disclaimer:
        out.print(answer.disclaimer, style="dim", markup=False, highlight=False)
