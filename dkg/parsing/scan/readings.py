"""OCR letter/digit confusions undone against a lexicon of clinical abbreviations and units.

Tesseract's own dictionary is general English: on a blurred scan it reads ``IO`` as ``10``, ``mcg`` as ``meg``,
``MI`` as ``Ml`` and ``SpO2`` as ``Sp02``, and each such word makes a box's text, and every edge of the box,
wrong. A word (or a ``/``-separated part of one) that is not in the lexicon but becomes exactly one lexicon
entry by swapping at most ``ScanSettings.misread_max_swaps`` look-alike characters is that entry. A number
becomes letters only where it stands as the alternative of a lexicon abbreviation (``IV / 10`` → ``IV / IO``):
elsewhere ``10`` is a number.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations, product
from pathlib import Path

TERMS_FILE = Path(__file__).resolve().parent / "data" / "ocr_terms.txt"

# what tesseract reads for each character (or pair) on a blurred scan, and what it may have been
LOOK_ALIKES: dict[str, tuple[str, ...]] = {
    "0": ("O",), "O": ("0",), "1": ("I", "l"), "l": ("I", "1"), "I": ("l", "1"), "5": ("S",), "S": ("5",),
    "8": ("B",), "B": ("8",), "e": ("c",), "c": ("e",), "i": ("l",), "rn": ("m",), "m": ("rn",), "Q": ("O",),
}
# what tesseract reads for a subscript 2 at a word's end (the small digit blurs into a mark: ``O2`` read ``O:``,
# ``SpO2`` read ``SpOz``); taken for the digit only where that makes a lexicon entry ending in it
SUBSCRIPT_READS: dict[str, str] = {":": "2", ">": "2", "z": "2"}
AFFIX = "()[]{},.;:*\"'\u201c\u201d"
NUMBER = re.compile(r"\d+")
ALTERNATION = frozenset({"/", "or"})
QUANTITY = re.compile(r"[<>=%\d.+\-]+")


@lru_cache(maxsize=4)
def load_terms(path: Path = TERMS_FILE) -> frozenset[str]:
    """The lexicon: one entry per line of ``path``, ``#`` comments and blank lines skipped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(term for line in lines if (term := line.split("#", 1)[0].strip()))


def _variants(word: str, max_swaps: int) -> set[str]:
    """Every reading of ``word`` with one to ``max_swaps`` look-alike characters swapped."""
    spots: list[tuple[int, int, tuple[str, ...]]] = []  # (start, length, replacements)
    for start in range(len(word)):
        for length in (1, 2):
            if (piece := word[start:start + length]) in LOOK_ALIKES and len(piece) == length:
                spots.append((start, length, LOOK_ALIKES[piece]))
    found: set[str] = set()
    for count in range(1, max_swaps + 1):
        for chosen in combinations(spots, count):
            ends = [(s, s + n) for s, n, _ in chosen]
            if any(a[1] > b[0] for a, b in zip(ends, ends[1:], strict=False)):
                continue  # overlapping spots (``rn`` and its ``r``)
            for picks in product(*(r for _, _, r in chosen)):
                out, last = [], 0
                for (start, length, _), pick in zip(chosen, picks, strict=True):
                    out += [word[last:start], pick]
                    last = start + length
                found.add("".join(out) + word[last:])
    return found


def corrected_word(word: str, terms: frozenset[str], max_swaps: int) -> str:
    """``word`` itself when it is in ``terms`` or is no single entry's look-alike; else that entry.
    Numbers are left alone here (see :func:`corrected_line`)."""
    if len(word) < 2 or word in terms or NUMBER.fullmatch(word) or not any(c.isalpha() for c in word):
        return word
    hits = {v for v in _variants(word, max_swaps) if v in terms or _dose(v, terms)}
    return hits.pop() if len(hits) == 1 else word


def _dose(word: str, terms: frozenset[str]) -> bool:
    """``word`` is a number glued to a lexicon unit (``5mg``: ``Smg`` is its look-alike)."""
    glued = QUANTITY.match(word)
    return bool(glued and any(c.isdigit() for c in glued.group(0)) and word[glued.end():] in terms)


def _subscript_read(core: str, trail: str, terms: frozenset[str], max_swaps: int) -> str | None:
    """``core`` + ``trail`` with a final subscript digit read as a mark (``SUBSCRIPT_READS``) given back, when
    that (look-alikes undone, see :func:`corrected_word`) is a lexicon entry ending in the digit; else None.
    The mark is the core's last letter (``SpOz``) or the first of the affixes after it (``O:``)."""
    if not core or core in terms:
        return None
    if core[-1] in SUBSCRIPT_READS and len(core) >= 2:
        body, rest = core[:-1] + SUBSCRIPT_READS[core[-1]], trail
    elif trail[:1] in SUBSCRIPT_READS:
        body, rest = core + SUBSCRIPT_READS[trail[0]], trail[1:]
    else:
        return None
    fixed = body if body in terms else corrected_word(body, terms, max_swaps)
    return fixed + rest if fixed in terms and fixed[-1].isdigit() else None


def _number_as_term(number: str, terms: frozenset[str], max_swaps: int) -> str | None:
    hits = {v for v in _variants(number, max_swaps) if v in terms and v.isalpha()}
    return hits.pop() if len(hits) == 1 else None


def corrected_line(words: list[str], terms: frozenset[str], max_swaps: int) -> list[str]:
    """The words of one OCR line with look-alike misreads of lexicon entries undone."""
    # each word as parts: the affixes, the ``/`` separators and the cores between them
    pieces: list[list[str]] = [re.split(r"(/)", w) for w in words]
    flat: list[tuple[int, int]] = []  # (word, part) of every core and separator, in reading order
    for wi, parts in enumerate(pieces):
        for pi, part in enumerate(parts):
            core = part.strip(AFFIX)
            if not core:
                continue
            if core != "/":
                lead = part[: len(part) - len(part.lstrip(AFFIX))]
                trail = part[len(lead) + len(core):]
                # a number or comparison glued before the word (``1mg``, ``<90%Sp02``) is kept as read
                glued = QUANTITY.match(core)
                head = glued.group(0) if glued and core[glued.end():][:1].isalpha() else ""
                subscript = _subscript_read(core[len(head):], trail, terms, max_swaps)
                if subscript is not None:
                    parts[pi] = lead + head + subscript
                else:
                    parts[pi] = lead + head + corrected_word(core[len(head):], terms, max_swaps) + trail
            flat.append((wi, pi))

    def core_of(k: int) -> str:
        wi, pi = flat[k]
        return pieces[wi][pi].strip(AFFIX)

    for k in range(2, len(flat)):
        core = core_of(k)
        if NUMBER.fullmatch(core) and core_of(k - 1).lower() in ALTERNATION and core_of(k - 2) in terms:
            letters = _number_as_term(core, terms, max_swaps)
            if letters is not None:
                wi, pi = flat[k]
                pieces[wi][pi] = pieces[wi][pi].replace(core, letters, 1)
    return ["".join(parts) for parts in pieces]
