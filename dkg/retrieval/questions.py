"""Benchmark question sets with relevance judgements (qrels), written to ``datasets/retrieval/``.

* ``medquad``: every MedQuAD CancerGov question → the Section(s) holding its answer (sections with the
  identical question text are all relevant).
* ``paraphrase``: questions written by hand for this project (``paraphrases.jsonl``: question, focus,
  qtype), in everyday wording that avoids the MedQuAD templates → every Section of that focus and qtype.
* ``heldout``: a second hand-written paraphrase set (``heldout_paraphrases.jsonl``, same format), written
  before the query-intent component was designed and never used to choose its cues or weights.
* ``role_traps``: the same question about the adult and the childhood form of a cancer, asked with an age
  cue instead of the disease's exact name ("How is acute lymphoblastic leukemia treated in children?")
  → only the Section of the matching form. Generated from the templates below.
* ``dkg``: questions derived from the guideline graph ("What is recommended for <decision box>?") → the
  decision box (relevance 1) and the boxes it leads to (relevance 2); version-independent ids.
* ``users_dev`` / ``users_heldout``: 40 queries written by people independently of this project's code
  (clinician shorthand, abbreviations and lay names, everyday paraphrases, adult/childhood traps,
  two-disease or two-aspect questions), graded 1-3 by hand; split once by :func:`split_users` before any
  tuning. Stored in their source format (id, category, query, relevant), see ``datasets/retrieval/README.md``.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dkg.config import PROJECT_ROOT
from dkg.errors import DKGError
from dkg.retrieval.knowledge import SectionRecord

DATA_DIR = PROJECT_ROOT / "datasets" / "retrieval"
SETS = ("medquad", "paraphrase", "heldout", "role_traps", "dkg")
USER_SETS = ("users_dev", "users_heldout")
# The held-out split of the human-written queries (fixed before tuning; see datasets/retrieval/README.md).
USERS_SPLIT_SEED = "dkg-users-heldout-v1"
USERS_HELDOUT_SHARE = 1 / 3

# (adult focus, childhood focus, plain name used in the question)
ROLE_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("Adult Acute Lymphoblastic Leukemia", "Childhood Acute Lymphoblastic Leukemia", "acute lymphoblastic leukemia"),
    ("Adult Acute Myeloid Leukemia", "Childhood Acute Myeloid Leukemia and Other Myeloid Malignancies",
     "acute myeloid leukemia"),
    ("Adult Hodgkin Lymphoma", "Childhood Hodgkin Lymphoma", "Hodgkin lymphoma"),
    ("Adult Non-Hodgkin Lymphoma", "Childhood Non-Hodgkin Lymphoma", "non-Hodgkin lymphoma"),
    ("Adult Soft Tissue Sarcoma", "Childhood Soft Tissue Sarcoma", "soft tissue sarcoma"),
    ("Adult Primary Liver Cancer", "Childhood Liver Cancer", "liver cancer"),
    ("Adult Central Nervous System Tumors", "Childhood Brain and Spinal Cord Tumors", "brain and spinal cord tumors"),
    ("Renal Cell Cancer", "Wilms Tumor and Other Childhood Kidney Tumors", "kidney cancer"),
)
ROLE_TEMPLATES: dict[str, str] = {
    "information": "Can you explain what {name} is in {group}?",
    "symptoms": "Which signs could point to {name} in {group}?",
    "exams and tests": "Which tests are used to find {name} in {group}?",
    "outlook": "What is the prognosis of {name} in {group}?",
    "stages": "How is the spread of {name} in {group} staged?",
    "treatment": "How is {name} treated in {group}?",
    "susceptibility": "What raises the risk of {name} in {group}?",
    "research": "Which new therapies for {name} in {group} are being tested in trials?",
}
ROLE_GROUPS = ("adults", "children")


@dataclass
class Question:
    qid: str
    set: str
    question: str
    qrels: dict[str, float]
    meta: dict[str, str] = field(default_factory=dict)


def _by_focus_qtype(sections: Iterable[SectionRecord]) -> dict[tuple[str, str], list[str]]:
    index: dict[tuple[str, str], list[str]] = defaultdict(list)
    for s in sections:
        index[(s.focus, s.qtype)].append(s.uid)
    return index


def medquad_questions(sections: Sequence[SectionRecord]) -> list[Question]:
    """One question per MedQuAD row; relevant = the sections sharing its exact question text."""
    same: dict[str, list[str]] = defaultdict(list)
    for s in sections:
        same[" ".join(s.question.split()).casefold()].append(s.uid)
    return [Question(f"medquad:{s.uid}", "medquad", s.question,
                     {uid: 1.0 for uid in same[" ".join(s.question.split()).casefold()]},
                     {"focus": s.focus, "qtype": s.qtype}) for s in sections]


def paraphrase_questions(sections: Sequence[SectionRecord], path: Path | None = None,
                         set_name: str = "paraphrase") -> list[Question]:
    """The hand-written paraphrases, resolved to the sections of their focus and qtype."""
    path = path or DATA_DIR / "paraphrases.jsonl"
    index = _by_focus_qtype(sections)
    out = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        uids = index.get((row["focus"], row["qtype"]))
        if not uids:
            raise DKGError(f"{path}:{n}: no MedQuAD section for focus {row['focus']!r}, qtype {row['qtype']!r}")
        out.append(Question(f"{set_name}:{n}", set_name, row["question"], {u: 1.0 for u in uids},
                            {"focus": row["focus"], "qtype": row["qtype"]}))
    return out


def heldout_questions(sections: Sequence[SectionRecord]) -> list[Question]:
    """The held-out hand-written paraphrases (``heldout_paraphrases.jsonl``)."""
    return paraphrase_questions(sections, DATA_DIR / "heldout_paraphrases.jsonl", "heldout")


def role_trap_questions(sections: Sequence[SectionRecord]) -> list[Question]:
    """Adult-vs-childhood questions for every pair and question type both forms answer."""
    index = _by_focus_qtype(sections)
    out = []
    for adult, child, name in ROLE_PAIRS:
        for qtype, template in ROLE_TEMPLATES.items():
            if (adult, qtype) not in index or (child, qtype) not in index:
                continue
            for group, focus in zip(ROLE_GROUPS, (adult, child), strict=True):
                out.append(Question(f"role:{focus}|{qtype}", "role_traps", template.format(name=name, group=group),
                                    {u: 1.0 for u in index[(focus, qtype)]},
                                    {"focus": focus, "qtype": qtype, "group": group,
                                     "competitor": child if focus == adult else adult}))
    return out


def version_free(rid: str) -> str:
    """A guideline node id without its version (``G|V|key`` → ``G|*|key``) so versions count as one answer.

    >>> version_free("G|2.2026|abc"), version_free("0000001_1-1")
    ('G|*|abc', '0000001_1-1')
    """
    parts = rid.split("|")
    return f"{parts[0]}|*|{parts[2]}" if len(parts) == 3 else rid


def first_versions() -> list[tuple[str, str]]:
    """``(guideline, version)`` of the earliest source version of every guideline in the corpus."""
    from dkg.corpus.model import discover

    first: dict[str, str] = {}
    for code, version, _ in discover():
        first.setdefault(code, version)
    return sorted(first.items())


def dkg_questions(guidelines: Sequence[tuple[str, str]] | None = None) -> list[Question]:
    """'What is recommended for <decision>?' for every decision box with successors, of the given versions
    (by default the earliest version of every guideline source, see :func:`first_versions`)."""
    from dkg.graph.model import node_uid
    from dkg.graph.sources import input_from_source

    out = []
    for code, version in guidelines if guidelines is not None else first_versions():
        build = input_from_source(code, version)
        children: dict[str, set[str]] = defaultdict(set)
        for edge in build.edges.values():
            children[edge.head].add(edge.tail)
        for key, node in sorted(build.nodes.items()):
            if not node.is_decision or not children.get(key):
                continue
            text = " ".join(node.content.split()).rstrip("?.")
            qrels = {version_free(node_uid(code, version, key)): 1.0}
            qrels.update({version_free(node_uid(code, version, c)): 2.0 for c in children[key]})
            out.append(Question(f"dkg:{code}|{key}", "dkg", f"What is recommended for {text}?", qrels,
                                {"guideline": code}))
    return out


def write_sets(questions: Iterable[Question], folder: Path = DATA_DIR) -> dict[str, int]:
    """Write ``<set>.jsonl`` files (qid, question, qrels, meta); returns counts per set."""
    by_set: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_set[q.set].append(q)
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in by_set.items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(asdict(q), sort_keys=True) + "\n" for q in items))
    return {k: len(v) for k, v in by_set.items()}


def _split_key(seed: str, qid: str) -> str:
    return hashlib.sha256(f"{seed}:{qid}".encode()).hexdigest()


def split_users(rows: Sequence[dict[str, object]], seed: str = USERS_SPLIT_SEED,
                share: float = USERS_HELDOUT_SHARE) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """(dev, held-out) rows: per category, the ``round(share · n)`` rows whose sha256(seed:id) is smallest
    are held out; both lists keep the input order.

    >>> rows = [{"id": f"Q{i}", "category": "a" if i < 6 else "b"} for i in range(9)]
    >>> dev, held = split_users(rows)
    >>> len(dev), len(held), sorted({str(r["category"]) for r in held})
    (6, 3, ['a', 'b'])
    """
    by_category: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_category[str(row["category"])].append(str(row["id"]))
    held: set[str] = set()
    for ids in by_category.values():
        held.update(sorted(ids, key=lambda qid: _split_key(seed, qid))[:round(share * len(ids))])
    return [r for r in rows if r["id"] not in held], [r for r in rows if r["id"] in held]


def users_questions(name: str, folder: Path = DATA_DIR) -> list[Question]:
    """A human-written query set (``users_dev`` / ``users_heldout``) as questions with graded qrels."""
    path = folder / f"{name}.jsonl"
    if not path.is_file():
        raise DKGError(f"question set {path} does not exist; it is committed with the repository "
                       "(datasets/retrieval/README.md says where it comes from).")
    out = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        try:
            out.append(Question(f"{name}:{row['id']}", name, row["query"],
                                {str(k): float(v) for k, v in row["relevant"].items()},
                                {"category": row["category"], "id": row["id"]}))
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            raise DKGError(f"{path}:{n}: a query needs id, category, query and relevant {{uid: grade}} "
                           f"({exc!r})") from exc
    return out


def load_set(name: str, folder: Path = DATA_DIR) -> list[Question]:
    """Read a written question set (or a human-written one, see :func:`users_questions`)."""
    if name in USER_SETS:
        return users_questions(name, folder)
    path = folder / f"{name}.jsonl"
    if not path.is_file():
        raise DKGError(f"question set {path} does not exist; run `dkg eval retrieval --write-questions`.")
    return [Question(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
