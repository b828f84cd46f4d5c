"""`dkg publish` writes a topic file for a guideline that has none (issue #19: topic.yaml was hand-written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.graph.drafts import _write_topic
from dkg.lexicon.topics import load_onboarded_topic
from dkg.vocabulary import VOCABULARY


def _onboarded_guideline() -> str:
    sources = {s.source for s in VOCABULARY.values() if s.source != "base"}
    return next(g for g in sorted(sources) if (Path(__file__).parents[3] / "datasets" / "guidelines" / g /
                                                "topic.yaml").is_file())


def test_a_topic_is_written_from_the_title_and_the_guidelines_own_keys(tmp_path: Path) -> None:
    guideline = _onboarded_guideline()
    path = _write_topic(guideline, "Bradycardia and tachycardia algorithms", tmp_path)
    assert path == tmp_path / guideline / "topic.yaml"
    topic = load_onboarded_topic(path)
    assert topic.title == "Bradycardia and tachycardia algorithms" and topic.names == []
    own = {w.lower() for s in VOCABULARY.values() if s.source == guideline
           for w in (*s.synonyms, *(w for v, ws in s.values.items() if v != "no" for w in ws))}
    others = {w.lower() for s in VOCABULARY.values() if s.source != guideline for w in s.synonyms}
    assert topic.hints and set(topic.hints) <= own and not set(topic.hints) & others
    assert all(len(h.split()) >= 2 for h in topic.hints)
    assert "# Written by `dkg publish`" in path.read_text(encoding="utf-8")


def test_a_curators_topic_is_never_overwritten(tmp_path: Path) -> None:
    guideline = _onboarded_guideline()
    (tmp_path / guideline).mkdir()
    mine = tmp_path / guideline / "topic.yaml"
    mine.write_text("title: Mine\nnames: [bradycardia]\n", encoding="utf-8")
    assert _write_topic(guideline, "Other title", tmp_path) is None
    assert mine.read_text(encoding="utf-8") == "title: Mine\nnames: [bradycardia]\n"


def test_no_topic_for_a_guideline_with_yaml_sources_nor_without_a_title(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "1.2026.yaml").write_text("format: 1\n", encoding="utf-8")
    assert _write_topic("src", "A title", tmp_path) is None
    path = _write_topic("stroke-tia", "", tmp_path)
    assert path is not None and load_onboarded_topic(path).title == "stroke tia"
    assert load_onboarded_topic(path).names == []


def test_the_flowchart_titles_printed_on_the_pages_name_the_topic(tmp_path: Path) -> None:
    path = _write_topic("post-arrest", "", tmp_path, ["POST-CARDIAC ARREST CARE", "CARDIAC ARREST with ROSC"])
    assert path is not None
    # "cardiac arrest" names the shipped cardiac-smog topic already: left out
    assert [n.alias for n in load_onboarded_topic(path).names] == ["post-cardiac arrest care"]


def test_a_whole_documents_title_is_cut_to_a_topic_title_and_its_pages_name_it(tmp_path: Path) -> None:
    """Publishing all seven pages of a real PDF crashed: the draft's title joins every page's title (over 200
    characters), and the whole title was also taken as one name (over 120)."""
    from dkg.lexicon.topics import build_topics, topics_data

    pages = [f"Made-up flowchart {word} with pulse and adequate perfusion" for word in
             ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta")]
    path = _write_topic("whole-doc", " / ".join(pages) + " (onboarded from whole.pdf)", tmp_path, pages)
    assert path is not None
    topic = load_onboarded_topic(path)
    assert len(topic.title) <= 200 and topic.title.endswith("…")
    built = {t.guideline: t for t in build_topics(topics_data(), tmp_path)}["whole-doc"]
    assert [n.alias for n in built.names][:2] == ["made-up flowchart alpha", "made-up flowchart beta"]


def test_a_topic_that_fails_to_load_is_not_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dkg.lexicon.topics as topics

    calls: list[int] = []

    def failing_once() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise topics.LexiconError("made-up failure while loading the new topic")

    monkeypatch.setattr(topics, "reload_topics", failing_once)
    with pytest.raises(topics.LexiconError, match="made-up failure"):
        _write_topic("stroke-tia", "Stroke", tmp_path)
    assert not (tmp_path / "stroke-tia" / "topic.yaml").exists() and len(calls) == 2
