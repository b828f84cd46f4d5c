"""Typed records of the parser: page primitives (input of graph assembly) and parsed results."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dkg.errors import ParseError
from dkg.parsing.geometry import BBox, Point
from dkg.types import HeadTailEdge

__all__ = [
    "Box", "Connector", "HeadTailEdge", "LinkAnnotation", "OCRMode", "PageIssue", "PageNote", "PagePrimitives",
    "ParseResult", "ParsedPage", "PixelRegion", "Segment", "Shape", "Token", "UnreadablePDFError",
]


class UnreadablePDFError(ParseError):
    """The file is not a PDF this parser can open (encrypted, corrupt, empty, not a PDF)."""


class OCRMode(StrEnum):
    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True)
class Token:
    """One glyph (digital route) or OCR character/word, with its box and font size in points."""

    text: str
    bbox: BBox
    size: float
    # raster route: the image of a raised marker, to tell apart keys OCR misread (see glyphs.py)
    glyph: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Shape:
    """A closed drawn outline (rect, rounded rect, diamond, polygon); ``points`` in drawing order."""

    points: tuple[Point, ...]
    bbox: BBox
    filled: bool
    stroked: bool
    kind: str = "polygon"
    # filled darker than mid-grey, so its text is light: a title bar (set where the fill's tone is known)
    dark: bool = False


@dataclass(frozen=True)
class Segment:
    """One straight stroke of a connector."""

    a: Point
    b: Point
    dashed: bool = False
    path: int = -1


@dataclass(frozen=True)
class LinkAnnotation:
    """An internal hyperlink: its clickable area and the 0-based index of the page it points to."""

    bbox: BBox
    target_page: int


@dataclass
class PagePrimitives:
    """Everything graph assembly needs from one page, whichever route (vector or raster) produced it."""

    page_number: int
    width: float
    height: float
    source: str
    tokens: list[Token] = field(default_factory=list)
    shapes: list[Shape] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    arrowheads: list[Shape] = field(default_factory=list)
    links: list[LinkAnnotation] = field(default_factory=list)
    # glyphs of the text layer with no character (``(cid:N)``): left out, or read as list bullets
    unmapped_glyphs: int = 0
    unmapped_bullets: int = 0


@dataclass
class Box:
    """A text-holding shape: its original text (footnote markers as ``^a``) and its expanded text."""

    id: str
    bbox: BBox
    shape: str
    original: str
    text: str = ""
    markers: list[str] = field(default_factory=list)
    link_code: str | None = None
    link_page: int | None = None


@dataclass
class Connector:
    """A connector tree (or block arrow): the boxes it leaves from and the boxes its arrowheads enter."""

    id: str
    sources: list[str]
    targets: list[str]
    segments: list[Segment]
    kind: str = "line"
    labels: dict[str, str] = field(default_factory=dict)
    # how the direction was decided: "arrowhead", "block arrow", or "reading order (no arrowhead)"
    direction: str = "arrowhead"


@dataclass(frozen=True)
class PageNote:
    """Text on a flowchart page that is not a node: a side box no connector touches (``side_box``), a box that
    only names a branch (``branch_label``, its text became a connector label), or text outside every box that
    labels no connector (``free_text``). Kept in the sidecar for retrieval and drawn on the overlay."""

    kind: str
    bbox: BBox
    text: str
    box_id: str | None = None


@dataclass(frozen=True)
class PixelRegion:
    """An image inside a born-digital page read from pixels (by the scan route): where it stands, the
    resolution it was read at, the ids of the boxes read there and how many connectors it added."""

    bbox: BBox
    dpi: float
    box_ids: tuple[str, ...]
    connectors: int


@dataclass(frozen=True)
class PageIssue:
    """A warning about one page (kept in the JSON sidecar and printed by the CLI)."""

    page: int
    message: str


@dataclass
class ParsedPage:
    """One parsed page: boxes, connectors, edges, footnotes and the page code printed in its footer."""

    number: int
    source: str
    width: float
    height: float
    code: str | None = None
    title: str | None = None
    """The flowchart's name printed above it (born-digital pages; None when none stands out or on scans)."""
    boxes: list[Box] = field(default_factory=list)
    connectors: list[Connector] = field(default_factory=list)
    edges: list[HeadTailEdge] = field(default_factory=list)
    originals: list[tuple[str, str]] = field(default_factory=list)
    footnotes: dict[str, str] = field(default_factory=dict)
    dropped_boxes: list[str] = field(default_factory=list)
    notes: list[PageNote] = field(default_factory=list)
    pixel_regions: list[PixelRegion] = field(default_factory=list)
    issues: list[PageIssue] = field(default_factory=list)
    seconds: float = 0.0

    def box(self, box_id: str) -> Box:
        for box in self.boxes:
            if box.id == box_id:
                return box
        raise KeyError(box_id)

    def entry_boxes(self) -> list[Box]:
        """The page's boxes that take part in an arrow and have no incoming arrow, topmost first."""
        sources = {e.head_box_id for e in self.edges}
        targets = {e.tail_box_id for e in self.edges}
        entries = [b for b in self.boxes if b.id in sources and b.id not in targets]
        return sorted(entries, key=lambda b: (b.bbox.top, b.bbox.x0))

    def entry_box(self) -> Box | None:
        """The page's unique entry box (:meth:`entry_boxes`), if there is one."""
        entries = self.entry_boxes()
        return entries[0] if len(entries) == 1 else None


@dataclass
class ParseResult:
    """A whole parsed document."""

    path: str
    page_count: int
    pages: list[ParsedPage] = field(default_factory=list)
    links: list[HeadTailEdge] = field(default_factory=list)
    """Arrows from a box naming another page's title to that page's entry box (:mod:`dkg.parsing.title_links`)."""
    link_originals: list[tuple[str, str]] = field(default_factory=list)

    @property
    def edges(self) -> list[HeadTailEdge]:
        return [edge for page in self.pages for edge in page.edges] + self.links

    @property
    def issues(self) -> list[PageIssue]:
        return [issue for page in self.pages for issue in page.issues]
