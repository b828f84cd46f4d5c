"""Treatment detection that ordinary words cannot fool, the advise form, and the walk from position starts
(issue #17: 'marrow' answered as a treatment; relapses landing on the first page)."""

import pytest

from dkg.qa.grounding import (
    GroundingError,
    asked_treatment,
    combination_in_question,
    fallback_sketch,
    ground_sketch,
    ground_treatment,
    treatment_in_question,
)
from dkg.qa.pathway import PositionTests, WalkSettings, cypher_from_starts, state_keys
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.way_in import WayIn

KNOWN = ["bone marrow aspirate and biopsy: morphology, flow cytometry immunophenotype, karyotype, fish",
         "tki + blinatumomab", "hyper-cvad + tki", "clinical trial", "blinatumomab",
         "inotuzumab ozogamicin + mini-hyper-cvd", "a switch to ponatinib , then allogeneic hct",
         "vdc/ie with dose adjustment and dexrazoxane", "doxorubicin with cisplatin"]
PH_POS = "22F, new dx Ph+ B-ALL confirmed on marrow yesterday, no PMH. Plan for induction?"


def test_marrow_is_not_the_treatment_asked_about() -> None:
    with pytest.raises(GroundingError, match="not a treatment the guideline knows"):
        ground_treatment("marrow", PH_POS, KNOWN)


@pytest.mark.parametrize("word", ["months", "function", "neoadjuvant"])
def test_ordinary_words_are_refused_as_treatments(word: str) -> None:
    with pytest.raises(GroundingError):
        ground_treatment(word, f"Relapsed 14 {word} after dx, what next?", KNOWN)


def test_a_known_drug_is_grounded() -> None:
    assert ground_treatment("blinatumomab", "Is blinatumomab a reasonable re-induction?", KNOWN)[0] == "blinatumomab"


def test_the_first_named_drug_is_the_one_asked_about() -> None:
    question = "71 y/o woman, pelvic Ewing sarcoma. Should dexrazoxane go alongside the doxorubicin in her induction?"
    assert treatment_in_question(question, KNOWN) == "dexrazoxane"


def test_advise_query_without_an_advise_question_is_a_next_step() -> None:
    sketch = QuerySketch(QuestionType.ADVISE, "ALL", ("age", "comorbidity", "lineage", "ph"), "marrow")
    grounded = ground_sketch(sketch, PH_POS, KNOWN)
    assert grounded.sketch.qtype is QuestionType.NEXT_STEP and grounded.sketch.treatment is None


@pytest.mark.parametrize("decoded", [QuestionType.ADVISE, QuestionType.NEXT_STEP])
def test_a_for_whom_question_is_conditions_whatever_was_decoded(decoded: QuestionType) -> None:
    # the model read "who gets X" with the topic's facts as an advise query; the question's form decides
    question = "In Ph+ ALL, who gets TKI + blinatumomab as first-line therapy?"
    treatment = "tki + blinatumomab" if decoded is QuestionType.ADVISE else None
    sketch = QuerySketch(decoded, "ALL", ("ph",), treatment)
    grounded = ground_sketch(sketch, question, KNOWN, {"ph": "+"})
    assert grounded.sketch.qtype is QuestionType.CONDITIONS
    assert grounded.sketch.treatment == "tki + blinatumomab" and grounded.facts == {}


def test_a_for_whom_word_inside_an_advise_question_keeps_advise() -> None:
    question = "Ph+ ALL, 30 y/o, who gets MRD checks monthly: is TKI + blinatumomab appropriate?"
    sketch = QuerySketch(QuestionType.ADVISE, "ALL", ("age", "ph"), "tki + blinatumomab")
    grounded = ground_sketch(sketch, question, KNOWN, {"age": 30.0, "ph": "+"})
    assert grounded.sketch.qtype is QuestionType.ADVISE


def test_fallback_for_whom_question_is_conditions() -> None:
    question = "In clear-cell RCC, for which pts does the pathway list blinatumomab as a first-line choice?"
    sketch = fallback_sketch(question, "kidney", KNOWN, {"histology": "clear_cell"})
    assert sketch is not None and sketch.qtype is QuestionType.CONDITIONS


def test_position_tests_are_course_facts_and_subtypes() -> None:
    tests = PositionTests.of({"age": 44.0, "ph": "+", "response": "cr", "histology": "papillary"})
    assert tests.tests == (("histology", "papillary"), ("response", "cr"))
    # after a stated relapse the response is the one to re-induction: the walk starts at the relapse's tests only
    tests = PositionTests.of({"age": 44.0, "ph": "+", "disease_status": "relapsed", "response": "cr",
                              "histology": "papillary"})
    assert tests.tests == (("disease_status", "relapsed"), ("histology", "papillary"))


def test_a_finding_of_the_course_places_the_patient_only_once_a_step_is_under_way() -> None:
    facts: dict[str, float | str] = {"age": 15.0, "histology": "osteosarcoma", "comorbidity": "cardiac"}
    assert PositionTests.of(facts, course_begun=True).tests == (("comorbidity", "cardiac"),)
    assert PositionTests.of(facts).tests == ()
    # a value of the same key that is no finding of the course places nothing
    assert PositionTests.of({**facts, "comorbidity": "substantial"}, course_begun=True).tests == ()


def test_a_clause_that_asks_says_nothing_was_done() -> None:
    assert WayIn.says_done("New LV dysfunction on echo during MAP. Next step?")
    assert not WayIn.says_done("History of cardiomyopathy. Should MAP be given?")
    assert not WayIn.says_done("Has MAP been given?")


def test_walk_from_starts_replaces_the_root_and_ranks_by_position() -> None:
    for qtype, treatment in ((QuestionType.NEXT_STEP, None), (QuestionType.ADVISE, "blinatumomab")):
        text = cypher_from_starts(QuerySketch(qtype, "ALL", ("age", "ph"), treatment))
        assert "WHERE root.uid IN $starts" in text
        assert "NOT EXISTS { (:Node)-[:NEXT_STEP]->(root) }" not in text
        # a step before a done one, a done step, then actions passed without evidence, lose before the count of
        # stated facts used
        assert ("ORDER BY unknown ASC, positional DESC, events DESC, past ASC, done ASC, unevidenced ASC, known DESC, "
                "dead ASC, passed ASC, tested DESC" in text)
        assert "t.uid IN $before_done" in text and "r.past = ranked[0].past" in text
        # a next step said to be done gives way to the single unconditional action after it; an advised step stays
        assert ("best_t.uid IN $done" in text) is (qtype is QuestionType.NEXT_STEP)
        assert "AS unevidenced" in text and "r.unevidenced = ranked[0].unevidenced" in text
        # a stated fact tested later (not the age) is evidence for the actions before it
        assert "IN $state_keys" in text
        assert "$prefix_keys[ns[0].uid]" in text and "$prefix_passed[ns[0].uid]" in text
        # blocked question boxes are not entered; arrows of a branch that does not matter may be crossed
        assert "NOT b.uid IN $blocked_boxes" in text and "a.uid + '>' + b.uid IN $indifferent" in text


def test_conditions_query_has_no_walk() -> None:
    with pytest.raises(ValueError):
        cypher_from_starts(QuerySketch(QuestionType.CONDITIONS, "ALL", (), "blinatumomab"))


# fourth wordings set (datasets/qa/clinician_wordings_4.jsonl)

def test_a_conditions_query_for_a_patient_question_without_for_whom_is_a_next_step() -> None:
    question = "osteosarcoma tibia resected after neoadjuvant MAP necrosis 60% margins clear what now"
    sketch = QuerySketch(QuestionType.CONDITIONS, "bone", (), "map")
    grounded = ground_sketch(sketch, question, ["neoadjuvant map for 10 weeks", "map"])
    assert grounded.sketch.qtype is QuestionType.NEXT_STEP and grounded.sketch.treatment is None
    # a for-whom question stays a conditions query
    asked = ground_sketch(sketch, "For which osteosarcoma patients is MAP recommended?", ["map"])
    assert asked.sketch.qtype is QuestionType.CONDITIONS


def test_the_drug_of_a_hyphenated_option_is_a_treatment_word() -> None:
    known = ["nelarabine-containing consolidation", "methotrexate-free doxorubicin with cisplatin"]
    assert treatment_in_question("Would nelarabine be appropriate for relapsed B-ALL?", known) == "nelarabine"
    # the drug an option leaves out is not that option's word
    assert treatment_in_question("Is methotrexate right for a 70 year old?", known) is None


def test_a_regimen_given_before_is_not_the_treatment_asked_about() -> None:
    known = ["pembrolizumab + axitinib", "belzutifan", "cabozantinib"]
    question = "Is belzutifan an option for metastatic ccRCC that progressed on first-line pembrolizumab + axitinib?"
    assert asked_treatment(question, known) == "belzutifan"


def test_an_advise_query_about_the_regimen_given_before_asks_about_the_other_drug() -> None:
    known = ["pembrolizumab + axitinib", "belzutifan", "cabozantinib"]
    question = "Is belzutifan an option for metastatic ccRCC that progressed on first-line pembrolizumab + axitinib?"
    sketch = QuerySketch(QuestionType.ADVISE, "kidney", ("histology", "metastasis"), "pembrolizumab + axitinib")
    assert ground_sketch(sketch, question, known).sketch.treatment == "belzutifan"


def test_a_decoded_phrase_outside_the_asking_sentence_loses_to_the_treatment_asked_about() -> None:
    # the decoded "new lesion" shares a word with an option ('... to the lesion'), but the asking sentence names
    # samarium-153
    known = ["Samarium-153", "SBRT to each lesion", "second-line chemotherapy"]
    question = "Recurrent osteosarcoma with relapse in bone (new lesion in the pelvis). Is samarium-153 an option?"
    sketch = QuerySketch(QuestionType.ADVISE, "bone", ("disease_status",), "new lesion")
    grounded = ground_sketch(sketch, question, known, {"disease_status": "relapsed"})
    assert grounded.sketch.treatment == "samarium-153"
    assert any("asks about 'samarium-153'" in r for r in grounded.repairs)


def test_a_decoded_treatment_inside_the_asking_sentence_is_kept() -> None:
    known = ["Samarium-153", "SBRT to each lesion", "second-line chemotherapy"]
    question = "Osteosarcoma relapse in bone after samarium-153. Is SBRT to each lesion an option?"
    sketch = QuerySketch(QuestionType.ADVISE, "bone", ("disease_status",), "SBRT to each lesion")
    assert ground_sketch(sketch, question, known, {"disease_status": "relapsed"}).sketch.treatment == \
        "sbrt to each lesion"


def test_under_which_circumstances_is_a_for_whom_question() -> None:
    # w3-bone-28: a conditions query naming the disease stays one ('chondrosarcoma' is a fact word)
    question = "Under which circumstances does the pathway recommend metastasectomy or SBRT for chondrosarcoma?"
    sketch = QuerySketch(QuestionType.CONDITIONS, "bone", (), "metastasectomy")
    assert ground_sketch(sketch, question, ["metastasectomy or sbrt"]).sketch.qtype is QuestionType.CONDITIONS


# fifth wordings set (datasets/qa/clinician_wordings_5.jsonl)
def test_the_guideline_topic_and_dose_words_are_not_the_treatment_asked_about() -> None:
    known = ["referral to a bone sarcoma center", "Treat the second cancer per its own guideline or clinical trial",
             "High-dose busulfan-melphalan with stem cell rescue"]
    question = "In which patients does the bone sarcoma guideline use high-dose busulfan-melphalan?"
    assert asked_treatment(question, known) == "busulfan"


def test_every_stated_fact_but_the_course_constants_is_evidence_of_the_course() -> None:
    keys = state_keys()
    assert "performance_status" in keys and "response" in keys and "histology" in keys
    assert "age" not in keys
    assert "performance_status" not in state_keys(WalkSettings(course_constant_keys=("age", "performance_status")))


@pytest.mark.parametrize("written", ["irinotecan + temozolomide", "temozolomide/irinotecan",
                                     "Irinotecan plus temozolomide", "temozolomide and irinotecan"])
def test_a_combination_written_another_way_is_the_guideline_s_combination(written: str) -> None:
    known = [*KNOWN, "irinotecan with temozolomide", "cyclophosphamide with topotecan"]
    question = f"Ewing sarcoma relapse at 10 months, pt is 16. Is {written} an appropriate option?"
    assert combination_in_question(question, known) == "irinotecan with temozolomide"
    assert treatment_in_question(question, known) == "irinotecan with temozolomide"
    phrase, note = ground_treatment(written.lower(), question, known)
    assert phrase == "irinotecan with temozolomide"
    assert note is None or "irinotecan with temozolomide" in note


def test_one_drug_of_a_combination_is_no_combination() -> None:
    known = ["irinotecan with temozolomide"]
    assert combination_in_question("Is irinotecan alone an option?", known) is None
    assert combination_in_question("Is irinotecan with topotecan an option?", known) is None


def test_a_new_diagnosis_is_placed_only_where_a_decision_names_it() -> None:
    rows = {r["v"]: r for r in PositionTests((("disease_status", "newly_diagnosed"),
                                              ("response", "stable"))).query_rows()}
    assert rows["newly_diagnosed"]["course"] is False  # never at 'disease_status != recurrent'
    assert rows["stable"]["course"] is True  # 'response != progression' does place a stable response
    assert PositionTests.of({"disease_status": "relapsed"}).query_rows() == \
        [{"k": "disease_status", "v": "relapsed", "course": True}]
