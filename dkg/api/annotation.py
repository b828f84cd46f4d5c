"""Relevance annotation: the pooled top-k of every retrieval method for one query, and expert judgments saved
as versioned qrels files in the question-set format ``dkg eval retrieval`` reads.

A saved version ``datasets/retrieval/qrels/annotated-vNNNN.jsonl`` holds every judged query so far (one JSON
line per query: ``qid``, ``set``, ``question``, ``qrels`` {version-free node id: grade 1–3}, ``meta``); a query
judged again replaces its earlier line. Versions are never overwritten. Evaluate one with
``dkg eval retrieval --sets qrels/annotated-vNNNN``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from dkg.config import PROJECT_ROOT
from dkg.errors import DKGError
from dkg.graph.db import Graph, named_queries
from dkg.retrieval.questions import Question, load_set, version_free

QRELS_DIR = PROJECT_ROOT / "datasets" / "retrieval" / "qrels"
SET_NAME = "annotated"
_VERSION_FILE = re.compile(rf"^{SET_NAME}-v(\d{{4}})\.jsonl$")
_lock = threading.Lock()


class Label(StrEnum):
    GRADE_3 = "3"
    GRADE_2 = "2"
    GRADE_1 = "1"
    IRRELEVANT = "irrelevant"
    DUPLICATE = "duplicate"


class Judgment(BaseModel):
    uid: str = Field(min_length=1, max_length=200)
    label: Label
    added: bool = Field(default=False, description="added by the expert (not retrieved by any method)")


class UnknownResultError(DKGError):
    """A judgment names a result id that is neither a retrievable item nor a guideline node of the graph."""


def check_known(graph: Graph, judgments: Sequence[Judgment]) -> None:
    """Raise :class:`UnknownResultError` naming every judged id the graph does not hold (a qrels file must
    only ever cite results that exist)."""
    ids = sorted({j.uid for j in judgments})
    rows = graph.read(named_queries("api")["known_result_ids"], {"ids": ids})
    unknown = [row["id"] for row in rows if not row["known"]]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise UnknownResultError(f"unknown result id(s) {shown}: judge only results of /api/annotation/pool or "
                                 "nodes found with /api/nodes (ids as 'guideline|version|key' or a knowledge "
                                 "section id)")


def query_id(query: str) -> str:
    """A stable id of a query text (whitespace and case ignored).

    >>> query_id("Why is MRD monitored?") == query_id("  why is mrd   monitored?")
    True
    """
    norm = " ".join(query.split()).casefold()
    return f"{SET_NAME}:{hashlib.sha1(norm.encode()).hexdigest()[:10]}"


def to_question(query: str, judgments: Sequence[Judgment], annotator: str, at: str | None = None) -> Question:
    """One judged query as a benchmark question: graded results become qrels (version-free ids); duplicates
    and irrelevant results are kept in ``meta`` only (they count as not relevant).

    >>> q = to_question("q", [Judgment(uid="ALL|1.2026|a", label="3"), Judgment(uid="s1", label="duplicate")], "x")
    >>> q.qrels, q.meta["duplicate"]
    ({'ALL|*|a': 3.0}, 's1')
    """
    qrels: dict[str, float] = {}
    by_label: dict[str, list[str]] = {label.value: [] for label in (Label.IRRELEVANT, Label.DUPLICATE)}
    added: list[str] = []
    for j in judgments:
        rid = version_free(j.uid)
        if j.added:
            added.append(rid)
        if j.label in (Label.IRRELEVANT, Label.DUPLICATE):
            by_label[j.label.value].append(rid)
            qrels.pop(rid, None)
        else:
            qrels[rid] = max(qrels.get(rid, 0.0), float(j.label.value))
    if not qrels:
        raise DKGError("mark at least one result relevant (3, 2 or 1): a query without relevant results cannot "
                       "be scored")
    meta = {"annotator": annotator, "saved_at": at or datetime.now(UTC).isoformat(timespec="seconds"),
            "added": ",".join(sorted(set(added))),
            **{k: ",".join(sorted(set(v))) for k, v in by_label.items()}}
    return Question(query_id(query), SET_NAME, " ".join(query.split()), qrels, meta)


def versions(folder: Path = QRELS_DIR) -> list[Path]:
    """Saved versions, oldest first."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _VERSION_FILE.match(p.name))


def load_version(path: Path) -> list[Question]:
    return load_set(path.stem, path.parent)


def save(question: Question, folder: Path = QRELS_DIR) -> Path:
    """Write a new version: the latest one's questions with ``question`` added or replaced."""
    with _lock:
        existing = versions(folder)
        items = load_version(existing[-1]) if existing else []
        items = [q for q in items if q.qid != question.qid] + [question]
        number = int(_VERSION_FILE.match(existing[-1].name)[1]) + 1 if existing else 1  # type: ignore[index]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{SET_NAME}-v{number:04d}.jsonl"
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(asdict(q), sort_keys=True) + "\n" for q in items))
        os.replace(tmp, path)
        return path


def pool(retriever: Any, query: str, k: int, methods: Sequence[str]) -> dict[str, Any]:
    """Each method's top-``k`` and their union (one row per version-free id, with each method's rank)."""
    ranked: dict[str, list[str]] = {}
    first_rid: dict[str, str] = {}
    for method in methods:
        hits = retriever.search(query, method, k * 2)
        ids: list[str] = []
        for h in hits:
            vf = version_free(h.rid)
            if vf not in ids:
                ids.append(vf)
                first_rid.setdefault(vf, h.rid)
        ranked[method] = ids[:k]
    pooled = [vf for vf in first_rid if any(vf in r for r in ranked.values())]
    from dkg.retrieval.types import Hit
    evidence = {version_free(e.node_uid): e for e in retriever.evidence(query, [Hit(first_rid[v], 0.0, 0.0)
                                                                                  for v in pooled])}
    rows: list[dict[str, Any]] = []
    for vf in pooled:
        e = evidence.get(vf)
        rows.append({"id": vf, "uid": first_rid[vf], "kind": e.kind if e else "", "content": e.content if e else vf,
                     "guideline": e.guideline if e else None, "source_url": e.source_url if e else None,
                     "ranks": {m: ranked[m].index(vf) + 1 for m in methods if vf in ranked[m]}})
    rows.sort(key=lambda r: min(r["ranks"].values()))
    return {"query": query, "qid": query_id(query), "k": k, "methods": list(methods), "results": rows}
