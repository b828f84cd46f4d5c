"""Whole-document parsing: open safely, pick the route per page, expand footnotes, resolve links."""

from __future__ import annotations

import logging
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dkg.errors import ParseError, ServiceError
from dkg.parsing.assemble import PAGE_CODE, PageLayout, assemble
from dkg.parsing.digital import extract_primitives, unmapped_share
from dkg.parsing.figures import describe, figure_regions, is_searchable_scan, merge_figure, place, read_figure
from dkg.parsing.geometry import BBox
from dkg.parsing.models import (
    Box,
    Connector,
    OCRMode,
    PageIssue,
    PageNote,
    PagePrimitives,
    ParsedPage,
    ParseResult,
    PixelRegion,
    UnreadablePDFError,
)
from dkg.parsing.ocr_text import MISREAD_MARKS, THIN_LETTERS, UNREAD_KEY, reconcile_note_keys
from dkg.parsing.page_frame import visible_page
from dkg.parsing.settings import DEFAULT_SETTINGS, DEFAULT_TEXT_LAYER_SETTINGS
from dkg.parsing.textlayout import Line, TextBlock, collapse, group_blocks, render, words_of
from dkg.parsing.title_links import title_links
from dkg.services.tesseract import TesseractNotFoundError
from dkg.types import HeadTailEdge

if TYPE_CHECKING:
    from dkg.parsing.scan.route import ScanRead

log = logging.getLogger(__name__)

LINK_TEXT = re.compile(
    r"^\s*(?:(?i:see)\b.*?)?\(?\b([A-Z][A-Z0-9]{0,11}-\d{1,3})\b\)\s*\.?\s*$"
    r"|^\s*(?i:see)\b.*?\b([A-Z][A-Z0-9]{0,11}-\d{1,3})\s*\.?\s*$",
    re.DOTALL,
)
FOOTNOTE_LINE = re.compile(r"^([a-z]{1,2}|\d{1,2})[.)]?\s+(\S.*)$|^([a-z])(?=[A-Z][a-z])(\S.*)$")
MIN_TEXT_CHARS = 8
# A page without a text layer whose 72-dpi render has no pixel darker than this grey is blank: a hairline
# (0.25 pt) still renders at about 190 there.
BLANK_CHECK_DPI = 72
BLANK_MIN_GREY = 250
BLANK_PAGE = "blank page (no text layer, no ink); nothing to parse"
GLYPH_MATCH_MIN = 0.6
GLYPH_MATCH_MARGIN = 0.05
VOTE_MIN = 0.75
VOTE_MARGIN = 0.1
ProgressCallback = Callable[[int, int], None]


def parse_page_range(spec: str | None, page_count: int) -> list[int]:
    """``"3-9"``/``"1,4,6-7"`` → 0-based page indices; ``None`` → all pages. Raises on bad ranges."""
    if spec is None or not spec.strip():
        return list(range(page_count))
    indices: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not match:
            raise ParseError(f"cannot read page range {spec!r}; write e.g. '3-9' or '1,4,6-7'")
        lo = int(match[1])
        hi = int(match[2]) if match[2] else lo
        if lo < 1 or hi < lo or hi > page_count:
            raise ParseError(f"page range {part!r} is outside 1–{page_count} (the PDF has {page_count} pages)")
        indices.extend(range(lo - 1, hi))
    return sorted(set(indices))


def _check_header(path: Path) -> None:
    if not path.exists():
        raise UnreadablePDFError(f"{path} does not exist")
    if not path.is_file():
        raise UnreadablePDFError(f"{path} is not a file")
    with path.open("rb") as handle:
        head = handle.read(1024)
    if not head:
        raise UnreadablePDFError(f"{path} is empty (0 bytes); expected a PDF file")
    if b"%PDF-" not in head:
        raise UnreadablePDFError(f"{path} is not a PDF (no %PDF- header); give a .pdf file")


@dataclass
class _PageState:
    index: int
    layout: PageLayout
    source: str
    seconds: float
    issues: list[str]
    links: list[Any]
    note_keys: dict[int, str] = field(default_factory=dict)  # footnote entry index → key settled by glyphs
    # the page's footnote entries as settled with the document's other pages (OCR pages); None until then
    doc_entries: list[tuple[str, str, Any]] | None = None
    # images on a born-digital page read from pixels (flowcharts pasted in as pictures)
    pixel_regions: list[PixelRegion] = field(default_factory=list)


class DocumentParser:
    """Parses pages of one open PDF on demand and caches them (link targets may lie outside ``--pages``)."""

    def __init__(self, path: Path, ocr: OCRMode, stack: ExitStack, dpi: int = 300) -> None:
        import pdfplumber

        self.path = path
        self.ocr = ocr
        self.dpi = dpi
        _check_header(path)
        try:
            self.pdf = pdfplumber.open(str(path))
            stack.callback(_safe_close, self.pdf)
            self.page_count = len(self.pdf.pages)
        except Exception as exc:
            raise UnreadablePDFError(_describe_open_error(path, exc)) from exc
        if self.page_count == 0:
            raise UnreadablePDFError(f"{path} has no pages")
        try:
            self.index_by_objid = {page.page_obj.pageid: i for i, page in enumerate(self.pdf.pages)}
        except Exception as exc:
            raise UnreadablePDFError(_describe_open_error(path, exc)) from exc
        self._stack = stack
        self._pdfium: Any = None
        self._pages: dict[int, _PageState] = {}
        self._codes: dict[str, int] = {}
        self._footers: dict[int, str] = {}

    def state(self, index: int) -> _PageState:
        """Primitives → layout of page ``index`` (0-based), parsed once."""
        if index not in self._pages:
            self._pages[index] = self._parse(index)
            if self._pages[index].source == "ocr":
                repair_ocr_markers(self._pages[index])
            code = self._pages[index].layout.code
            if code and code not in self._codes:
                self._codes[code] = index
        return self._pages[index]

    def _parse(self, index: int) -> _PageState:
        start = time.perf_counter()
        issues: list[str] = []
        regions: list[PixelRegion] = []
        try:
            page = visible_page(self.pdf.pages[index])
            has_text = self.ocr is not OCRMode.ALWAYS and sum(
                1 for c in page.chars if c.get("text", "").strip()) >= MIN_TEXT_CHARS
            scan_with_text = has_text and self.ocr is OCRMode.AUTO and is_searchable_scan(page)
            if scan_with_text:
                issues.append("page is a scan with a text layer laid over it (an image covers the page and no "
                              "line or shape is drawn); read by OCR")
            if self.ocr is OCRMode.ALWAYS or (self.ocr is OCRMode.AUTO and not has_text) or scan_with_text:
                if not has_text and self._is_blank(index):
                    return _PageState(index, PageLayout([], [], [], [], [], None, []), "blank",
                                      time.perf_counter() - start, [BLANK_PAGE], [])
                prims, scan_issues, assembly = self._ocr_primitives(index, float(page.width), float(page.height))
                issues.extend(scan_issues)
                for link in extract_primitives(page, self.index_by_objid).links:
                    prims.links.append(link)
                source = "ocr"
            else:
                prims = extract_primitives(page, self.index_by_objid)
                source = "digital"
                # the share is counted only on a page that has such glyphs (one more pass over its characters)
                unmapped = unmapped_share(page.chars) if prims.unmapped_glyphs else 0.0
                if unmapped >= DEFAULT_TEXT_LAYER_SETTINGS.unmapped_ocr_share:
                    issues.append(self._read_text_by_ocr(index, prims, unmapped))
                elif prims.unmapped_glyphs:
                    issues.append(f"{prims.unmapped_glyphs} glyph(s) have no character in the PDF (a font embedded "
                                  f"without a Unicode map): {prims.unmapped_bullets} leading a line in a symbol font "
                                  "read as list bullets, the others shown as \ufffd; check those boxes against the "
                                  "PDF")
                assembly = DEFAULT_SETTINGS.for_text_size(t.size for t in prims.tokens if t.text.strip())
                if not has_text:
                    issues.append("page has no text layer; use --ocr auto or --ocr always to read it")
            layout = assemble(prims, assembly)
            if source == "digital":
                layout, regions = self._with_figures(index, page, prims, layout, issues)
            links = list(prims.links)
        except ParseError:
            raise
        except TesseractNotFoundError as exc:
            raise ParseError(f"page {index + 1} has no text layer and needs OCR, but {exc}; or parse with "
                             "--ocr never to skip such pages") from None
        except Exception as exc:  # pdfminer/pdfium raise many types on damaged content streams
            log.debug("page %s failed", index + 1, exc_info=True)
            issues.append(f"page could not be read ({type(exc).__name__}: {exc}); skipped")
            layout = PageLayout([], [], [], [], [], None, [])
            source = "error"
            links = []
        issues.extend(layout.warnings)
        state = _PageState(index, layout, source, time.perf_counter() - start, issues, links)
        state.pixel_regions = regions
        return state

    def _read_text_by_ocr(self, index: int, prims: PagePrimitives, unmapped: float) -> str:
        """Replace the words of a page whose text layer has no characters by the words OCR reads over its vector
        drawing (``--ocr auto``); the issue that says what was done."""
        from dkg.parsing.ocr_layer import ocr_text_tokens

        problem = (f"{unmapped:.0%} of the page's glyphs have no character in the PDF (fonts embedded without a "
                   "Unicode map)")
        if self.ocr is not OCRMode.AUTO:
            return f"{problem}; their text is shown as \ufffd (use --ocr auto to read the words by OCR)"
        try:
            prims.tokens = ocr_text_tokens(self._render(index), prims.width)
        except (TesseractNotFoundError, ServiceError) as exc:
            return f"{problem}; their text is shown as \ufffd (OCR could not read it: {exc})"
        return f"{problem}; its words were read by OCR over its vector boxes and lines (box texts are OCR)"

    def _with_figures(self, index: int, page: Any, prims: PagePrimitives, layout: PageLayout,
                      issues: list[str]) -> tuple[PageLayout, list[PixelRegion]]:
        """The vector layout with the flowcharts drawn as images on the page read from pixels and merged in
        (``--ocr never``: they are reported, not read; without tesseract: reported with the reason)."""
        regions = figure_regions(page)
        read: list[PixelRegion] = []
        for region in regions:
            if self.ocr is OCRMode.NEVER:
                issues.append(f"image {place(region.bbox)} may hold a flowchart drawn in pixels; not read "
                              "(--ocr never; use --ocr auto to read it)")
                continue
            try:
                figure, dpi = read_figure(lambda bbox, dpi: self._render_region(index, bbox, dpi), region, prims)
            except (TesseractNotFoundError, ServiceError) as exc:
                issues.append(f"image {place(region.bbox)} may hold a flowchart drawn in pixels; not read ({exc})")
                continue
            except Exception as exc:  # noqa: BLE001  (the figure fails alone; the page's vector result stands)
                log.debug("figure on page %s failed", index + 1, exc_info=True)
                issues.append(f"image {place(region.bbox)} could not be read from pixels "
                              f"({type(exc).__name__}: {exc}); its boxes are missing")
                continue
            layout, record = merge_figure(layout, figure, region, dpi, index + 1)
            issues.append(describe(record))
            read.append(record)
        return layout, read

    def _ocr_primitives(self, index: int, width: float, height: float) -> ScanRead:
        """The page read by the scan route: primitives, issues and the assembly settings of the reader used."""
        from dkg.parsing.scan.route import read_scanned_page

        return read_scanned_page(self._render(index), index + 1, width, height)

    def _render_region(self, index: int, bbox: BBox, dpi: float) -> Any:
        """Greyscale numpy image of the region ``bbox`` (points, origin top-left) of page ``index`` at ``dpi``."""
        if self._pdfium is None:
            import pypdfium2 as pdfium

            self._pdfium = pdfium.PdfDocument(str(self.path))
            self._stack.callback(self._pdfium.close)
        page = self._pdfium[index]
        try:
            width, height = page.get_size()
            crop = (bbox.x0, height - bbox.bottom, width - bbox.x1, bbox.top)
            image = page.render(scale=dpi / 72, grayscale=True, crop=crop).to_numpy()
        finally:
            page.close()
        return image[:, :, 0] if image.ndim == 3 else image

    def _is_blank(self, index: int) -> bool:
        """Whether page ``index`` has no ink at all (a coarse render, so a blank scan costs no OCR)."""
        return bool(self._render(index, BLANK_CHECK_DPI).min() >= BLANK_MIN_GREY)

    def _render(self, index: int, dpi: int | None = None) -> Any:
        """Greyscale numpy image of page ``index`` at ``dpi`` (default: the parser's dpi)."""
        if self._pdfium is None:
            import pypdfium2 as pdfium

            self._pdfium = pdfium.PdfDocument(str(self.path))
            self._stack.callback(self._pdfium.close)
        page = self._pdfium[index]
        try:
            image = page.render(scale=(dpi or self.dpi) / 72, grayscale=True).to_numpy()
        finally:
            page.close()
        return image[:, :, 0] if image.ndim == 3 else image

    def _footer_text(self, index: int) -> str:
        """OCR of the top and bottom bands of page ``index`` only, where the page code is printed: finding a
        link's target page this way costs a fraction of reading the whole page. Read once per page."""
        from dkg.parsing.raster import footer_text

        if index not in self._footers:
            self._footers[index] = footer_text(self._render(index))
        return self._footers[index]

    def page_for_code(self, code: str) -> int | None:
        """0-based index of the page whose footer prints ``code``."""
        if code in self._codes:
            return self._codes[code]
        # codes usually number the pages in order: look near page N first
        number = int(code.rsplit("-", 1)[1])
        for index in sorted(range(self.page_count), key=lambda i: abs(i + 1 - number)):
            if index in self._pages:
                continue
            try:
                text = self.pdf.pages[index].extract_text() or ""
            except Exception:  # an unreadable page cannot hold the code we look for
                continue
            banded = self.ocr is OCRMode.ALWAYS or not text.strip()
            if banded:
                try:
                    text = self._footer_text(index)
                except Exception:  # an unrenderable page cannot hold the code we look for
                    continue
            if code in PAGE_CODE.findall(text):
                self.state(index)
                if code in self._codes:
                    return self._codes[code]
                if banded:  # the band held the code even if the full page's OCR misread it
                    return index
        return None


def _safe_close(pdf: Any) -> None:
    try:
        pdf.close()
    except Exception:  # closing a damaged PDF re-raises its parse error; the caller already reported it
        log.debug("closing %s failed", pdf, exc_info=True)


def _describe_open_error(path: Path, exc: BaseException) -> str:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 8:
        chain.append(current)
        nested = [a for a in current.args if isinstance(a, BaseException)]
        current = current.__cause__ or current.__context__ or (nested[0] if nested else None)
    text = " ".join(f"{type(e).__name__} {e}" for e in chain).lower()
    try:
        with path.open("rb") as handle:
            encrypted = b"/Encrypt" in handle.read()
    except OSError:
        encrypted = False
    if "password" in text or "encrypt" in text or encrypted:
        return f"{path} is encrypted (password-protected); decrypt it first, e.g. `qpdf --decrypt in.pdf out.pdf`"
    detail = str(chain[-1]) or type(chain[-1]).__name__
    return f"{path} is not a readable PDF ({detail}); the file is damaged or truncated: re-export or repair it"


def _footnotes(lines: list[Line], code: str | None) -> dict[str, str]:
    """Footnotes in the bottom zone: a line opening with a (raised) marker starts one; close lines continue it."""
    return dict(_footnote_entries(lines, code))


def _footnote_entries(lines: list[Line], code: str | None) -> list[tuple[str, str]]:
    """``(key, text)`` of each footnote entry in the bottom zone, top to bottom (keys as read; may repeat)."""
    return [(key, text) for key, text, _ in _footnote_entries_with_glyphs(lines, code)]


def _footnote_entries_with_glyphs(lines: list[Line], code: str | None) -> list[tuple[str, str, Any]]:
    """``(key, text, marker)``: as :func:`_footnote_entries`, with the marker piece opening the entry (None when
    the key was read as plain text); on the raster route the piece carries the key's glyph signature."""
    footer_rows = [ln.bbox for ln in lines if PAGE_CODE.search(ln.plain) and (code is None or code in ln.plain)]
    notes: list[tuple[str, list[str]]] = []
    glyphs: list[Any] = []
    current: list[str] | None = None
    previous: Line | None = None
    for line in sorted(lines, key=lambda ln: (ln.bbox.top, ln.bbox.x0)):
        plain = line.plain
        if any(abs(line.bbox.top - row.top) < 0.6 * line.size for row in footer_rows):
            current = None
            continue
        if line.starts_with_marker:
            marker = next(p for p in line.pieces if p.text.strip())
            rest = "".join(p.text for p in line.pieces[line.pieces.index(marker) + 1:] if not p.is_marker)
            current = [rest]
            notes.append((marker.keys[0], current))
            glyphs.append(marker)
            previous = line
            continue
        match = FOOTNOTE_LINE.match(plain)
        key = (match[1] or match[3]) if match else None
        if match and key not in {k for k, _ in notes}:
            current = [match[2] or match[4]]
            notes.append((key, current))  # type: ignore[arg-type]
            glyphs.append(None)
            previous = line
        elif current is not None and previous is not None and (
            line.bbox.top - previous.bbox.bottom <= 0.8 * line.size and line.bbox.x0 >= previous.bbox.x0 - 2
        ):
            current.append(plain)
            previous = line
        else:
            current = None
    out = []
    for (key, parts), marker in zip(notes, glyphs, strict=True):
        block = TextBlock([Line([_piece(p)], lines[0].bbox, lines[0].size) for p in parts])
        # a misread of the key glyph left in front of the text (``® High-dose ...``)
        text = render(block)[1].lstrip("".join(MISREAD_MARKS) + " ")
        out.append((key, text, marker))
    return out


def citable_notes(document: dict[str, str], page: dict[str, str]) -> dict[str, str]:
    """The footnotes a page's markers may cite: its own, then the document's other pages'. A footnote whose
    key could not be read (``?``) may be the one an unread marker on its own page cites, never one on
    another page.

    >>> citable_notes({"a": "Doc a.", "?": "Elsewhere."}, {"?": "Here.", "b": "Page b."})
    {'a': 'Doc a.', '?': 'Here.', 'b': 'Page b.'}
    >>> citable_notes({"a": "Doc a.", "?": "Elsewhere."}, {"b": "Page b."})
    {'a': 'Doc a.', 'b': 'Page b.'}
    """
    return {**{k: t for k, t in document.items() if not k.startswith(UNREAD_KEY)}, **page}


def _page_notes(state: _PageState) -> dict[str, str]:
    """The page's footnotes by key. On OCR pages the tiny keys opening the entries are often misread, so they
    are reconciled with the (larger, better read) marker keys used in the page's boxes."""
    return {key: text for key, text, _ in _page_note_entries(state)}


def _page_note_entries(state: _PageState) -> list[tuple[str, str, Any]]:
    if state.doc_entries is not None:
        return state.doc_entries
    entries = _footnote_entries_with_glyphs(state.layout.bottom, state.layout.code)
    if state.source != "ocr" or not entries:
        return entries
    used = [key for box in state.layout.boxes if box.block is not None for key in box.block.markers]
    keys = reconcile_note_keys([key for key, _, _ in entries], used)
    if state.note_keys:  # keys the box markers' glyphs settled win; an entry left holding one of them is unkeyed
        taken = set(state.note_keys.values())
        keys = [state.note_keys.get(i, f"{UNREAD_KEY}{i}" if key in taken else key) for i, key in enumerate(keys)]
    return [(key, text, glyph) for key, (_, text, glyph) in zip(keys, entries, strict=True)]


def _clear_match(glyph: Any, candidates: list[tuple[Any, Any]], least: float, margin: float) -> Any:
    """The label of the candidate ``(label, glyph)`` the marker glyph looks most like, when it scores at least
    ``least`` and beats the runner-up by ``margin``; else None."""
    from dkg.parsing.glyphs import marker_key_similarity  # OpenCV: loaded for scanned pages only

    if glyph is None or len(candidates) < 2:
        return None
    scores = sorted(((marker_key_similarity(glyph, other), n) for n, (_, other) in enumerate(candidates)),
                    reverse=True)
    (best, n), (second, _) = scores[0], scores[1]
    return candidates[n][0] if best >= least and best - second >= margin else None


def printed_keys(keys: tuple[str, ...], notes: Iterable[str]) -> tuple[str, ...]:
    """A marker read as several keys without those before its first key that is a footnote on its page: they
    are a piece of the letter before the marker read as a key (the bowl of a ``P`` before a raised ``p`` read
    ``o,p``), since a page prints the footnotes its boxes cite. Keys after it stay: the page's footnote for
    one of them may be the one that was not read (``a,f`` with the ``f`` footnote run into another).

    >>> printed_keys(("o", "p"), {"e", "p"}), printed_keys(("a", "f"), {"a"}), printed_keys(("x", "y"), {"a"})
    (('p',), ('a', 'f'), ('x', 'y'))
    """
    printed = set(notes)
    first = next((n for n, key in enumerate(keys) if key in printed), 0)
    return keys[first:] if len(keys) > 1 else keys


def _key_unread_notes_by_stems(state: _PageState, pieces: list[Any], entries: list[tuple[str, str, Any]]) -> bool:
    """A thin box marker (i, j, l by its stem) whose letter no footnote on the page is keyed with cites the one
    footnote whose key could not be read at a place where that letter keeps the page's keys in order: both
    take the letter. True when a footnote was re-keyed."""
    from dkg.parsing.doc_notes import NoteEntry, fits

    changed = False
    for piece in pieces:
        keys = [key for key, _, _ in entries]
        if len(piece.keys) != 1 or piece.glyph is None or any(ch.isalpha() for ch in piece.keys[0]):
            continue  # only markers no letter was read from
        stem = _stem_letter(piece.glyph, pieces)
        if stem is None:
            continue
        notes = [NoteEntry(key, text) for key, text, _ in entries]
        # between two footnotes whose keys were read (a footnote at either end of the list could be any
        # letter past its neighbour), and no other footnote's key
        slots = [n for n, key in enumerate(keys) if key.startswith(UNREAD_KEY) and 0 < n < len(keys) - 1
                 and notes[n - 1].keyed and notes[n + 1].keyed and fits(notes, n, stem)]
        if len(slots) != 1:
            continue
        unread = keys[slots[0]]
        for other in pieces:  # markers citing the footnote under its unread key follow it
            other.keys = tuple(stem if key == unread else key for key in other.keys)
        piece.keys = (stem,)
        entries = [(stem, text, m) if n == slots[0] else (key, text, m) for n, (key, text, m) in enumerate(entries)]
        if state.doc_entries is not None:
            state.doc_entries = entries
        else:
            state.note_keys[slots[0]] = stem
        changed = True
    return changed


def _stem_letter(glyph: Any, pieces: list[Any]) -> str | None:
    """The thin letter (i, j, l) a marker glyph's stem shows, if it is no shorter than the page's markers
    usually are (i, j and l reach above a small letter; a shorter stem is a fragment of a wider letter). A
    dotted stem much taller than the page's markers is a ``j`` whose hook the crop cut off (a marker found
    by its dot is cut to the dot's columns, and the hook curls left)."""
    from dkg.parsing.glyphs import stem_letter  # OpenCV: loaded for scanned pages only

    heights = [p.glyph.ink.shape[0] for p in pieces if p.glyph is not None]
    usual = statistics.median(heights) if heights else 0.0
    if not heights or glyph.ink.shape[0] < 0.9 * usual:
        return None
    letter = stem_letter(glyph)
    return "j" if letter == "i" and glyph.ink.shape[0] >= 1.2 * usual else letter


def _vote_note_keys(state: _PageState, pieces: list[Any]) -> None:
    """Re-key footnote entries by the box markers that look like them. The key opening a footnote is tiny and
    often misread (and the order-based reconciliation can then shift several entries by one); box markers are
    read better. Each box marker whose glyph clearly matches one entry's key glyph votes for its read key;
    an entry whose votes agree takes that key, and an entry left holding a key another entry took is unkeyed."""
    entries = _footnote_entries_with_glyphs(state.layout.bottom, state.layout.code)
    targets = [(index, m.glyph) for index, (_, _, m) in enumerate(entries) if m is not None and m.glyph is not None]
    votes: dict[int, Counter[str]] = {}
    for piece in pieces:
        if len(piece.keys) != 1 or not piece.keys[0].isalnum():
            continue
        index = _clear_match(piece.glyph, targets, VOTE_MIN, VOTE_MARGIN)
        if index is not None:
            votes.setdefault(index, Counter())[piece.keys[0]] += 1
    claims: dict[str, list[tuple[int, int]]] = {}
    for index, counter in votes.items():
        (key, count), *rest = counter.most_common()
        if not rest or count > rest[0][1]:
            claims.setdefault(key, []).append((count, index))
    for key, bids in claims.items():
        bids.sort(reverse=True)
        if len(bids) == 1 or bids[0][0] > bids[1][0]:  # two entries claiming one key: the most votes wins
            state.note_keys[bids[0][1]] = key


def repair_ocr_markers(state: _PageState, elsewhere: frozenset[str] = frozenset()) -> None:
    """Give box markers whose key OCR could not read (``?``), or read as a key no footnote on the page has,
    the key of a footnote on the page: first the footnote whose key glyph the marker's glyph clearly looks
    most like (same letter, same font, same scan); then, a page listing the footnotes its boxes cite, when as
    many footnotes are left uncited as there are bad markers, they are matched in reading order (footnote
    letters are handed out in order of first use). Otherwise the markers are left as read. A marker still
    holding the key OCR read, when that is a footnote key of the document's other pages (``elsewhere``) and
    not a thin i, j or l, keeps it: its footnote entry is the one missing on the page."""
    pieces = _box_marker_pieces(state)
    if elsewhere:  # (a thin i, j or l read is no evidence: OCR swaps them)
        kept = elsewhere - {key for key, _, _ in _page_note_entries(state)} - set(THIN_LETTERS)
        pieces = [p for p in pieces if not (len(p.keys) == 1 and p.keys[0] == p.text and p.text in kept)]
    _vote_note_keys(state, pieces)
    entries = _page_note_entries(state)
    notes = {key: text for key, text, _ in entries}
    if not notes:
        return
    glyphs = [(key, m.glyph) for key, _, m in entries if m is not None and m.glyph is not None]
    for piece in pieces:  # a marker that clearly looks like another footnote's key than the one read is that one
        if len(piece.keys) == 1:
            key = _clear_match(piece.glyph, glyphs, VOTE_MIN, VOTE_MARGIN)
            piece.keys = (key,) if key is not None else piece.keys
        if piece.keys in (("i",), ("j",)) and piece.glyph is not None:
            # OCR swaps the dotted i and j; the hook at the foot of the stem tells them apart
            stem = _stem_letter(piece.glyph, pieces)
            piece.keys = (stem,) if stem in ("i", "j") and stem in notes else piece.keys
    if _key_unread_notes_by_stems(state, pieces, entries):
        entries = _page_note_entries(state)
        notes = {key: text for key, text, _ in entries}
    for piece in pieces:
        piece.keys = printed_keys(piece.keys, notes)
    bad = [(p, i) for p in pieces for i, key in enumerate(p.keys) if key not in notes]
    # first by shape: the marker is the footnote key it looks like, when one clearly looks most like it
    keyed = [(key, glyph) for key, glyph in glyphs if key.isalnum()]
    unmatched = []
    for piece, i in bad:
        key = _clear_match(piece.glyph, keyed, GLYPH_MATCH_MIN, GLYPH_MATCH_MARGIN) if len(piece.keys) == 1 else None
        if key is None and len(piece.keys) == 1 and piece.glyph is not None:
            # the thin i, j, l look alike to the glyph match, but not in the shape of their stem
            key = stem if (stem := _stem_letter(piece.glyph, pieces)) in notes else None
        if key is not None:
            piece.keys = (key,)
        else:
            unmatched.append((piece, i))
    bad = unmatched
    cited = {key for p in pieces for key in p.keys if key in notes}
    spare = sorted(set(notes) - cited, key=lambda k: (len(k), k))
    if not bad or len(spare) != len(bad):
        return
    for (piece, i), key in zip(bad, spare, strict=True):
        keys = list(piece.keys)
        keys[i] = key
        piece.keys = tuple(keys)


def _box_marker_pieces(state: _PageState) -> list[Any]:
    return [piece for _, piece in _markers_after_words(state)]


def reconcile_document_notes(doc: DocumentParser) -> None:
    """Settle the footnotes and markers of the document's OCR pages with each other (see
    :mod:`dkg.parsing.doc_notes`): merged footnotes split, footnote keys and texts agreed across the pages
    that print the same footnote; each page's markers follow their footnotes' settled keys and are then
    matched again to the settled footnotes (:func:`repair_ocr_markers`)."""
    from dkg.parsing.doc_notes import (
        Citation,
        infer_unread_keys,
        keys_by_cited_word,
        lettered_once,
        resolve_key_conflicts,
        same_note_groups,
        settle_note_keys,
        split_merged_entries,
        undouble_keys,
    )

    states = [state for _, state in sorted(doc._pages.items()) if state.source == "ocr"]
    if len(states) < 2:
        return
    read = {s.index: _entries_with_reads(s) for s in states}
    cited = {s.index: {p.text for p in _box_marker_pieces(s) if p.text.isalnum()} for s in states}
    split = split_merged_entries(read)
    settled = settle_note_keys(resolve_key_conflicts(undouble_keys(settle_note_keys(split, cited))), cited)
    settled = infer_unread_keys(settled)
    once = lettered_once(split, same_note_groups(split))
    for state in states:
        before, after = split[state.index], settled[state.index]
        state.doc_entries = [(e.key, e.text, e.marker) for e in after]
        follow_settled_keys(_box_marker_pieces(state), before, after)
        elsewhere = frozenset(e.key for index, entries in settled.items() if index != state.index
                              for e in entries if e.keyed) if once else frozenset()
        repair_ocr_markers(state, elsewhere)
    notes = {state.index: _page_notes(state) for state in states}
    word_citations = [(piece, Citation(word, piece.keys[0], notes[state.index]))
                      for state in states for word, piece in _markers_after_words(state) if len(piece.keys) == 1]
    for (piece, _), key in zip(word_citations, keys_by_cited_word([cite for _, cite in word_citations]),
                               strict=True):
        piece.keys = (key,)


def _markers_after_words(state: _PageState) -> list[tuple[str, Any]]:
    """The page's box markers in reading order, each with the word it follows (lower case; empty when it
    opens a line)."""
    out = []
    for box in sorted((b for b in state.layout.boxes if b.block is not None), key=lambda b: (b.bbox.top, b.bbox.x0)):
        for line in box.block.lines:  # type: ignore[union-attr]
            word = ""
            for piece in line.pieces:
                if piece.is_marker:
                    out.append((word, piece))
                else:
                    words = re.findall(r"[A-Za-z][\w-]*", piece.text)
                    word = words[-1].lower() if words else ""
    return out


def follow_settled_keys(pieces: list[Any], before: list[Any], after: list[Any]) -> None:
    """The page's markers keep citing the footnotes they cited, under the footnotes' settled keys (``before``
    and ``after``: the page's entries, one to one). An unread marker cites the one footnote whose key was
    unread too (the same thin letter, read nowhere). A footnote that had its key from the page's markers, not
    from its own read, leaves the markers OCR read as that key: they cite a footnote by their own read (on
    BONE-7 the unread ``l`` footnote had been lent the ``e`` of markers read ``e``, whose footnote is missing
    from the page).

    >>> from dkg.parsing.doc_notes import NoteEntry
    >>> from dkg.parsing.textlayout import Piece
    >>> pieces = [Piece("e", ("e",)), Piece("?", ("e",)), Piece("r", ("r",))]
    >>> before = [NoteEntry("e", "Definitive.", read="?"), NoteEntry("r", "Busulfan.", read="r")]
    >>> follow_settled_keys(pieces, before, [NoteEntry("l", "Definitive."), NoteEntry("o", "Busulfan.")])
    >>> [p.keys for p in pieces]
    [('e',), ('l',), ('o',)]
    """
    renamed = {old.key: new.key for old, new in zip(before, after, strict=True) if old.key != new.key}
    if sum(1 for e in before if e.key == UNREAD_KEY) > 1:
        renamed.pop(UNREAD_KEY, None)
    lent = {old.key for old in before if old.read != old.key}
    for piece in pieces:
        piece.keys = tuple(key if key in lent and piece.text == key else renamed.get(key, key) for key in piece.keys)


def _entries_with_reads(state: _PageState) -> list[Any]:
    """The page's footnote entries under their keys so far, each with the key OCR read at its head."""
    from dkg.parsing.doc_notes import NoteEntry

    entries = _page_note_entries(state)
    raw = _footnote_entries_with_glyphs(state.layout.bottom, state.layout.code)
    reads = [key for key, _, _ in raw] if len(raw) == len(entries) else [""] * len(entries)
    return [NoteEntry(k, t, m, read) for (k, t, m), read in zip(entries, reads, strict=True)]


def _piece(text: str) -> Any:
    from dkg.parsing.textlayout import Piece

    return Piece(text)


def parse_pdf(
    path: str | Path,
    pages: str | None = None,
    ocr: OCRMode | str = OCRMode.AUTO,
    progress: ProgressCallback | None = None,
    dpi: int = 300,
) -> ParseResult:
    """Parse a guideline PDF into typed pages and head–tail edges.

    Raises :class:`UnreadablePDFError` for encrypted, corrupt, empty or non-PDF files; page-level problems
    (no flowchart, boxes without arrows, unreadable page) become warnings with an empty result for the page.
    """
    path = Path(path)
    mode = OCRMode(ocr)
    with ExitStack() as stack:
        doc = DocumentParser(path, mode, stack, dpi=dpi)
        indices = parse_page_range(pages, doc.page_count)
        result = ParseResult(str(path), doc.page_count)
        for done, index in enumerate(indices, start=1):
            doc.state(index)
            if progress is not None:
                progress(done, len(indices))
        reconcile_document_notes(doc)
        known = set()
        for state in list(doc._pages.values()):
            for box in state.layout.boxes:
                if box.block is not None:
                    known |= words_of(box.block.lines)
            known |= words_of(state.layout.bottom)
        global_notes: dict[str, str] = {}
        for index in indices:
            state = doc.state(index)
            global_notes = {**_page_notes(state), **global_notes}
        for index in indices:
            result.pages.append(_finish_page(doc, doc.state(index), known, global_notes, set()))
    for edge, originals in title_links(result.pages):
        result.links.append(edge)
        result.link_originals.append(originals)
    return result


def _box_texts(state: _PageState, notes: dict[str, str], known: set[str],
               issues: list[str]) -> dict[str, tuple[str, str]]:
    texts: dict[str, tuple[str, str]] = {}
    for box in state.layout.boxes:
        missing: list[str] = []
        assert box.block is not None
        texts[box.id] = render(box.block, notes, known, missing)
        for key in missing:
            issues.append(f"footnote {key!r} used in {box.id} was not found on the page; marker dropped")
    return texts


def _finish_page(doc: DocumentParser, state: _PageState, known: set[str], global_notes: dict[str, str],
                 visiting: set[int], resolve_links: bool = True) -> ParsedPage:
    layout = state.layout
    number = state.index + 1
    page = ParsedPage(number=number, source=state.source, width=0.0, height=0.0, code=layout.code,
                      title=layout.title, seconds=state.seconds)
    issues = list(state.issues)
    notes = citable_notes(global_notes, _page_notes(state))
    page.footnotes = notes
    texts = _box_texts(state, notes, known, issues)
    prims_links = state.links
    for raw in layout.boxes:
        original, expanded = texts[raw.id]
        box = Box(raw.id, raw.bbox, raw.kind, original, expanded, raw.block.markers if raw.block else [])
        match = LINK_TEXT.match(original.replace("^", " "))
        if match:
            box.link_code = match[1] or match[2]
            for link in prims_links:
                if link.bbox.distance_to_box(raw.bbox) <= 1:
                    box.link_page = link.target_page
        if resolve_links and box.link_code and box.link_page is None:
            box.link_page = doc.page_for_code(box.link_code)
        page.boxes.append(box)
    boxes = {b.id: b for b in page.boxes}
    resolved: dict[str, tuple[str, str, str]] = {}
    for box in page.boxes:
        if not resolve_links or (box.link_code is None and box.link_page is None):
            continue
        target = _entry_text(doc, box.link_page, known, global_notes, visiting | {state.index})
        if target is None:
            issues.append(f"link box {box.id} ({box.original!r}) points to a page whose entry box was not found; "
                          "kept its own text")
            continue
        resolved[box.id] = target
    seen: set[tuple[str, str, str]] = set()
    used: set[str] = set()
    for ci, raw_connector in enumerate(layout.connectors):
        cid = f"p{number}-c{ci + 1}"
        labels = {}
        for target_index, blocks in raw_connector.labels.items():
            labels[layout.boxes[target_index].id] = join_labels(render(b, notes, known)[1] for b in blocks)
        direction = ("block arrow" if raw_connector.kind == "block" else
                     "reading order (stacked boxes, no connector)" if raw_connector.kind == "stacked" else
                     "fan-out to a list (the arrow enters its first item)" if raw_connector.kind == "list" else
                     "fan-out to a row (the arrow enters one of the boxes side by side)"
                     if raw_connector.kind == "row" else
                     "arrowhead" if raw_connector.directed else "reading order (no arrowhead)")
        connector = Connector(cid, [layout.boxes[s].id for s in raw_connector.sources],
                              [layout.boxes[t].id for t in raw_connector.targets], raw_connector.segments,
                              raw_connector.kind, labels, direction)
        page.connectors.append(connector)
        for source_id in connector.sources:
            for target_id in connector.targets:
                used |= {source_id, target_id}
                head_box, tail_box = boxes[source_id], boxes[target_id]
                head_id, head_text = source_id, head_box.text
                tail_id, tail_text = target_id, tail_box.text
                if source_id in resolved:
                    head_id, _, head_text = resolved[source_id]
                if target_id in resolved:
                    tail_id, _, tail_text = resolved[target_id]
                label = labels.get(target_id, "")
                # boxes, not texts, are the steps: "Rhythm Shockable?" three times on a page is three questions
                key = (head_id, tail_id, label)
                if key in seen or head_id == tail_id:
                    continue
                seen.add(key)
                page.edges.append(HeadTailEdge(
                    head=head_text, tail=tail_text, label=label, page=layout.code or str(number),
                    head_box_id=head_id, tail_box_id=tail_id,
                ))
                page.originals.append((head_box.original, tail_box.original))
    if not page.boxes:
        if state.source != "blank":
            issues.append("no flowchart boxes found on this page; no edges")
    elif not page.connectors:
        issues.append(f"{len(page.boxes)} boxes but no arrows between them; no edges for this page")
    else:
        for box in page.boxes:
            if box.id not in used:
                page.dropped_boxes.append(box.id)
                page.notes.append(PageNote("side_box", box.bbox, box.text, box.id))
                issues.append(f"side box {box.id} ({_short(box.text)!r}) touches no connector; kept as a page "
                              "note, not a node")
    for label_box in layout.label_boxes:
        text = collapse(" ".join(line.plain for line in label_box.block.lines)) if label_box.block else ""
        page.notes.append(PageNote("branch_label", label_box.bbox, text, label_box.id))
    for block in layout.other:
        page.notes.append(PageNote("free_text", block.bbox, render(block, notes, known)[1]))
    for block in group_blocks(layout.header) + group_blocks(layout.bottom):
        # titles, text panels above the chart, footnotes and footers: not the chart, kept for retrieval
        page.notes.append(PageNote("page_text", block.bbox, render(block, notes, known)[1]))
    page.pixel_regions = list(state.pixel_regions)
    page.issues = [PageIssue(number, message) for message in issues]
    return page


def join_labels(texts: Iterable[str]) -> str:
    """One connector label from the label texts found along the way to a target; the same words twice (a NO
    written at each end of a loop line) are said once.

    >>> join_labels(["NO", "NO"]), join_labels(["YES", " If  unstable "]), join_labels([])
    ('NO', 'YES If unstable', '')
    """
    return collapse(" ".join(dict.fromkeys(collapse(text) for text in texts)))


def _short(text: str, limit: int = 50) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _entry_text(doc: DocumentParser, index: int | None, known: set[str], global_notes: dict[str, str],
                visiting: set[int]) -> tuple[str, str, str] | None:
    """``(box_id, original, expanded)`` of the entry box of page ``index``."""
    if index is None or index in visiting or not 0 <= index < doc.page_count:
        return None
    state = doc.state(index)
    # only the entry box is needed: the target page's own links are not followed (each would parse more pages)
    page = _finish_page(doc, state, known, global_notes, visiting, resolve_links=False)
    entry = page.entry_box()
    if entry is None:
        return None
    if entry.link_code is not None:  # the page opens with a link box: follow that one link
        target = doc.page_for_code(entry.link_code)
        return _entry_text(doc, target, known, global_notes, visiting | {index})
    return entry.id, entry.original, entry.text
