"""Porter stems of question and box words (nltk), cached: shared by the done-step reading, the guideline finder
and chart names ('resected' and 'resection' are both 'resect')."""

from __future__ import annotations

from functools import lru_cache

from nltk.stem.porter import PorterStemmer

_PORTER = PorterStemmer()


@lru_cache(maxsize=8192)
def porter_stem(word: str) -> str:
    """The Porter stem of one lower-cased word.

    >>> porter_stem("perfused"), porter_stem("perfusion")
    ('perfus', 'perfus')
    """
    return _PORTER.stem(word)


__all__ = ["porter_stem"]
