"""Explanations of a retrieved node: per-field token overlap with the query, and a readable source."""

from __future__ import annotations

from collections.abc import Mapping

from dkg.retrieval.embedding import tokenize

STOPWORDS = frozenset("""a an and are as at be by can do does for from has have how i in is it its of on or the
this to was what when where which who why will with you your my me about after before should there their they
than then these those get used use""".split())


def query_terms(query: str) -> set[str]:
    """Content words of a query (lower-case, stopwords dropped).

    >>> sorted(query_terms("What is blinatumomab used for in ALL?"))
    ['all', 'blinatumomab']
    """
    return {t for t in tokenize(query) if t not in STOPWORDS}


def field_contributions(query: str, fields: Mapping[str, str]) -> dict[str, float]:
    """For each tagged field, the share of the query's content words it contains (0..1, rounded).

    >>> field_contributions("blinatumomab for MRD", {"content": "Blinatumomab if MRD positive", "type": "Action"})
    {'content': 1.0, 'type': 0.0}
    """
    terms = query_terms(query)
    if not terms:
        return {name: 0.0 for name in fields}
    return {name: round(len(terms & set(tokenize(value))) / len(terms), 3) for name, value in fields.items()}
