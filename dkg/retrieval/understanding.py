"""Query understanding: what a question asks, read through the clinical-language lexicon (``dkg.lexicon``)
before it is embedded and searched.

* the text searched (embedding and BM25): spellings made American, abbreviations, shorthand and lay words
  expanded ("Tx options s/p WLE" → "treatment options after wide local excision"), and an age-only
  population cue spelled out ("in a 5-year-old" → "... (childhood)") so the embedding sees it too;
* the diseases it names, resolved onto the knowledge layer's :Disease nodes (aliases, name forms, body
  sites), with the adult / childhood cue choosing between the two forms of a disease, and a weight per
  disease (1 for a named one; ½ for the childhood form of an unqualified name such as "kidney cancer",
  most often meant for adults, and for a broader disease whose summary also covers the named one);
* its intent (``dkg.retrieval.intent``), read with the disease names and the patient's disease state
  masked out ("Metastatic Squamous Neck Cancer", "stage II", "low-grade" describe the patient, they do not
  ask about staging);
* its sub-queries: one per named disease when it names several ("are osteosarcoma and Ewing sarcoma
  treated alike?"), one per asked aspect when its clauses ask for different kinds of section ("who is at
  risk, and what are the symptoms?"), so the retriever can return the best sections for each.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dkg.lexicon import DiseaseMention, DiseaseResolver, Expansion, Lexicon, PopulationCue
from dkg.retrieval.intent import cue_counts, query_intent

# Aspects a sub-query may stand for: the kinds of knowledge-layer section. A question whose clauses ask for
# a guideline recommendation (or a definition) is not split by aspect.
SPLIT_ASPECTS = frozenset({"symptoms", "exams and tests", "outlook", "susceptibility", "stages", "treatment",
                           "research", "prevention", "causes", "inheritance", "genetic changes"})
MAX_SUB_QUERIES = 6
CHILDHOOD_UNQUALIFIED_WEIGHT = 0.5
BROADER_WEIGHT = 0.5
# The patient's disease state, which is no question about staging: stage designations, grades, "locally
# advanced", "metastatic".
_STATE = re.compile(
    r"\b(?:stages?|stg)\s*(?:[0IV]{1,4}[A-C]?[0-9]?|[0-4][A-C]?[0-9]?)(?:\s*(?:-|–|to|or|/)\s*"
    r"(?:[0IV]{1,4}[A-C]?|[0-4][A-C]?))?(?![\w])"
    r"|\b(?:low|high|intermediate)[-\s]grade\b|\bgrade\s+[1-4I-V]{1,3}\b"
    r"|\b(?:locally|very)\s+advanced\b|\b(?:early|late|advanced|limited|extensive)[-\s]stage\b|\bmetastatic\b",
    re.IGNORECASE)
# A new clause asking something else: after ? or ;, or "and/or/also" followed by a question word.
_CLAUSE = re.compile(r"[?;]+|,?\s+(?:and|or|also|plus|but)\s+(?=(?:what|how|who|which|when|where|why|is|are|does|"
                     r"do|can|could|should|will|would|any)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class SubQuery:
    """One part of a question: diseases with their weights (empty = any), the aspects asked (empty = the
    question's whole intent) and the phrase that named the diseases."""

    diseases: Mapping[str, float] = field(default_factory=dict)
    aspects: tuple[str, ...] = ()
    mention: str | None = None

    @property
    def label(self) -> str:
        """The reason shown in the evidence, e.g. ``"essential thrombocythemia → Essential Thrombocythemia;
        aspect: treatment"``."""
        parts = []
        named = [d for d, w in self.diseases.items() if w >= 1.0] or list(self.diseases)
        if named:
            parts.append(f"{self.mention} → {', '.join(named)}" if self.mention else ", ".join(named))
        if self.aspects:
            parts.append(f"aspect: {' / '.join(self.aspects)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class QueryAnalysis:
    """A question as the retriever reads it."""

    original: str
    text: str
    expansions: tuple[Expansion, ...] = ()
    population: PopulationCue = field(default_factory=lambda: PopulationCue(None))
    mentions: tuple[DiseaseMention, ...] = ()
    disease_weights: Mapping[str, float] = field(default_factory=dict)
    intent: dict[str, float] = field(default_factory=dict)
    sub_queries: tuple[SubQuery, ...] = ()

    @property
    def diseases(self) -> tuple[str, ...]:
        """Every disease the question names (in order of mention; broader ones not included)."""
        return tuple(dict.fromkeys(d for m in self.mentions for d in m.diseases))

    @property
    def is_multi(self) -> bool:
        return len(self.sub_queries) > 1

    def summary(self) -> str:
        """One line for people: expansions, diseases, population, sub-queries."""
        parts = []
        if self.expansions:
            parts.append("read " + ", ".join(f"{e.term} as {e.expansion}" for e in self.expansions))
        if self.mentions:
            parts.append("diseases: " + "; ".join(f"{m.surface} → {', '.join(m.diseases)}"
                                                  + (" (body site)" if m.via == "site" else "")
                                                  for m in self.mentions))
        if self.population.population:
            parts.append(f"population: {self.population.population} ({', '.join(self.population.cues)})")
        if self.is_multi:
            parts.append("sub-queries: " + " | ".join(s.label for s in self.sub_queries))
        return "; ".join(parts)


def masked_intent(text: str, names: Sequence[str]) -> str:
    """``text`` without the given disease names and the patient's disease state, for reading the intent.

    >>> masked_intent("Stage II low-grade tumour: surgery or RT?", []).split()
    ['tumour:', 'surgery', 'or', 'RT?']
    >>> masked_intent("How is metastatic melanoma staged?", ["melanoma"]).split()
    ['How', 'is', 'staged?']
    """
    out = text
    for name in sorted(set(names), key=len, reverse=True):
        out = re.sub(re.escape(name), lambda m: " " * len(m.group(0)), out, flags=re.IGNORECASE)
    return _STATE.sub(lambda m: " " * len(m.group(0)), out)


def clause_intent(clause: str) -> dict[str, float]:
    """The intent of one clause, where of several strongest kinds only those named most often stay
    strongest ("surgery or radiation therapy after a sentinel node biopsy?" asks about treatment).

    >>> clause_intent("surgery or radiation therapy after a sentinel node biopsy?")
    {'treatment': 1.0, 'exams and tests': 0.5}
    """
    intent = query_intent(clause)
    strong = [t for t, w in intent.items() if w >= 1.0]
    if len(strong) > 1:
        counts = cue_counts(clause)
        most = max(counts.get(t, 0) for t in strong)
        intent = {t: (0.5 if t in strong and counts.get(t, 0) < most else w) for t, w in intent.items()}
    return dict(sorted(intent.items(), key=lambda x: (-x[1], x[0])))


def clause_intents(text: str) -> list[dict[str, float]]:
    """The intent of each clause of ``text`` that asks something.

    >>> [sorted(i) for i in clause_intents("Who is at risk, and what are the symptoms?")]
    [['susceptibility'], ['symptoms']]
    """
    return [i for i in (clause_intent(c) for c in _CLAUSE.split(text)) if i]


def _strong(intent: Mapping[str, float]) -> tuple[str, ...]:
    return tuple(sorted(t for t, w in intent.items() if w >= 1.0))


def _weights(mentions: tuple[DiseaseMention, ...], resolver: DiseaseResolver,
             population: PopulationCue) -> dict[str, dict[str, float]]:
    """Per mention surface, the weight of each disease it stands for (broader diseases included)."""
    out: dict[str, dict[str, float]] = {}
    for m in mentions:
        kinds = {resolver.populations.get(d) for d in m.diseases}
        mixed = "childhood" in kinds and len(kinds) > 1 and population.population is None
        weights = {d: CHILDHOOD_UNQUALIFIED_WEIGHT if mixed and resolver.populations.get(d) == "childhood" else 1.0
                   for d in m.diseases}
        for d in m.diseases:
            for broader in resolver.broader.get(d, ()):
                weights.setdefault(broader, BROADER_WEIGHT)
        out[m.surface] = weights
    return out


def understand(question: str, lexicon: Lexicon, resolver: DiseaseResolver | None) -> QueryAnalysis:
    """The :class:`QueryAnalysis` of ``question`` (``resolver``: None = no disease resolution)."""
    expanded = lexicon.expand_query(question)
    population = lexicon.population(expanded.text)
    mentions = tuple(resolver.mentions(expanded.text, population.population)) if resolver else ()
    weights = _weights(mentions, resolver, population) if resolver else {}
    all_weights: dict[str, float] = {}
    for per_mention in weights.values():
        for d, w in per_mention.items():
            all_weights[d] = max(all_weights.get(d, 0.0), w)
    text = expanded.text
    names = [expanded.text[a:b] for m in mentions for a, b in (m.spans or ((m.start, m.end),))]
    clauses = clause_intents(masked_intent(expanded.inline or expanded.text, names))
    intent: dict[str, float] = {}
    for clause in clauses:
        for t, w in clause.items():
            intent[t] = max(intent.get(t, 0.0), w)
    asked = list(dict.fromkeys(_strong(c) for c in clauses))
    aspects: list[tuple[str, ...]] = [()]
    if len(asked) > 1 and all(t in SPLIT_ASPECTS for a in asked for t in a):
        aspects = asked
    named = [m for m in mentions if m.via == "name"]
    groups: list[DiseaseMention | None] = list(named) if len(named) > 1 else [None]
    sub_queries = tuple(
        SubQuery(weights[g.surface] if g else all_weights, aspect, g.surface if g else _surfaces(mentions))
        for g, aspect in itertools.product(groups, aspects))[:MAX_SUB_QUERIES]
    return QueryAnalysis(question, text, expanded.expansions, population, mentions, all_weights, intent,
                         sub_queries if len(sub_queries) > 1 else ())


def _surfaces(mentions: tuple[DiseaseMention, ...]) -> str | None:
    return "; ".join(m.surface for m in mentions) or None
