"""Pure text repairs for OCR output: footnote-key sequences, marker reads, Roman numerals.

Nothing here runs tesseract; the raster route calls these on what tesseract returned.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

LETTERS = string.ascii_lowercase
_ROMAN_WORD = re.compile(r"(?<![A-Za-z0-9'\u2019])([IVXl|]{1,4}(?:[-\u2013][IVXl|]{1,4})?)(?![A-Za-z0-9'\u2019])")


UNREAD_KEY = "?"  # a raised marker whose key could not be read
# what tesseract makes of a small raised letter it cannot read
THIN_LETTERS = "ijl"  # OCR swaps these thin keys among themselves; their shapes differ only in the stem
MISREAD_MARKS = frozenset("*?'\u2018\u2019\u201c\u201d\"!\u00ae\u00a9\u2122\u00b0^`")

def infer_key_sequence(reads: list[str]) -> list[str]:
    """Footnote keys of a page's footnote list, from the (unreliable) reads of each entry's marker.

    Footnote lists are lettered in order (``f, g, h, …``). When a run of consecutive letters agrees with
    most of the readable markers, the whole run is used, which also fills markers tesseract could not read;
    otherwise each read is kept as it is (an unreadable one becomes ``""``).

    >>> infer_key_sequence(["f", "q", "h", "", "j", "k"])
    ['f', 'g', 'h', 'i', 'j', 'k']
    >>> infer_key_sequence(["a", "c"])
    ['a', 'c']
    """
    cleaned = [r if len(r) == 1 and r in LETTERS else "" for r in (x.strip().lower() for x in reads)]
    n = len(cleaned)
    readable = sum(1 for r in cleaned if r)
    if n == 0:
        return []
    best_start, best_hits = -1, -1
    for start in range(0, len(LETTERS) - n + 1):
        hits = sum(1 for i, r in enumerate(cleaned) if r == LETTERS[start + i])
        if hits > best_hits:
            best_start, best_hits = start, hits
    # a lone read (or none at all) cannot establish a run; most of the readable ones must agree
    if best_hits >= 1 and best_hits * 2 > readable and (best_hits >= 2 or n == 1):
        return [LETTERS[best_start + i] for i in range(n)]
    return cleaned


def clean_marker_read(text: str, allowed: str) -> str:
    """Normalise a whitelisted marker re-read to ``"a"`` or ``"a,b"``: only allowed keys, no empty parts."""
    text = text.lower().replace(".", ",").replace(";", ",")
    keys = [k for k in (part.strip() for part in text.split(",")) if k]
    out: list[str] = []
    for key in keys:
        letters = "".join(ch for ch in key if ch in allowed)
        if not letters:
            continue
        # several letters with no comma between them are several markers ("ab" for "a,b")
        out.extend(letters if len(letters) > 1 and all(ch in LETTERS for ch in letters) else [letters])
    seen: list[str] = []
    for key in out:
        if key not in seen:
            seen.append(key)
    return ",".join(seen)


def fix_roman_numerals(text: str) -> str:
    """Undo OCR's usual misreads of Roman numerals: ``Stage |`` → ``Stage I``, ``I-lll`` → ``I-III``.

    Only stand-alone words made of ``I V X l |`` that contain an ``l`` or ``|`` are changed: English words are
    not spelt with those letters alone.

    >>> fix_roman_numerals("Stage I-lll, no distant metastases; Stage | or ll")
    'Stage I-III, no distant metastases; Stage I or II'
    """
    def repl(match: re.Match[str]) -> str:
        word = match.group(1)
        if not any(ch in "l|" for ch in word):
            return word
        return word.replace("l", "I").replace("|", "I")

    return _ROMAN_WORD.sub(repl, text)


_BAR_FOR_I = re.compile(r"(?<![^\W\d_])\|(?=[a-z])")
_CAPITAL_INSIDE = re.compile(r"(?<=[a-z])([COSVWXZU])(?=[a-z])")
_LOWER_I_IN_ACRONYM = re.compile(r"\b([A-Z]{2,})i(s?)\b")


def fix_case_confusions(text: str) -> str:
    """Undo OCR's usual mix-ups of letters that look alike in two cases or as a bar: ``|notuzumab`` →
    ``Inotuzumab``, ``inotuZumab`` → ``inotuzumab`` (c o s u v w x z look the same in both cases, so a
    capital between small letters is a misread), ``TKis`` → ``TKIs`` (a small i closing an acronym).

    >>> fix_case_confusions("|notuzumab or inotuZumab with TKis; MRIs, iPSC and T-cell stay")
    'Inotuzumab or inotuzumab with TKIs; MRIs, iPSC and T-cell stay'
    """
    text = _BAR_FOR_I.sub("I", text)
    text = _CAPITAL_INSIDE.sub(lambda m: m.group(1).lower(), text)
    return _LOWER_I_IN_ACRONYM.sub(lambda m: f"{m.group(1)}I{m.group(2)}", text)


def reconcile_note_keys(reads: list[str], used: Iterable[str]) -> list[str]:
    """Keys of a page's footnote entries (top to bottom), from OCR reads of their tiny raised keys and the
    keys of the (larger, better read) markers used in the page's boxes.

    Footnote lists run in key order, so the entries are matched to the sorted used keys, order preserved,
    agreeing with as many reads as possible. An entry takes a key its read does not confirm only when the
    order leaves it no other choice; when fewer keys are used than there are entries, the reads are kept.
    A box marker whose key could not be read (``?``) is no candidate: it would take the first entry's place.

    >>> reconcile_note_keys(["a", "b", "", "e", "f", "x"], ["k", "a", "b", "c", "e", "f"])
    ['a', 'b', 'c', 'e', 'f', 'k']
    >>> reconcile_note_keys(["a", "q"], ["a", "c", "d"])
    ['a', 'q']
    """
    candidates = sorted({k for k in used if k.isalnum()}, key=lambda k: (len(k), k))
    n, m = len(reads), len(candidates)
    if n == 0 or m < n:
        return list(reads)
    # best[i][j]: most agreeing reads when entries i.. take keys from candidates j.. in order
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = (reads[i] == candidates[j]) + best[i + 1][j + 1] if m - j >= n - i else -1
            skip = best[i][j + 1] if m - j - 1 >= n - i else -1
            best[i][j] = max(take, skip)
    picked, j = [], 0
    for i in range(n):
        while m - j - 1 >= n - i and best[i][j + 1] >= (reads[i] == candidates[j]) + best[i + 1][j + 1]:
            j += 1
        picked.append(j)
        j += 1
    out = []
    for i, j in enumerate(picked):
        low = picked[i - 1] + 1 if i else 0
        high = picked[i + 1] - 1 if i + 1 < n else m - 1
        # a key the reads do not confirm is used only when the order leaves no other choice
        out.append(candidates[j] if reads[i] == candidates[j] or low == high else reads[i])
    return out
