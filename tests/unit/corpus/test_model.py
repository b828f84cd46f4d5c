"""Loading and validating guideline sources: every shipped file, and each error case on a broken input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dkg.corpus.model import CorpusSourceError, discover, load_guideline, parse_guideline

SHIPPED = discover()


@pytest.mark.parametrize("source", SHIPPED, ids=[f"{g}-{v}" for g, v, _ in SHIPPED])
def test_every_shipped_source_validates(source: tuple[str, str, Path]) -> None:
    guideline, version, path = source
    loaded = load_guideline(path)
    assert (loaded.version, len(loaded.pages) > 1) == (version, True)


def test_discover_finds_the_three_guidelines() -> None:
    assert {"ALL", "bone", "kidney"} <= {g for g, _, _ in SHIPPED}


def test_fixture_validates(fixture_guideline: Any) -> None:
    assert [p.code for p in fixture_guideline.pages] == ["FIX-1", "FIX-2", "FIX-3", "FIX-4", "FIX-5"]


def _problems(raw: dict[str, Any]) -> str:
    with pytest.raises(CorpusSourceError) as info:
        parse_guideline(raw, "broken.yaml")
    return str(info.value)


def _page(raw: dict[str, Any], code: str) -> dict[str, Any]:
    return next(p for p in raw["pages"] if p["code"] == code)


def test_unknown_box_id_in_arrow(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-2")["arrows"].append({"from": "fix2_mrd", "to": "fix2_nowhere"})
    message = _problems(raw)
    assert "broken.yaml" in message
    assert "page FIX-2, arrow fix2_mrd->fix2_nowhere: unknown box id 'fix2_nowhere'" in message


def test_dangling_arrow_to_another_page(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-2")["arrows"].append({"from": "fix2_hct", "to": "fix3_trial"})
    assert ("page FIX-2, arrow fix2_hct->fix3_trial: dangling arrow: box 'fix3_trial' is on page FIX-3"
            in _problems(raw))


def test_cycle_is_reported_with_its_path(raw: dict[str, Any]) -> None:
    # FIX-3's trial box flows back into FIX-1 through a link box: a cycle across pages.
    page = _page(raw, "FIX-3")
    page["boxes"].append({"id": "fix3_back", "kind": "link", "text": "See induction (FIX-1)", "target": "FIX-1"})
    page["arrows"].append({"from": "fix3_trial", "to": "fix3_back"})
    message = _problems(raw)
    assert "cycle in the flow (it must be a DAG)" in message
    assert "fix3_back (FIX-3)" in message and "fix1_ph_pos (FIX-1)" in message


def test_duplicate_box_id(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-3")["boxes"][1]["id"] = "fix1_aya"
    message = _problems(raw)
    assert "page FIX-3, box fix1_aya: duplicate box id (also on page FIX-1)" in message


def test_unknown_footnote_marker(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-5")["boxes"][3]["text"] = "Multiagent chemotherapy^{a,q}"
    assert "page FIX-5, box fix5_nelarabine: unknown footnote marker ^q" in _problems(raw)


def test_unknown_link_target(raw: dict[str, Any]) -> None:
    link = _page(raw, "FIX-1")["boxes"][-1]
    link["target"], link["text"] = "FIX-9", "See nothing (FIX-9)"
    assert "page FIX-1, box fix1_see_mrd: unknown link target 'FIX-9'" in _problems(raw)


def test_decision_box_without_constraints(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-4")["boxes"][1]["constraints"] = []
    assert "page FIX-4, box fix4_young: decision box without constraints" in _problems(raw)


def test_invalid_constraint_names_box_and_reason(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-4")["boxes"][1]["constraints"] = ["age<400"]
    message = _problems(raw)
    assert "page FIX-4, box fix4_young: invalid constraint 'age<400'" in message
    assert "outside the allowed range" in message


def test_invalid_label_constraint(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-2")["arrows"][1]["label_constraints"] = ["response=maybe"]
    assert "page FIX-2, arrow fix2_cr->fix2_mrd: invalid constraint 'response=maybe'" in _problems(raw)


def test_page_with_two_entry_boxes(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-5")["arrows"].pop(0)  # fix5_fit loses its only incoming arrow
    message = _problems(raw)
    assert "page FIX-5: needs exactly one entry box" in message
    assert "found 2: fix5_t_cell, fix5_fit" in message


def test_note_box_with_an_arrow(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-3")["arrows"].append({"from": "fix3_trial", "to": "fix3_note"})
    assert "note box fix3_note must have no arrows" in _problems(raw)


def test_schema_errors_name_page_and_box(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-2")["boxes"][1]["kind"] = "question"
    _page(raw, "FIX-2")["boxes"][2]["colour"] = "red"
    message = _problems(raw)
    assert "pages[FIX-2].boxes[fix2_cr].kind: Input should be" in message
    assert "pages[FIX-2].boxes[fix2_mrd].colour: Extra inputs are not permitted" in message


def test_every_problem_is_reported_at_once(raw: dict[str, Any]) -> None:
    _page(raw, "FIX-4")["boxes"][1]["constraints"] = []
    _page(raw, "FIX-2")["arrows"].append({"from": "fix2_mrd", "to": "fix2_nowhere"})
    assert "2 problem(s)" in _problems(raw)


def test_file_name_and_version_must_agree(tmp_path: Path, raw: dict[str, Any]) -> None:
    path = tmp_path / "2.2026.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CorpusSourceError, match="file name says 2.2026, content says 1.2026"):
        load_guideline(path)


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "1.2026.yaml"
    path.write_text("pages: [\n", encoding="utf-8")
    with pytest.raises(CorpusSourceError, match=r"(?s)1\.2026\.yaml.*not valid YAML"):
        load_guideline(path)


def test_characters_without_a_glyph_are_reported(raw: dict[str, Any]) -> None:
    from dkg.corpus.layout import glyph_problems

    raw["footnotes"]["c"] = "HIF-2α inhibitor"
    problems = glyph_problems(parse_guideline(raw))
    assert problems == ["footnote c: 'α' (U+03B1) has no glyph in the PDF font (Bitstream Vera); "
                        "write it out (e.g. 'alpha', '->')"]


def test_a_guideline_file_that_is_not_utf8_names_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "1.2026.yaml"
    path.write_bytes(b"guideline: ALL\n\xff\xfe\n")
    with pytest.raises(CorpusSourceError, match="not UTF-8 text"):
        load_guideline(path)
