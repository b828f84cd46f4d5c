"""Which age group a question is about, and which pages a flowchart title gives to one (onboarded "PEDIATRIC …"
algorithms): shared by the named-step route, the patient walk and the clarifying answer."""

from __future__ import annotations

from dkg.answers import Evidence, MissingFact
from dkg.lexicon import load_lexicon


def population_of(question: str, age: float | None = None) -> str | None:
    """The population a question is about: its words and age forms (the clinical lexicon's cues), else a stated
    ``age`` fact ("age=45" from the follow-up form); None when neither says."""
    lexicon = load_lexicon()
    said = lexicon.population(question).population
    if said is None and age is not None:
        return "childhood" if age < lexicon.data.populations.childhood_age_below else "adult"
    return said


def pages_by_population(question: str, titles: dict[str, str], age: float | None = None
                        ) -> tuple[set[str], set[str]]:
    """(pages whose title names the question's population, pages whose title names the other one):
    "PEDIATRIC …" is the first for "a 4-year-old" and the second for "a 60-year-old"; both empty when the
    question names no population (:func:`population_of`)."""
    lexicon = load_lexicon()
    asked = population_of(question, age)
    if asked is None:
        return set(), set()
    named = {page: lexicon.population(title).population for page, title in titles.items()}
    return ({p for p, n in named.items() if n == asked}, {p for p, n in named.items() if n not in (None, asked)})


def titled_pages(titles: dict[str, str]) -> set[str]:
    """The pages whose flowchart title names a population ("PEDIATRIC TACHYCARDIA …"): algorithms for one age
    group, where a question that names none is not placed while an untitled algorithm fits it too."""
    lexicon = load_lexicon()
    return {page for page, title in titles.items() if lexicon.population(title).population is not None}


def population_unstated(question: str, evidence: list[Evidence], age: float | None = None,
                        set_aside: list[str] | None = None) -> list[MissingFact]:
    """The patient's age as a missing fact when the question states none and either the answer's steps stand on
    a page whose flowchart title names a population (PEDIATRIC …: the facts may fit the other population's
    algorithm too) or the walk ``set_aside`` such algorithms (their titles) for an untitled one the facts fit;
    empty otherwise."""
    if population_of(question, age) is not None:
        return []
    lexicon = load_lexicon()
    limit = lexicon.data.populations.childhood_age_below
    allowed = [f"<{limit}", f">={limit}"]
    named = [t for e in evidence for t in e.page_titles if t and lexicon.population(t).population is not None]
    if named:
        return [MissingFact(key="age", description=f"Patient age (this answer follows {named[0]!r}, an algorithm "
                                                    "for one age group; the question states no age)",
                            allowed=allowed)]
    if set_aside:
        algorithms = " and ".join(repr(t) for t in set_aside)
        return [MissingFact(key="age", description=f"Patient age (the facts fit {algorithms} too, for one age "
                                                    "group; this answer follows the general algorithm, as the "
                                                    "question states no age)", allowed=allowed)]
    return []
