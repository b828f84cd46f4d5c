"""Footnotes and markers of a scanned document, settled across its pages.

OCR reads each page on its own, and the tiny raised keys are where it fails most: a footnote's key is read as
nothing or as another letter, and a missed key merges two footnotes into one. The other pages of the same
document usually hold the evidence that settles these: the same footnote printed on several pages, with its
key read on most of them. Everything here only fills in or corrects what one page could not settle, and only where the
evidence is clear and agrees with the page's own key order; a document whose pages letter their footnotes
independently gives no clear evidence and is left as read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Any

from dkg.parsing.evaluate import normalise
from dkg.parsing.ocr_text import UNREAD_KEY

SAME_NOTE = 0.9  # normalised-text similarity above which two entries are the same footnote
SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z0-9])")
MIN_SPLIT_WORDS = 3


@dataclass(frozen=True)
class NoteEntry:
    """One footnote entry as read on one page: its key, its text, the marker piece opening it (or None) and
    the key OCR read at its head before the page matched it to its box markers (empty when unknown)."""

    key: str
    text: str
    marker: Any = None
    read: str = ""

    @property
    def keyed(self) -> bool:
        return self.key.isalnum()


def _similar(a: str, b: str) -> float:
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio() if matcher.real_quick_ratio() >= SAME_NOTE and matcher.quick_ratio() >= SAME_NOTE else 0.0


def _key_order(key: str) -> tuple[int, str]:
    return len(key), key


def split_merged_entries(pages: dict[int, list[NoteEntry]]) -> dict[int, list[NoteEntry]]:
    """Split an entry that is two footnotes run together (the second one's key was missed, so its line was
    taken for a continuation): at a sentence end where the part before or the part after is, on another page,
    a footnote entry of its own. The split-off footnote starts with no key.

    >>> pages = {0: [NoteEntry("d", "Fertility is discussed first. Dexrazoxane may be given with doxorubicin.")],
    ...          1: [NoteEntry("d", "Fertility is discussed first.")]}
    >>> [(e.key, e.text) for e in split_merged_entries(pages)[0]]
    [('d', 'Fertility is discussed first.'), ('?', 'Dexrazoxane may be given with doxorubicin.')]
    """
    out: dict[int, list[NoteEntry]] = {}
    for page, entries in pages.items():
        others = [normalise(e.text) for p, es in pages.items() if p != page for e in es]
        settled: list[NoteEntry] = []
        for entry in entries:
            settled.extend(_split(entry, others))
        out[page] = settled
    return out


def _split(entry: NoteEntry, others: list[str]) -> list[NoteEntry]:
    for cut in SENTENCE_END.finditer(entry.text):
        head, tail = entry.text[: cut.start()].strip(), entry.text[cut.end():].strip()
        if min(len(head.split()), len(tail.split())) < MIN_SPLIT_WORDS:
            continue
        if any(_similar(normalise(part), other) >= SAME_NOTE for part in (head, tail) for other in others):
            return [replace(entry, text=head), *_split(NoteEntry("?", tail), others)]
    return [entry]


def same_note_groups(pages: dict[int, list[NoteEntry]]) -> list[list[tuple[int, int]]]:
    """``(page, index)`` of the entries that are the same footnote (near-identical text), grouped."""
    items = [(page, index, normalise(entry.text)) for page, entries in sorted(pages.items())
             for index, entry in enumerate(entries)]
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if items[i][0] != items[j][0] and root(i) != root(j) and _similar(items[i][2], items[j][2]) >= SAME_NOTE:
                parent[root(j)] = root(i)
    groups: dict[int, list[tuple[int, int]]] = {}
    for i, (page, index, _) in enumerate(items):
        groups.setdefault(root(i), []).append((page, index))
    return list(groups.values())


def settle_note_keys(pages: dict[int, list[NoteEntry]], cited: dict[int, set[str]]) -> dict[int, list[NoteEntry]]:
    """Keys (and texts) of the same footnote read on several pages, settled by its pages' majority.

    An entry takes its footnote's majority key when its own key is unread, or when its own read has at most
    one other page behind it, the majority has at least two pages and twice the votes, and no box marker on
    its page was read as its own key (``cited``: the keys the page's box markers were read as). The key must
    also keep the page's keys in order and unique. An entry read on three or more pages takes the text most
    like the others' (the medoid), which undoes one page's misreads.

    >>> read = {0: [NoteEntry("a", "Alpha note."), NoteEntry("?", "Beta note.")],
    ...         1: [NoteEntry("b", "Beta note.")], 2: [NoteEntry("b", "Beta note!")]}
    >>> [e.key for e in settle_note_keys(read, {})[0]]
    ['a', 'b']
    """
    out = {page: list(entries) for page, entries in pages.items()}
    for group in same_note_groups(pages):
        members = [pages[page][index] for page, index in group]
        votes = Counter(entry.key for entry in members if entry.keyed)
        texts = [normalise(entry.text) for entry in members]
        medoid = None
        if len(members) >= 3:
            scores = [sum(SequenceMatcher(None, a, b, autojunk=False).ratio() for b in texts) for a in texts]
            medoid = members[max(range(len(members)), key=scores.__getitem__)].text
        ranked = votes.most_common(2)
        majority, count = ranked[0] if ranked else (None, 0)
        runner_up = ranked[1][1] if len(ranked) > 1 else 0
        for page, index in group:
            entry = out[page][index]
            key = entry.key
            if majority is not None and key != majority and count >= 2 and (
                not entry.keyed or (votes[key] <= 1 and count >= 2 * max(runner_up, votes[key])
                                    and key not in cited.get(page, set()))
            ) and fits(out[page], index, majority):
                key = majority
            text = medoid if medoid is not None else _without_misread_key(
                entry.text, [m.text for m in members if m is not entry])
            out[page][index] = replace(entry, key=key, text=text)
    return out


def _without_misread_key(text: str, others: list[str]) -> str:
    """The text without a short first word that the same footnote read on another page lacks: the entry's
    key misread as text (``9 Inotuzumab ...`` for the key ``g``).

    >>> _without_misread_key("9 Inotuzumab is a conjugate.", ["Inotuzumab is a conjugate."])
    'Inotuzumab is a conjugate.'
    >>> _without_misread_key("5 fractions are given.", ["Fractions are given daily."])
    '5 fractions are given.'
    """
    first, _, rest = text.partition(" ")
    if len(first) <= 2 and rest and any(normalise(rest) == normalise(other) for other in others):
        return rest
    return text


def undouble_keys(pages: dict[int, list[NoteEntry]]) -> dict[int, list[NoteEntry]]:
    """A doubled key (``kk``) is the letter read twice, in a document lettered once whose letters never ran
    past ``z`` (double keys follow ``z``): the footnote takes the single letter where no other footnote holds
    it and it keeps the page's keys in order.

    >>> pages = {0: [NoteEntry("g", "G.", read="g"), NoteEntry("kk", "K.", read="kk")],
    ...          1: [NoteEntry("g", "G.", read="g"), NoteEntry("kk", "K.", read="kk")]}
    >>> [e.key for e in undouble_keys(pages)[0]]
    ['g', 'k']
    """
    groups = same_note_groups(pages)
    if not lettered_once(pages, groups):
        return pages
    keys = {e.key for entries in pages.values() for e in entries if e.keyed}
    if "z" in keys:
        return pages
    out = {page: list(entries) for page, entries in pages.items()}
    for group in groups:
        doubled = {out[p][i].key for p, i in group if len(out[p][i].key) == 2 and out[p][i].key[0] == out[p][i].key[1]}
        for key in doubled:
            single = key[0]
            others = {out[p][i].key for g in groups if g is not group for p, i in g}
            if single in others:
                continue
            for page, index in group:
                entry = out[page][index]
                if entry.key == key and fits(out[page], index, single):
                    out[page][index] = replace(entry, key=single)
    return out


def lettered_once(pages: dict[int, list[NoteEntry]], groups: list[list[tuple[int, int]]]) -> bool:
    """Whether the document letters its footnotes once for all pages, as OCR read their keys: more letters
    read on two or more pages for one footnote only than letters read for two different footnotes (a
    document that letters each page anew reads its first letters for many footnotes)."""
    owners: dict[str, set[int]] = {}
    reads: Counter[str] = Counter()
    for number, group in enumerate(groups):
        for page, index in group:
            read = pages[page][index].read
            if read.isalnum():
                owners.setdefault(read, set()).add(number)
                reads[read] += 1
    shared = sum(1 for numbers in owners.values() if len(numbers) > 1)
    consistent = sum(1 for read, numbers in owners.items() if len(numbers) == 1 and reads[read] >= 2)
    return consistent >= 2 and shared < consistent


def resolve_key_conflicts(pages: dict[int, list[NoteEntry]]) -> dict[int, list[NoteEntry]]:
    """One key held by two different footnotes in a document that letters its footnotes once: the footnote
    whose own reads contradict the key least (then confirm it most) keeps it; on the others' pages an entry
    holding it goes back to the key read at its head, when no other footnote holds that one and it keeps the
    page's keys in order, or else to unread. The held key came from the page's box markers, and a box marker
    misread as another footnote's letter (``therapy^o`` read ``r``) re-keys a footnote read right.

    >>> pages = {0: [NoteEntry("r", "Busulfan and melphalan.", read="o")],
    ...          1: [NoteEntry("r", "Options include ifosfamide.", read="r")],
    ...          2: [NoteEntry("r", "Options include ifosfamide.", read="r"), NoteEntry("w", "Trials.", read="w")],
    ...          3: [NoteEntry("w", "Trials.", read="w")]}
    >>> [e.key for e in resolve_key_conflicts(pages)[0]]
    ['o']
    """
    groups = same_note_groups(pages)
    if not lettered_once(pages, groups):
        return pages
    out = {page: list(entries) for page, entries in pages.items()}
    for _ in range(len(groups)):  # each round settles one key; a key given back may clash once more
        holders: dict[str, list[int]] = {}
        for number, group in enumerate(groups):
            for key in {out[page][index].key for page, index in group if out[page][index].keyed}:
                holders.setdefault(key, []).append(number)
        clash = next(((key, numbers) for key, numbers in sorted(holders.items()) if len(numbers) > 1), None)
        if clash is None:
            return out
        key, numbers = clash

        def standing(number: int, key: str = key) -> tuple[int, int]:
            entries = [out[page][index] for page, index in groups[number] if out[page][index].key == key]
            contradicted = sum(1 for e in entries if e.read.isalnum() and e.read != key)
            return -contradicted, sum(1 for e in entries if e.read == key)

        ranked = sorted(numbers, key=standing, reverse=True)
        if standing(ranked[0]) == standing(ranked[1]):
            return out  # no footnote has the better claim: leave the key as it is
        for number in ranked[1:]:
            held = {k for k, owners in holders.items() if any(n != number for n in owners)}
            for page, index in groups[number]:
                entry = out[page][index]
                if entry.key != key:
                    continue
                back = entry.read if entry.read.isalnum() and entry.read not in held else UNREAD_KEY
                if back != UNREAD_KEY and not fits(out[page], index, back):
                    back = UNREAD_KEY
                out[page][index] = replace(entry, key=back)
    return out


def fits(entries: Sequence[NoteEntry], index: int, key: str) -> bool:
    """Whether ``key`` at ``index`` keeps the page's read keys unique and in order."""
    return not any(e.key == key for n, e in enumerate(entries) if n != index) and _in_order(entries, index, key)


def _in_order(entries: Sequence[NoteEntry], index: int, key: str) -> bool:
    """Whether ``key`` at ``index`` lies between the keys read above and below it."""
    before = [e.key for e in entries[:index] if e.keyed]
    after = [e.key for e in entries[index + 1:] if e.keyed]
    return (not before or _key_order(before[-1]) < _key_order(key)) and (
        not after or _key_order(key) < _key_order(after[0]))


def infer_unread_keys(pages: dict[int, list[NoteEntry]]) -> dict[int, list[NoteEntry]]:
    """Keys no page could read, found by elimination when the document letters its footnotes once for all
    pages (each footnote keeps one letter everywhere; the pages show it: no letter was read for two
    different footnotes, and some footnote has the same letter read on two pages). A footnote whose letter
    was read nowhere must lie, on every page that prints it, between the letters read above and below it,
    and cannot be a letter another footnote holds: when one letter is left, it is that one.

    >>> pages = {0: [NoteEntry("a", "Alpha note."), NoteEntry("?", "Beta note."), NoteEntry("c", "Gamma note.")],
    ...          1: [NoteEntry("a", "Alpha note."), NoteEntry("c", "Gamma note.")]}
    >>> [e.key for e in infer_unread_keys(pages)[0]]
    ['a', 'b', 'c']
    """
    groups = same_note_groups(pages)
    held: dict[int, str] = {}
    for number, group in enumerate(groups):
        keys = {pages[page][index].key for page, index in group if pages[page][index].keyed}
        if len(keys) == 1:
            held[number] = keys.pop()
    letters = [key for key in held.values() if len(key) == 1 and key.islower()]
    repeated = any(sum(1 for page, index in group if pages[page][index].key == held.get(number)) >= 2
                   for number, group in enumerate(groups))
    if not letters or len(set(held.values())) < len(held) or not repeated:
        return pages
    out = {page: list(entries) for page, entries in pages.items()}
    last = max(letters)
    changed = True
    while changed:
        changed = False
        taken = set(held.values())
        for number, group in enumerate(groups):
            if number in held:
                continue
            window = {chr(c) for c in range(ord("a"), ord(last) + 1)} - taken
            for page, index in group:
                window = {k for k in window if _in_order(out[page], index, k)}
            if len(window) == 1:
                key = window.pop()
                held[number] = key
                for page, index in group:
                    out[page][index] = replace(out[page][index], key=key)
                changed = True
                break
    return out


@dataclass(frozen=True)
class Citation:
    """One box marker of a scanned document: the word it follows (lower case; empty at a line start), the
    key it was read as, and the footnotes of its page by key."""

    word: str
    key: str
    notes: dict[str, str]


def keys_by_cited_word(citations: Sequence[Citation]) -> list[str]:
    """The key each box marker cites, corrected by the word it follows: a footnote that explains a term is
    cited after that term throughout a guideline (``MRD^d`` on every page). A marker takes the key the
    word's other markers in the document mostly cite when that key's footnote on its page mentions the
    word, while the footnote of the key it was read as does not, and no other marker after the word was read
    as that key (``nivolumab + cabozantinib^h`` cites the combination's footnote, not the drug's: both h
    markers after the word keep their h). Otherwise the read key stays.

    >>> notes = {"a": "TKIs used with chemotherapy.", "d": "MRD is measured by flow cytometry."}
    >>> keys_by_cited_word([Citation("mrd", "d", notes), Citation("mrd", "d", notes),
    ...                     Citation("mrd", "a", notes), Citation("maintenance", "a", notes)])
    ['d', 'd', 'd', 'a']
    """
    counts: dict[str, Counter[str]] = {}
    for cite in citations:
        if cite.word and cite.key.isalnum():
            counts.setdefault(cite.word, Counter())[cite.key] += 1
    keys = []
    for cite in citations:
        others = Counter(counts.get(cite.word, Counter()))
        if cite.word and cite.key.isalnum():
            others[cite.key] -= 1
        others = +others  # drop the zero counts
        keys.append(cite.key)
        if not cite.word or not others or others[cite.key]:
            continue  # nothing else to go by, or the read key follows the word elsewhere too
        (key, count), *rest = others.most_common()
        if count <= sum(n for _, n in rest) or key not in cite.notes:
            continue
        if _mentions(cite.notes[key], cite.word) and not _mentions(cite.notes.get(cite.key, ""), cite.word):
            keys[-1] = key
    return keys


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text.lower()) is not None
