"""Thresholds of graph assembly (primitives → boxes, connectors, labels, notes) in one validated object.

Like pdfplumber's ``TableSettings``: one frozen dataclass, checked on creation, passed to
:func:`dkg.parsing.assemble.assemble`. The defaults were chosen on the development pages of
``datasets/realpdfs`` (see ``split.json``) and the project's own corpus; the held-out pages were not used.
Lengths are PDF points.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any

_LENGTH = "length"


def length(default: float) -> float:
    """A settings field that is a length in points, marked in its metadata: :meth:`AssemblySettings.scaled`
    multiplies it (the other fields are ratios, counts, words or switches)."""
    return field(default=default, metadata={_LENGTH: True})


def is_length(item: Field[Any]) -> bool:
    """Whether the dataclass field ``item`` was declared with :func:`length`.

    >>> [is_length(item) for item in fields(AssemblySettings) if item.name in ("attach_tol", "head_base_ratio")]
    [True, False]
    """
    return bool(item.metadata.get(_LENGTH, False))


@dataclass(frozen=True)
class AssemblySettings:
    """Every threshold of the assembly stage.

    The fields declared with :func:`length` are lengths in points, scaled with the page's text size
    (:meth:`for_text_size`); the others are ratios, counts, words or switches."""

    # a stroke end this close to a box attaches to it
    attach_tol: float = length(5.0)
    # scans: the widest gap bridged between two free stroke ends (a corner whose ink broke), and the longest
    # source stem a scan may lose (the one box standing this close to a headless start is its source)
    corner_gap: float = length(9.0)
    stem_gap: float = length(12.0)
    # an arrowhead whose tip stops this short of a box still enters it (publishers leave a gap before the box)
    head_reach: float = length(9.0)
    # a filled shape the same size as another shape (within ``shadow_size_tol``) and offset from it by at most
    # ``shadow_offset_max`` in x and y is that shape's drop shadow, not a second box
    shadow_offset_max: float = length(4.5)
    shadow_size_tol: float = length(1.5)
    # a box or free text whose first word is a branch word and that has at most ``label_max_words`` words is a
    # branch label (YES / NO / OR / "if yes" / "No improvement"), not a node
    branch_words: tuple[str, ...] = ("yes", "no", "y", "n", "or", "if", "else", "otherwise", "true", "false",
                                     "positive", "negative")
    label_max_words: int = 3
    # a label (branch-label box, or free text) stands in a connector's path when a stroke end or arrowhead comes
    # this close to it; free text reached by two or more such ends is a label whatever its words
    label_on_connector: float = length(10.0)
    # free branch text with stroke ends on two of its sides (a line broken for the label that goes on) is that
    # line's label on scanned pages too; off for the rule-based scan reader, whose broken strokes leave ends
    # everywhere, on for the scan pipeline's traced networks (``ScanSettings.pipeline_assembly``)
    label_broken_line_scanned: bool = False
    # an arrowhead is a triangle whose tip is the corner opposite its clearly shortest side (shorter than this
    # share of the others): it enters the box in front of its tip, never the box behind it
    head_base_ratio: float = 0.9
    # ... and whose two other sides, meeting at the tip, agree within this ratio (a traced scanned head that is
    # as wide as long fits a lopsided triangle whose shortest side is no base); 0 turns the check off
    head_sides_ratio: float = 0.9
    # free text (or a label box standing on no stroke) labels the nearest connector within this many times its
    # font size (at least ``label_reach_min``)
    label_reach_ratio: float = 1.6
    label_reach_min: float = length(14.0)
    # a branch label further than this from every connector is at most a note
    branch_label_reach: float = length(30.0)
    # a headless stroke counts as touching a box only where it meets a box side end-on, at least this far
    # inside the side's ends (a rule running along the top of a row of boxes touches none of them)
    side_margin: float = length(1.0)
    # a polygon box with one vertex standing out of a straight side by at least this much is a box with a
    # pointer (a chevron drawn as part of the box): the pointer is a block arrow into the box it reaches
    pointer_min_depth: float = length(6.0)
    pointer_reach: float = length(10.0)  # the box a pointer enters stands at most this far from its tip
    # boxes standing side by side, this close, with equal tops and bottoms, form one row (a table header):
    # a pointer into one of them enters them all
    row_gap: float = length(2.5)
    row_align_tol: float = length(2.0)
    row_overlap: float = length(0.5)  # ... and overlapping by at most this much (cells sharing a border)

    # boxes stacked this close (gap in y; negative = overlapping), the narrower one standing at least this share
    # of its width under the wider one, follow each other in reading order when no connector joins them
    stack_gap: float = length(5.0)
    stack_overlap: float = 0.5
    # ... and the narrower is at least this share of the wider's width (a page-wide notes panel under a step
    # box does not follow it)
    stack_width_ratio: float = 0.5
    # bands of equal width abutting within this gap are one box filled in pieces (merged into one box)
    piece_gap: float = length(0.5)
    # an outline whose text-holding inner shapes cover at least this share of it is one box filled in pieces
    # (a table cell shaded line by line), not a frame around several boxes
    tile_share: float = 0.7

    # a glyph crossing a box's bottom edge with at least this share of its height inside belongs to the box
    overflow_share: float = 0.2

    # a straight stroke whose free end stops at most this short of another stroke it points at joins it
    junction_gap: float = length(8.0)

    # arrows onto a loop line (smog-48): a small filled rectangle holding text is a label's background, not an
    # arrowhead, and an arrowhead pointing onto a line carries flow into it. The loops they read are safe for QA:
    # the builder marks the arrow closing a loop (dkg/graph/loops.py) and the walks do not go round it.
    loop_arrows: bool = True

    # a list under a box: at least ``list_min_items`` boxes of one width (edges within ``list_align_tol``)
    # stacked in a column with visible gaps (``list_gap_min``–``list_gap_max``; boxes touching edge to edge are
    # steps in reading order), the first entered by an arrow from a box above and none with a connector of its
    # own, are items the arrow's source fans out to (a bulleted list drawn as one box per bullet)
    list_min_items: int = 3
    list_gap_min: float = length(1.5)
    list_gap_max: float = length(12.0)
    list_align_tol: float = length(3.0)
    # a row of sibling boxes: boxes of one height (``row_align_tol``) side by side at most ``sibling_gap`` apart,
    # one entered by an arrow from a box above them, the others sending arrows but entered by none, are all
    # entered by that arrow (a chevron into the middle of a three-column fan-out)
    sibling_gap: float = length(24.0)
    # the page title: the header's largest lines (within ``title_size_tol`` pt of the largest, a font size that
    # scales with the page like the lengths) when that size is at least ``title_size_ratio`` times the median size
    # of the page's lines
    title_size_ratio: float = 1.5
    title_size_tol: float = length(0.5)
    # the lengths above were chosen on pages whose text is about ``reference_text_pt``: a page drawn at another
    # scale (its median glyph size over that, kept within ``min_scale``–``max_scale``) has them scaled in
    # proportion (a page printed at 110 % put connector ends and title bands past the gaps of a 10 pt drawing)
    reference_text_pt: float = 10.0
    min_scale: float = 0.5
    max_scale: float = 4.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"AssemblySettings.{item.name} must be >= 0; got {value!r}")
        if self.list_min_items < 2:
            raise ValueError(f"AssemblySettings.list_min_items must be >= 2; got {self.list_min_items!r}")
        if self.list_gap_min > self.list_gap_max:
            raise ValueError("AssemblySettings needs list_gap_min <= list_gap_max; got "
                             f"{self.list_gap_min!r} > {self.list_gap_max!r}")
        if self.label_max_words < 1:
            raise ValueError(f"AssemblySettings.label_max_words must be >= 1; got {self.label_max_words!r}")
        if not all(isinstance(word, str) and word.strip() for word in self.branch_words):
            raise ValueError("AssemblySettings.branch_words must be non-empty strings")
        if self.reference_text_pt <= 0 or not 0 < self.min_scale <= 1 <= self.max_scale:
            raise ValueError("AssemblySettings needs reference_text_pt > 0 and 0 < min_scale <= 1 <= max_scale; got "
                             f"{self.reference_text_pt!r}, {self.min_scale!r}, {self.max_scale!r}")

    def scaled(self, factor: float) -> AssemblySettings:
        """These settings with every length multiplied by ``factor``.

        >>> AssemblySettings().scaled(1.5).attach_tol, AssemblySettings().scaled(1.5).head_base_ratio
        (7.5, 0.9)
        """
        return replace(self, **{item.name: getattr(self, item.name) * factor for item in fields(self)
                                if is_length(item)})

    def for_text_size(self, sizes: Iterable[float]) -> AssemblySettings:
        """The settings for a page whose glyphs have ``sizes`` (points): lengths scaled by the page's median size
        over ``reference_text_pt`` (kept within ``min_scale``–``max_scale``); these settings for a page without
        text or of the reference size.

        >>> AssemblySettings().for_text_size([13.0, 13.0, 8.0]).attach_tol
        6.5
        >>> AssemblySettings().for_text_size([7.0, 7.0, 9.5]).attach_tol
        3.5
        >>> AssemblySettings().for_text_size([10.0]) == AssemblySettings() == AssemblySettings().for_text_size([])
        True
        """
        known = [size for size in sizes if size > 0]
        if not known:
            return self
        factor = min(max(statistics.median(known) / self.reference_text_pt, self.min_scale), self.max_scale)
        return self if factor == 1 else self.scaled(factor)

    def is_branch_label(self, text: str) -> bool:
        """Whether ``text`` only names a branch: ``YES``, ``No``, ``OR``, ``if yes``, ``No improvement``.

        >>> AssemblySettings().is_branch_label("YES"), AssemblySettings().is_branch_label("Observe patient")
        (True, False)
        """
        words = re.findall(r"[^\W_]+", text.lower())
        if not words or len(words) > self.label_max_words:
            return False
        return words[0] in self.branch_words and not any(ch.isdigit() for ch in text)


DEFAULT_SETTINGS = AssemblySettings()
# A scanned page's shapes are traced outlines that include their border strokes, so a title band and the box
# under it share a border line and overlap by about a stroke width (2.6 pt on the banded fixture at 200 dpi).
SCANNED_SETTINGS = AssemblySettings(piece_gap=3.0)


@dataclass(frozen=True)
class FigureSettings:
    """When an image embedded in a born-digital page is read as a flowchart figure (by the scan route).

    Lengths are PDF points; resolutions dots per inch."""

    # an image at least this wide and high, with at most ``max_text_chars`` characters of the text layer drawn
    # over it, may hold a flowchart drawn in pixels (smaller images are logos, icons, pictograms; an image under
    # much text is a box's fill or a background)
    min_width: float = 120.0
    min_height: float = 60.0
    max_text_chars: int = 8
    # the image is read at its own resolution, kept within these bounds (tesseract needs about 150 dpi; above
    # 400 dpi only the run time grows)
    min_dpi: float = 150.0
    max_dpi: float = 400.0
    # a box read from pixels overlapping a vector box by this share of the smaller one is that vector box (the
    # same box seen twice), not a second box
    duplicate_share: float = 0.5
    # a page whose images cover this share of it and that draws no vector shape or line is a scan, its text
    # layer laid over the picture by OCR (a "searchable" scan): read by the scan route, not the vector route
    scan_page_share: float = 0.6

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value < 0:
                raise ValueError(f"FigureSettings.{item.name} must be >= 0; got {value!r}")
        if not 0 < self.min_dpi <= self.max_dpi:
            raise ValueError(f"FigureSettings needs 0 < min_dpi <= max_dpi; got {self.min_dpi!r}, {self.max_dpi!r}")
        if not 0 < self.scan_page_share <= 1:
            raise ValueError(f"FigureSettings.scan_page_share must be in (0, 1]; got {self.scan_page_share!r}")
        if not 0 < self.duplicate_share <= 1:
            raise ValueError(f"FigureSettings.duplicate_share must be in (0, 1]; got {self.duplicate_share!r}")

    def render_dpi(self, native_dpi: float) -> float:
        """The resolution an image of ``native_dpi`` is read at.

        >>> FigureSettings().render_dpi(182.0), FigureSettings().render_dpi(72.0), FigureSettings().render_dpi(600)
        (182.0, 150.0, 400.0)
        """
        return min(max(native_dpi, self.min_dpi), self.max_dpi)


DEFAULT_FIGURE_SETTINGS = FigureSettings()


@dataclass(frozen=True)
class TextLayerSettings:
    """When a born-digital page's text layer is read, and what is made of glyphs it cannot map to characters.

    A font embedded without a ToUnicode map (and with no standard encoding) gives pdfminer glyph numbers,
    ``(cid:120)``, instead of characters."""

    # a page on which at least this share of the glyphs have no character has its words read by OCR over its
    # vector drawing (tesseract's page segmentation mode ``ocr_psm``: automatic layout)
    unmapped_ocr_share: float = 0.2
    ocr_psm: int = 3
    # a glyph with no character from a font whose name holds one of these words, standing first on its line, is a
    # list bullet (``•``); any other glyph with no character is kept as ``\ufffd`` (a digit left out of a dose
    # would read as another dose)
    symbol_fonts: tuple[str, ...] = ("symbol", "wingdings", "dingbats", "webdings")

    def __post_init__(self) -> None:
        if not 0 < self.unmapped_ocr_share <= 1:
            raise ValueError("TextLayerSettings.unmapped_ocr_share must be in (0, 1]; got "
                             f"{self.unmapped_ocr_share!r}")

    def is_symbol_font(self, fontname: str) -> bool:
        """Whether ``fontname`` (subset prefix and style included) names a symbol font.

        >>> TextLayerSettings().is_symbol_font("UZRVUZ+SymbolMT"), TextLayerSettings().is_symbol_font("ArialMT")
        (True, False)
        """
        lowered = fontname.lower()
        return any(word in lowered for word in self.symbol_fonts)


DEFAULT_TEXT_LAYER_SETTINGS = TextLayerSettings()


@dataclass(frozen=True)
class TitleLinkSettings:
    """When a box that ends its page names another page's title (:mod:`dkg.parsing.title_links`)."""

    # the name must cover at least this share of the title's words: a name may leave out the population and one
    # qualifier ("Tachycardia Protocol" for "Adult Tachycardia with Pulse": 1/3), not most of the title
    min_title_share: float = 0.33


DEFAULT_TITLE_LINK_SETTINGS = TitleLinkSettings()
