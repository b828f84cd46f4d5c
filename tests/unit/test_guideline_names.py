"""Guidelines are data: no module under dkg/ names a shipped guideline (issue #19, item 1).

The names are read from the corpus (``datasets/guidelines/<code>/``, codes and titles), so a fourth
guideline is checked as soon as its folder exists. A Python string literal (docstrings included) that is
a guideline code, or starts with one followed by a uid/page separator (``ALL|…``, ``ALL-3``, ``ALL@1``),
or contains a guideline title, names that guideline. A code that is also a word of the constraint
vocabulary (a value or synonym such as the metastatic site ``bone``) is that word, not the guideline.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

import dkg
from dkg.corpus.model import discover, load_guideline
from dkg.vocabulary import VOCABULARY

PACKAGE = Path(dkg.__file__).resolve().parent

def vocabulary_words() -> set[str]:
    """Every key, value and synonym of the constraint vocabulary."""
    words: set[str] = set()
    for spec in VOCABULARY.values():
        words.update({spec.name, *spec.synonyms, *spec.values})
        for synonyms in spec.values.values():
            words.update(synonyms)
    return words


@cache
def shipped_names() -> tuple[set[str], set[str]]:
    """(codes, titles) of the guidelines in the corpus."""
    codes: set[str] = set()
    titles: set[str] = set()
    for code, _, path in discover():
        codes.add(code)
        title = load_guideline(path).title.strip()
        if title:
            titles.add(title.casefold())
    return codes, titles


def string_literals(path: Path) -> list[tuple[int, str]]:
    """(line, value) of every string literal in a Python file (f-string parts are skipped)."""
    out: list[tuple[int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str):
                out.append((token.start[0], value))
    return out


def names_in(path: Path, codes: set[str], titles: set[str]) -> list[str]:
    """The places in one module that name a shipped guideline, as ``line: literal``."""
    alternatives = "|".join(re.escape(c) for c in sorted(codes))
    code_pattern = re.compile(rf"^(?:{alternatives})(?:$|[|@]|-\d)")
    words = vocabulary_words()
    found = []
    for line, value in string_literals(path):
        if value in words:
            continue
        if code_pattern.match(value.strip()) or any(t in value.casefold() for t in titles):
            found.append(f"{line}: {value[:60]!r}")
    return found


def test_corpus_has_guidelines_to_check() -> None:
    codes, titles = shipped_names()
    assert len(codes) >= 3 and len(titles) >= 3


def test_the_check_finds_a_named_guideline(tmp_path: Path) -> None:
    codes, titles = shipped_names()
    code = sorted(codes)[0]
    module = tmp_path / "named.py"
    module.write_text(f'GUIDELINES = ("{code}",)\nUID = "{code}|1.2026|x"\nOK = "{code.lower()}ergic"\n')
    assert [hit.split(":")[0] for hit in names_in(module, codes, titles)] == ["1", "2"]


MODULES = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_no_module_names_a_shipped_guideline(module: str) -> None:
    codes, titles = shipped_names()
    assert names_in(PACKAGE / module, codes, titles) == [], f"dkg/{module} names a shipped guideline"
