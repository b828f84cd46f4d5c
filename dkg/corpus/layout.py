"""Computed page layout: layered DAG placement, wrapped box text, routed connectors, labels.

Coordinates are PDF points with the origin at the page's top-left corner and y growing downwards
(the convention pdfplumber uses), so a layout can be compared directly with extracted characters.
The flow is laid out in abstract (u, v) coordinates: u runs along the flow (layers), v across it;
left-to-right pages map u→x, top-to-bottom pages map u→y.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from dkg.corpus.model import MARKER, Arrow, Box, BoxKind, Guideline, Page, PageStyle, Shape
from dkg.errors import CorpusError

FONT = "DKGSans"
FONT_BOLD = "DKGSans-Bold"
_FONT_FILES = {FONT: "Vera.ttf", FONT_BOLD: "VeraBd.ttf"}
SUP_SCALE = 0.65
SUP_RISE = 0.38
LEADING = 1.22
PAD = 4.0
BAND = 7.0
MARGIN = 36.0
PAGE_W, PAGE_H = 792.0, 612.0  # US letter, landscape
HEADER_BOTTOM = 62.0
FOOTER_H = 30.0
NOTE_W = 150.0
TRACK = 6.0
V_GAP = 12.0
DISCLAIMER = "Illustrative content for software testing — not clinical advice"


@lru_cache(maxsize=1)
def register_fonts() -> tuple[float, float]:
    """Register the bundled Bitstream Vera fonts; return (ascent, descent) per point of size."""
    folder = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
    for name, filename in _FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, os.path.join(folder, filename)))
    face = pdfmetrics.getFont(FONT).face
    return face.ascent / 1000.0, face.descent / 1000.0


def unsupported_chars(text: str) -> list[str]:
    """Characters of ``text`` the PDF font has no glyph for."""
    register_fonts()
    glyphs = pdfmetrics.getFont(FONT).face.charToGlyph
    return sorted({c for c in text if not c.isspace() and ord(c) not in glyphs})


def width(text: str, size: float, bold: bool = False) -> float:
    register_fonts()
    return pdfmetrics.stringWidth(text, FONT_BOLD if bold else FONT, size)


@dataclass(frozen=True)
class Rect:
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def overlaps(self, other: Rect, slack: float = 0.0) -> bool:
        return not (self.x1 <= other.x0 + slack or other.x1 <= self.x0 + slack
                    or self.bottom <= other.top + slack or other.bottom <= self.top + slack)

    def contains(self, other: Rect, tolerance: float = 0.0) -> bool:
        return (other.x0 >= self.x0 - tolerance and other.x1 <= self.x1 + tolerance
                and other.top >= self.top - tolerance and other.bottom <= self.bottom + tolerance)

    def shift(self, dx: float, dy: float) -> Rect:
        return Rect(self.x0 + dx, self.top + dy, self.x1 + dx, self.bottom + dy)


@dataclass(frozen=True)
class Run:
    text: str
    sup: bool = False


@dataclass
class Line:
    """One line of text: runs drawn from ``x`` at ``baseline`` (y down)."""

    runs: list[Run]
    x: float
    baseline: float
    size: float
    bold: bool = False
    link: tuple[str, str] | None = None  # (page code shown, target page code)

    def run_width(self, run: Run) -> float:
        return width(run.text, self.size * SUP_SCALE if run.sup else self.size, self.bold)

    @property
    def width(self) -> float:
        return sum(self.run_width(r) for r in self.runs)


@dataclass(frozen=True)
class TextBlock:
    lines: tuple[tuple[Run, ...], ...]
    size: float
    width: float
    height: float
    first_ascent: float
    bold: bool = False


def tokens(text: str) -> list[list[Run]]:
    """Split box text into words; each word is a list of runs, footnote markers as superscript runs."""
    words: list[list[Run]] = []
    for raw in text.split():
        runs: list[Run] = []
        pos = 0
        for match in MARKER.finditer(raw):
            if match.start() > pos:
                runs.append(Run(raw[pos:match.start()]))
            keys = match["many"] if match["many"] is not None else match["one"]
            runs.append(Run(",".join(k.strip() for k in keys.split(",") if k.strip()), sup=True))
            pos = match.end()
        if pos < len(raw):
            runs.append(Run(raw[pos:]))
        words.append(runs)
    return words


def _extents(size: float, has_sup: bool) -> tuple[float, float]:
    """(above, below) the baseline of a line as pdfplumber measures characters."""
    _, descent = register_fonts()
    above = size * (1 + descent)
    if has_sup:
        above = max(above, size * SUP_RISE + size * SUP_SCALE * (1 + descent))
    return above, -descent * size


def wrap(text: str, max_width: float, size: float, bold: bool = False) -> TextBlock:
    """Greedy word wrap of ``text`` (with markers) into lines no wider than ``max_width`` if possible."""
    space = width(" ", size, bold)

    def word_width(runs: list[Run]) -> float:
        return sum(width(r.text, size * SUP_SCALE if r.sup else size, bold) for r in runs)

    lines: list[list[Run]] = []
    current: list[Run] = []
    current_w = 0.0
    widest = 0.0
    for word in tokens(text):
        w = word_width(word)
        if current and current_w + space + w > max_width:
            lines.append(current)
            widest = max(widest, current_w)
            current, current_w = [], 0.0
        if current:
            current = current + [Run(" ")]
            current_w += space
        current = current + word
        current_w += w
    if current:
        lines.append(current)
        widest = max(widest, current_w)
    merged = tuple(tuple(_merge_runs(line)) for line in lines)
    above_first, below = _extents(size, any(r.sup for r in merged[0]) if merged else False)
    height = above_first + (len(merged) - 1) * size * LEADING + below
    return TextBlock(merged, size, widest, height, above_first, bold)


def _merge_runs(runs: list[Run]) -> list[Run]:
    out: list[Run] = []
    for run in runs:
        if out and out[-1].sup == run.sup:
            out[-1] = Run(out[-1].text + run.text, run.sup)
        else:
            out.append(run)
    return out


def block_lines(block: TextBlock, x: float, top: float, centre_width: float | None = None) -> list[Line]:
    """Place a wrapped block with its first line's top at ``top``; centre lines in ``centre_width``."""
    lines: list[Line] = []
    baseline = top + block.first_ascent
    for runs in block.lines:
        line = Line(list(runs), x, baseline, block.size, block.bold)
        if centre_width is not None:
            line.x = x + (centre_width - line.width) / 2
        lines.append(line)
        baseline += block.size * LEADING
    return lines


@dataclass
class PlacedBox:
    box: Box
    shape: Shape
    rect: Rect
    text_rect: Rect
    lines: list[Line]
    fill: tuple[float, float, float]


@dataclass
class Label:
    text: str
    rect: Rect
    line: Line


@dataclass
class Connector:
    arrow: Arrow
    polylines: list[list[tuple[float, float]]]
    head: tuple[float, float] | None  # arrow tip; the last segment points along the flow
    direction: tuple[float, float]
    label: Label | None = None  # merged connectors with the same label into one box share it


@dataclass
class Region:
    """A rectangle of text in the layout; ``key`` is a box id, ``label:<i>``, ``header``, ..."""

    key: str
    rect: Rect
    text: str


@dataclass
class PageLayout:
    page: Page
    width: float
    height: float
    boxes: dict[str, PlacedBox]
    notes: list[PlacedBox]
    connectors: list[Connector]
    labels: list[Label]
    header: list[Line]
    footer: list[Line]
    footnotes: list[Line]
    rules: list[tuple[float, float, float, float]] = field(default_factory=list)
    dividers: list[tuple[float, float, float, float]] = field(default_factory=list)

    def regions(self) -> list[Region]:
        """Every text-bearing rectangle (boxes, notes, labels, header, footer, footnotes)."""
        out = [Region(b.box.id, b.text_rect, b.box.text) for b in [*self.boxes.values(), *self.notes]]
        out += [Region(f"label:{i}", lab.rect, lab.text) for i, lab in enumerate(self.labels)]
        for key, lines in (("header", self.header), ("footer", self.footer), ("footnotes", self.footnotes)):
            if lines:
                out.append(Region(key, _lines_rect(lines), " ".join(_line_text(ln) for ln in lines)))
        return out


def _line_text(line: Line) -> str:
    return "".join(r.text for r in line.runs)


def _lines_rect(lines: list[Line]) -> Rect:
    _, descent = register_fonts()
    x0 = min(ln.x for ln in lines)
    x1 = max(ln.x + ln.width for ln in lines)
    top = min(ln.baseline - ln.size * (1 + descent) - ln.size * 0.2 for ln in lines)
    bottom = max(ln.baseline - descent * ln.size for ln in lines)
    return Rect(x0, top, x1, bottom)


# ---------------------------------------------------------------- layering and ordering


@dataclass
class _Node:
    key: str
    box: Box | None  # None for dummy nodes of long edges
    layer: int
    su: float = 0.0  # size along the flow
    sv: float = 0.0  # size across the flow
    u: float = 0.0
    v: float = 0.0  # centre across the flow
    block: TextBlock | None = None
    shape: Shape = Shape.RECT


def _layers(page: Page) -> tuple[dict[str, int], list[tuple[str, str, int]]]:
    """Longest-path layering from the entry; returns layer per box and arrows with their index."""
    flow = [b.id for b in page.boxes if b.kind is not BoxKind.NOTE]
    preds: dict[str, list[str]] = {b: [] for b in flow}
    for arrow in page.arrows:
        preds[arrow.to].append(arrow.from_)
    layer: dict[str, int] = {}

    def depth(node: str, trail: tuple[str, ...] = ()) -> int:
        if node in layer:
            return layer[node]
        if node in trail:
            raise CorpusError(f"page {page.code}: cycle through {node}")
        layer[node] = 1 + max((depth(p, trail + (node,)) for p in preds[node]), default=-1)
        return layer[node]

    for node in flow:
        depth(node)
    return layer, [(a.from_, a.to, i) for i, a in enumerate(page.arrows)]


def _pava(desired: list[float], offsets: list[float]) -> list[float]:
    """Least-squares positions ≥ previous + spacing (isotonic regression on desired − offset)."""
    targets = [d - o for d, o in zip(desired, offsets, strict=True)]
    blocks: list[list[float]] = []  # [sum, count]
    for t in targets:
        blocks.append([t, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    values: list[float] = []
    for s, c in blocks:
        values.extend([s / c] * int(c))
    return [v + o for v, o in zip(values, offsets, strict=True)]


@dataclass
class _Style:
    left_to_right: bool
    diamonds: bool
    banded: bool
    text_width: float
    size: float


def _style_for(style: PageStyle, size: float, text_width: float) -> _Style:
    ltr = style in (PageStyle.NCCN, PageStyle.BANDED, PageStyle.MIXED)
    return _Style(ltr, style is PageStyle.DIAMOND, style is PageStyle.BANDED, text_width, size)


_FILLS = {
    BoxKind.DECISION: (0.90, 0.94, 1.0),
    BoxKind.TREATMENT: (1.0, 1.0, 1.0),
    BoxKind.STEP: (0.95, 0.95, 0.95),
    BoxKind.LINK: (1.0, 0.97, 0.88),
    BoxKind.NOTE: (0.98, 0.98, 0.90),
}


def _shape(box: Box, st: _Style) -> Shape:
    if box.shape is not None:
        return box.shape
    if st.diamonds and box.kind is BoxKind.DECISION:
        return Shape.DIAMOND
    if st.banded:
        return Shape.BANDED
    if box.kind in (BoxKind.TREATMENT, BoxKind.LINK):
        return Shape.ROUNDED
    return Shape.RECT


def _size_node(node: _Node, st: _Style) -> None:
    """Wrap the node's text and set its outer size (su along the flow, sv across)."""
    assert node.box is not None
    node.shape = _shape(node.box, st)
    diamond_factor = 0.62 if st.left_to_right else 0.9
    text_width = st.text_width * (diamond_factor if node.shape is Shape.DIAMOND else 1.0)
    block = wrap(node.box.text, text_width, st.size)
    node.block = block
    w, h = block.width + 2 * PAD, block.height + 2 * PAD
    if node.shape is Shape.DIAMOND:
        w, h = 2 * block.width + 10, 2 * block.height + 10
    elif node.shape is Shape.BANDED:
        h += BAND
    node.su, node.sv = (w, h) if st.left_to_right else (h, w)


def _text_rect(node: _Node, rect: Rect) -> Rect:
    assert node.block is not None
    bw, bh = node.block.width, node.block.height
    cx, cy = (rect.x0 + rect.x1) / 2, (rect.top + rect.bottom) / 2
    if node.shape is Shape.BANDED:
        cy += BAND / 2
    return Rect(cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)


def _label_block(text: str, size: float) -> TextBlock:
    return wrap(text, 1000.0, size * 0.9, bold=True)


def layout_page(guideline: Guideline, page: Page, size: float = 8.0, text_width: float = 120.0,
                min_width: float = PAGE_W, min_height: float = PAGE_H) -> PageLayout:
    """Lay out one page; the page grows beyond ``min_width`` × ``min_height`` only if the flow needs it."""
    st = _style_for(page.style, size, text_width)
    layer_of, arrows = _layers(page)
    n_layers = 1 + max(layer_of.values(), default=0)
    nodes: dict[str, _Node] = {}
    for box in page.boxes:
        if box.kind is not BoxKind.NOTE:
            nodes[box.id] = _Node(box.id, box, layer_of[box.id])
            _size_node(nodes[box.id], st)

    # Long edges pass through dummy nodes so no connector crosses a box.
    chains: dict[int, list[str]] = {}
    for src, dst, index in arrows:
        chain = [src]
        for layer in range(layer_of[src] + 1, layer_of[dst]):
            key = f"~{index}~{layer}"
            nodes[key] = _Node(key, None, layer, su=0.0, sv=2.0)
            chain.append(key)
        chain.append(dst)
        chains[index] = chain
    succ: dict[str, list[str]] = {k: [] for k in nodes}
    pred: dict[str, list[str]] = {k: [] for k in nodes}
    for chain in chains.values():
        for a, b in zip(chain, chain[1:], strict=False):
            succ[a].append(b)
            pred[b].append(a)

    # Initial order: depth-first from the entry in authoring order, then barycentre sweeps.
    order_seen: list[str] = []

    def dfs(key: str) -> None:
        if key in order_seen:
            return
        order_seen.append(key)
        for nxt in succ[key]:
            dfs(nxt)

    for key in sorted(nodes, key=lambda k: (nodes[k].layer, k.startswith("~"))):
        if not pred[key]:
            dfs(key)
    for key in nodes:
        dfs(key)
    rank = {k: i for i, k in enumerate(order_seen)}
    layers: list[list[str]] = [sorted((k for k in nodes if nodes[k].layer == i), key=rank.__getitem__)
                               for i in range(n_layers)]
    for sweep in range(6):
        down = sweep % 2 == 0
        span = range(1, n_layers) if down else range(n_layers - 2, -1, -1)
        for i in span:
            ref = layers[i - 1] if down else layers[i + 1]
            pos = {k: j for j, k in enumerate(ref)}

            current = layers[i]

            def bary(key: str, pos: dict[str, int] = pos, down: bool = down,
                     current: list[str] = current) -> float:
                nbrs = pred[key] if down else succ[key]
                known = [pos[n] for n in nbrs if n in pos]
                return sum(known) / len(known) if known else float(current.index(key))

            def order(key: str, current: list[str] = current) -> tuple[float, int]:
                return bary(key), current.index(key)

            layers[i] = sorted(current, key=order)

    # Positions across the flow: barycentre of neighbours, overlaps removed by isotonic regression.
    def place(keys: list[str], desired: list[float]) -> None:
        offsets = [0.0]
        for a, b in zip(keys, keys[1:], strict=False):
            gap = V_GAP if nodes[a].box and nodes[b].box else V_GAP / 2
            offsets.append(offsets[-1] + (nodes[a].sv + nodes[b].sv) / 2 + gap)
        for key, v in zip(keys, _pava(desired, offsets), strict=True):
            nodes[key].v = v

    for i, keys in enumerate(layers):
        place(keys, [0.0] * len(keys) if i == 0 else
              [sum(nodes[p].v for p in pred[k]) / len(pred[k]) if pred[k] else 0.0 for k in keys])
    for _ in range(3):
        for i in range(n_layers - 2, -1, -1):
            keys = layers[i]
            place(keys, [(sum(nodes[s].v for s in succ[k]) / len(succ[k]) + nodes[k].v) / 2
                         if succ[k] else nodes[k].v for k in keys])
        for i in range(1, n_layers):
            keys = layers[i]
            place(keys, [sum(nodes[p].v for p in pred[k]) / len(pred[k]) if pred[k] else nodes[k].v
                         for k in keys])

    # Gaps between layers: tracks for trunks/merges plus room for labels next to the target.
    label_size = size * 0.9
    gap_tracks: list[dict[tuple[str, str], float]] = []
    gap_sizes: list[float] = []
    label_room: list[float] = []
    for i in range(n_layers - 1):
        edges = [(a, b) for a in layers[i] for b in succ[a]]
        out_count: dict[str, int] = {}
        in_count: dict[str, int] = {}
        for a, b in edges:
            out_count[a] = out_count.get(a, 0) + 1
            in_count[b] = in_count.get(b, 0) + 1
        tracks: dict[tuple[str, str], str] = {}
        for a, b in edges:
            if abs(nodes[a].v - nodes[b].v) < 0.5 and out_count[a] == 1:
                continue
            if out_count[a] >= 2 or in_count[b] < 2:
                tracks[(a, b)] = f"s:{a}"
            else:
                tracks[(a, b)] = f"t:{b}"
        names = sorted(set(tracks.values()), key=lambda n: (n[0] == "t", nodes[n[2:]].v))
        room = 0.0
        for _src, dst, index in arrows:
            if page.arrows[index].label and nodes[dst].layer == i + 1:
                block = _label_block(page.arrows[index].label, label_size)
                room = max(room, (block.width if st.left_to_right else block.height) + 6)
        label_room.append(room)
        track_u = {name: 10.0 + j * TRACK for j, name in enumerate(names)}
        gap_tracks.append({edge: track_u[name] for edge, name in tracks.items()})
        gap_sizes.append(max(30.0, 10.0 + len(names) * TRACK + 8.0 + room))

    layer_su = [max((nodes[k].su for k in keys), default=0.0) for keys in layers]
    layer_u: list[float] = []
    u = 0.0
    for i, su in enumerate(layer_su):
        layer_u.append(u)
        u += su + (gap_sizes[i] if i < len(gap_sizes) else 0.0)
    flow_u = u
    for keys in layers:
        for k in keys:
            nodes[k].u = layer_u[nodes[k].layer]
    for node in nodes.values():
        if node.box is None:
            node.su = layer_su[node.layer]
    v_min = min(n.v - n.sv / 2 for n in nodes.values())
    v_max = max(n.v + n.sv / 2 for n in nodes.values())
    flow_v = v_max - v_min

    # Page frame: header, notes column, footnotes and footer around the flow.
    notes = [b for b in page.boxes if b.kind is BoxKind.NOTE]
    note_blocks = [wrap(b.text, NOTE_W - 2 * PAD, size) for b in notes]
    notes_h = sum(nb.height + 2 * PAD + 8 for nb in note_blocks)
    flow_w, flow_h = (flow_u, flow_v) if st.left_to_right else (flow_v, flow_u)
    notes_w = NOTE_W + 20 if notes else 0.0
    page_w = max(min_width, MARGIN * 2 + flow_w + notes_w)
    content_w = page_w - 2 * MARGIN
    fn_lines_probe = _footnote_blocks(guideline, page, content_w)
    fn_h = sum(b.height + 2 for b in fn_lines_probe) + (8 if fn_lines_probe else 0)
    page_h = max(min_height, HEADER_BOTTOM + 14 + max(flow_h, notes_h) + 14 + fn_h + FOOTER_H)
    area_top = HEADER_BOTTOM + 14
    area_bottom = page_h - FOOTER_H - fn_h - 14
    area_w = content_w - notes_w
    ox = MARGIN + max(0.0, (area_w - flow_w) / 2)
    oy = area_top + max(0.0, (area_bottom - area_top - flow_h) / 2)

    def to_xy(u_: float, v_: float) -> tuple[float, float]:
        if st.left_to_right:
            return ox + u_, oy + (v_ - v_min)
        return ox + (v_ - v_min), oy + u_

    def node_rect(node: _Node) -> Rect:
        x0, y0 = to_xy(node.u, node.v - node.sv / 2)
        if st.left_to_right:
            return Rect(x0, y0, x0 + node.su, y0 + node.sv)
        return Rect(x0, y0, x0 + node.sv, y0 + node.su)

    placed: dict[str, PlacedBox] = {}
    for key, node in nodes.items():
        if node.box is None:
            continue
        assert node.block is not None
        rect = node_rect(node)
        text_rect = _text_rect(node, rect)
        lines = block_lines(node.block, text_rect.x0, text_rect.top, centre_width=text_rect.width)
        if node.box.kind is BoxKind.LINK and node.box.target:
            for line in lines:
                if f"({node.box.target})" in _line_text(line):
                    line.link = (node.box.target, node.box.target)
        placed[key] = PlacedBox(node.box, node.shape, rect, text_rect, lines, _FILLS[node.box.kind])

    # Connectors: out of the source's far side, along a track in the gap, into the target's near side.
    connectors: list[Connector] = []
    labels: list[Label] = []
    taken: list[Rect] = [b.rect for b in placed.values()]
    for _src, dst, index in arrows:
        arrow = page.arrows[index]
        chain = chains[index]
        polyline: list[tuple[float, float]] = []
        for a, b in zip(chain, chain[1:], strict=False):
            na, nb = nodes[a], nodes[b]
            points = [(na.u + na.su, na.v)]
            track = gap_tracks[na.layer].get((a, b))
            gap_start = layer_u[na.layer] + layer_su[na.layer]
            if track is not None:
                points += [(gap_start + track, na.v), (gap_start + track, nb.v)]
            points.append((nb.u, nb.v))
            polyline.extend(to_xy(pu, pv) for pu, pv in points)
        dedup: list[tuple[float, float]] = []
        for p in polyline:
            if not dedup or abs(dedup[-1][0] - p[0]) > 1e-6 or abs(dedup[-1][1] - p[1]) > 1e-6:
                dedup.append(p)
        direction = (1.0, 0.0) if st.left_to_right else (0.0, 1.0)
        connector = Connector(arrow, [dedup], dedup[-1], direction)
        connectors.append(connector)
        shared = next((c.label for c in connectors[:-1] if c.label is not None and c.arrow.to == arrow.to
                       and c.arrow.label == arrow.label and c.head == connector.head), None)
        if shared is not None:
            connector.label = shared
        elif arrow.label:
            block = _label_block(arrow.label, label_size)
            tip_u, tip_v = nodes[dst].u, nodes[dst].v
            su_, sv_ = (block.width, block.height) if st.left_to_right else (block.height, block.width)
            candidates = [tip_v - 2.0 - sv_, tip_v + 2.0]
            chosen: Rect | None = None
            for cand in candidates:
                x0, y0 = to_xy(tip_u - 4.0 - su_, cand)
                rect = Rect(x0, y0, x0 + block.width, y0 + block.height)
                if not any(rect.overlaps(t) for t in taken):
                    chosen = rect
                    break
            if chosen is None:
                x0, y0 = to_xy(tip_u - 4.0 - su_, candidates[0])
                chosen = Rect(x0, y0, x0 + block.width, y0 + block.height)
            taken.append(chosen)
            line = block_lines(block, chosen.x0, chosen.top)[0]
            connector.label = Label(arrow.label, chosen, line)
            labels.append(connector.label)

    # Notes: a side column of boxes without arrows.
    note_boxes: list[PlacedBox] = []
    ny = area_top
    for box, note_block in zip(notes, note_blocks, strict=True):
        rect = Rect(page_w - MARGIN - NOTE_W, ny, page_w - MARGIN, ny + note_block.height + 2 * PAD)
        text_rect = Rect(rect.x0 + PAD, rect.top + PAD, rect.x0 + PAD + note_block.width,
                         rect.top + PAD + note_block.height)
        note_boxes.append(PlacedBox(box, Shape.RECT, rect, text_rect,
                                    block_lines(note_block, text_rect.x0, text_rect.top), _FILLS[BoxKind.NOTE]))
        ny = rect.bottom + 8

    header = block_lines(wrap(f"{guideline.title} — Version {guideline.version}", content_w, 11, True),
                         MARGIN, 22.0)
    header += block_lines(wrap(page.title, content_w, 9.5, True), MARGIN, 40.0)
    footer_size = 7.0
    fy = page_h - FOOTER_H + 10
    footer = [Line([Run(DISCLAIMER)], MARGIN, fy + 7, footer_size)]
    code_w = width(page.code, 9, True)
    footer.append(Line([Run(page.code)], page_w - MARGIN - code_w, fy + 8, 9, bold=True))
    footnote_lines: list[Line] = []
    fy_top = page_h - FOOTER_H - fn_h + 8
    for block in fn_lines_probe:
        footnote_lines += block_lines(block, MARGIN, fy_top)
        fy_top += block.height + 2
    rules = [(MARGIN, HEADER_BOTTOM - 6, page_w - MARGIN, HEADER_BOTTOM - 6),
             (MARGIN, page_h - FOOTER_H + 4, page_w - MARGIN, page_h - FOOTER_H + 4)]
    if fn_lines_probe:
        rules.append((MARGIN, page_h - FOOTER_H - fn_h + 2, MARGIN + 120, page_h - FOOTER_H - fn_h + 2))

    dividers: list[tuple[float, float, float, float]] = []
    if page.style is PageStyle.TWO_COLUMN:
        dividers = _two_column_divider(page, placed, area_top, area_bottom)
    return PageLayout(page, page_w, page_h, placed, note_boxes, connectors, labels, header, footer,
                      footnote_lines, rules, dividers)


def _two_column_divider(page: Page, placed: dict[str, PlacedBox], top: float,
                        bottom: float) -> list[tuple[float, float, float, float]]:
    """A vertical rule between the two arms under the entry box, if one fits between boxes."""
    entry = [b for b in page.boxes if b.kind is not BoxKind.NOTE and b.id not in {a.to for a in page.arrows}]
    if not entry:
        return []
    entry_rect = placed[entry[0].id].rect
    below = sorted((p.rect for p in placed.values() if p.rect.top > entry_rect.bottom), key=lambda r: r.x0)
    if len(below) < 2:
        return []
    centre = (entry_rect.x0 + entry_rect.x1) / 2
    left = [r for r in below if (r.x0 + r.x1) / 2 < centre]
    right = [r for r in below if (r.x0 + r.x1) / 2 >= centre]
    if not left or not right:
        return []
    x = (max(r.x1 for r in left) + min(r.x0 for r in right)) / 2
    if max(r.x1 for r in left) >= min(r.x0 for r in right):
        return []
    return [(x, entry_rect.bottom + 16, x, bottom)]


def page_footnote_keys(guideline: Guideline, page: Page) -> list[str]:
    """Footnote keys referenced on a page, in footnote order."""
    used: set[str] = set()
    for box in page.boxes:
        for match in MARKER.finditer(box.text):
            group = match["many"] if match["many"] is not None else match["one"]
            used.update(k.strip() for k in group.split(",") if k.strip())
    return [k for k in guideline.footnotes if k in used]


def _footnote_blocks(guideline: Guideline, page: Page, content_w: float) -> list[TextBlock]:
    return [wrap(f"^{{{key}}} {guideline.footnotes[key]}", content_w, 7.0)
            for key in page_footnote_keys(guideline, page)]


def layout_guideline(guideline: Guideline) -> list[PageLayout]:
    """Lay out every page of a guideline (letter landscape, larger only where a flow needs it)."""
    problems = glyph_problems(guideline)
    if problems:
        raise CorpusError(f"{guideline.guideline} {guideline.version}: " + "; ".join(problems))
    return [fit_page(guideline, page) for page in guideline.pages]


def glyph_problems(guideline: Guideline) -> list[str]:
    """Texts holding characters the PDF font cannot draw (they would print as empty boxes)."""
    texts = [("title", guideline.title)]
    texts += [(f"footnote {key}", text) for key, text in guideline.footnotes.items()]
    for page in guideline.pages:
        texts.append((f"page {page.code} title", page.title))
        texts += [(f"page {page.code}, box {b.id}", b.text) for b in page.boxes]
        texts += [(f"page {page.code}, arrow {a.from_}->{a.to} label", a.label) for a in page.arrows]
    problems = []
    for where, text in texts:
        missing = unsupported_chars(text)
        if missing:
            names = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in missing)
            problems.append(f"{where}: {names} has no glyph in the PDF font (Bitstream Vera); "
                            "write it out (e.g. 'alpha', '->')")
    return problems


FITS: tuple[tuple[float, float], ...] = tuple(
    (size, size * chars) for size in (10.0, 9.0, 8.0, 7.0, 6.5) for chars in (15.0, 12.5, 10.5, 9.0, 7.5)
)


def fit_page(guideline: Guideline, page: Page) -> PageLayout:
    """The largest text size whose layout fits a letter-landscape page; else the smallest, on a larger page."""
    layout = None
    for size, text_width in FITS:
        layout = layout_page(guideline, page, size=size, text_width=text_width)
        if layout.width <= PAGE_W and layout.height <= PAGE_H:
            return layout
    assert layout is not None
    return layout


def page_words(text: str) -> list[str]:
    """The words a box shows in the PDF text layer (markers become their superscript letters)."""
    return [w for w in re.split(r"\s+", MARKER.sub(lambda m: m["many"] or m["one"], text)) if w]
