"""Cut a sentence into phrases that each state constraints on their own.

Tree mode merges constituents bottom-up: a node stays one phrase unless two or more of its
children each state constraints of different keys, separated by a comma, semicolon, colon or a
coordinating conjunction ("Ph-negative ALL, age 15-39 years, without substantial comorbidities"
splits; "comorbidities of diabetes and liver" and "persistent or rising MRD" stay whole, so the
head word reaches every coordinated value). A negator (without, no, not) in front of a split
constituent is passed down to its parts.

Rules-only mode applies the same test to the flat word sequence: it cuts at every comma,
semicolon and colon, and at "and"/"or" when both sides state constraints of different keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dkg.constraints.tree import Tree

_SEPARATOR_WORDS = {",", ";", ":", "and", "or", "but", "and/or", "plus"}
_SEPARATOR_TAGS = {",", ":", "CC", "."}
_NEGATORS = {"without", "no", "not", "neither", "nor"}
# Function words and auxiliaries carry no constraint; dropping them keeps the rules' patterns short.
STOP_WORDS = {"the", "an", "this", "these", "those", "patients", "patient", "who", "whom", "which", "that", "is",
              "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "having"}

# Given a phrase's words, return the keys it states on its own (empty if none).
KeyProbe = Callable[[list[str]], set[str]]


@dataclass(frozen=True)
class Phrase:
    """Words of one phrase and whether an enclosing constituent negates all of it."""

    words: tuple[str, ...]
    negated: bool = False
    tags: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(self.words)


def drop_stop_words(words: list[str]) -> list[str]:
    """The words without function words and auxiliaries (case-insensitive)."""
    return [w for w in words if w.lower() not in STOP_WORDS]


def _is_separator(node: Tree) -> bool:
    return node.is_preterminal and (node.label in _SEPARATOR_TAGS or (node.leaves()[0].lower() in _SEPARATOR_WORDS))


def _distinct_statements(parts: list[list[str]], probe: KeyProbe) -> bool:
    """True when at least two parts state constraints and no key is stated by two parts.

    A key shared by two parts ("relapsed or refractory ...") means the parts are one coordinated
    statement about that key, which the rules read best as a whole.
    """
    keysets = [keys for keys in (probe(p) for p in parts) if keys]
    if len(keysets) < 2:
        return False
    return sum(len(k) for k in keysets) == len(set().union(*keysets))


def _runs(node: Tree) -> list[Tree]:
    """Children grouped into runs between separators; a run of several children becomes one node."""
    runs: list[list[Tree]] = [[]]
    for child in node.children:
        if _is_separator(child):
            runs.append([])
        else:
            runs[-1].append(child)
    return [run[0] if len(run) == 1 else Tree(node.label, run) for run in runs if run]


def _needs_split(node: Tree, probe: KeyProbe) -> bool:
    if node.is_leaf or node.is_preterminal:
        return False
    if any(_is_separator(c) for c in node.children):
        if _distinct_statements([run.leaves() for run in _runs(node)], probe):
            return True
    return any(_needs_split(c, probe) for c in node.children)


def _phrase(node: Tree, negated: bool) -> list[Phrase]:
    pairs = node.tagged() if not node.is_leaf else [(node.word or "", "")]
    if not pairs:
        return []
    words, tags = zip(*pairs, strict=True)
    return [Phrase(tuple(words), negated, tuple(tags))]


def tree_phrases(tree: Tree, probe: KeyProbe, negated: bool = False) -> list[Phrase]:
    """Phrases of a constituency tree (see the module docstring)."""
    if tree.is_leaf or not _needs_split(tree, probe):
        return _phrase(tree, negated)
    phrases: list[Phrase] = []
    negate_rest = negated
    split_here = any(_is_separator(c) for c in tree.children) and _distinct_statements(
        [run.leaves() for run in _runs(tree)], probe)
    # Without a split at this node, a child that states nothing alone ("Necrosis" before "≥ 90%")
    # is a modifier of its neighbour, so its words join the next phrase.
    pending: list[tuple[str, str]] = []
    for child in (_runs(tree) if split_here else tree.children):
        if _is_separator(child):
            continue
        if child.is_preterminal and child.leaves()[0].lower() in _NEGATORS:
            negate_rest = True
            continue
        if not split_here and not probe(child.leaves()):
            pending.extend(child.tagged() if not child.is_leaf else [(child.word or "", "")])
            continue
        parts = tree_phrases(child, probe, negate_rest)
        if pending and parts:
            first = parts[0]
            words, tags = zip(*pending, strict=True)
            parts[0] = Phrase(tuple(words) + first.words, first.negated, tuple(tags) + first.tags)
            pending = []
        phrases.extend(parts)
    if pending:
        words, tags = zip(*pending, strict=True)
        if phrases:
            last = phrases[-1]
            phrases[-1] = Phrase(last.words + tuple(words), last.negated, last.tags + tuple(tags))
        else:
            phrases.append(Phrase(tuple(words), negate_rest, tuple(tags)))
    return phrases


def flat_phrases(words: list[str], probe: KeyProbe) -> list[Phrase]:
    """Phrases of a flat word sequence (rules-only mode)."""
    segments: list[list[str]] = [[]]
    for word in words:
        if word in {",", ";", ":"}:
            segments.append([])
        else:
            segments[-1].append(word)
    phrases: list[Phrase] = []
    for segment in segments:
        pieces: list[list[str]] = [[]]
        conjunctions: list[str] = []
        for word in segment:
            if word.lower() in {"and", "or"} and pieces[-1]:
                pieces.append([])
                conjunctions.append(word)
            else:
                pieces[-1].append(word)
        merged: list[list[str]] = [pieces[0]]
        for conjunction, piece in zip(conjunctions, pieces[1:], strict=True):
            if _distinct_statements([merged[-1], piece], probe):
                merged.append(piece)
            else:
                merged[-1] = [*merged[-1], conjunction, *piece]
        phrases.extend(Phrase(tuple(p)) for p in merged if p)
    return phrases
