"""One question answered from each of several onboarded guidelines on one topic, side by side.

A curator may publish a second algorithm on a topic another onboarded guideline covers already (a bradycardia
algorithm beside the cardiac charts). A question that names the topic is then answered from each of them, each
answer under its guideline's name with its own evidence, so a clinician sees what each one says; a guideline
that does not answer is left out, and the question is refused only when none answers.

>>> from dkg.answers import Evidence
>>> a = Answer(question="q", route="text2cypher", answer="Atropine", matched_nodes=["a|1|x"],
...            evidence=[Evidence(node_uid="a|1|x", content="Atropine", kind="Action", guideline="a", version="1")])
>>> b = Answer(question="q", route="text2cypher", answer="", no_answer_reason="no step fits")
>>> print(side_by_side("q", [("a", a), ("b", b)]).answer)
a: Atropine
(b does not answer it: no step fits)
"""

from __future__ import annotations

from dkg.answers import Answer, MissingFact


def side_by_side(question: str, answers: list[tuple[str, Answer]]) -> Answer:
    """The answers of several guidelines (``(guideline, answer)`` in order) as one: each answered one's text under
    its guideline's name, their evidence, rows and missing facts together; the query shown is the first answered
    one's. A refusal naming each guideline's reason when none answers."""
    answered = [(guideline, a) for guideline, a in answers if a.answered]
    refused = [(guideline, a) for guideline, a in answers if not a.answered]
    if not answered:
        reasons = "; ".join(f"{guideline}: {a.no_answer_reason}" for guideline, a in refused)
        return Answer(question=question, route=answers[0][1].route if answers else "text2cypher", answer="",
                      no_answer_reason=f"no guideline on this topic answers it ({reasons})")
    lines = [f"{guideline}: {a.answer}" for guideline, a in answered]
    lines += [f"({guideline} does not answer it: {a.no_answer_reason})" for guideline, a in refused]
    first = answered[0][1]
    missing: dict[str, MissingFact] = {}
    for _, a in answered:
        for fact in a.missing_facts:
            missing.setdefault(fact.key, fact)
    return first.model_copy(update={
        "answer": "\n".join(lines),
        "rows": [row for _, a in answered for row in a.rows],
        "matched_nodes": [uid for _, a in answered for uid in a.matched_nodes],
        "evidence": [e for _, a in answered for e in a.evidence],
        "missing_facts": list(missing.values()),
    })
