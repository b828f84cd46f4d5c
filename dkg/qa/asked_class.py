"""A question that asks for a drug class ("rhythm still shockable after the third shock: which antiarrhythmic
now?") answered by the steps that give a drug of that class, when the answer reached does not.

No box calls amiodarone an antiarrhythmic, and the walk, which follows the stated facts, places a patient a few
steps before the drug when the question does not say every step on the way was done (the CPR box of the cycle).
The class is read from the sentence that asks (the lexicon's ``drug_classes.yaml``: its wordings and drugs; "which
drug now?" asks for any drug it lists); the steps are the nearest ones after the answer's steps, along arrows the
stated facts do not rule out, whose text names a drug of the class. An answer whose own steps name one is left as
it is, and so is one with no such step within ``max_steps`` arrows. When no box of the guideline gives a drug of
the class or names the class, the question asks for what the guideline does not cover: the service refuses it as
out of scope (not when it asks for any drug: the guideline's drugs may be ones the lexicon does not list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dkg.answers import Answer
from dkg.lexicon.drug_classes import ANY_DRUG, DrugClass, any_drug, classes_named, gives_one_of
from dkg.qa.current_step import next_after, steps_answer
from dkg.qa.way_in import FactValue, WayIn

# the sentence that asks: the last one, after the last full stop, semicolon or exclamation before its question mark
_LAST_SENTENCE = re.compile(r"(?:^|[.;!?]\s)([^.;!?]*\?)\s*$")


@dataclass(frozen=True)
class AskedClassSettings:
    """How far ahead of the answer a step giving the class asked for is looked for."""

    max_steps: int = 12  # arrows followed from the answer's steps to find one giving a drug of the class


DEFAULT_SETTINGS = AskedClassSettings()


def asked_classes(question: str) -> tuple[DrugClass, ...]:
    """The drug classes the asking sentence of ``question`` names; when it names none but asks for a drug ("which
    drug now?"), the class of every drug the lexicon lists.

    >>> [c.name for c in asked_classes("Epi in, tube placed. Team want the antiarrhythmic - what now?")]
    ['antiarrhythmic']
    >>> asked_classes("Sedation given, paced. What next?")
    ()
    >>> [c.name for c in asked_classes("Med student here. IO in, CPR going. Which drug and what dose now?")]
    ['drug']
    """
    asking = _LAST_SENTENCE.search(question.strip())
    if not asking:
        return ()
    named = classes_named(asking.group(1))
    if named:
        return named
    drug = any_drug()
    return (drug,) if drug is not None and drug.named_by.search(asking.group(1)) else ()


def answer_asked_class(question: str, answer: Answer, way_in: WayIn, contents: dict[str, str],
                       facts: dict[str, FactValue], settings: AskedClassSettings = DEFAULT_SETTINGS) -> Answer | None:
    """The nearest steps after ``answer``'s that give a drug of the class the question asks for (module
    docstring); None when the question asks for none, the answer's steps give one, or none lies ahead."""
    classes = asked_classes(question)
    params = answer.cypher_params or {}
    if not classes or not answer.matched_nodes or "guideline" not in params:
        return None
    if any(gives_one_of(contents.get(uid, ""), classes) for uid in answer.matched_nodes):
        return None
    seen = set(answer.matched_nodes)
    frontier = list(answer.matched_nodes)
    for _ in range(settings.max_steps):
        frontier = [uid for uid in next_after(way_in, frontier, facts) if uid not in seen]
        if not frontier:
            return None
        seen |= set(frontier)
        giving = [uid for uid in frontier if gives_one_of(contents.get(uid, ""), classes)]
        if giving:
            return _answer(question, answer, giving, contents, classes)
    return None


def classes_not_given(question: str, contents: dict[str, str]) -> tuple[DrugClass, ...]:
    """The classes the asking sentence names when no box (``contents``: every box of the guideline) gives a drug
    of one of them or names one of them: the guideline does not cover what is asked ("How long do we
    anticoagulate before an elective cardioversion?" on charts that give no anticoagulant); empty otherwise.

    >>> [c.name for c in classes_not_given("How long do we anticoagulate first?", {"a": "Adenosine 6mg IV"})]
    ['anticoagulant']
    >>> classes_not_given("Which blood thinner?", {"a": "Heparin 5000 units IV"})
    ()
    """
    # a guideline whose boxes name no drug these lists know may still give drugs: asked for "a drug", it is not
    # taken to give none
    classes = tuple(c for c in asked_classes(question) if c.name != ANY_DRUG)
    texts = contents.values()
    if any(gives_one_of(text, classes) or classes_named(text, classes) for text in texts):
        return ()
    return classes


def _answer(question: str, answer: Answer, giving: list[str], contents: dict[str, str],
            classes: tuple[DrugClass, ...]) -> Answer:
    params = answer.cypher_params or {}
    named = " or ".join(c.name for c in classes)
    after = "; ".join(f'"{contents.get(uid, uid)}"' for uid in answer.matched_nodes)
    lead = f"The question asks for {'an' if named[0] in 'aeiou' else 'a'} {named}; after {after}"
    found = steps_answer(question, str(params["guideline"]), str(params["version"]), answer.matched_nodes[0], giving,
                         contents, lead)
    return found.model_copy(update={"route": answer.route, "missing_facts": answer.missing_facts})

__all__ = ["AskedClassSettings", "answer_asked_class", "asked_classes", "classes_not_given"]
