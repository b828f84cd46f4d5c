"""Connector networks on scanned pages (``dkg.parsing.scan.network`` and ``connectors.network_strokes``):
fan-outs, T-junctions and slanted arrows drawn like the real development scans, read by the whole scan
pipeline (text stubbed: one word per box, no tesseract) and assembled into edges."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token
from dkg.parsing.scan import pipeline
from dkg.parsing.scan.network import pixel_graph, trace_networks
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanSettings
from dkg.parsing.scan.shapes import FoundShape
from tests.unit.scan_images import DrawingScale, as_scanned

SCALE = DrawingScale(300)
PPT = SCALE.ppt
WIDTH_PT, HEIGHT_PT = 300.0, 300.0


_px = SCALE.px


def _canvas() -> np.ndarray:
    return SCALE.blank(WIDTH_PT, HEIGHT_PT)


def _box(img: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> None:
    cv2.rectangle(img, (_px(x0), _px(y0)), (_px(x1), _px(y1)), 20, 4)
    cv2.putText(img, "Step", (_px(x0 + 5), _px((y0 + y1) / 2 + 4)), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 3)


def _head(img: np.ndarray, tip: tuple[float, float], direction: tuple[float, float], size: float = 6.0) -> None:
    """A solid triangular arrowhead with its tip at ``tip`` pointing along ``direction``."""
    dx, dy = direction
    norm = float(np.hypot(dx, dy))
    dx, dy = dx / norm, dy / norm
    bx, by = tip[0] - dx * size, tip[1] - dy * size
    px, py = -dy * size / 2, dx * size / 2
    points = np.array([[_px(tip[0]), _px(tip[1])], [_px(bx + px), _px(by + py)], [_px(bx - px), _px(by - py)]],
                      np.int32)
    cv2.fillPoly(img, [points], 10)


def _line(img: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> None:
    cv2.line(img, (_px(a[0]), _px(a[1])), (_px(b[0]), _px(b[1])), 10, 4)


def _edges(img: np.ndarray, names: dict[str, tuple[float, float]], monkeypatch: pytest.MonkeyPatch,
           settings: ScanSettings = DEFAULT_SETTINGS) -> tuple[set[tuple[str, str]], list[str]]:
    """Edges the scan pipeline reads from ``img``, each box named by the point of ``names`` inside it (the
    OCR is replaced by one word per box; the drawn text only gives the boxes their ink)."""

    def box_words(page: object, shapes: list[FoundShape], _: ScanSettings) -> list[Token]:
        words = []
        for shape in shapes:
            x0, y0, x1, y1 = (v / PPT for v in shape.rect)
            for name, (x, y) in names.items():
                if x0 <= x <= x1 and y0 <= y <= y1:
                    words.append(Token(name, BBox(x - 8, y - 4, x + 8, y + 4), 9.0))
        return words

    monkeypatch.setattr(pipeline, "box_tokens", box_words)
    monkeypatch.setattr(pipeline, "free_tokens", lambda *_: [])
    prims = pipeline.pipeline_primitives(as_scanned(img, seed=3, noise_sd=4), 1, WIDTH_PT, HEIGHT_PT, settings)
    layout = assemble(prims, settings.pipeline_assembly)
    text = {i: "".join(t.text for t in box.tokens) for i, box in enumerate(layout.boxes)}
    pairs = {(text[s], text[t]) for c in layout.connectors for s in c.sources for t in c.targets}
    return pairs, layout.warnings


def test_a_t_junction_with_a_head_on_its_bar_feeds_both_boxes_below(monkeypatch: pytest.MonkeyPatch) -> None:
    """smog-46 "QRS Width?": a short stem from the box down to a bar, a head drawn where the stem meets the bar
    (pointing onto it), and a head at the end of each drop into "Narrow QRS?" and "Wide QRS?". Read as
    straight runs, the head on the bar entered the box above, so the tree had no source (no edge at all)."""
    img = _canvas()
    _box(img, 110, 60, 190, 100)
    _box(img, 40, 140, 120, 180)
    _box(img, 180, 140, 260, 180)
    _line(img, (150, 100), (150, 104))
    _head(img, (150, 109), (0, 1), 5.0)
    _line(img, (80, 109), (220, 109))
    _line(img, (80, 109), (80, 134))
    _head(img, (80, 140), (0, 1))
    _line(img, (220, 109), (220, 134))
    _head(img, (220, 140), (0, 1))
    pairs, _ = _edges(img, {"top": (150, 80), "left": (80, 160), "right": (220, 160)}, monkeypatch)
    assert pairs == {("top", "left"), ("top", "right")}


def test_slanted_arrows_from_one_box_reach_the_boxes_they_point_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """smog-46 "Chest Pain / SOB / Dizziness?": two slanted arrows, down-left to "Observe" and down-right to
    "Chest Pain Guideline". Only horizontal and vertical runs were strokes, so both edges were lost."""
    img = _canvas()
    _box(img, 110, 50, 190, 90)
    _box(img, 20, 160, 100, 200)
    _box(img, 200, 160, 280, 200)
    _line(img, (130, 90), (70, 150))
    _head(img, (64, 156), (-1, 1))
    _line(img, (170, 90), (230, 150))
    _head(img, (236, 156), (1, 1))
    pairs, _ = _edges(img, {"top": (150, 70), "left": (60, 180), "right": (240, 180)}, monkeypatch)
    assert pairs == {("top", "left"), ("top", "right")}


def test_a_headless_bracket_fans_out_top_down_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bracket without arrowheads from one box to three boxes under it (cbrn-12's fan-out into the criteria
    columns is drawn this way): one edge per box reached, direction inferred down the page, and a warning."""
    img = _canvas()
    _box(img, 110, 40, 190, 80)
    for x0 in (20, 110, 200):
        _box(img, x0, 150, x0 + 80, 190)
    _line(img, (150, 80), (150, 115))
    _line(img, (60, 115), (240, 115))
    for x in (60, 150, 240):
        _line(img, (x, 115), (x, 150))
    pairs, warnings = _edges(img, {"top": (150, 60), "one": (60, 170), "two": (150, 170), "three": (240, 170)},
                             monkeypatch)
    assert pairs == {("top", "one"), ("top", "two"), ("top", "three")}
    assert any("no arrowhead" in w and "assumed" in w for w in warnings)


def test_an_elbow_arrow_whose_head_touches_the_box_it_enters_keeps_its_direction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """smog-43 "12 Lead ECG" → "Dysrhythmia? / Pulse?": an elbow leftwards whose head's tip touches the left
    box's border. Erased with the box's clearance, the head is left as a blunt blob whose skeleton forks at the
    line's end, so the end was no loose end, the head belonged to no line and the edge ran left to right."""
    img = _canvas()
    _box(img, 20, 100, 100, 140)
    _box(img, 150, 110, 230, 150)
    _line(img, (150, 130), (125, 130))
    _line(img, (125, 130), (125, 112))
    _line(img, (125, 112), (106, 112))
    _head(img, (100, 112), (-1, 0))
    pairs, _ = _edges(img, {"left": (60, 120), "right": (190, 130)}, monkeypatch)
    assert pairs == {("right", "left")}


def test_a_line_ending_in_a_blunt_blob_has_a_loose_end_there() -> None:
    """The skeleton of a solid blob at a line's end forks into whiskers towards its corners; with the whiskers
    dropped, the joint they left is the line's loose end."""
    mask = np.zeros((120, 200), np.uint8)
    cv2.line(mask, (40, 60), (180, 60), 255, 3)
    cv2.fillPoly(mask, [np.array([[40, 50], [52, 50], [52, 70], [40, 70]], np.int32)], 255)
    networks = trace_networks(mask, min_extent=20, tolerance=1.5, spur=12)
    assert len(networks) == 1 and sum(c.free_start + c.free_end for c in networks[0]) == 2


def test_pixel_graph_makes_a_bend_one_path_not_a_joint() -> None:
    """An L of skeleton pixels: the diagonal shortcut at the corner is left out, so every pixel but the two
    ends has two neighbours (a bend is not a three-way joint)."""
    sk = np.zeros((6, 6), bool)
    sk[1, 1:5] = True
    sk[1:5, 4] = True
    graph = pixel_graph(sk)
    degrees = sorted(d for _, d in graph.degree())
    assert degrees.count(1) == 2 and max(degrees) == 2


def test_trace_networks_keeps_a_t_as_one_network_and_drops_a_closed_frame() -> None:
    mask = np.zeros((200, 200), np.uint8)
    cv2.line(mask, (20, 40), (180, 40), 255, 3)
    cv2.line(mask, (100, 40), (100, 90), 255, 3)
    cv2.rectangle(mask, (30, 120), (170, 180), 255, 3)  # a frame: no loose end
    networks = trace_networks(mask, min_extent=20, tolerance=1.5, spur=6)
    assert len(networks) == 1
    loose = sum(c.free_start + c.free_end for c in networks[0])
    assert loose == 3


def test_network_settings_can_be_switched_off() -> None:
    assert dataclasses.replace(DEFAULT_SETTINGS, trace_networks=False).trace_networks is False
