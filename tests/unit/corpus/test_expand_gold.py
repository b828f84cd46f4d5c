"""Expansion, counts, gold files and version 2 of every guideline, against FORMAT.md."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from dkg.corpus import build
from dkg.corpus.changes import apply_changes, constraint_changes, structure
from dkg.corpus.expand import counts, expand_footnotes, expanded_text, gold_constraint_rows, gold_edges, gold_files
from dkg.corpus.model import (
    CorpusSourceError,
    discover,
    discover_changes,
    load_change_list,
    load_guideline,
    parse_guideline,
)
from dkg.types import HEAD_TAIL_COLUMNS

TARGETS = {"ALL": (58, 20, 74), "bone": (191, 72, 243), "kidney": (50, 16, 61)}
SHIPPED = discover()
CHANGES = discover_changes()


def test_footnotes_expand_in_parentheses_joined_by_semicolons() -> None:
    notes = {"a": "text of a", "b": "text of b"}
    assert expand_footnotes("TKI^{a,b} + chemotherapy", notes) == "TKI (text of a; text of b) + chemotherapy"
    assert expand_footnotes("TKI^a, or  steroids^b", notes) == "TKI (text of a), or steroids (text of b)"


def test_link_box_becomes_the_target_entry_box(fixture_guideline: Any) -> None:
    assert expanded_text(fixture_guideline, "fix1_see_mrd") == (
        "End-of-induction bone marrow and MRD assessment (Assess MRD by flow cytometry or PCR.)")
    into_link = [e for e in gold_edges(fixture_guideline) if e.head_box_id == "fix1_tki_steroid"]
    assert [(e.tail_box_id, e.page) for e in into_link] == [("fix2_assess", "FIX-1")]


def test_fixture_counts_follow_the_format_definition(fixture_guideline: Any) -> None:
    # 27 boxes take part in arrows (3 link boxes and 1 note excluded); 13 of them are decisions;
    # 29 arrows, none duplicated after link resolution.
    c = counts(fixture_guideline)
    assert (c.nodes, c.decision, c.relations) == (27, 13, 29)


def test_duplicate_pairs_after_link_resolution_count_once(raw: dict[str, Any]) -> None:
    page = next(p for p in raw["pages"] if p["code"] == "FIX-2")
    page["boxes"].append({"id": "fix2_see_relapse_again", "kind": "link",
                          "text": "See relapse (FIX-3)", "target": "FIX-3"})
    page["arrows"].append({"from": "fix2_cr", "to": "fix2_see_relapse_again"})
    assert counts(parse_guideline(raw)).relations == 29


def test_gold_constraint_rows_cover_nodes_and_labelled_arrows(fixture_guideline: Any) -> None:
    rows = {r[0]: r for r in gold_constraint_rows(fixture_guideline)}
    assert rows["fix1_aya"][2] == "age in [15,39],comorbidity=none"
    assert rows["fix1_ph_pos"][2] == "NULL"
    assert rows["arrow:fix2_cr->fix3_relapse"] == ("arrow:fix2_cr->fix3_relapse", "NO", "response=less_than_cr")
    assert "fix3_note" not in rows and "fix1_see_mrd" not in rows


def test_gold_edges_csv_has_the_shared_columns(fixture_guideline: Any) -> None:
    text = gold_files(fixture_guideline)["FIX-1.2026-edges.csv"]
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == HEAD_TAIL_COLUMNS
    assert len(list(reader)) == 29


def test_change_list_applies_and_keeps_structure(fixture_guideline: Any) -> None:
    changes = load_change_list(Path(__file__).resolve().parents[2] / "fixtures" / "guidelines" / "FIX"
                               / "changes-1.2026-to-2.2026.yaml")
    new = apply_changes(fixture_guideline, changes)
    assert new.version == "2.2026" and structure(new) == structure(fixture_guideline)
    aya = new.box_index()["fix1_aya"][1]
    assert aya.constraints == ["age in [15,35]", "comorbidity=none"]  # replaced in place
    assert constraint_changes(fixture_guideline, new) == [
        ("fix1_aya", "age", "age in [15,39]", "age in [15,35]"),
        ("fix1_adult", "age", "age in [40,64]", "age in [36,64]"),
        ("fix3_relapse", "ph", "ph=+", "-"),
    ]


def test_change_list_errors_name_the_change(fixture_guideline: Any) -> None:
    from dkg.corpus.model import ChangeList

    bad = ChangeList.model_validate({"from_version": "1.2026", "to_version": "2.2026", "changes": [
        {"box": "fix9_missing", "set": ["age<40"]},
        {"box": "fix4_young", "remove": ["mrd"]},
        {"box": "fix4_old", "set": ["age<>40"]},
    ]})
    with pytest.raises(CorpusSourceError) as info:
        apply_changes(fixture_guideline, bad, "changes.yaml")
    message = str(info.value)
    assert "change 1 (box fix9_missing): unknown box id" in message
    assert "change 2 (box fix4_young): remove 'mrd', but the box has no constraint with that key" in message
    assert "change 3 (box fix4_old): invalid constraint 'age<>40'" in message


@pytest.mark.parametrize("source", SHIPPED, ids=[f"{g}-{v}" for g, v, _ in SHIPPED])
def test_committed_gold_files_agree_with_the_source(source: tuple[str, str, Path]) -> None:
    name, _version, path = source
    for file_name, text in gold_files(load_guideline(path)).items():
        gold = path.parent / "gold" / file_name
        assert gold.is_file(), f"{gold} missing; run `dkg corpus gold`"
        assert gold.read_text(encoding="utf-8") == text, f"{gold} is stale; run `dkg corpus gold`"


@pytest.mark.parametrize("change", CHANGES, ids=[f"{c[0]}-{c[2]}" for c in CHANGES])
def test_generated_next_version_agrees_with_its_change_list(change: tuple[str, str, str, Path]) -> None:
    name, old, new, path = change
    target, text = build.generated_version(path.parent.parent, name, old, new, path)
    assert target.is_file(), f"{target} missing; run `dkg corpus gold`"
    assert target.read_text(encoding="utf-8") == text, f"{target} is stale; run `dkg corpus gold`"


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_counts_are_within_15_percent_of_the_reference(name: str) -> None:
    path = next((p for g, v, p in SHIPPED if g == name and v == "1.2026"), None)
    assert path is not None, f"{name}/1.2026.yaml is missing"
    c = counts(load_guideline(path))
    for measured, target in zip((c.nodes, c.decision, c.relations), TARGETS[name], strict=True):
        assert abs(measured - target) <= 0.15 * target, f"{name}: {c} vs target {TARGETS[name]}"


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_version_2_changes_10_to_20_constraints_and_no_structure(name: str) -> None:
    folder = next((p.parent for g, v, p in SHIPPED if g == name and v == "1.2026"), None)
    assert folder is not None and (folder / "2.2026.yaml").is_file(), f"{name}/2.2026.yaml is missing"
    old, new = load_guideline(folder / "1.2026.yaml"), load_guideline(folder / "2.2026.yaml")
    assert structure(old) == structure(new)
    assert 10 <= len(constraint_changes(old, new)) <= 20
