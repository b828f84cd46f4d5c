"""Ranking a question's candidates by what the question asks: the diseases it names and the aspects it asks
for (``dkg.retrieval.understanding``), one ranking per sub-query, interleaved.

For one sub-query with diseases D and intent I (the question's own intent, or only the sub-query's aspect)

    score'(i) = score(i) + γ·[i belongs to a disease in D] − β·(1 − I(t_i))

where score(i) is the GRAG score, γ the disease weight (``DKG_RETRIEVAL_DISEASE_WEIGHT``) times the
disease's weight in the question (1, or ½ for a broader or an unqualified childhood form), β the intent
weight and t_i node i's type; a node "belongs" to a disease when it is one of its sections, or a box or
treatment of a guideline version covering it. A question with several sub-queries gets their rankings
interleaved (best of each in turn, the sub-query with the best top hit first, each node once), and every
hit carries the sub-query it came from as its ``reason``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from dkg.retrieval.intent import intent_penalty
from dkg.retrieval.types import Hit
from dkg.retrieval.understanding import QueryAnalysis, SubQuery


def rank_sub_query(candidates: Sequence[Hit], sub: SubQuery, intent: Mapping[str, float],
                   node_types: Mapping[str, str], node_diseases: Mapping[str, frozenset[str]], *,
                   intent_weight: float, disease_weight: float, k: int) -> list[Hit]:
    """``candidates`` re-scored for one sub-query, best first, cut at ``k``.

    >>> hits = [Hit("a-sym", 0.70, 0.7), Hit("b-trt", 0.60, 0.6), Hit("a-trt", 0.55, 0.55)]
    >>> diseases = {"a-sym": frozenset({"A"}), "a-trt": frozenset({"A"}), "b-trt": frozenset({"B"})}
    >>> types = {"a-sym": "symptoms", "a-trt": "treatment", "b-trt": "treatment"}
    >>> [h.rid for h in rank_sub_query(hits, SubQuery({"A": 1.0}), {"treatment": 1.0}, types, diseases,
    ...                                intent_weight=0.2, disease_weight=0.2, k=3)]
    ['a-trt', 'a-sym', 'b-trt']
    """
    aspect_intent = {a: 1.0 for a in sub.aspects} if sub.aspects else intent
    aspect = f"aspect: {' / '.join(sub.aspects)}" if sub.aspects else None
    out = []
    for h in candidates:
        score = h.score - intent_penalty(aspect_intent, node_types.get(h.rid), intent_weight)
        matched = [d for d in node_diseases.get(h.rid, ()) if d in sub.diseases]
        disease = None
        if matched:
            score += disease_weight * max(sub.diseases[d] for d in matched)
            names = ", ".join(sorted(matched))
            disease = f"{sub.mention} → {names}" if sub.mention else names
        reason = "; ".join(p for p in (disease, aspect) if p) or None
        out.append(replace(h, score=score, reason=reason))
    return sorted(out, key=lambda h: (-h.score, h.hop, h.rid))[:k]


def interleave(rankings: Sequence[Sequence[Hit]], k: int) -> list[Hit]:
    """Round-robin over ``rankings`` (the one with the best top hit first): each in turn gives its best hit
    not given yet, so every sub-query's best hits come early; cut at ``k``.

    >>> a = [Hit("x", 0.9, 0.9, reason="A"), Hit("y", 0.8, 0.8, reason="A")]
    >>> b = [Hit("z", 0.7, 0.7, reason="B"), Hit("x", 0.6, 0.6, reason="B")]
    >>> [(h.rid, h.reason) for h in interleave([b, a], 4)]
    [('x', 'A'), ('z', 'B'), ('y', 'A')]
    """
    ordered = sorted((r for r in rankings if r), key=lambda r: -r[0].score)
    positions = [0] * len(ordered)
    out: list[Hit] = []
    seen: set[str] = set()
    while len(out) < k and any(p < len(r) for p, r in zip(positions, ordered, strict=True)):
        for i, ranking in enumerate(ordered):
            while positions[i] < len(ranking) and ranking[positions[i]].rid in seen:
                positions[i] += 1
            if positions[i] < len(ranking):
                seen.add(ranking[positions[i]].rid)
                out.append(ranking[positions[i]])
                positions[i] += 1
    return out[:k]


def rank_understood(candidates: Sequence[Hit], analysis: QueryAnalysis, node_types: Mapping[str, str],
                    node_diseases: Mapping[str, frozenset[str]], *, intent_weight: float, disease_weight: float,
                    k: int) -> list[Hit]:
    """The final ranking of a question's candidates: one sub-query (all its diseases, its whole intent) or
    several, interleaved."""
    subs = analysis.sub_queries or (SubQuery(analysis.disease_weights, (), _mentions_label(analysis)),)
    rankings = [rank_sub_query(candidates, sub, analysis.intent, node_types, node_diseases,
                               intent_weight=intent_weight, disease_weight=disease_weight, k=k) for sub in subs]
    return rankings[0] if len(rankings) == 1 else interleave(rankings, k)


def _mentions_label(analysis: QueryAnalysis) -> str | None:
    if not analysis.mentions:
        return None
    return "; ".join(m.surface for m in analysis.mentions)
