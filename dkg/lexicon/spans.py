"""Which characters of a text each fact key has already been read from.

A wording read for one key is not read again for the same key ('lung mets' is not also 'mets'), while other
keys may share its words ('hypotensive' states two facts). Used by the clinical lexicon
(:mod:`dkg.lexicon.clinical`) and by the onboarded guidelines' vocabulary reader (:mod:`dkg.qa.vocabulary_facts`).
"""

from __future__ import annotations


class KeySpans:
    """Per-key claimed characters of one text of ``length`` characters.

    >>> spans = KeySpans(20)
    >>> spans.claim("metastasis", 0, 9), spans.claim("metastasis", 5, 9), spans.claim("site", 5, 9)
    (True, False, True)
    """

    def __init__(self, length: int) -> None:
        self._length = length
        self._taken: dict[str, list[bool]] = {}

    def claim(self, key: str, start: int, end: int) -> bool:
        """Take ``[start, end)`` for ``key``; False (and nothing taken) when ``key`` already holds any of it."""
        used = self._taken.setdefault(key, [False] * (self._length + 1))
        if any(used[start:end]):
            return False
        used[start:end] = [True] * (end - start)
        return True


__all__ = ["KeySpans"]
