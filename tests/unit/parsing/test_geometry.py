from __future__ import annotations

import pytest

from dkg.parsing.geometry import BBox, UnionFind, point_segment_distance, polygon_contains, segment_box_distance


def test_bbox_distances() -> None:
    box = BBox(0, 0, 10, 10)
    assert box.distance_to_point((5, 5)) == 0
    assert box.distance_to_point((13, 14)) == pytest.approx(5.0)
    assert box.distance_to_box(BBox(20, 0, 30, 10)) == pytest.approx(10.0)


def test_segment_distances() -> None:
    assert point_segment_distance((5, 3), (0, 0), (10, 0)) == pytest.approx(3.0)
    assert point_segment_distance((-4, 3), (0, 0), (10, 0)) == pytest.approx(5.0)
    assert segment_box_distance((-5, 5), (15, 5), BBox(0, 0, 10, 10)) == 0.0
    assert segment_box_distance((0, 20), (10, 20), BBox(0, 0, 10, 10)) == pytest.approx(10.0)


def test_polygon_contains_diamond() -> None:
    diamond = [(5, 0), (10, 5), (5, 10), (0, 5)]
    assert polygon_contains(diamond, (5, 5))
    assert not polygon_contains(diamond, (1, 1))


def test_union_find_groups() -> None:
    uf = UnionFind(5)
    uf.union(0, 3)
    uf.union(3, 4)
    assert sorted(sorted(g) for g in uf.groups()) == [[0, 3, 4], [1], [2]]
