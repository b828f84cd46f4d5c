"""Guidelines and the words that name them are discovered from the guideline sources and the lexicon's topic
data (issue #19 item 1): a new source folder is a new topic without a code change."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dkg.corpus.model import GUIDELINES_DIR, discover, load_guideline
from dkg.lexicon.errors import LexiconError
from dkg.lexicon.topics import TopicsData, build_topics, known_guidelines, load_topics_data, names_kept_by_others
from dkg.qa.facts import detect_guidelines, unknown_diseases
from dkg.qa.queries import GUIDELINES


def test_known_guidelines_are_the_shipped_sources_and_onboarded_topics() -> None:
    # an onboarded guideline has no YAML sources: its folder's topic.yaml makes it known (cardiac-smog ships one)
    onboarded = {p.parent.name for p in GUIDELINES_DIR.glob("*/topic.yaml")}
    assert "cardiac-smog" in onboarded
    assert known_guidelines() == tuple(sorted({code for code, _v, _p in discover()} | onboarded))
    assert list(GUIDELINES) == list(known_guidelines())


def test_every_source_title_names_its_guideline() -> None:
    for code, _version, path in discover():
        title = load_guideline(path).title.split(":")[0].replace("(illustrative)", "").strip()
        assert detect_guidelines(f"What is the first step for {title.lower()}?") == [code]


def test_a_new_source_folder_is_a_new_topic(tmp_path: Path) -> None:
    _code, _version, path = discover()[0]
    source = yaml.safe_load(path.read_text())
    source.update({"guideline": "stroke", "title": "Acute Ischaemic Stroke: thrombolysis (illustrative)",
                   "diseases": ["Transient Ischaemic Attack"]})
    folder = tmp_path / "stroke"
    folder.mkdir()
    (folder / f"{source['version']}.yaml").write_text(yaml.safe_dump(source, allow_unicode=True))
    [topic] = build_topics(TopicsData(), tmp_path)
    assert topic.guideline == "stroke"
    assert topic.named_in("62M with acute ischaemic stroke, last seen well 2 h ago")
    assert topic.named_in("TIA yesterday? no: transient ischaemic attack") and not topic.named_in("a stroll")


def test_a_bad_topics_file_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "topics.yaml"
    bad.write_text("topics: {x: {names: [{alias: 'A', case_sensitive: true}]}}\n")
    with pytest.raises(LexiconError, match="alias"):
        load_topics_data(bad)


def test_a_drug_only_hints_at_a_guideline() -> None:
    assert detect_guidelines("relapsed on dasatinib with a T315I mutation, 45M") != []
    # a disease no guideline covers is still named, though the drug is one a guideline uses
    assert unknown_diseases("metastatic melanoma progressing on nivolumab") == ["melanoma"]


@pytest.mark.parametrize("question", [
    "ph+ all, 45yo, fit. induction?",
    "when does the all pathway recommend pomp maintenance?",
    "in which situation does the all algorithm recommend blina?",
    "all in cr1 now with an isolated cns relapse. what next?",
    "relapsed all after hyper-cvad",
    "second relapse of all. options?",
    "late recurrence of all - marrow and testes",
    "cns relapse of all",
])
def test_all_in_lower_case_names_the_disease_where_the_words_round_it_say_so(question: str) -> None:
    assert detect_guidelines(question) == ["ALL"]


@pytest.mark.parametrize("question", [
    "we treat all patients in remission the same way",
    "relapse of all lesions after sunitinib for renal cell carcinoma",
    "is all of the osteosarcoma resectable?",
    "relapse of all three lung nodules after nephrectomy",
])
def test_all_as_an_ordinary_word_names_no_leukemia(question: str) -> None:
    assert "ALL" not in detect_guidelines(question)


def test_a_flowchart_title_another_guideline_is_named_by_is_reported_as_kept_by_it() -> None:
    # a second bradycardia algorithm: "bradycardia" names the shipped cardiac-smog already, so questions naming it
    # go there and publishing the new one says so; a title no topic uses is the new guideline's own
    kept = names_kept_by_others("brady-other", ["BRADYCARDIA with PULSE", "ACUTE STROKE with onset < 24 h"])
    assert kept == {"bradycardia": "cardiac-smog"}
    assert names_kept_by_others("cardiac-smog", ["BRADYCARDIA with PULSE"]) == {}
