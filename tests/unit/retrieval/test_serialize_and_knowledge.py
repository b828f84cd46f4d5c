"""Serialisation determinism, knowledge-layer parsing and treatment linking, question sets, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dkg.retrieval.errors import BadQueryError, KnowledgeSourceError
from dkg.retrieval.grag import validate_query
from dkg.retrieval.knowledge import SectionRecord, load_sections, treatment_links, treatment_patterns
from dkg.retrieval.questions import ROLE_TEMPLATES, medquad_questions, role_trap_questions, version_free
from dkg.retrieval.serialize import NodeFields, ancestor_paths, parse_fields, serialise


def _node(snapshot: str = "s1", content: str = "Ph-positive ALL") -> NodeFields:
    return NodeFields("ALL|1|k", "Decision", snapshot, {
        "content": content, "type": "Decision", "constraints": ["ph=+"], "path": "root > parent"})


def test_serialisation_is_deterministic_and_field_ordered() -> None:
    a, b = serialise(_node()), serialise(_node())
    assert a == b
    assert a.body.splitlines()[0].startswith("path: ")
    assert a.header == "#dkg-ser v2 snapshot=s1"
    assert parse_fields(a.body)["constraints"] == "ph=+"


def test_snapshot_marker_does_not_change_the_hash_but_content_does() -> None:
    assert serialise(_node("s1")).hash == serialise(_node("s2")).hash
    assert serialise(_node(content="Ph-negative ALL")).hash != serialise(_node()).hash


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown serialisation field"):
        serialise(NodeFields("x", "T", "s", {"colour": "red"}))


def test_ancestor_path_picks_shortest_then_alphabetical() -> None:
    parents = {"leaf": ["b", "a2"], "b": ["root"], "a2": ["a1"], "a1": ["root"], "root": []}
    paths = ancestor_paths(parents, {k: k for k in parents})
    assert paths["leaf"] == ["root", "b"]
    assert paths["root"] == []


def test_treatment_links_are_whole_word_and_skip_generic_names() -> None:
    sections = [SectionRecord("s1", "d", "F", "u", "treatment", "q", "Blinatumomab and chemotherapy are used."),
                SectionRecord("s2", "d", "F", "u", "treatment", "q", "Anti-blinatumomabs? no; sunitinibX no.")]
    links = treatment_links(["blinatumomab", "chemotherapy", "sunitinib", "clinical trial"], sections)
    assert links == [{"name": "blinatumomab", "uid": "s1"}]
    assert treatment_patterns("radiotherapy") is None


def test_load_sections_reports_missing_file_and_bad_rows(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeSourceError, match="DKG_RETRIEVAL_MEDQUAD_DIR"):
        load_sections(tmp_path)
    (tmp_path / "qa.jsonl").write_text(json.dumps({"uid": "1", "focus": "F"}) + "\n")
    with pytest.raises(KnowledgeSourceError, match="missing field"):
        load_sections(tmp_path)


def _sections() -> list[SectionRecord]:
    return [SectionRecord("a1", "d", "Adult Acute Lymphoblastic Leukemia", "u", "treatment", "What are X?", "t"),
            SectionRecord("c1", "d", "Childhood Acute Lymphoblastic Leukemia", "u", "treatment", "What are Y?", "t"),
            SectionRecord("c2", "d", "Childhood Acute Lymphoblastic Leukemia", "u", "outlook", "What are X?", "t")]


def test_medquad_qrels_group_identical_questions() -> None:
    qs = {q.qid: q for q in medquad_questions(_sections())}
    assert set(qs["medquad:a1"].qrels) == {"a1", "c2"}
    assert set(qs["medquad:c1"].qrels) == {"c1"}


def test_role_traps_point_at_the_matching_form_only() -> None:
    qs = role_trap_questions(_sections())
    assert len(qs) == 2  # only 'treatment' exists for both forms
    by_group = {q.meta["group"]: q for q in qs}
    assert by_group["children"].qrels == {"c1": 1.0}
    assert by_group["adults"].qrels == {"a1": 1.0}
    assert "Adult" not in by_group["adults"].question and "Childhood" not in by_group["children"].question
    assert set(ROLE_TEMPLATES) >= {"treatment", "outlook"}


def test_version_free_ids() -> None:
    assert version_free("kidney|2.2026|k1") == version_free("kidney|1.2026|k1")


def test_bad_queries() -> None:
    with pytest.raises(BadQueryError, match="empty"):
        validate_query("   ", 100)
    with pytest.raises(BadQueryError, match="limit is 100"):
        validate_query("x" * 101, 100)
    assert validate_query("  ok  ", 100) == "ok"

