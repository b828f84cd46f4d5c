"""A stated population keeps the walk off pages titled for the other one (and off untitled pages when one titled
for it is reached), an unstated one off pages titled for any (dkg.qa.pathway); evidence names its page."""

from __future__ import annotations

from dkg.qa.pathway import other_population_starts


class _Graph:
    def __init__(self, rows: list[dict[str, object]]) -> None:
        self.rows = rows

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        assert "page_titles" in query
        uids = params["uids"]
        assert isinstance(uids, list)
        return [r for r in self.rows if r["uid"] in uids]


GRAPH = _Graph([
    {"uid": "adult", "pages": ["4"], "page_titles": ["TACHYCARDIA w/ PULSE"]},
    {"uid": "child", "pages": ["7"], "page_titles": ["PEDIATRIC TACHYCARDIA with Poor Perfusion"]},
    {"uid": "shared", "pages": ["1", "7"], "page_titles": ["BRADYCARDIA", "PEDIATRIC TACHYCARDIA"]},
])
STARTS = ["adult", "child", "shared"]


def test_an_adult_leaves_out_starts_only_on_paediatric_pages() -> None:
    assert other_population_starts(GRAPH, "g", "1", STARTS, "68M, HR 170, wide QRS: next?") == ["child"]  # type: ignore[arg-type]


def test_a_child_prefers_the_pages_titled_for_children_over_untitled_ones() -> None:
    # the paediatric algorithm is the specialisation for the population stated: the untitled (general) page
    # yields to it when the facts reach it, and stays when they reach no page titled for children
    assert other_population_starts(GRAPH, "g", "1", STARTS, "4 y/o, HR 250: next?") == ["adult"]  # type: ignore[arg-type]
    assert other_population_starts(GRAPH, "g", "1", ["adult"], "4 y/o, HR 250: next?") == []  # type: ignore[arg-type]


def test_no_population_stated_leaves_out_starts_only_on_pages_titled_for_one() -> None:
    # "wide complex tachycardia, HR 170, stable" fits the general and the PEDIATRIC algorithm: the general one answers
    assert other_population_starts(GRAPH, "g", "1", STARTS, "HR 170, wide QRS: next?") == ["child"]  # type: ignore[arg-type]


def test_no_titles_or_no_start_left_changes_nothing() -> None:
    assert other_population_starts(GRAPH, "g", "1", ["child", "shared"], "HR 170: next?") == ["child"]  # type: ignore[arg-type]
    assert other_population_starts(GRAPH, "g", "1", ["child"], "HR 170, wide QRS: next?") == []  # type: ignore[arg-type]
    assert other_population_starts(_Graph([]), "g", "1", STARTS, "68M: next?") == []  # type: ignore[arg-type]
    assert other_population_starts(GRAPH, "g", "1", ["child"], "68M: next?") == []  # type: ignore[arg-type]


def test_evidence_names_the_flowchart_its_page_is_titled() -> None:
    from dkg.answers import Evidence
    from dkg.retrieval.grag import source_of

    onboarded = Evidence(node_uid="u", content="Consider adenosine", kind="Action", guideline="cardiac", version="1",
                         pages=["1", "4"], page_titles=["", "TACHYCARDIA w/ PULSE"])
    assert source_of(onboarded) == "cardiac 1 p. 1, 4 (TACHYCARDIA w/ PULSE)"
    shipped = Evidence(node_uid="u", content="TKI", kind="Action", guideline="ALL", version="1", pages=["ALL-2"])
    assert source_of(shipped) == "ALL 1 p. ALL-2"


def test_an_age_stated_as_a_fact_names_the_population() -> None:
    from dkg.qa.populations import population_of

    assert population_of("HR 170, wide QRS (age=45)", 45.0) == "adult"
    assert population_of("HR 250 (age=4)", 4.0) == "childhood"
    assert population_of("HR 250", None) is None
    assert other_population_starts(GRAPH, "g", "1", STARTS, "HR 170 (age=45)", 45.0) == ["child"]  # type: ignore[arg-type]


def test_an_answer_on_a_page_titled_for_one_age_group_asks_for_the_age_when_none_is_stated() -> None:
    from dkg.answers import Evidence
    from dkg.qa.populations import population_unstated

    child = [Evidence(node_uid="u", content="Probable VT", kind="Action", pages=["7"],
                      page_titles=["PEDIATRIC TACHYCARDIA with Poor Perfusion"])]
    [missing] = population_unstated("Wide complex tachycardia, HR 170, stable: next?", child)
    assert missing.key == "age" and missing.allowed == ["<18", ">=18"]
    assert "PEDIATRIC TACHYCARDIA" in missing.description
    assert population_unstated("4 y/o, wide complex tachycardia: next?", child) == []
    assert population_unstated("Wide complex tachycardia: next? (age=45)", child, 45.0) == []
    general = [Evidence(node_uid="u", content="Adenosine", kind="Action", pages=["4"],
                        page_titles=["TACHYCARDIA w/ PULSE"])]
    assert population_unstated("Wide complex tachycardia, HR 170, stable: next?", general) == []


def test_an_answer_from_the_general_page_asks_for_the_age_when_an_algorithm_for_one_group_was_set_aside() -> None:
    from dkg.answers import Evidence
    from dkg.qa.populations import population_unstated

    general = [Evidence(node_uid="u", content="Adenosine", kind="Action", pages=["4"],
                        page_titles=["TACHYCARDIA w/ PULSE"])]
    aside = ["PEDIATRIC TACHYCARDIA with Poor Perfusion"]
    [missing] = population_unstated("Wide complex tachycardia, HR 170, stable: next?", general, None, aside)
    assert missing.key == "age" and "PEDIATRIC TACHYCARDIA" in missing.description
    assert population_unstated("68M, wide complex tachycardia: next?", general, None, aside) == []
