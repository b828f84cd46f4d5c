"""Recorded review files: the shipped one validates; a bad one is refused naming the file and the problem."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dkg.constraints.io import ConstrainedEdge
from dkg.graph.drafts import DraftItem, OnboardingError
from dkg.graph.drafts_replay import load_review, resolve, review_files
from dkg.graph.onboard import draft_items_of
from dkg.types import HeadTailEdge
from dkg.vocabulary import GUIDELINES_ROOT


def test_the_shipped_review_file_validates() -> None:
    [path] = review_files(GUIDELINES_ROOT)
    recorded = load_review(path)
    assert (recorded.guideline, recorded.version, recorded.pages) == ("cardiac-smog", "1.2026", "1,2,4,5,7")
    assert all(d.reason.strip() for d in recorded.decisions) and all(e.reason for e in recorded.add.edges)
    assert not {"3", "6"} & set(recorded.pages.split(","))  # PDF pages 3 and 6: smog-44, smog-49, held out


@pytest.mark.parametrize(("text", "problem"), [
    ("guideline: g\nversion: '1'\npdf: x.pdf\ndecisions: [{box: A, text: B}]\n", "reason"),
    ("guideline: g\nversion: '1'\npdf: x.pdf\nsurprise: 1\n", "surprise"),
    ("guideline: [unclosed\n", "not valid UTF-8 YAML"),
])
def test_a_bad_review_file_is_refused_by_name(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OnboardingError, match=problem) as info:
        load_review(path)
    assert str(path) in str(info.value)


def _draft(extra_first: bool) -> list[DraftItem]:
    """A small draft as `draft_items_of` numbers it; ``extra_first``: the parser found one more arrow, read first,
    so every box and arrow after it has another running number."""
    rows = [("Assess airway", "Airway clear?", ""), ("Airway clear?", "Give oxygen", "YES"),
            ("Airway clear?", "Suction", "NO"), ("Suction", "CPR 2 min", ""), ("Give oxygen", "CPR 2 min", "")]
    if extra_first:
        rows.insert(0, ("Scene safe", "Assess airway", ""))
    def box_id(text: str, before: str) -> str:  # two "CPR 2 min" boxes: one after each branch
        return f"b-{text}-{before}" if text == "CPR 2 min" else f"b-{text}"

    edges = [ConstrainedEdge(HeadTailEdge(head=h, tail=t, label=label, page="1", head_box_id=box_id(h, ""),
                                          tail_box_id=box_id(t, h)), [], [], [])
             for h, t, label in rows]
    return draft_items_of(edges)


REVIEW = """
guideline: g
version: "1"
pdf: x.pdf
add:
  edges:
    - {head: "Give oxygen", tail: {text: "CPR 2 min", after: "Suction"}, reason: "missed arrow"}
decisions:
  - {box: "airway clear?", text: "Airway clear?", reason: "a question box"}
  - {edge: {head: "Airway clear?", tail: "Suction", label: "NO"}, constraints: ["airway_clear=no"], reason: "NO"}
  - {box: {text: "CPR 2 min", after: "Give oxygen"}, action: reject, reason: "duplicate"}
"""


def _by_content(items: list[DraftItem], ids: list[str]) -> list[tuple[str, str, str]]:
    by = {it.item: it for it in items}
    return [(by[i].content, by[by[i].head].content if by[i].head else "", by[i].page) for i in ids]


def test_a_review_names_items_by_content_so_a_renumbered_draft_still_replays(tmp_path: Path) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text(REVIEW, encoding="utf-8")
    recorded = load_review(path)
    before, after = _draft(extra_first=False), _draft(extra_first=True)
    decided_before, ends_before = resolve(recorded, before)
    decided_after, ends_after = resolve(recorded, after)
    assert decided_before != decided_after  # the running numbers moved …
    # … and the decisions still land on the same boxes and arrows
    assert _by_content(before, decided_before) == _by_content(after, decided_after) == [
        ("Airway clear?", "", "1"), ("NO", "Airway clear?", ""), ("CPR 2 min", "", "1")]
    for items, decided, ends in ((before, decided_before, ends_before), (after, decided_after, ends_after)):
        by = {it.item: it for it in items}
        [cpr] = [e.tail for e in items if e.kind == "edge" and by[e.head].content == "Give oxygen"]
        assert decided[2] == cpr
        [(head, tail)] = ends
        assert by[head].content == "Give oxygen" and tail != cpr and by[tail].content == "CPR 2 min"


@pytest.mark.parametrize(("decision", "problem"), [
    ('{box: "Assess breathing", text: "x", reason: "r"}', "the draft has no box 'Assess breathing'"),
    ('{box: "CPR 2 min", action: reject, reason: "r"}', "2 items of the draft match the box 'CPR 2 min'"),
    ('{edge: {head: "Airway clear?", tail: "Suction", label: "YES"}, text: "x", reason: "r"}',
     "the draft has no arrow"),
    ('{key: blood_glucose, action: reject, reason: "r"}', "no proposed key 'blood_glucose'"),
])
def test_a_reference_matching_nothing_or_several_items_is_named(tmp_path: Path, decision: str, problem: str) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text(f"guideline: g\nversion: '1'\npdf: x.pdf\ndecisions:\n  - {decision}\n", encoding="utf-8")
    with pytest.raises(OnboardingError, match=re.escape(problem)) as info:
        resolve(load_review(path), _draft(extra_first=True))
    assert "nothing was replayed" in str(info.value)


def test_a_decision_by_running_number_is_refused_with_what_to_write(tmp_path: Path) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text("guideline: g\nversion: '1'\npdf: x.pdf\n"
                    "decisions: [{item: e5, expect: '', text: B, reason: r}]\n", encoding="utf-8")
    with pytest.raises(OnboardingError, match="running number .*'e5'.*box: <text>"):
        load_review(path)


def test_an_added_box_is_named_by_the_arrows_added_with_it(tmp_path: Path) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text("guideline: g\nversion: '1'\npdf: x.pdf\nadd:\n"
                    "  boxes:\n    - {text: 'Call for help', page: 1, reason: 'the parser missed it'}\n"
                    "  edges:\n    - {head: 'Suction', tail: 'Call for help', reason: 'missed arrow'}\n",
                    encoding="utf-8")
    recorded = load_review(path)
    assert recorded.add.boxes[0].page == "1"
    items = _draft(extra_first=False)
    _, [(head, tail)] = resolve(recorded, items)
    assert {it.item: it.content for it in items}[head] == "Suction" and tail == "+0"  # the first added box
    # a decision cannot name a box the review adds: its text and constraints are in the addition
    path.write_text(path.read_text(encoding="utf-8") + "decisions:\n  - {box: 'Call for help', text: x, reason: r}\n",
                    encoding="utf-8")
    with pytest.raises(OnboardingError, match="the draft has no box 'Call for help'"):
        resolve(load_review(path), items)
