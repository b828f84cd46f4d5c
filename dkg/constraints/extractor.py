"""The constraint extractor: pre-process, parse (or not), cut into phrases, apply the rules.

``ConstraintExtractor(parser=server, cache=cache)`` uses CoreNLP constituency trees;
``ConstraintExtractor(rules_only=True)`` applies the same rules to the flat word sequence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from dkg.constraints.cache import ParseCache
from dkg.constraints.categorical import find_categorical
from dkg.constraints.mathwords import find_numeric, symbolize
from dkg.constraints.preprocess import preprocess
from dkg.constraints.segment import Phrase, drop_stop_words, flat_phrases, tree_phrases
from dkg.constraints.tree import Tree, read_tree
from dkg.errors import ConstraintError
from dkg.types import Constraint

_FLAT_TOKEN = re.compile(r"[(),;:]|[^\s(),;:]+")
PARSE_BATCH = 24


class TreeSource(Protocol):
    """Anything that turns sentences into bracketed constituency trees (the CoreNLP server)."""

    def parse(self, sentences: list[str]) -> list[str]: ...


def phrase_constraints(phrase: Phrase) -> list[Constraint]:
    """Constraints stated by one phrase: numeric first, then categorical."""
    words = drop_stop_words(list(phrase.words))
    text = symbolize(" ".join(words).lower())
    numeric, spans = find_numeric(text)
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return numeric + find_categorical(text, negated=phrase.negated)


def _probe(words: list[str]) -> set[str]:
    return {c.key for c in phrase_constraints(Phrase(tuple(words)))}


def _unique(constraints: list[Constraint]) -> list[Constraint]:
    return list(dict.fromkeys(constraints))


def tokenize_flat(text: str) -> list[str]:
    """Words and punctuation of a pre-processed sentence, without a parser."""
    return _FLAT_TOKEN.findall(text)


def constraints_from_tree(tree: Tree) -> list[Constraint]:
    """Constraints of a sentence given its constituency tree."""
    return _unique([c for p in tree_phrases(tree, _probe) for c in phrase_constraints(p)])


def constraints_from_words(words: list[str]) -> list[Constraint]:
    """Constraints of a sentence from its flat word sequence (rules-only mode)."""
    return _unique([c for p in flat_phrases(words, _probe) for c in phrase_constraints(p)])


class ConstraintExtractor:
    """Extract :class:`~dkg.types.Constraint` lists from guideline sentences."""

    def __init__(self, parser: TreeSource | None = None, cache: ParseCache | None = None,
                 rules_only: bool = False, parse_threads: int = 2) -> None:
        if parser is None and not rules_only:
            raise ConstraintError("the tree mode needs a parser (a running CoreNLP server); or use rules_only=True")
        self.parser = parser
        self.cache = cache
        self.rules_only = rules_only
        self.parse_threads = parse_threads

    def trees(self, sentences: list[str], progress: Callable[[int], None] | None = None) -> dict[str, str]:
        """Bracketed trees of pre-processed ``sentences`` (from the cache when possible)."""
        unique = list(dict.fromkeys(s for s in sentences if s))
        known = self.cache.get_many(unique) if self.cache else {}
        missing = [s for s in unique if s not in known]
        if progress:
            progress(len(unique) - len(missing))
        if missing:
            assert self.parser is not None
            batches = [missing[i:i + PARSE_BATCH] for i in range(0, len(missing), PARSE_BATCH)]
            with ThreadPoolExecutor(max_workers=self.parse_threads) as pool:
                for batch, trees in zip(batches, pool.map(self.parser.parse, batches), strict=True):
                    parsed = dict(zip(batch, trees, strict=True))
                    known.update(parsed)
                    if self.cache:
                        self.cache.put_many(parsed)
                    if progress:
                        progress(len(batch))
        return known

    def extract_many(self, sentences: list[str], progress: Callable[[int], None] | None = None
                     ) -> list[list[Constraint]]:
        """One constraint list per sentence; an empty or constraint-free sentence gives ``[]``."""
        cleaned = [preprocess(s) for s in sentences]
        if self.rules_only:
            results = [constraints_from_words(tokenize_flat(s)) if s else [] for s in cleaned]
            if progress:
                progress(len(set(cleaned)))
            return results
        trees = self.trees(cleaned, progress)
        return [constraints_from_tree(read_tree(trees[s])) if s else [] for s in cleaned]

    def extract(self, sentence: str) -> list[Constraint]:
        """Constraints of one sentence."""
        return self.extract_many([sentence])[0]
