"""The clinical-language layer: abbreviations, shorthand, lay words, British spellings, disease aliases and
adult / childhood cues, kept as data a curator can extend (``dkg/lexicon/data/*.yaml``) and validated on load.

Typed API::

    lex = load_lexicon()
    lex.expand_query("Tx options s/p WLE?")             # ExpandedQuery(text="treatment options after ...")
    lex.population("AML in a 5-year-old")                # PopulationCue(population="childhood", ...)
    lex.resolver(disease_names).mentions("NSCLC ...")    # [DiseaseMention(diseases=("Non-Small Cell ...",))]

Used by retrieval (query understanding before embedding and BM25) and meant for question answering too.
"""

from dkg.lexicon.errors import LexiconError
from dkg.lexicon.loader import DATA_DIR, load_lexicon_data
from dkg.lexicon.matching import (
    DiseaseMention,
    DiseaseResolver,
    ExpandedQuery,
    Expansion,
    Lexicon,
    PopulationCue,
    load_lexicon,
)

__all__ = ["DATA_DIR", "DiseaseMention", "DiseaseResolver", "ExpandedQuery", "Expansion", "Lexicon",
           "LexiconError", "PopulationCue", "expand_query", "load_lexicon", "load_lexicon_data", "resolve_diseases"]


def expand_query(text: str) -> ExpandedQuery:
    """``text`` with the shipped lexicon's abbreviations, shorthand and lay words expanded."""
    return load_lexicon().expand_query(text)


def resolve_diseases(text: str, disease_names: list[str]) -> list[DiseaseMention]:
    """The mentions in ``text`` of the given diseases (names of :Disease nodes), with the population cue applied."""
    lex = load_lexicon()
    expanded = lex.expand_query(text).text
    return lex.resolver(disease_names).mentions(expanded, lex.population(expanded).population)
