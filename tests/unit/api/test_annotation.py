"""Relevance judgments → versioned qrels in the question-set format `dkg eval retrieval` reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.api.annotation import Judgment, load_version, query_id, save, to_question, versions
from dkg.errors import DKGError
from dkg.evaluation.retrieval_metrics import query_metrics
from dkg.retrieval.questions import load_set


def judged(*pairs: tuple[str, str], added: str | None = None) -> list[Judgment]:
    return [Judgment(uid=u, label=label, added=u == added) for u, label in pairs]  # type: ignore[arg-type]


def test_graded_results_become_version_free_qrels() -> None:
    q = to_question("Why is MRD monitored?", judged(("ALL|1.2026|a", "3"), ("ALL|2.2026|b", "1"),
                                                    ("s1", "irrelevant"), ("ALL|2.2026|a", "duplicate"),
                                                    ("kidney|1.2026|c", "2")), "alice", at="2026-01-01T00:00:00")
    assert q.qrels == {"ALL|*|b": 1.0, "kidney|*|c": 2.0}  # the duplicate of a (same box, other version) wins last
    assert q.meta["irrelevant"] == "s1" and q.meta["duplicate"] == "ALL|*|a" and q.meta["annotator"] == "alice"
    assert q.qid == query_id("why is MRD monitored?") and q.set == "annotated"


def test_a_query_needs_a_relevant_result() -> None:
    with pytest.raises(DKGError, match="at least one result relevant"):
        to_question("q", judged(("s1", "irrelevant")), "alice")


def test_versions_accumulate_and_never_overwrite(tmp_path: Path) -> None:
    first = save(to_question("q one", judged(("ALL|1.2026|a", "3")), "alice"), tmp_path)
    second = save(to_question("q two", judged(("s9", "2"), ("s8", "1")), "bob"), tmp_path)
    third = save(to_question("Q  ONE", judged(("ALL|1.2026|z", "1")), "alice"), tmp_path)  # re-judged
    assert [p.name for p in versions(tmp_path)] == ["annotated-v0001.jsonl", "annotated-v0002.jsonl",
                                                    "annotated-v0003.jsonl"]
    assert [q.question for q in load_version(first)] == ["q one"]
    assert len(load_version(second)) == 2
    latest = {q.question: q.qrels for q in load_set(third.stem, third.parent)}
    assert latest == {"q two": {"s9": 2.0, "s8": 1.0}, "Q ONE": {"ALL|*|z": 1.0}}


def test_saved_qrels_score_with_the_retrieval_metrics(tmp_path: Path) -> None:
    path = save(to_question("q", judged(("ALL|1.2026|a", "3"), ("s1", "1")), "alice"), tmp_path)
    q = load_set(path.stem, path.parent)[0]
    perfect = query_metrics(["ALL|*|a", "s1"], q.qrels)
    worse = query_metrics(["s1", "x", "ALL|*|a"], q.qrels)
    assert perfect["ndcg@10"] == pytest.approx(1.0) and worse["ndcg@10"] < 1.0


def test_labels_are_checked() -> None:
    with pytest.raises(ValueError):
        Judgment(uid="a", label="5")  # type: ignore[arg-type]
