"""Step 3b: connector networks — the line ink outside the boxes skeletonised (scikit-image) into a pixel graph
(networkx), each chain between two joints simplified into straight strokes.

A fan-out, a T-junction where one line feeds several boxes, or a slanted arrow keeps its joints this way: the
strokes of one network touch each other where the drawing's lines meet, so assembly finds one connector tree
per network, the boxes it reaches and the arrowheads it ends in (one edge per reached box)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx
import numpy as np

PixelPoint = tuple[float, float]


@dataclass(frozen=True)
class Chain:
    """One skeleton path between two joints or ends, simplified to a polyline ``(x, y)`` in pixels; ``free_start``
    / ``free_end``: that end of the chain is a loose end of its network (no other line meets it there)."""

    points: tuple[PixelPoint, ...]
    free_start: bool
    free_end: bool


def pixel_graph(skeleton: np.ndarray) -> nx.Graph:
    """The 8-connected graph of the skeleton's pixels (nodes ``(y, x)``), without the diagonal shortcut across a
    corner an orthogonal pair already joins (it would make every bend a three-way joint)."""
    sk = skeleton.astype(bool)
    h, w = sk.shape
    pad = np.zeros((h + 2, w + 2), bool)
    pad[1:-1, 1:-1] = sk

    def at(dy: int, dx: int) -> np.ndarray:
        return pad[1 + dy: 1 + dy + h, 1 + dx: 1 + dx + w]

    graph: nx.Graph = nx.Graph()
    ys, xs = np.nonzero(sk)
    graph.add_nodes_from(zip(ys.tolist(), xs.tolist(), strict=True))
    links = (
        (0, 1, sk & at(0, 1)),
        (1, 0, sk & at(1, 0)),
        (1, 1, sk & at(1, 1) & ~at(0, 1) & ~at(1, 0)),
        (1, -1, sk & at(1, -1) & ~at(0, -1) & ~at(1, 0)),
    )
    for dy, dx, mask in links:
        py, px = np.nonzero(mask)
        graph.add_edges_from(((int(y), int(x)), (int(y) + dy, int(x) + dx)) for y, x in zip(py, px, strict=True))
    return graph


def _walk(graph: nx.Graph, keys: set[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Pixel paths between key nodes (ends and joints), each graph edge walked once."""
    seen: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    paths: list[list[tuple[int, int]]] = []
    for key in keys:
        for first in graph[key]:
            if (key, first) in seen:
                continue
            path = [key, first]
            seen.update({(key, first), (first, key)})
            previous, current = key, first
            while current not in keys:
                following = [n for n in graph[current] if n != previous and (current, n) not in seen]
                if not following:
                    break
                previous, current = current, following[0]
                seen.update({(previous, current), (current, previous)})
                path.append(current)
            paths.append(path)
    return paths


def trace_networks(mask: np.ndarray, min_extent: float, tolerance: float, spur: float) -> list[list[Chain]]:
    """Connector networks of a binary line mask: per network (a connected piece of its skeleton at least
    ``min_extent`` pixels wide or tall), its chains simplified to ``tolerance`` pixels; loose chains shorter than
    ``spur`` pixels hanging off a joint (skeleton whiskers at corners, thick ends and solid arrowheads) are
    dropped. A network with no loose end (a box's outer frame) is no connector."""
    from skimage.measure import approximate_polygon
    from skimage.morphology import skeletonize

    graph = pixel_graph(skeletonize(mask > 0))
    networks: list[list[Chain]] = []
    for component in nx.connected_components(graph):
        ys = [p[0] for p in component]
        xs = [p[1] for p in component]
        if max(max(ys) - min(ys), max(xs) - min(xs)) < min_extent:
            continue
        sub = graph.subgraph(component)
        keys = {p for p in component if sub.degree(p) != 2}
        if not keys:
            continue
        paths = _walk(sub, keys)
        ends = {p for p in keys if sub.degree(p) == 1}
        kept = [path for path in paths
                if not ((path[0] in ends) != (path[-1] in ends) and len(path) < spur)]
        # a joint whose other chains were all whiskers is a loose end: a solid arrowhead's skeleton forks into
        # whiskers towards its corners, and the line it ends is loose there
        touching = Counter(p for path in kept for p in (path[0], path[-1]))
        loose = {p for p in keys if touching[p] == 1}
        chains: list[Chain] = []
        for path in kept:
            coords = np.array([(x, y) for y, x in path], dtype=float)
            simple = approximate_polygon(coords, tolerance=tolerance) if len(coords) > 2 else coords
            points = tuple((float(x), float(y)) for x, y in simple)
            if len(points) < 2 or points[0] == points[-1]:
                continue
            chains.append(Chain(points, path[0] in loose, path[-1] in loose))
        if chains and ends:  # a network with no loose end is a closed frame (a box's outer outline)
            networks.append(chains)
    return networks
