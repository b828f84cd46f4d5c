"""The shipped onboarded guideline end to end on the real services: its recorded review replayed on the real PDF
(parser, Stanford CoreNLP, Neo4j), published, hand-written DEV questions answered by the rule layer with route
and evidence, then hidden again by unpublishing (datasets/guidelines/cardiac-smog/review-1.2026.yaml)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fhir.resources.R4B.bundle import Bundle

from dkg.config import PROJECT_ROOT, Settings
from dkg.evaluation.onboarded_qa import load_items, node_boxes, split
from dkg.fhir.export import check_plan, export_version
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts import OnboardingError, review_history, unpublish, version_state
from dkg.graph.drafts_replay import ReplayReport, load_review, onboard_reviewed, replay
from dkg.qa.clinician import score
from dkg.qa.service import TextToCypherService
from dkg.vocabulary import reload_vocabulary

pytestmark = pytest.mark.neo4j

REVIEW = PROJECT_ROOT / "datasets" / "guidelines" / "cardiac-smog" / "review-1.2026.yaml"
QUESTIONS = PROJECT_ROOT / "datasets" / "qa" / "cardiac_smog_questions.jsonl"
NAME, VERSION = "cardiac-smog", "1.2026"
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))
# development items only (held out = id number divisible by 3), one or more per onboarded page
DEV_IDS = ["cardiac-01", "cardiac-02", "cardiac-04", "cardiac-05", "cardiac-10", "cardiac-17", "cardiac-25"]


def _remove(graph: Graph) -> None:
    q = named_queries("onboard")
    for name in ("delete_published", "delete_draft"):
        graph.write(q[name], {"uid": f"{NAME}|{VERSION}"})
    graph.write(q["delete_orphan_treatments"])


@pytest.fixture(scope="module")
def published(graph: Graph, neo4j_settings: Settings,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplayReport]:
    settings = neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT,
                                                 "home": tmp_path_factory.mktemp("cardiac-home")})
    report = onboard_reviewed(graph, REVIEW, settings=settings, work=Path(tmp_path_factory.mktemp("cardiac-work")),
                              echo=lambda _: None)
    yield report
    _remove(graph)
    reload_vocabulary()


def test_the_recorded_review_replays_to_the_shipped_vocabulary(graph: Graph, published: ReplayReport) -> None:
    assert published.matches_shipped
    assert version_state(graph, NAME, VERSION) == (True, False)
    history = [r["action"] for r in review_history(graph, NAME, VERSION)]
    # the audit trail outlives a removed version: this replay's actions start at its last onboarding
    actions = history[len(history) - 1 - history[::-1].index("onboard"):]
    assert actions[-1] == "publish"
    assert actions.count("add") == 5  # four keys and the arrow the parser missed (high-grade block -> pacing)
    assert published.counts["decision"] >= 5


def test_the_published_guideline_exports_a_valid_fhir_plan_with_every_key_coded(
        graph: Graph, published: ReplayReport) -> None:
    result = export_version(graph, NAME, VERSION)
    Bundle.model_validate(result.bundle)
    plan = result.bundle["entry"][0]["resource"]
    assert check_plan(plan) == [] and plan["version"] == VERSION
    assert result.report.unmapped == [], "datasets/fhir/codes.yaml codes every key of the onboarded vocabulary"
    assert result.report.conditions > 0
    # the YES/NO branch constraints sit on the transitions nested in their question's action
    transitions = [t for a in plan["action"] for t in a.get("action", [])]
    heart_rate = [c["expression"]["expression"] for t in transitions for c in t.get("condition", [])
                  if c["expression"]["description"].startswith("heart_rate")]
    assert heart_rate and all("8867-4" in e for e in heart_rate)


@pytest.mark.parametrize("question", [
    "68M, wide complex tachycardia, QRS 0.16 s, HR 170, stable, not sinus tach: what is recommended?",
    "Adult tachycardia: after synchronized cardioversion, what next?",
])
def test_a_stated_adult_is_answered_on_the_adult_page_by_its_title(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport, question: str) -> None:
    """The paediatric tachycardia page fits these facts too; its printed title (PEDIATRIC …) rules it out."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer(question)
    boxes = node_boxes(graph, NAME, VERSION)
    pages = {b.split("/")[0] for uid in answer.matched_nodes for b in boxes.get(uid, [])}
    assert pages == {"smog-46"}, (answer.answer, answer.no_answer_reason)
    assert all(e.page_titles == ["TACHYCARDIA w/ PULSE"] for e in answer.evidence)  # shown with the evidence


def test_no_age_is_answered_on_the_general_page_and_asks_for_the_age(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    question = "Wide complex tachycardia, QRS 0.16 s, HR 170, stable, not sinus tach: what is recommended?"
    answer = service.answer(question)  # cardiac-08 (dev): no age; the paediatric algorithm fits too
    assert all(e.page_titles == ["TACHYCARDIA w/ PULSE"] for e in answer.evidence), answer.answer
    assert [m.key for m in answer.missing_facts] == ["age"]
    assert "PEDIATRIC TACHYCARDIA" in answer.missing_facts[0].description
    again = service.answer(question + " (age=45)")  # the follow-up form's answers
    assert not again.missing_facts
    assert all(e.page_titles == ["TACHYCARDIA w/ PULSE"] for e in again.evidence)
    child = service.answer(question + " (age=4)")
    assert not child.missing_facts
    assert all(e.page_titles == ["PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion"] for e in child.evidence)


@pytest.mark.parametrize("item_id", ["steps-06", "steps-09", "steps-17"])
def test_a_named_step_beside_facts_that_locate_it_is_answered_by_the_steps_after_it(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport, item_id: str) -> None:
    """'Cardiac arrest, non-shockable side: after treating reversible causes, what next?': the non-shockable
    branch is tested on the way to the named step, so it says where the step is. 'SVT in a child: after adenosine
    fails …' also reads as the adult chart's ``sinus_tach=no``, a key the paediatric chart never tests: left
    aside (development items)."""
    [item] = [i for i in load_items(QUESTIONS.with_name("cardiac_smog_steps_questions.jsonl")) if i.id == item_id]
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer(item.question)
    result = score(item, answer, node_boxes(graph, NAME, VERSION))
    assert service.last_path == "named_step" and result.correct, (result.answer_boxes, answer.answer)


@pytest.mark.parametrize(("item_id", "path_end"), [
    ("fresh2-13", "+reported_place"), ("fresh2-22", "+reported_place"), ("fresh-07", "+reported_place"),
    ("fresh2-16", "+asked_class"), ("fresh2-28", "+asked_class"), ("fresh2-04", "+asked_class"),
    ("fresh-02", "+titled_entry")])
def test_the_place_a_question_reports_and_the_drug_class_it_asks_for_are_answered(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport, item_id: str, path_end: str) -> None:
    """The chest pain chart's arrows carry no conditions: '12 lead shows ST elevation' places the patient at its
    box, and 'BP 82/48' chooses the way on from 'sinus rhythm'; 'which antiarrhythmic' asks for the amiodarone
    and lidocaine steps ahead of the CPR box the walk reaches, and 'which drug and what dose now?' (no class) the
    epinephrine step ahead of it; 'crushing substernal CP … on monitor, IV in' presents
    with the chest pain chart's title, whose first box it reports done (development items of the second and third
    sets; without the reading of 'No allergies.' as no step done, it was answered with the step after aspirin)."""
    sets = ("cardiac_smog_fresh_questions.jsonl", "cardiac_smog_fresh2_questions.jsonl")
    [item] = [i for name in sets for i in load_items(QUESTIONS.with_name(name)) if i.id == item_id]
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer(item.question)
    result = score(item, answer, node_boxes(graph, NAME, VERSION))
    assert service.last_path.endswith(path_end) and result.correct, (service.last_path, result.answer_boxes,
                                                                     answer.answer)


def test_the_box_naming_the_chest_pain_chart_leads_into_it(graph: Graph, published: ReplayReport) -> None:
    """The tachycardia chart's "Chest Pain Guideline" box (page 4) names the chest pain chart's title (page 2): the
    published graph goes on from it to that chart's first box, so the walk follows the publisher's reference."""
    from dkg.qa.way_in import WayIn

    way_in = WayIn.of(graph, NAME, VERSION)
    [link] = [uid for uid, text in way_in.contents.items() if text == "Chest Pain Guideline"]
    onward = [way_in.contents[uid] for uid in way_in.arrows.successors(link)]
    assert len(onward) == 1 and onward[0].startswith("Universal Patient Care Protocol"), onward


def test_a_presentation_saying_a_charts_title_enters_that_chart(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """'Crushing substernal chest pain, diaphoretic' says the chest pain chart's title: it starts at that chart's
    first box, not at synchronized cardioversion on the tachycardia chart (its "unstable" read from 'diaphoretic',
    its rate assumed). A stated rate is tested on the way in through the tachycardia chart: that patient is walked
    as before."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("54M crushing substernal chest pain x30 min, diaphoretic. What do I give him first?")
    assert service.last_path.endswith("+titled_entry"), (service.last_path, answer.answer)
    assert [e.content for e in answer.evidence][0].startswith("Universal Patient Care Protocol"), answer.answer
    assert all(e.page_titles == ["CHEST PAIN"] for e in answer.evidence), answer.evidence
    tachycardic = service.answer("HR 180 wide complex, chest pain. What next?")
    assert "titled_entry" not in service.last_path and tachycardic.matched_nodes, tachycardic.answer


def test_a_dose_asked_per_the_named_chart_stays_refused_though_the_question_reports_a_place(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("12 lead shows ST elevation, aspirin given. What is the heparin dose in units/kg per "
                            "the chest pain protocol?")
    assert not answer.matched_nodes and service.last_path == "refused", (service.last_path, answer.answer)
    assert answer.no_answer_reason and answer.no_answer_reason.startswith("out of scope: drug dosing")


@pytest.mark.parametrize(("question", "box_start"), [
    ("12 lead shows ST elevation, aspirin given. What is the morphine dose per the chest pain protocol?",
     "For continued pain after NTG"),
    ("Pacing her now, she is uncomfortable. What can I give for sedation and how much?", "Transcutaneous Pacing"),
    ("Brady 35, hypotensive. What's the max atropine dose?", "Atropine IV / IO 1mg"),
    ("4 yo in VF, second shock done. Epi dose?", "Epinephrine"),
])
def test_a_dose_a_box_prints_is_answered_with_that_box(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport, question: str, box_start: str) -> None:
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer(question)
    assert service.last_path == "dose_in_box", (service.last_path, answer.answer)
    assert answer.evidence and all(e.content.startswith(box_start) for e in answer.evidence), answer.answer
    assert "check it against" in answer.answer


def test_a_dose_printed_only_for_the_other_age_group_is_refused_with_that_page(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("Epi dose for an adult in VF arrest?")
    assert not answer.matched_nodes and service.last_path == "dose_in_box_refused", (service.last_path,
                                                                                    answer.answer)
    assert "PEDIATRIC CARDIAC ARREST" in (answer.no_answer_reason or "")


def test_a_drug_class_the_guideline_never_gives_is_refused_as_out_of_scope(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """fresh-29 (development item): no box gives an anticoagulant, so "how long do we anticoagulate" is not
    answered with the step the walk reached; a class the charts give is still answered (amiodarone)."""
    [item] = [i for i in load_items(QUESTIONS.with_name("cardiac_smog_fresh_questions.jsonl")) if i.id == "fresh-29"]
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer(item.question)
    assert not answer.matched_nodes and service.last_path.endswith("+class_not_given"), (service.last_path,
                                                                                        answer.answer)
    assert answer.no_answer_reason and "gives no anticoagulant" in answer.no_answer_reason
    given = service.answer("VF persists after the third shock, epi given, tube in. Which antiarrhythmic now per the "
                           "paediatric arrest algorithm?")
    assert service.last_path.endswith("+asked_class") and "Amiodarone" in (given.answer or ""), given.answer


def test_a_yes_no_question_about_a_step_is_answered_with_the_conditions_on_its_way(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """No topic word, no patient fact: the step names the guideline, and the answer says when it applies; a
    leading 'Bradycardia:' points to the bradycardia page's box of two that hold the words."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("Should we place pacer pads?")
    assert service.last_path == "named_action", answer.no_answer_reason
    [row] = answer.rows
    assert row["advisable"] and row["conditions"] == ["heart_rate<50"], answer.answer
    assert answer.answer.startswith('Yes: "Place PACER PADS" is a step of the guideline')
    sedation = service.answer("Bradycardia: is it appropriate to consider sedation?")
    pages = {b.split("/")[0] for uid in sedation.matched_nodes for b in node_boxes(graph, NAME, VERSION).get(uid, [])}
    assert service.last_path == "named_action" and pages == {"smog-41"}, sedation.answer
    # no topic word, so no walk to place the patient: a stated fact that rules the step out is a no, with why
    fast = service.answer("HR 120: should we place pacer pads?")
    assert service.last_path == "named_action" and fast.rows[0]["advisable"] is False, fast.answer
    assert fast.answer.endswith("when heart_rate<50; the question states heart_rate=120.")


def test_a_question_asking_when_a_step_is_reached_gets_the_boxes_and_conditions_leading_to_it(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """'When should we place pacer pads?' names no topic; the step names the guideline, and the answer is the
    box before it and the condition on the way. A non-treatment box ('Probable Sinus Tachycardia') is asked
    about the same way, its SVT criteria branch included."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    pads = service.answer("When should we place pacer pads?")
    assert service.last_path == "named_conditions", pads.no_answer_reason
    assert [r["constraints"] for r in pads.rows] == [["heart_rate<50"]], pads.answer
    assert pads.answer.startswith('"Place PACER PADS" is reached after "Universal Patient Care Guideline')
    sinus = service.answer("Which conditions lead to probable sinus tachycardia in a child?")
    assert service.last_path == "named_conditions", sinus.no_answer_reason
    assert any("svt_criteria=no" in r["constraints"] for r in sinus.rows), sinus.answer
    contents = {e.node_uid: e.content for e in sinus.evidence}
    assert [contents[u][:11] for u in sinus.matched_nodes] == ["Heart Rate?"], sinus.answer  # the SVT criteria box


def test_a_second_algorithm_on_the_topic_is_answered_beside_the_first_with_the_keys_it_borrows(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport, tmp_path: Path) -> None:
    """A curator onboards the bradycardia page again as a second guideline, accepts the draft as it is and
    publishes it: its arrows test cardiac-smog's keys (listed under ``uses_keys``), its topic is named
    ``bradycardia`` too, and a question naming bradycardia is answered from both, side by side."""
    import shutil

    from dkg.graph.drafts import draft_items, publish, review
    from dkg.graph.onboard import onboard
    from dkg.lexicon.topics import reload_topics
    from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, ONBOARDED_MARK

    second, folder = "brady-second-e2e", GUIDELINES_ROOT / "brady-second-e2e"
    assert not folder.exists(), f"{folder} is left from an earlier run; remove it"
    settings = neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT, "home": tmp_path})
    try:
        onboard(graph, PROJECT_ROOT / load_review(REVIEW).pdf, second, "1", pages="1", title="Bradycardia, second",
                overlays=False, settings=settings, who="e2e", echo=lambda _: None)
        for item in draft_items(graph, second, "1"):
            review(graph, second, "1", item.item, "accept", who="e2e")
        publish(graph, second, "1", who="e2e")
        reload_topics()
        assert "signs_of_hemodynamic_compromise" in (folder / GUIDELINE_FILE).read_text(encoding="utf-8")
        assert "bradycardia" in (folder / ONBOARDED_MARK).read_text(encoding="utf-8")
        service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
        answer = service.answer("Bradycardia, HR 38, hypotensive, altered - what next?")
        assert service.last_path == "side_by_side", answer.answer
        assert {e.guideline for e in answer.evidence} == {NAME, second}, answer.answer
        assert sorted(line.split(": ")[0] for line in answer.answer.splitlines()) == [second, NAME]
    finally:
        q = named_queries("onboard")
        for query in ("delete_published", "delete_draft"):
            graph.write(q[query], {"uid": f"{second}|1"})
        shutil.rmtree(folder, ignore_errors=True)
        reload_vocabulary()
        reload_topics()


def test_a_drug_and_vital_signs_without_a_chart_word_find_the_chart(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """One distinctive word ("atropine") and two values the cardiac vocabulary reads ("rate still 38", "BP 70
    systolic") tell the chart; before, the question was refused as naming no guideline."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("Already pushed atropine 1 mg three times, rate still 38 and BP 70 systolic. What now?")
    assert answer.evidence and answer.evidence[0].content.startswith("Transcutaneous Pacing"), (service.last_path,
                                                                                               answer.answer)


def test_a_walk_ending_at_a_working_diagnosis_goes_on_to_the_step_after_it(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    """"Probable Ventricular Tachycardia" names what the child has; "next step?" asks for the cardioversion after
    it. Asked what it is, the diagnosis stays the answer."""
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    answer = service.answer("10 yo, wide QRS tachycardia at 210, cap refill 5 s, hypotensive, no IV access. "
                            "Next step?")
    assert service.last_path.endswith("+past_diagnosis"), (service.last_path, answer.answer)
    assert [e.content[:26] for e in answer.evidence] == ["Synchronized Cardioversion"], answer.answer
    assert "Probable Ventricular Tachycardia" in answer.answer
    named = service.answer("7 y/o, wide QRS 0.12 s tachycardia at 200 with poor perfusion: what is it?")
    assert "past_diagnosis" not in service.last_path
    assert named.evidence and named.evidence[0].content.startswith("Probable Ventricular"), named.answer


def test_hand_written_dev_questions_are_answered_then_hidden_by_unpublishing(
        graph: Graph, neo4j_settings: Settings, published: ReplayReport) -> None:
    dev, _held_out = split(load_items(QUESTIONS))
    items = [i for i in dev if i.id in DEV_IDS]
    assert [i.id for i in items] == DEV_IDS
    boxes = node_boxes(graph, NAME, VERSION)
    service = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    for item in items:
        answer = service.answer(item.question)
        result = score(item, answer, boxes)
        assert result.correct, f"{item.id}: {result.answer_boxes} {result.verdict} {result.no_answer_reason}"
        assert answer.route == "text2cypher" and answer.cypher and answer.evidence
        assert all(e.guideline == NAME for e in answer.evidence)

    unpublish(graph, NAME, VERSION, who="e2e")
    hidden = TextToCypherService(neo4j_settings, graph=graph, rules_only=True)
    for item in items:
        answer = hidden.answer(item.question)
        assert not answer.answered and not answer.matched_nodes
        assert "not loaded" in (answer.no_answer_reason or "")
    assert not any(r["g"] == NAME for r in graph.read(named_queries("cli")["loaded_versions"]))


def test_a_review_that_does_not_match_the_draft_changes_nothing(graph: Graph, published: ReplayReport) -> None:
    # after unpublishing, the version is a draft again as reviewed (edited texts, rejected keys gone): the recorded
    # decisions name items as the parser read them, which this draft no longer has, so the replay is refused
    # before any action
    if version_state(graph, NAME, VERSION)[0]:
        unpublish(graph, NAME, VERSION, who="e2e")
    before = len(review_history(graph, NAME, VERSION))
    with pytest.raises(OnboardingError, match="the parser output changed since the review was recorded"):
        replay(graph, load_review(REVIEW), echo=lambda _: None)
    assert len(review_history(graph, NAME, VERSION)) == before

