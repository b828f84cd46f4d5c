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
from dkg.types import Constraint, Op

_FLAT_TOKEN = re.compile(r"[(),;:]|[^\s(),;:]+")
PARSE_BATCH = 24
# Longer (pre-processed) sentences are read by the flat rules: the PCFG parser would give a flat tree anyway.
MAX_PARSE_CHARS = 1500


class TreeSource(Protocol):
    """Anything that turns sentences into bracketed constituency trees (the CoreNLP server)."""

    def parse(self, sentences: list[str]) -> list[str]: ...


# Phrases naming a work-up or follow-up step describe what to do, not who the patient is.
_STEP_NOUNS = re.compile(r"\b(?:work-?up|monitoring|surveillance|assessment|evaluation|testing|follow-?up)\b")


def phrase_constraints(phrase: Phrase) -> list[Constraint]:
    """Constraints stated by one phrase: numeric first, then categorical.

    A phrase opening with an imperative verb (tag ``VB``: "Review metastatic sites") or naming a
    work-up step states no patient constraint.
    """
    if phrase.tags and phrase.tags[0] == "VB" and len(phrase.words) > 1 and not phrase_constraints(
        Phrase(phrase.words[:1])
    ):
        return []
    words = drop_stop_words(list(phrase.words))
    text = symbolize(" ".join(words).lower())
    text = re.sub(r"\s+-(?=\s)", "-", text)  # "intermediate - or poor-risk" → "intermediate- or poor-risk"
    if _STEP_NOUNS.search(text):
        return []
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


def split_question(sentence: str) -> tuple[str, str]:
    """``(stated, question)`` parts of a pre-processed sentence.

    "Localized disease: progression at the primary site?" states ``Localized disease`` and asks
    about progression (the YES/NO arrows answer it); "Age under 40 years?" both states and asks.
    """
    if not sentence.rstrip().endswith("?"):
        return sentence, ""
    head, colon, tail = sentence.rpartition(":")
    if colon and head.strip():
        return head.strip(), tail.strip()
    return sentence, sentence


_YES = re.compile(r"^\s*(?:yes|y|present|positive)\s*[.!]?\s*$", re.IGNORECASE)
_NO = re.compile(r"^\s*(?:no|n|absent|negative)\s*[.!]?\s*$", re.IGNORECASE)
_OPPOSITE = {Op.LT: Op.GE, Op.LE: Op.GT, Op.GT: Op.LE, Op.GE: Op.LT, Op.EQ: Op.NE, Op.NE: Op.EQ}
_OPPOSITE_VALUE = {("comorbidity", "none"): "substantial", ("comorbidity", "substantial"): "none",
                   ("ph", "+"): "-", ("ph", "-"): "+", ("mrd", "positive"): "negative",
                   ("mrd", "negative"): "positive", ("resectable", "yes"): "no", ("resectable", "no"): "yes",
                   ("transplant_eligible", "yes"): "no", ("transplant_eligible", "no"): "yes",
                   ("metastasis", "none"): "any", ("metastasis", "any"): "none"}


def answer_constraints(label: str, asked: list[Constraint]) -> list[Constraint] | None:
    """Constraints of a YES/NO arrow label given what the question asked; ``None`` if not yes/no.

    YES keeps the question's constraints; NO negates each one (``age<40`` → ``age>=40``,
    ``comorbidity=substantial`` → ``comorbidity=none``, ``histology=papillary`` → ``histology!=papillary``).
    A NO to a question asking several things at once is ambiguous and gives nothing.
    """
    if _YES.match(label):
        return list(asked)
    if not _NO.match(label):
        return None
    if len(asked) != 1:
        return []
    c = asked[0]
    if c.op is Op.IN:
        if not isinstance(c.value, frozenset):
            return []  # outside a range is "below or above": not a conjunction of constraints
        return [Constraint(key=c.key, op=Op.NE, value=v) for v in sorted(c.value)]
    if c.op is Op.EQ and (c.key, c.value) in _OPPOSITE_VALUE:
        return [Constraint(key=c.key, op=Op.EQ, value=_OPPOSITE_VALUE[(c.key, str(c.value))])]
    return [Constraint(key=c.key, op=_OPPOSITE[c.op], value=c.value)]


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

    def _analyse(self, texts: list[str], progress: Callable[[int], None] | None) -> dict[str, list[Constraint]]:
        unique = list(dict.fromkeys(t for t in texts if t))
        if self.rules_only:
            if progress:
                progress(len(unique))
            return {t: constraints_from_words(tokenize_flat(t)) for t in unique}
        short = [t for t in unique if len(t) <= MAX_PARSE_CHARS]
        trees = self.trees(short, progress)
        return {t: constraints_from_tree(read_tree(trees[t])) if t in trees else
                constraints_from_words(tokenize_flat(t)) for t in unique}

    def extract_with_questions(self, sentences: list[str], progress: Callable[[int], None] | None = None
                               ) -> list[tuple[list[Constraint], list[Constraint]]]:
        """Per sentence: ``(stated constraints, constraints its trailing question asks about)``."""
        parts = [split_question(preprocess(s)) for s in sentences]
        found = self._analyse([p for pair in parts for p in pair], progress)
        return [(found.get(stated, []), found.get(question, [])) for stated, question in parts]

    def extract_many(self, sentences: list[str], progress: Callable[[int], None] | None = None
                     ) -> list[list[Constraint]]:
        """One constraint list per sentence; an empty or constraint-free sentence gives ``[]``."""
        return [stated for stated, _ in self.extract_with_questions(sentences, progress)]

    def extract_labels(self, labels: list[str], heads: list[str], progress: Callable[[int], None] | None = None
                       ) -> list[list[Constraint]]:
        """Constraints of arrow labels: YES/NO answer the head's question, other labels are read as text."""
        asked = [q for _, q in self.extract_with_questions(heads)]
        as_text = self.extract_many(labels, progress)
        results: list[list[Constraint]] = []
        for label, question, text_constraints in zip(labels, asked, as_text, strict=True):
            answer = answer_constraints(label, question)
            results.append(text_constraints if answer is None else answer)
        return results

    def extract(self, sentence: str) -> list[Constraint]:
        """Constraints of one sentence."""
        return self.extract_many([sentence])[0]
