"""Deterministic, field-tagged text of every embedded node.

Format (version :data:`FORMAT_VERSION`)::

    #dkg-ser v2 snapshot=<graph snapshot of the node's source>
    path: <root> > … > <last three ancestors, parent last>
    type: Decision
    title: ALL 1.2026 ALL-2
    content: Ph-negative B-ALL, age 15-39 years ...
    constraints: age in [15,39], ph=-
    treatments: pediatric-inspired regimen
    diseases: Adult Acute Lymphoblastic Leukemia; Childhood Acute Lymphoblastic Leukemia

Fields are written in a fixed order and empty fields are left out. The first line carries the two
version markers; the embedded text (and its hash, which decides re-embedding) is everything below it,
so a new graph snapshot alone does not force re-embedding of unchanged nodes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

FORMAT_VERSION = 2
FIELD_ORDER = ("path", "type", "title", "disease", "topic", "content", "constraints", "treatments", "context",
               "diseases", "guidelines")
PATH_WORDS = 6
PATH_TAIL = 3
# What each MedQuAD question type's section is about, in plain words (a heading, not a question template).
TOPIC_WORDS = {
    "information": "overview, what the disease is",
    "symptoms": "signs and symptoms",
    "exams and tests": "tests and procedures used for diagnosis",
    "outlook": "prognosis and chance of recovery",
    "susceptibility": "risk factors",
    "stages": "stages and staging",
    "treatment": "treatment options",
    "research": "new treatments studied in clinical trials",
    "prevention": "prevention",
    "causes": "causes",
    "inheritance": "inheritance",
    "genetic changes": "genetic changes",
}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class NodeFields:
    """What a node contributes to its serialisation (``fields`` keyed by names of :data:`FIELD_ORDER`)."""

    rid: str
    kind: str
    snapshot: str
    fields: Mapping[str, str | Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Serialised:
    rid: str
    header: str
    body: str
    hash: str

    @property
    def text(self) -> str:
        return f"{self.header}\n{self.body}"


def _clean(value: str) -> str:
    return _SPACE.sub(" ", value).strip()


def shorten(text: str, words: int = PATH_WORDS) -> str:
    """The first ``words`` words of ``text`` (with an ellipsis when cut).

    >>> shorten("one two three", 2)
    'one two …'
    """
    parts = _clean(text).split(" ")
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def path_text(root: str, ancestors: Sequence[str]) -> str:
    """The path prefix: the root, then the last :data:`PATH_TAIL` ancestors (shortened), '…' for the rest.

    >>> path_text("ALL", ["a b", "c", "d", "e"])
    'ALL > … > c > d > e'
    """
    tail = [shorten(a) for a in ancestors[-PATH_TAIL:]]
    return " > ".join([root] + (["…"] if len(ancestors) > PATH_TAIL else []) + tail)


def body_hash(body: str) -> str:
    """Hash deciding re-embedding: the format version and the body text."""
    return hashlib.sha1(f"v{FORMAT_VERSION}\n{body}".encode()).hexdigest()[:20]


def serialise(node: NodeFields) -> Serialised:
    """The serialisation of one node.

    >>> s = serialise(NodeFields("x", "Treatment", "graph", {"title": "blinatumomab", "type": "Treatment"}))
    >>> print(s.text)
    #dkg-ser v2 snapshot=graph
    type: Treatment
    title: blinatumomab
    """
    lines = []
    for name in FIELD_ORDER:
        value = node.fields.get(name)
        if value is None:
            continue
        text = _clean(value) if isinstance(value, str) else ", ".join(_clean(v) for v in value if _clean(v))
        if text:
            lines.append(f"{name}: {text}")
    unknown = set(node.fields) - set(FIELD_ORDER)
    if unknown:
        raise ValueError(f"unknown serialisation field(s) {sorted(unknown)}; allowed: {', '.join(FIELD_ORDER)}")
    body = "\n".join(lines)
    header = f"#dkg-ser v{FORMAT_VERSION} snapshot={node.snapshot}"
    return Serialised(node.rid, header, body, body_hash(body))


def parse_fields(body: str) -> dict[str, str]:
    """The tagged fields of a serialisation body (inverse of :func:`serialise` for display).

    >>> parse_fields("type: Section\\ncontent: a: b")
    {'type': 'Section', 'content': 'a: b'}
    """
    out: dict[str, str] = {}
    for line in body.splitlines():
        name, sep, value = line.partition(": ")
        if sep and name in FIELD_ORDER:
            out[name] = value
    return out


def ancestor_paths(parents: Mapping[str, Sequence[str]], order_key: Mapping[str, str]) -> dict[str, list[str]]:
    """For every node of a DAG, the shortest chain of ancestors from a root (root first, parent last).

    Ties are broken by ``order_key`` (e.g. the content) so the result is deterministic.

    >>> ancestor_paths({"c": ["b", "a"], "b": ["a"], "a": []}, {"a": "a", "b": "b", "c": "c"})
    {'a': [], 'b': ['a'], 'c': ['a']}
    """
    best: dict[str, list[str]] = {}

    def resolve(uid: str, visiting: frozenset[str]) -> list[str]:
        if uid in best:
            return best[uid]
        candidates = []
        for parent in parents.get(uid, ()):
            if parent in visiting:
                continue  # a cycle would make the path infinite; the guideline arrows form a DAG anyway
            chain = resolve(parent, visiting | {uid}) + [parent]
            candidates.append(chain)
        chosen = min(candidates, key=lambda c: (len(c), [order_key.get(u, u) for u in c]), default=[])
        best[uid] = chosen
        return chosen

    for uid in sorted(set(parents) | {p for ps in parents.values() for p in ps}):
        resolve(uid, frozenset())
    return dict(sorted(best.items()))
