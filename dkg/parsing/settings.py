"""Thresholds of graph assembly (primitives → boxes, connectors, labels, notes) in one validated object.

Like pdfplumber's ``TableSettings``: one frozen dataclass, checked on creation, passed to
:func:`dkg.parsing.assemble.assemble`. The defaults were chosen on the development pages of
``datasets/realpdfs`` (see ``split.json``) and the project's own corpus; the held-out pages were not used.
Lengths are PDF points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class AssemblySettings:
    """Every threshold of the assembly stage."""

    # a stroke end this close to a box attaches to it
    attach_tol: float = 5.0
    # an arrowhead whose tip stops this short of a box still enters it (publishers leave a gap before the box)
    head_reach: float = 9.0
    # a filled shape the same size as another shape (within ``shadow_size_tol``) and offset from it by at most
    # ``shadow_offset_max`` in x and y is that shape's drop shadow, not a second box
    shadow_offset_max: float = 4.5
    shadow_size_tol: float = 1.5
    # a box or free text whose first word is a branch word and that has at most ``label_max_words`` words is a
    # branch label (YES / NO / OR / "if yes" / "No improvement"), not a node
    branch_words: tuple[str, ...] = ("yes", "no", "y", "n", "or", "if", "else", "otherwise", "true", "false",
                                     "positive", "negative")
    label_max_words: int = 3
    # a label (branch-label box, or free text) stands in a connector's path when a stroke end or arrowhead comes
    # this close to it; free text reached by two or more such ends is a label whatever its words
    label_on_connector: float = 10.0
    # an arrowhead is a triangle whose tip is the corner opposite its clearly shortest side (shorter than this
    # share of the others): it enters the box in front of its tip, never the box behind it
    head_base_ratio: float = 0.9
    # free text (or a label box standing on no stroke) labels the nearest connector within this many times its
    # font size (at least ``label_reach_min``)
    label_reach_ratio: float = 1.6
    label_reach_min: float = 14.0
    # a branch label further than this from every connector is at most a note
    branch_label_reach: float = 30.0
    # a headless stroke counts as touching a box only where it meets a box side end-on, at least this far
    # inside the side's ends (a rule running along the top of a row of boxes touches none of them)
    side_margin: float = 1.0
    # a polygon box with one vertex standing out of a straight side by at least this much is a box with a
    # pointer (a chevron drawn as part of the box): the pointer is a block arrow into the box it reaches
    pointer_min_depth: float = 6.0
    # boxes standing side by side, this close, with equal tops and bottoms, form one row (a table header):
    # a pointer into one of them enters them all
    row_gap: float = 2.5
    row_align_tol: float = 2.0

    # boxes stacked this close (gap in y; negative = overlapping), the narrower one standing at least this share
    # of its width under the wider one, follow each other in reading order when no connector joins them
    stack_gap: float = 5.0
    stack_overlap: float = 0.5
    # ... and the narrower is at least this share of the wider's width (a page-wide notes panel under a step
    # box does not follow it)
    stack_width_ratio: float = 0.5
    # bands of equal width abutting within this gap are one box filled in pieces (merged into one box)
    piece_gap: float = 0.5
    # an outline whose text-holding inner shapes cover at least this share of it is one box filled in pieces
    # (a table cell shaded line by line), not a frame around several boxes
    tile_share: float = 0.7

    # a glyph crossing a box's bottom edge with at least this share of its height inside belongs to the box
    overflow_share: float = 0.2

    # a straight stroke whose free end stops at most this short of another stroke it points at joins it
    junction_gap: float = 8.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"AssemblySettings.{item.name} must be >= 0; got {value!r}")
        if self.label_max_words < 1:
            raise ValueError(f"AssemblySettings.label_max_words must be >= 1; got {self.label_max_words!r}")
        if not all(isinstance(word, str) and word.strip() for word in self.branch_words):
            raise ValueError("AssemblySettings.branch_words must be non-empty strings")

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
