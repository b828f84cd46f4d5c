"""The static knowledge layer: MedQuAD CancerGov answers as ``(:Disease)-[:HAS_SECTION]->(:Section)``,
guideline versions linked to their diseases, and treatments linked to the sections that name them.

Graph shape (see ``cypher/retrieval_knowledge.cypher``)::

    (:Disease {name, uid})-[:HAS_SECTION]->(:Section {uid, qtype, text, url, question, focus, doc_id})
    (:GuidelineVersion)-[:COVERS]->(:Disease)           diseases listed in the guideline YAML
    (:Treatment)-[:DESCRIBED_IN]->(:Section)             the section text names the treatment
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from neo4j import ManagedTransaction

from dkg.corpus.model import discover, load_guideline
from dkg.graph.db import Graph, named_queries
from dkg.retrieval.errors import KnowledgeSourceError

QA_FILE = "qa.jsonl"
_REQUIRED = ("uid", "focus", "url", "qtype", "question", "answer")

# Treatment names too generic to link on a text match: a PDQ section that says "chemotherapy" does not
# describe the guideline's particular "chemotherapy" option. Only distinctive names are linked.
GENERIC_TREATMENT_WORDS = frozenset({
    "chemotherapy", "radiotherapy", "radiation", "therapy", "surgery", "resection", "observation", "surveillance",
    "clinical", "trial", "staging", "biopsy", "targeted", "immunotherapy", "treatment", "care", "supportive",
    "best", "continue", "close", "new", "lesion", "high-dose", "second-line", "first-line", "wide", "excision",
    "primary", "definitive", "palliative", "postoperative", "preoperative", "adjuvant", "neoadjuvant", "review",
    "imaging", "scan", "bone", "assessment", "monitoring", "maintenance", "consolidation", "induction", "with",
    "and", "or", "of", "the", "a", "for", "to", "then", "before", "after", "alone", "local", "control", "transplant",
    "allogeneic", "hct", "stem", "cell", "rescue", "regimen", "plan", "planning", "ct", "mri", "pet/ct", "tki",
    "core", "needle",
})


@dataclass(frozen=True)
class SectionRecord:
    """One MedQuAD answer, as stored on a :Section node."""

    uid: str
    doc_id: str
    focus: str
    url: str
    qtype: str
    question: str
    text: str


def disease_uid(name: str) -> str:
    """The retrieval id of a :Disease node."""
    return f"disease:{name}"


def treatment_rid(name: str) -> str:
    """The retrieval id of a :Treatment node (treatments are keyed by name)."""
    return f"treatment:{name}"


def qa_path(medquad_dir: Path) -> Path:
    """The qa.jsonl file inside ``medquad_dir``, or a :class:`KnowledgeSourceError` saying how to point at it."""
    path = Path(medquad_dir) / QA_FILE
    if not path.is_file():
        raise KnowledgeSourceError(
            f"MedQuAD file {path} not found; set DKG_RETRIEVAL_MEDQUAD_DIR to the folder holding {QA_FILE} "
            "(by default datasets/medquad-cancergov in the repository)."
        )
    return path


def load_sections(medquad_dir: Path, *, limit_foci: Iterable[str] | None = None) -> list[SectionRecord]:
    """Read the MedQuAD answers (optionally only those whose focus is in ``limit_foci``)."""
    path = qa_path(medquad_dir)
    wanted = set(limit_foci) if limit_foci is not None else None
    records: list[SectionRecord] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise KnowledgeSourceError(f"{path}:{lineno}: not JSON ({exc.msg})") from exc
        missing = [k for k in _REQUIRED if not isinstance(row.get(k), str) or not row.get(k)]
        if missing:
            raise KnowledgeSourceError(f"{path}:{lineno}: missing field(s) {', '.join(missing)}")
        if wanted is not None and row["focus"] not in wanted:
            continue
        records.append(SectionRecord(uid=row["uid"], doc_id=str(row.get("doc_id", "")), focus=row["focus"],
                                     url=row["url"], qtype=row["qtype"], question=row["question"],
                                     text=row["answer"]))
    return records


def source_sha(sections: Sequence[SectionRecord]) -> str:
    """A digest of the loaded sections (stored on the graph to skip unchanged reloads)."""
    digest = hashlib.sha256()
    for s in sections:
        digest.update(json.dumps([s.uid, s.focus, s.url, s.qtype, s.question, s.text]).encode())
    return digest.hexdigest()[:16]


def _component_pattern(component: str) -> re.Pattern[str] | None:
    words = component.split()
    if not words or all(w in GENERIC_TREATMENT_WORDS for w in words) or len(component) < 5:
        return None
    return re.compile(r"(?<![\w-])" + re.escape(component) + r"(?![\w-])", re.IGNORECASE)


def treatment_patterns(name: str) -> list[re.Pattern[str]] | None:
    """Whole-word patterns that must ALL match for a section to describe treatment ``name``; None if generic.

    >>> [p.pattern for p in treatment_patterns("nivolumab + ipilimumab")]
    ['(?<![\\\\w-])nivolumab(?![\\\\w-])', '(?<![\\\\w-])ipilimumab(?![\\\\w-])']
    >>> treatment_patterns("second-line chemotherapy") is None
    True
    """
    components = [c.strip() for c in name.casefold().split("+")]
    if len(components) > 3 or any(len(c.split()) > 3 for c in components):
        return None
    patterns = [_component_pattern(c) for c in components]
    if any(p is None for p in patterns):
        return None
    return [p for p in patterns if p is not None]


def treatment_links(treatments: Iterable[str], sections: Iterable[SectionRecord]) -> list[dict[str, str]]:
    """(treatment name, section uid) pairs where the section text names the (distinctive) treatment."""
    compiled = {name: pats for name in treatments if (pats := treatment_patterns(name))}
    links = []
    for section in sections:
        for name, pats in compiled.items():
            if all(p.search(section.text) for p in pats):
                links.append({"name": name, "uid": section.uid})
    return links


def guideline_diseases(root: Path | None = None) -> dict[str, list[str]]:
    """``{'<guideline>|<version>': [disease names]}`` from every guideline source's ``diseases`` field."""
    return {f"{g.guideline}|{g.version}": list(g.diseases)
            for g in (load_guideline(path) for _, _, path in discover(root))}


@dataclass(frozen=True)
class KnowledgeReport:
    diseases: int
    sections: int
    covers: int
    described_in: int
    skipped: bool


def load_knowledge(graph: Graph, medquad_dir: Path, *, limit_foci: Iterable[str] | None = None,
                   force: bool = False) -> KnowledgeReport:
    """Write the knowledge layer in one transaction (idempotent; skipped when source and links are unchanged)."""
    graph.apply_schema()
    q = named_queries("retrieval_knowledge")
    sections = load_sections(medquad_dir, limit_foci=limit_foci)
    covers = [{"gv": gv, "name": d} for gv, names in guideline_diseases().items() for d in names]
    existing_gv = {r["uid"] for r in graph.read(q["guideline_versions"])}
    covers = [c for c in covers if c["gv"] in existing_gv]
    treatments = [r["name"] for r in graph.read(q["treatment_names"])]
    links = treatment_links(treatments, sections)
    sha = source_sha(sections) + hashlib.sha1(json.dumps([covers, links], sort_keys=True).encode()).hexdigest()[:8]
    meta = graph.read(q["knowledge_meta"])
    if not force and meta and meta[0]["sha"] == sha:
        return KnowledgeReport(len({s.focus for s in sections}), len(sections), len(covers), len(links), True)
    diseases = sorted({s.focus for s in sections} | {c["name"] for c in covers})
    section_rows = [{"uid": s.uid, "focus": s.focus, "props": {
        "uid": s.uid, "doc_id": s.doc_id, "focus": s.focus, "url": s.url, "qtype": s.qtype,
        "question": s.question, "text": s.text}} for s in sections]

    def work(tx: ManagedTransaction) -> None:
        tx.run(q["delete_stale_sections"], uids=[s.uid for s in sections]).consume()
        tx.run(q["upsert_diseases"], rows=[{"name": d, "uid": disease_uid(d)} for d in diseases]).consume()
        for i in range(0, len(section_rows), 500):
            tx.run(q["upsert_sections"], rows=section_rows[i:i + 500]).consume()
        tx.run(q["delete_covers"]).consume()
        tx.run(q["upsert_covers"], rows=covers).consume()
        tx.run(q["delete_described_in"]).consume()
        tx.run(q["upsert_described_in"], rows=links).consume()
        tx.run(q["delete_orphan_diseases"]).consume()
        tx.run(q["set_knowledge_meta"], sha=sha).consume()

    graph.execute_write(work)
    return KnowledgeReport(len(diseases), len(sections), len(covers), len(links), False)
