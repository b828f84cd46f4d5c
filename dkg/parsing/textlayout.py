"""Tokens → lines → text: reading order, superscript footnote markers, line joining and hyphenation."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token

SUPERSCRIPT_SIZE_RATIO = 0.85
SUPERSCRIPT_RAISE_RATIO = 0.15
# a gap wider than this share of the text size between two glyphs is a space, for producers that write no space
# glyph: on the real dev pages letters stand at most 0.014 em apart (bar line breaks) and words 0.13-0.23 em
# apart, so the 0.22 used before ran tightly set words together; 0.10 is also pdfminer's word margin
SPACE_GAP_RATIO = 0.10
SPLIT_GAP_RATIO = 2.5
_WS = re.compile(r"\s+")


@dataclass
class Piece:
    """A run of ordinary text, or a footnote marker (``keys`` set, ``text`` the raw marker)."""

    text: str
    keys: tuple[str, ...] = ()
    glyph: Any = field(default=None, compare=False, repr=False)  # raster route: the marker's image

    @property
    def is_marker(self) -> bool:
        return bool(self.keys)


@dataclass
class Line:
    """One text line in reading order."""

    pieces: list[Piece]
    bbox: BBox
    size: float

    @property
    def plain(self) -> str:
        return "".join(p.text for p in self.pieces if not p.is_marker).strip()

    @property
    def starts_with_marker(self) -> bool:
        first = next((p for p in self.pieces if p.text.strip()), None)
        return first is not None and first.is_marker


@dataclass
class TextBlock:
    """Lines that belong together (one box, one label, one footnote)."""

    lines: list[Line] = field(default_factory=list)

    @property
    def bbox(self) -> BBox:
        box = self.lines[0].bbox
        for line in self.lines[1:]:
            box = box.union(line.bbox)
        return box

    @property
    def size(self) -> float:
        return max((line.size for line in self.lines), default=0.0)

    @property
    def markers(self) -> list[str]:
        return [k for line in self.lines for p in line.pieces for k in p.keys]


def _marker_keys(text: str) -> tuple[str, ...]:
    return tuple(k for k in re.split(r"[,\s;]+", text.strip()) if k)


def build_lines(tokens: Iterable[Token]) -> list[Line]:
    """Group tokens into lines (top to bottom), left to right within a line, superscripts as markers."""
    ordered = sorted((t for t in tokens if t.bbox.height > 0), key=lambda t: (t.bbox.top, t.bbox.x0))
    rows: list[list[Token]] = []
    ranges: list[list[float]] = []
    for token in ordered:
        best, best_overlap = -1, 0.0
        for index, (top, bottom) in enumerate(ranges):
            overlap = min(bottom, token.bbox.bottom) - max(top, token.bbox.top)
            if overlap > best_overlap:
                best, best_overlap = index, overlap
        if best >= 0 and best_overlap >= 0.5 * min(token.bbox.height, ranges[best][1] - ranges[best][0]):
            rows[best].append(token)
            if token.text.strip():
                ranges[best][0] = min(ranges[best][0], token.bbox.top) if token.size >= _row_size(
                    rows[best]) * SUPERSCRIPT_SIZE_RATIO else ranges[best][0]
                ranges[best][1] = max(ranges[best][1], token.bbox.bottom) if token.size >= _row_size(
                    rows[best]) * SUPERSCRIPT_SIZE_RATIO else ranges[best][1]
        else:
            rows.append([token])
            ranges.append([token.bbox.top, token.bbox.bottom])
    lines = [_make_line(part) for row in rows for part in _split_row(row) if any(t.text.strip() for t in part)]
    lines.sort(key=lambda line: (line.bbox.top, line.bbox.x0))
    return lines


def _split_row(row: list[Token]) -> list[list[Token]]:
    """Split a row where a horizontal gap is much wider than a space (YES ... NO on one baseline)."""
    size = _row_size(row)
    ordered = sorted(row, key=lambda t: t.bbox.x0)
    parts: list[list[Token]] = [[]]
    last_x1: float | None = None
    for token in ordered:
        if token.text.strip():
            if last_x1 is not None and token.bbox.x0 - last_x1 > SPLIT_GAP_RATIO * size:
                parts.append([])
            last_x1 = token.bbox.x1 if last_x1 is None else max(last_x1, token.bbox.x1)
        parts[-1].append(token)
    return parts


def _row_size(row: list[Token]) -> float:
    return max((t.size for t in row if t.text.strip()), default=0.0)


def _make_line(row: list[Token]) -> Line:
    row = sorted(row, key=lambda t: t.bbox.x0)
    visible = [t for t in row if t.text.strip()]
    size = _row_size(row)
    full = [t for t in visible if t.size >= size * SUPERSCRIPT_SIZE_RATIO]
    baseline = statistics.median(t.bbox.bottom for t in full)
    pieces: list[Piece] = []
    previous: Token | None = None
    marker: list[str] = []
    glyphs: list[Any] = []

    def flush_marker() -> None:
        if marker:
            raw = "".join(marker)
            keys = _marker_keys(raw)
            if keys:
                pieces.append(Piece(raw, keys, next((g for g in glyphs if g is not None), None)))
            marker.clear()
            glyphs.clear()

    for token in row:
        if not token.text.strip():
            flush_marker()
            pieces.append(Piece(" "))
            previous = None
            continue
        # "?" is the raster route's marker whose key could not be read
        is_super = (token.text.isalnum() or token.text == "?" or (token.text in ",;" and bool(marker))) and (
            token.size < size * SUPERSCRIPT_SIZE_RATIO) and (
            token.bbox.bottom < baseline - SUPERSCRIPT_RAISE_RATIO * size
        )
        gap = token.bbox.x0 - previous.bbox.x1 if previous is not None else 0.0
        if is_super:
            if previous is not None and gap > SPACE_GAP_RATIO * size * 1.5 and not marker:
                pieces.append(Piece(" "))
            marker.append(token.text)
            glyphs.append(token.glyph)
        else:
            flush_marker()
            if previous is not None and gap > SPACE_GAP_RATIO * size:
                pieces.append(Piece(" "))
            pieces.append(Piece(token.text))
        previous = token
    flush_marker()
    bbox = visible[0].bbox
    for token in visible[1:]:
        bbox = bbox.union(token.bbox)
    return Line(_merge_pieces(pieces), bbox, size)


def _merge_pieces(pieces: list[Piece]) -> list[Piece]:
    merged: list[Piece] = []
    for piece in pieces:
        if merged and not piece.is_marker and not merged[-1].is_marker:
            merged[-1] = Piece(merged[-1].text + piece.text)
        else:
            merged.append(piece)
    return merged


def group_blocks(lines: list[Line], gap_ratio: float = 0.9) -> list[TextBlock]:
    """Group free lines into blocks: vertically close lines that overlap horizontally."""
    blocks: list[TextBlock] = []
    for line in sorted(lines, key=lambda ln: (ln.bbox.top, ln.bbox.x0)):
        for block in blocks:
            last = block.lines[-1]
            vertical_gap = line.bbox.top - last.bbox.bottom
            overlap = min(last.bbox.x1, line.bbox.x1) - max(last.bbox.x0, line.bbox.x0)
            if -0.3 * line.size <= vertical_gap <= gap_ratio * line.size and overlap > 0:
                block.lines.append(line)
                break
        else:
            blocks.append(TextBlock([line]))
    return blocks


def collapse(text: str) -> str:
    """Collapse whitespace runs to single spaces and strip."""
    return _WS.sub(" ", text).strip()


# a line ending in a word set off by hyphens on both sides (``IV / IO -or-``) ends a word: the next line is a
# new word, not the rest of a hyphenated one
_DASHED_WORD_END = re.compile(r"(?:^|\s)-[^\W_]+-$")


def _join_hyphen(before: str, after: str, known_words: set[str] | None) -> bool:
    """True when a line-final hyphen is a hyphenation break to undo (drop the hyphen, no space)."""
    head = re.search(r"([A-Za-z0-9]+)-$", before)
    tail = re.match(r"([A-Za-z0-9]+)", after)
    if not head or not tail:
        return False
    left, right = head.group(1), tail.group(1)
    if known_words:
        if (left + right).lower() in known_words:
            return True
        if f"{left}-{right}".lower() in known_words:
            return False
    if any(c.isupper() or c.isdigit() for c in left) or not right[0].islower():
        return False
    return len(left) >= 2


def render(
    block: TextBlock,
    footnotes: Mapping[str, str] | None = None,
    known_words: set[str] | None = None,
    missing: list[str] | None = None,
) -> tuple[str, str]:
    """Return ``(original, expanded)``: original keeps markers as ``^a``/``^{a,b}``; expanded inlines footnotes."""
    original_parts: list[str] = []
    expanded_parts: list[str] = []
    for index, line in enumerate(block.lines):
        line_original = ""
        line_expanded = ""
        for piece in line.pieces:
            if piece.is_marker:
                keys = piece.keys
                line_original += "^" + (keys[0] if len(keys) == 1 else "{" + ",".join(keys) + "}")
                if footnotes is not None:
                    texts = []
                    for key in keys:
                        # OCR may read stray strokes beside a raised letter: try its last, then first letter
                        found = next((k for k in (key, key[-1], key[0]) if k in footnotes), None)
                        if found is not None:
                            texts.append(footnotes[found])
                        elif missing is not None:
                            missing.append(key)
                    if texts:
                        line_expanded += " (" + "; ".join(texts) + ") "
            else:
                line_original += piece.text
                line_expanded += piece.text
        if index == 0:
            original_parts.append(line_original.strip())
            expanded_parts.append(line_expanded.strip())
            continue
        prev_o, prev_e = original_parts[-1], expanded_parts[-1]
        cur_o, cur_e = line_original.strip(), line_expanded.strip()
        if prev_e.endswith("-") and _join_hyphen(prev_e, cur_e, known_words):
            original_parts[-1] = prev_o[:-1] + cur_o if prev_o.endswith("-") else prev_o + " " + cur_o
            expanded_parts[-1] = prev_e[:-1] + cur_e
        elif (prev_e.endswith(("-", "/")) and re.search(r"[^\W_][-/]$", prev_e)
              and not _DASHED_WORD_END.search(prev_e)):
            original_parts[-1] = prev_o + cur_o
            expanded_parts[-1] = prev_e + cur_e
        else:
            original_parts[-1] = prev_o + " " + cur_o
            expanded_parts[-1] = prev_e + " " + cur_e
    original = collapse(" ".join(original_parts))
    expanded = collapse(" ".join(expanded_parts))
    expanded = re.sub(r"\s+([,.;:)])", r"\1", expanded) if footnotes is not None else expanded
    return original, expanded


def words_of(lines: Iterable[Line]) -> set[str]:
    """Lower-case words (hyphenated words kept whole) that are not at a line end, for hyphenation choices."""
    words: set[str] = set()
    for line in lines:
        tokens = re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*-?", line.plain)
        for token in tokens[:-1] if tokens else []:
            words.add(token.lower())
            words.update(part.lower() for part in token.split("-") if part)
        if tokens and not tokens[-1].endswith("-"):
            words.add(tokens[-1].lower())
    return words
