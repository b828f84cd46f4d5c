"""Query intent: which kind of node a question asks for (treatment, symptoms, outlook, a recommendation, ...).

Most wrong top hits of the embedding retrievers are a section of the right disease but of the wrong kind
("how is X diagnosed?" → the symptoms section): a sentence embedding is dominated by the disease name.
This module maps a question's wording to a weight per section type with general English cues (verbs,
nouns and phrases people use when they ask for a treatment, a prognosis, a test, ...), not with the
MedQuAD question templates, and turns it into a score term:

    score'(i) = score(i) − β·(1 − I_q(t_i))

where t_i is node i's type — a PDQ section's question type, ``treatment`` for a :Treatment node,
``recommendation`` for a guideline box (:Decision / :Action) — I_q(t) ∈ [0, 1] the intent weight of type t
(1 for the strongest cue found) and β the configured weight (``DKG_RETRIEVAL_INTENT_WEIGHT``, default
0.2; 0 switches the term off). Nodes without a type keep their score. A question with no cue at all leaves
every score unchanged. The term is applied as a re-ranker over the GRAG candidate list, so the GRAG score
itself (α, λ, seeds, hops) is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from dkg.retrieval.types import Hit

# (section type, cue pattern, weight). Patterns are matched case-insensitively on word boundaries.
CUES: tuple[tuple[str, str, float], ...] = (
    # treatment: what is done against the disease
    ("treatment", r"treat(s|ed|ing|ments?)?|therap(y|ies)|manag(e|ed|ing|ement)|medicines?|medications?|drugs?"
                  r"|surgery|surgical|operat(e|ion)|chemo(therapy)?|radiation|radiotherapy|transplant\w*"
                  r"|what can be done|handle[sd]?|care for|get rid of", 1.0),
    ("treatment", r"options?|choices?", 0.5),
    # symptoms: what a patient notices
    ("symptoms", r"symptoms?|signs?|warning|notice|feel(s|ing)?|complaints?|look(s)? like|suggest|indicate|point to"
                 r"|lumps?|swelling|pain(ful)?|bleeding|fever|tired(ness)?|weight loss", 1.0),
    # exams and tests: how the disease is found
    ("exams and tests", r"diagnos(e|ed|es|is|ing|tic)|tests?|testing|exams?|examinations?|scans?|biops(y|ies)"
                        r"|detect(ed|s|ion)?|find out|check(ed|s)?( for)?|confirm(ed|s)?|screen(ing)?"
                        r"|imaging|blood work|x-rays?", 1.0),
    # "they found cancer", "signs to look for": words that also tell a story or ask about symptoms
    ("exams and tests", r"find|found|look for", 0.5),
    # outlook: prognosis
    ("outlook", r"prognosis|outlook|surviv(e|al|ing)|recover(y|ing)?|cur(e|ed|able)|odds|life expectancy"
                r"|how long|get better|beat(ing)?|fatal|deadly|die|chances? of (recovery|survival|beating)"
                r"|expect|how well\b.{0,30}\b(do|does|doing|recover|respond)\w*|what affects how", 1.0),
    # stages: how far it has spread
    ("stages", r"stag(e|es|ed|ing)|spread|how far|extent|advanced|metasta\w*|grade[sd]?|classif\w*", 1.0),
    # susceptibility: who gets it
    ("susceptibility", r"risks?|more likely|likel(y|ier) to (get|develop)|prone|who (gets|tends|is likely)"
                       r"|susceptib\w*|chances? of (getting|developing)|predispos\w*", 1.0),
    # research: what is being tried
    ("research", r"trials?|research\w*|stud(y|ies|ied)|experimental|investigational|being (tested|tried|studied)"
                 r"|underway|scientists?|new (treatments?|therap(y|ies)|drugs?|approach(es)?|options?|ways?)"
                 r"|latest|emerging|(tested|tried) out|trying out", 1.0),
    # causes
    ("causes", r"caus(e|es|ed|ing)|why do|lead(s)? to|what makes|trigger(s|ed)?|reason", 1.0),
    ("susceptibility", r"caus(e|es|ed|ing)|lead(s)? to|why do", 0.5),
    # prevention
    ("prevention", r"prevent(ed|ion|ing)?|avoid(ed)?|lower (my|the|your) (risk|chance)|reduce (my|the|your) (risk"
                   r"|chance)|protect", 1.0),
    # inheritance and genetic changes
    ("inheritance", r"inherit(ed|ance)?|hereditary|passed (down|on)|run(s)? in (the )?famil(y|ies)", 1.0),
    ("inheritance", r"famil(y|ies)", 0.4),
    ("genetic changes", r"genes?|genetic|mutations?|chromosomes?|dna", 1.0),
    ("inheritance", r"genes?|genetic", 0.4),
    # recommendation: what a guideline says to do (the guideline boxes)
    ("recommendation", r"recommend\w*|guidelines?|next steps?|what should (be done|i do|happen)|indicated"
                       r"|protocol", 1.0),
    # information: what the disease is
    ("information", r"what(?:'s| is| are)|what kind of|explain|overview|tell me about|describe"
                    r"|what does .* mean|definition|meaning", 0.6),
)
TYPES = ("information", "symptoms", "exams and tests", "outlook", "susceptibility", "stages", "treatment",
         "research", "prevention", "causes", "inheritance", "genetic changes", "recommendation")
# A stronger kind of question outranks a weaker one it contains ("new treatments tested in trials" asks for
# research, not for the standard treatment; "the risk of dying" asks for the outlook).
DOMINATES = {"research": ("treatment",), "prevention": ("susceptibility",), "stages": ("outlook",)}
_COMPILED = tuple((t, re.compile(rf"\b(?:{p})\b", re.IGNORECASE), w) for t, p, w in CUES)


def query_intent(question: str) -> dict[str, float]:
    """Weight per section type in [0, 1] (1 for the strongest); empty when the question has no cue.

    >>> query_intent("How do doctors find out whether a child has leukemia?")
    {'exams and tests': 1.0}
    >>> sorted(query_intent("Which new drugs are being tested in trials?").items())
    [('research', 1.0), ('treatment', 0.5)]
    >>> query_intent("leukemia")
    {}
    """
    found: dict[str, float] = {}
    for qtype, pattern, weight in _COMPILED:
        if pattern.search(question):
            found[qtype] = max(found.get(qtype, 0.0), weight)
    specific = {t: w for t, w in found.items() if t != "information"}
    if specific and max(specific.values()) >= 1.0:
        found.pop("information", None)  # "what is the prognosis" asks for the prognosis, not a definition
    for strong, weaker in DOMINATES.items():
        if found.get(strong, 0.0) >= 1.0:
            for t in weaker:
                if t in found:
                    found[t] = min(found[t], 0.5)
    if not found:
        return {}
    top = max(found.values())
    return {t: round(w / top, 4) for t, w in sorted(found.items(), key=lambda x: (-x[1], x[0]))}


def cue_counts(question: str) -> dict[str, int]:
    """How many times each type's full-weight cues occur in ``question``.

    >>> cue_counts("surgery or radiation therapy, after a sentinel node biopsy?")
    {'treatment': 3, 'exams and tests': 1}
    """
    counts: dict[str, int] = {}
    for qtype, pattern, weight in _COMPILED:
        if weight >= 1.0:
            n = len(pattern.findall(question))
            if n:
                counts[qtype] = counts.get(qtype, 0) + n
    return counts


def intent_penalty(intent: Mapping[str, float], node_type: str | None, weight: float) -> float:
    """β·(1 − I_q(t)) for a typed node, 0 for untyped nodes or a question without intent.

    >>> intent_penalty({"treatment": 1.0}, "symptoms", 0.1)
    0.1
    >>> intent_penalty({"treatment": 1.0}, "treatment", 0.1), intent_penalty({}, "symptoms", 0.1)
    (0.0, 0.0)
    >>> intent_penalty({"treatment": 1.0}, None, 0.1)
    0.0
    """
    if not intent or node_type is None or weight <= 0:
        return 0.0
    return weight * (1.0 - intent.get(node_type, 0.0))


def rerank_by_intent(hits: Sequence[Hit], intent: Mapping[str, float], node_types: Mapping[str, str],
                     weight: float, k: int) -> list[Hit]:
    """``hits`` re-scored with the intent term (``node_types``: rid → node type) and cut at ``k``.

    >>> from dkg.retrieval.types import Hit
    >>> hits = [Hit("sym", 0.70, 0.7), Hit("trt", 0.65, 0.65), Hit("box", 0.60, 0.6)]
    >>> [h.rid for h in rerank_by_intent(hits, {"treatment": 1.0}, {"sym": "symptoms", "trt": "treatment"}, 0.1, 3)]
    ['trt', 'box', 'sym']
    """
    if not intent or weight <= 0:
        return list(hits)[:k]
    rescored = [replace(h, score=h.score - intent_penalty(intent, node_types.get(h.rid), weight)) for h in hits]
    return sorted(rescored, key=lambda h: (-h.score, h.hop, h.rid))[:k]
