"""A minimal constituency tree read from bracketed (Penn Treebank) text, as CoreNLP prints it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from dkg.errors import ConstraintError

_UNESCAPE = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}
_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class Tree:
    """A node: ``label`` and ``children``; a leaf (a word) has ``word`` set and no children."""

    label: str
    children: list[Tree] = field(default_factory=list)
    word: str | None = None

    @property
    def is_leaf(self) -> bool:
        return self.word is not None

    @property
    def is_preterminal(self) -> bool:
        return len(self.children) == 1 and self.children[0].is_leaf

    def leaves(self) -> list[str]:
        """The words under this node, left to right."""
        if self.word is not None:
            return [self.word]
        return [word for child in self.children for word in child.leaves()]

    def tagged(self) -> list[tuple[str, str]]:
        """``(word, part-of-speech)`` pairs under this node."""
        if self.is_preterminal:
            return [(self.children[0].word or "", self.label)]
        return [pair for child in self.children for pair in child.tagged()]

    def subtrees(self) -> Iterator[Tree]:
        yield self
        for child in self.children:
            yield from child.subtrees()

    def __str__(self) -> str:
        if self.word is not None:
            return self.word
        return "(" + " ".join([self.label, *(str(c) for c in self.children)]) + ")"


def read_tree(text: str) -> Tree:
    """Read one bracketed tree, e.g. ``(ROOT (NP (NN MRD)))``; leaf escapes like ``-LRB-`` are undone."""
    tokens = _TOKEN.findall(text)
    if not tokens or tokens[0] != "(":
        raise ConstraintError(f"not a bracketed tree: {text[:80]!r}")
    position = 0

    def node() -> Tree:
        nonlocal position
        position += 1  # "("
        if position >= len(tokens):
            raise ConstraintError(f"unbalanced tree: {text[:80]!r}")
        label = tokens[position] if tokens[position] not in "()" else ""
        if label:
            position += 1
        children: list[Tree] = []
        while position < len(tokens) and tokens[position] != ")":
            if tokens[position] == "(":
                children.append(node())
            else:
                word = tokens[position]
                children.append(Tree(label=word, word=_UNESCAPE.get(word, word)))
                position += 1
        if position >= len(tokens):
            raise ConstraintError(f"unbalanced tree: {text[:80]!r}")
        position += 1  # ")"
        return Tree(label=label, children=children)

    tree = node()
    if position != len(tokens):
        raise ConstraintError(f"text after the tree: {text[:80]!r}")
    return tree


def flat_tree(words: list[str]) -> Tree:
    """A tree with no structure (every word a child of ROOT), for the rules-only mode."""
    return Tree("ROOT", [Tree("X", [Tree(w, word=w)]) for w in words])
