"""On a guideline of several charts, each entered at its own root, the walk starts on the charts that test the most
stated keys: a stated BP alone must not send a tachycardia patient into the chest pain chart."""

from __future__ import annotations

from dkg.graph.db import named_queries
from dkg.qa.pathway import walk_query
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.way_in import WayIn

# two charts: a tachycardia chart testing heart rate and QRS width, a chest pain chart testing BP
ARROWS = [("tachy", "width", ["heart_rate>100"]), ("width", "wide", ["qrs_complex=wide"]),
          ("width", "narrow", ["qrs_complex=narrow"]), ("pain", "nitro", ["bp>100"])]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": c, "box": [], "action": True} for a, b, c in ARROWS])


class _Graph:
    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if query == named_queries("qa_pathway")["roots"]:
            return [{"uid": uid} for uid in WAY_IN.roots]
        return []  # no page titles, no position starts


def _starts(facts: dict[str, float | str]) -> list[str]:
    sketch = QuerySketch(QuestionType.NEXT_STEP, "cardiac-smog", tuple(facts))
    walk = walk_query(_Graph(), sketch, {"guideline": "cardiac-smog", "version": "1", **facts},  # type: ignore[arg-type]
                      "what next?", WAY_IN)
    return list(walk.params["starts"])  # type: ignore[call-overload]


def test_the_walk_starts_on_the_chart_testing_most_of_the_stated_keys() -> None:
    assert _starts({"heart_rate": 165.0, "qrs_complex": "wide", "bp": 128.0}) == ["tachy"]
    assert _starts({"bp": 90.0}) == ["pain"]


def test_every_chart_when_they_test_the_stated_keys_equally() -> None:
    assert _starts({"heart_rate": 165.0, "bp": 128.0}) == ["pain", "tachy"]
    assert _starts({"age": 55.0}) == ["pain", "tachy"]
