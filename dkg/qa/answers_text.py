"""Answer text built from query rows: one function shared by the dataset generator and the service, so a
correct node always yields the reference answer text."""

from __future__ import annotations

from typing import Any

from dkg.qa.queries import QuestionType


def answer_text(qtype: QuestionType, rows: list[dict[str, Any]], treatment: str | None = None) -> str:
    """Human-readable answer for the rows of one query (empty string when there are no rows)."""
    if not rows:
        return ""
    assumed = sorted({k for r in rows for k in (r.get("assumed") or [])})
    note = f" (assuming conditions the question does not state: {', '.join(assumed)})" if assumed else ""
    return _text(qtype, rows, treatment) + note


def _text(qtype: QuestionType, rows: list[dict[str, Any]], treatment: str | None) -> str:
    if qtype is QuestionType.NEXT_STEP:
        return " | ".join(str(r["content"]) for r in rows)
    if qtype is QuestionType.ADVISE:
        row = rows[0]
        if row.get("advisable"):
            named = str(treatment or "").lower()
            if named and not any(named in str(o).lower() for o in row.get("options") or []) and \
                    any(named in str(o).lower() for o in row.get("option_details") or []):
                return (f"Yes: {treatment} is named in this step's options' parentheses or footnotes. "
                        f"Recommended: {row['content']}")
            return f"Yes: {treatment} is among the recommended options. Recommended: {row['content']}"
        return f"No: {treatment} is not recommended here. Recommended instead: {row['content']}"
    return " | ".join(f"{r['content']} (conditions: {', '.join(r['constraints']) or 'none'})" for r in rows)
