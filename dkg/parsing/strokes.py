"""Connector strokes as drawn lines, and how flow runs along them.

A scan (and sometimes a PDF) gives a connector as loose straight strokes: one drawn line broken into several
overlapping strokes, lines crossing or merging without any drawing order. This module groups the strokes into
straight lines, tells crossings from branches, finds the arrowhead a line runs into, and follows flow from a
source box along them (:meth:`StrokeGraph.reach`), with each line owned by the source nearest to it
(:meth:`StrokeGraph.owners`). Pure geometry on :class:`~dkg.parsing.models.Segment`; no boxes or text here.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from dkg.parsing.geometry import Point, UnionFind, nearest_on_segment, point_segment_distance
from dkg.parsing.models import Segment, Shape

TOUCH_TOL = 3.5  # pt: stroke ends this close to another stroke touch it
LINE_WIDTH = 2.5  # pt: the strokes a scan finds along one drawn line lie this close across it
TIP_WOBBLE = 1.5  # pt: how far a joint may lie behind where flow came onto an arrow line (stroke ends jitter)
CROSSING_ARM = TOUCH_TOL  # pt: how far a line must run past a junction on each side to cross there


def touching(segs: list[Segment]) -> list[set[int]]:
    adj: list[set[int]] = [set() for _ in segs]
    for i, a in enumerate(segs):
        for j in range(i + 1, len(segs)):
            b = segs[j]
            if min(point_segment_distance(a.a, b.a, b.b), point_segment_distance(a.b, b.a, b.b),
                   point_segment_distance(b.a, a.a, a.b), point_segment_distance(b.b, a.a, a.b)) <= TOUCH_TOL:
                adj[i].add(j)
                adj[j].add(i)
    return adj


class StrokeGraph:
    """One connector tree's strokes, with what tracing flow along them asks computed once: each stroke's
    orientation, the strokes it touches, the arrowhead its line runs into, and the turns at crossings."""

    def __init__(self, segs: list[Segment], heads: list[Shape]) -> None:
        self.segs = segs
        self.kinds = [orientation(s) for s in segs]
        self.adj = touching(segs)
        self.tips = line_tips(segs, heads)
        self._arms: dict[tuple[int, int], set[tuple[int, int]]] = {}
        self._floods: dict[tuple[int, int, int], set[int]] = {}
        self.crossings = {(i, j) for i, near in enumerate(self.adj) for j in near
                          if self.kinds[i] != self.kinds[j] and (point := joint_of(segs[i], segs[j])) is not None
                          and self.is_crossing(point)}
        # touching strokes less the turns from one line into another where they cross
        self.lines = [{j for j in near if (i, j) not in self.crossings} for i, near in enumerate(self.adj)]

    def arms(self, point: Point) -> set[tuple[int, int]]:
        """:func:`_arms` at ``point`` (cached to a tenth of a point)."""
        key = (round(point[0] * 10), round(point[1] * 10))
        if key not in self._arms:
            self._arms[key] = _arms(self.segs, point, CROSSING_ARM)
        return self._arms[key]

    def is_crossing(self, point: Point) -> bool:
        """True when lines run on from ``point`` in all four directions: two lines crossing (drawn one over the
        other), not one line branching off another, which would leave one side bare.

        >>> plus = [Segment((0, 10), (20, 10)), Segment((10, 0), (10, 20))]
        >>> tee = plus[:1] + [Segment((10, 10), (10, 20))]
        >>> StrokeGraph(plus, []).is_crossing((10, 10)), StrokeGraph(tee, []).is_crossing((10, 10))
        (True, False)
        """
        return len(self.arms(point)) == 4

    def ends_inside(self, line: int, stem: int, joint: Point) -> bool:
        """True when ``stem`` ends at ``joint`` on ``line``'s interior (a T, not a corner)."""
        seg, other = self.segs[line], self.segs[stem]
        if min(math.dist(other.a, joint), math.dist(other.b, joint)) > TOUCH_TOL:
            return False  # not a stroke ending here
        kind = self.kinds[line]
        if kind is None:
            return min(math.dist(seg.a, joint), math.dist(seg.b, joint)) > 2 * TOUCH_TOL
        # a corner when the line (all its strokes) ends here
        return len({sign for axis, sign in self.arms(joint) if axis == (0 if kind == "h" else 1)}) == 2

    def fed_from(self, stroke: int, joint: Point, sending: set[int]) -> bool:
        """True when the strokes reached along :attr:`lines` from ``stroke`` without turning at ``joint`` into
        another line include one of ``sending`` (the strokes along ``stroke`` are its own line)."""
        key = (stroke, round(joint[0] * 10), round(joint[1] * 10))
        if key not in self._floods:
            kind = self.kinds[stroke]
            at_joint = {i for i, s in enumerate(self.segs) if i != stroke and (kind is None or self.kinds[i] != kind)
                        and point_segment_distance(joint, s.a, s.b) <= TOUCH_TOL}
            self._floods[key] = flood(self.lines, {stroke}, at_joint)
        return bool(self._floods[key] & sending)

    def reach(self, start: dict[int, Point], blocked: set[int], axis: str, sending: set[int],
              carried: dict[int, Point]) -> dict[int, tuple[float, Point]]:
        """Strokes reachable from a source box along its strokes ``start`` (each with its end at the box)
        without moving backwards along ``axis`` (more than a stroke's wobble) and without entering ``blocked``
        strokes. Along a line that ends in an arrowhead (:func:`line_tips`) flow only runs towards the
        arrowhead. Where two lines cross (:meth:`is_crossing`) it runs straight on rather than turn into a
        line that leads to another source's strokes (``sending``). It does not turn into a stroke that ends on
        its line and that another source's flow came onto elsewhere (``carried``: stroke → where that flow came
        onto it): that stroke runs into the line, merging in.

        Returns each stroke reached with the length of the shortest way there along the strokes and where
        that way came onto it."""
        segs, kinds, tips = self.segs, self.kinds, self.tips
        tol = 2 * TOUCH_TOL
        seen: dict[int, tuple[float, Point]] = {}
        queue: list[tuple[float, int, int, Point]] = []
        for si, entry in start.items():
            heapq.heappush(queue, (0.0, len(queue), si, entry))
        visited: set[tuple[int, int, int]] = set()
        pushed = len(queue)
        others = sending - start.keys()
        while queue:
            walked, _, si, entry = heapq.heappop(queue)
            key = (si, round(entry[0]), round(entry[1]))
            if key in visited:
                continue
            visited.add(key)
            seen.setdefault(si, (walked, entry))
            seg = segs[si]
            for ni in self.adj[si]:
                if ni in blocked:
                    continue
                other = segs[ni]
                joint = joint_of(seg, other)
                if joint is None:
                    continue
                if kinds[ni] is not None and kinds[ni] == kinds[si]:
                    joint = nearest_on_segment(entry, other.a, other.b)  # strokes of one line: go on where flow is
                move = joint[0] - entry[0] if axis == "x" else joint[1] - entry[1]
                if move < -tol:
                    continue
                tip = tips[si]
                if tip is not None and math.dist(joint, tip) > math.dist(entry, tip) + TIP_WOBBLE:
                    continue  # back up a line away from its arrowhead
                if (si, ni) in self.crossings and self.fed_from(ni, joint, others):
                    continue  # a line crossing another source's line does not turn into it
                if (ni in carried and ni not in start and math.dist(carried[ni], joint) > 2 * TOUCH_TOL
                        and self.ends_inside(si, ni, joint)):
                    continue  # another source's flow runs along that stroke into this line
                # along the same arrow line the entry stays where flow came onto the line: small steps back
                # between its overlapping strokes must not add up
                pushed += 1
                heapq.heappush(queue, (walked + math.dist(entry, joint), pushed, ni,
                                       entry if tip is not None and tips[ni] == tip else joint))
        return seen

    def owners(self, reach: dict[int, dict[int, tuple[float, Point]]],
               sources: list[int]) -> dict[int, tuple[int, Point]]:
        """Each stroke's owner: the source clearly nearest (by way along the strokes, ``reach`` as
        :meth:`reach` returns it per source) to the straight line the stroke lies on, with where that source's
        flow came onto the stroke (onto the line, if not onto that stroke). A line two sources are about as
        near to has no owner."""
        owner: dict[int, tuple[int, Point]] = {}
        for line in straight_lines(self.segs):
            near = sorted((min(reach[source][si][0] for si in line if si in reach[source]), n, source)
                          for n, source in enumerate(sources) if any(si in reach[source] for si in line))
            if not near or (len(near) > 1 and near[1][0] - near[0][0] <= 2 * TOUCH_TOL):
                continue
            nearest = near[0][2]
            entry = min((reach[nearest][si] for si in line if si in reach[nearest]), key=lambda way: way[0])[1]
            owner.update((si, (nearest, reach[nearest].get(si, (0.0, entry))[1])) for si in line)
        return owner


def joint_of(seg: Segment, other: Segment) -> Point | None:
    """Where two touching strokes meet: an end of one on the other; for a level and an upright stroke, the
    point where their lines cross (a scan's stroke ends wobble by a few points around it)."""
    end = next((p for p in (other.a, other.b) if point_segment_distance(p, seg.a, seg.b) <= TOUCH_TOL),
               None) or next((p for p in (seg.a, seg.b) if point_segment_distance(p, other.a, other.b) <= TOUCH_TOL),
                             None)
    kinds = (orientation(seg), orientation(other))
    if end is None or set(kinds) != {"h", "v"}:
        return end
    level, upright = (seg, other) if kinds[0] == "h" else (other, seg)
    return ((upright.a[0] + upright.b[0]) / 2, (level.a[1] + level.b[1]) / 2)


def orientation(seg: Segment) -> str | None:
    """``"h"`` or ``"v"`` for a stroke within about 11° of the axis, else None."""
    dx, dy = abs(seg.b[0] - seg.a[0]), abs(seg.b[1] - seg.a[1])
    if dy <= 0.2 * dx:
        return "h"
    if dx <= 0.2 * dy:
        return "v"
    return None


def line_tips(segs: list[Segment], heads: list[Shape]) -> list[Point | None]:
    """For each stroke, the end of the straight line it lies on (collinear strokes that overlap or touch)
    where that line runs into an arrowhead, when it does so at one end only: flow along the line runs towards
    that end. A scan breaks one drawn line into several overlapping strokes, so the stroke itself may stop
    short of the head.

    >>> from dkg.parsing.geometry import BBox
    >>> h = Shape(((20.0, -2.0), (24.0, 0.0), (20.0, 2.0)), BBox(20, -2, 24, 2), True, True, "head")
    >>> line_tips([Segment((0, 0), (12, 0)), Segment((10, 0), (20, 0)), Segment((10, 0), (10, 30))], [h])
    [(20, 0), (20, 0), None]
    """
    kinds = [orientation(s) for s in segs]
    zones = [h.bbox.expand(TOUCH_TOL) for h in heads]
    tips: list[Point | None] = [None] * len(segs)
    for group in straight_lines(segs):
        kind = kinds[group[0]]
        if kind is None:
            continue
        axis = 0 if kind == "h" else 1
        ends = [p for i in group for p in (segs[i].a, segs[i].b)]
        low = min(ends, key=lambda p: p[axis])
        high = max(ends, key=lambda p: p[axis])
        at_head = [p for p in (low, high) if any(zone.contains_point(p) for zone in zones)]
        if len(at_head) == 1:
            for i in group:
                tips[i] = at_head[0]
    return tips


def straight_lines(segs: list[Segment]) -> list[list[int]]:
    """The strokes grouped by the straight line they lie on: level or upright strokes that are collinear and
    overlap or touch (a scan breaks one drawn line into several), each slanted stroke alone.

    >>> straight_lines([Segment((0, 0), (12, 0)), Segment((10, 1), (20, 1)), Segment((10, 0), (10, 30))])
    [[0, 1], [2]]
    """
    kinds = [orientation(s) for s in segs]
    uf = UnionFind(len(segs))
    for kind in ("h", "v"):
        # two strokes of one kind are one line when they lie within LINE_WIDTH across (parallel lines a few
        # points apart are different lines) and overlap or nearly meet along it; tested a row at a time
        members = np.array([i for i, k in enumerate(kinds) if k == kind], dtype=int)
        if len(members) < 2:
            continue
        axis, across = (0, 1) if kind == "h" else (1, 0)
        ends = np.array([(segs[i].a[axis], segs[i].b[axis], segs[i].a[across], segs[i].b[across])
                         for i in members], dtype=float)
        lo, hi = np.minimum(ends[:, 0], ends[:, 1]), np.maximum(ends[:, 0], ends[:, 1])
        side_lo, side_hi = np.minimum(ends[:, 2], ends[:, 3]), np.maximum(ends[:, 2], ends[:, 3])
        for n in range(len(members) - 1):
            rest = slice(n + 1, None)
            width = np.maximum(side_hi[rest], side_hi[n]) - np.minimum(side_lo[rest], side_lo[n])
            gap = np.maximum(lo[rest], lo[n]) - np.minimum(hi[rest], hi[n])
            for k in np.flatnonzero((width <= LINE_WIDTH) & (gap <= TOUCH_TOL)):
                uf.union(int(members[n]), int(members[n + 1 + k]))
    return sorted(uf.groups())


def _arms(segs: list[Segment], point: Point, reach: float) -> set[tuple[int, int]]:
    """The directions ``(axis, sign)`` in which strokes through ``point`` run on more than ``reach`` from it
    (a scan breaks one line into overlapping strokes: together they are the line)."""
    arms = set()
    for seg in segs:
        kind = orientation(seg)
        if kind is None or point_segment_distance(point, seg.a, seg.b) > TOUCH_TOL:
            continue
        axis = 0 if kind == "h" else 1
        for p in (seg.a, seg.b):
            if p[axis] - point[axis] > reach:
                arms.add((axis, 1))
            elif point[axis] - p[axis] > reach:
                arms.add((axis, -1))
    return arms


def flood(adj: list[set[int]], start: set[int], blocked: set[int]) -> set[int]:
    """Strokes reachable from ``start`` through touching strokes, never entering ``blocked``."""
    seen = set(start)
    stack = list(seen)
    while stack:
        for nxt in adj[stack.pop()]:
            if nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                stack.append(nxt)
    return seen
