"""Plane geometry in PDF points with a top-left origin (x grows right, y grows down)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class BBox:
    """An axis-aligned rectangle: ``x0 <= x1`` and ``top <= bottom``."""

    x0: float
    top: float
    x1: float
    bottom: float

    @classmethod
    def around(cls, points: Iterable[Point]) -> BBox:
        """The smallest box holding every point."""
        xs, ys = zip(*points, strict=True)
        return cls(min(xs), min(ys), max(xs), max(ys))

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def area(self) -> float:
        return max(self.width, 0.0) * max(self.height, 0.0)

    @property
    def center(self) -> Point:
        return ((self.x0 + self.x1) / 2, (self.top + self.bottom) / 2)

    def contains_point(self, point: Point, tol: float = 0.0) -> bool:
        x, y = point
        return self.x0 - tol <= x <= self.x1 + tol and self.top - tol <= y <= self.bottom + tol

    def contains(self, other: BBox, tol: float = 0.0) -> bool:
        return (
            other.x0 >= self.x0 - tol
            and other.x1 <= self.x1 + tol
            and other.top >= self.top - tol
            and other.bottom <= self.bottom + tol
        )

    def union(self, other: BBox) -> BBox:
        return BBox(min(self.x0, other.x0), min(self.top, other.top),
                    max(self.x1, other.x1), max(self.bottom, other.bottom))

    def expand(self, margin: float) -> BBox:
        return BBox(self.x0 - margin, self.top - margin, self.x1 + margin, self.bottom + margin)

    def distance_to_point(self, point: Point) -> float:
        """0 inside the box, else the Euclidean distance to it."""
        x, y = point
        dx = max(self.x0 - x, 0.0, x - self.x1)
        dy = max(self.top - y, 0.0, y - self.bottom)
        return math.hypot(dx, dy)

    def distance_to_box(self, other: BBox) -> float:
        dx = max(self.x0 - other.x1, 0.0, other.x0 - self.x1)
        dy = max(self.top - other.bottom, 0.0, other.top - self.bottom)
        return math.hypot(dx, dy)

    def as_list(self) -> list[float]:
        return [round(self.x0, 2), round(self.top, 2), round(self.x1, 2), round(self.bottom, 2)]


def point_segment_distance(point: Point, a: Point, b: Point) -> float:
    """Distance from ``point`` to the segment ``a``–``b``."""
    return math.dist(point, nearest_on_segment(point, a, b))


def nearest_on_segment(point: Point, a: Point, b: Point) -> Point:
    """The point of the segment ``a``–``b`` nearest to ``point``.

    >>> nearest_on_segment((5, 3), (0, 0), (10, 0)), nearest_on_segment((-4, 1), (0, 0), (10, 0))
    ((5.0, 0.0), (0.0, 0.0))
    """
    px, py = point
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return (float(ax), float(ay))
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return (ax + t * dx, ay + t * dy)


def segment_box_distance(a: Point, b: Point, box: BBox) -> float:
    """Distance between a segment and a box (0 when they overlap); sampled, exact for axis-aligned lines."""
    if box.contains_point(a) or box.contains_point(b):
        return 0.0
    corners = [(box.x0, box.top), (box.x1, box.top), (box.x1, box.bottom), (box.x0, box.bottom)]
    best = min(box.distance_to_point(a), box.distance_to_point(b))
    for corner in corners:
        best = min(best, point_segment_distance(corner, a, b))
    if _segments_intersect(a, b, corners[0], corners[2]) or _segments_intersect(a, b, corners[1], corners[3]):
        return 0.0
    return best


def _segments_intersect(p1: Point, p2: Point, p3: Point, p4: Point) -> bool:
    def orient(a: Point, b: Point, c: Point) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def polygon_contains(points: Sequence[Point], point: Point) -> bool:
    """Even-odd rule point-in-polygon test."""
    x, y = point
    inside = False
    n = len(points)
    for i in range(n):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < x_cross:
                inside = not inside
    return inside


def polygon_area(points: Sequence[Point]) -> float:
    """Absolute shoelace area."""
    total = 0.0
    n = len(points)
    for i in range(n):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % n]
        total += x1 * y2 - x2 * y1
    return abs(total) / 2


class UnionFind:
    """Disjoint sets over ``0..n-1``."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            self.parent[max(ri, rj)] = min(ri, rj)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            out.setdefault(self.find(i), []).append(i)
        return list(out.values())
