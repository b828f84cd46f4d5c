"""The project's own clinician wordings (datasets/qa/clinician_wordings*.jsonl, development data for issue #17)
against the real Neo4j, answered by the rule layer alone: for every wordings file, one item per failure class
fixed on it, and the whole file at that file's floor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from dkg.qa import clinician
from dkg.qa.service import TextToCypherService

pytestmark = [pytest.mark.neo4j]

# the first wordings file (clinician_wordings.jsonl): one item per failure class fixed on it
CASES_1 = {
    "w-ALL-03": "an age in brackets after the person ('elderly pt (79)')",
    "w-ALL-06": "'CKD stage 4' is no cancer stage; 'so substantial comorbidities' beats the COPD listed",
    "w-ALL-08": "'BCR-ABL1 MRD' is not Ph-negative; consolidation, not the maintenance after it",
    "w-ALL-14": "'two years into CR1' is history once a relapse is stated",
    "w-ALL-18": "'not in remission' after re-induction: the relapse page's <CR, not induction's",
    "w-ALL-21": "'TKI with steroids' asked about: corticosteroids",
    "w-ALL-22": "CAR-T asked about; the age <= 25 arrow beats its sibling",
    "w-kidney-06": "a margin status means the tumour was resected",
    "w-kidney-17": "'diffuse anaplastic' wording",
    "w-bone-02": "'chondro' names chondrosarcoma and the bone guideline",
    "w-bone-11": "'stable disease' reaches the '!= progression' arrow; no relapse page without a relapse",
    "w-bone-12": "the adjuvant step, not the surveillance page re-testing the histology",
    "w-bone-17": "'high-grade OS' is osteosarcoma",
    "w-bone-18": "'necrosis only 40%'",
    "w-bone-19": "unqualified osteosarcoma is high-grade",
    "w-bone-04": "'excised en bloc', 'close margins': the step after the pathology review",
    "w-bone-09": "lung metastases in CR after induction: the restaging branch, not surveillance",
    "w-ALL-15": "an isolated CNS relapse is a relapse at a CNS site",
    "w-kidney-24": "adrenocortical carcinoma beside the kidney is another disease",
    "w-bone-10": "a femur is no pelvic or axial primary: that question box is not entered",
    "w-kidney-20": "Wilms resectability does not matter when both branches lead to the histology decision",
}

# the second wordings file (clinician_wordings_2.jsonl)
CASES_2 = {
    "w2-ALL-03": "an age between commas after a named person in a letter ('Mrs K, 67,')",
    "w2-ALL-06": "an age after 'at' in a course line; a persistent MRD beats its percentage",
    "w2-ALL-07": "an isolated CNS relapse with the lineage stated: the CNS relapse box",
    "w2-ALL-08": "'would X be right for' asks about X",
    "w2-ALL-13": "booking a test is an administrative task",
    "w2-kidney-04": "the risk restated after a recurrence is the IMDC risk",
    "w2-kidney-18": "writing to an insurer is an administrative task",
    "w2-bone-03": "'less than a complete response' is no complete response",
    "w2-bone-04": "an axial primary does not pass the extremity question box",
    "w2-bone-07": "'diagnosed 5 years ago' with a relapse now: a late relapse",
    "w2-bone-12": "the link to the recurrence page is a dead end without a recurrence",
    "w2-bone-15": "'is it reasonable to just observe': the option observation",
    "w2-ALL-19": "'2 years into TKI maintenance', MRD rising: the relapse workup, not the MRD step after induction",
    "w2-bone-09": "new LV dysfunction during MAP: omit doxorubicin, though the metastases are unstated",
}

# the third wordings file (clinician_wordings_3.jsonl, bone-weighted)
CASES_3 = {
    "w3-bone-01": "'CT thorax clear': no metastases",
    "w3-bone-02": "comorbidities in prose ('on home oxygen for COPD', 'a stroke'): substantial",
    "w3-bone-04": "'hemipelvis' is pelvic; 'tumour present at the inked margin' is a positive margin",
    "w3-bone-06": "'growing on the last two CTs': progression",
    "w3-bone-07": "'unchanged on three CTs': stable disease",
    "w3-bone-09": "'bed-bound, needs help with all personal care': ECOG 4",
    "w3-bone-11": "'capable of self-care but unable to work, up and about more than half the day': ECOG 2",
    "w3-bone-19": "'renal transplant recipient': renal comorbidity",
    "w3-bone-25": "'could we offer X' asks about X",
    "w3-ALL-02": "an age in a form field ('Age: 71')",
    "w3-ALL-05": "'MRD still 0.1%, persistent': a persistent MRD",
    "w3-ALL-07": "'after an allogeneic transplant': prior transplant",
    "w3-ALL-09": "'refractory ...: no remission' restates the refractoriness",
    "w3-kidney-02": "'very high risk for surgery' is unfitness, not a recurrence risk",
    "w3-kidney-08": "'IMDC good risk': favourable",
    "w3-kidney-09": "'ccRCC' names the kidney guideline beside 'bone' metastases",
    "w3-bone-22": "'restaging after 10 weeks of MAP done', bone metastases: the residual bone lesions",
}

# the fourth wordings file (clinician_wordings_4.jsonl: problem lists, handovers, relayed portal messages, two
# patients compared, past and present history)
CASES_4 = {
    "w4-bone-08": "two patients compared: the one asked about; 'severe COPD on home O2': substantial",
    "w4-bone-09": "'the spots on my lungs have gone completely' (a relayed portal message): complete response",
    "w4-bone-10": "'residual nodules' after induction: less than a complete response",
    "w4-bone-23": "'tumour 0.5 mm from the margin': a close margin, not a tumour size",
    "w4-bone-24": "'the primary is bigger on the post-induction MRI': progression",
    "w4-ALL-04": "a bare age between commas ('Ph neg B-ALL, 55, never had ...')",
    "w4-ALL-08": "'She is 45'",
    "w4-ALL-13": "'nelarabine' names the nelarabine-containing options (not in the answer box: no)",
    "w4-kidney-01": "'COPD GOLD 4 on LTOT': substantial comorbidities",
    "w4-kidney-06": "'responded ... but no longer - new liver metastases on the restaging CT': progression",
    "w4-kidney-08": "'the surgeon took out my whole kidney': surgery done",
    "w4-kidney-10": "'a new 2 cm brain metastasis': the site, not the tumour size",
    "w4-kidney-13": "two patients compared (Mr A, Mr B): the facts of the one asked about",
    "w4-kidney-15": "the regimen it progressed on is history; the drug asked about is the other one",
    "w4-bone-14": "MAP with the primary resected, nodules still resectable: metastasectomy, not survivorship",
    "w4-bone-25": "parosteal osteosarcoma: wide excision, not the survivorship page after it",
    "w4-ALL-07": "two unlabelled patients ('one is 30 ..., the other is 72'): the older one",
    "w4-bone-13": "LVEF fell during adjuvant MAP (new cardiomyopathy): omit doxorubicin",
    "w4-bone-18": "'finished ... (curettage with phenol, 2025)': the surveillance after it, the size unstated",
}
MIN_4 = 0.85  # shipped model 49/67 before its fixes, 60/67 after the first ones; rules only at least this (66/67 now)

# the fifth wordings file (clinician_wordings_5.jsonl: the course so far, facts not known yet)
CASES_5 = {
    "w5-bone-05": "MAP with the primary resected, restaging still resectable: metastasectomy, not the survivorship "
                  "page after it",
    "w5-ALL-13": "two unlabelled patients told apart by age: 'the older one' is the 70-year-old",
    "w5-bone-13": "'the bone sarcoma guideline' and 'high-dose' are no treatment; busulfan-melphalan is",
    "w5-kidney-03": "'s/p partial nephrectomy': the follow-up after the surgery",
    "w5-bone-10": "'haven't decided whether it is resectable': resectability unknown",
    "w5-ALL-04": "MRD rising at surveillance is the MRD now: the relapse workup, though MRD was negative before",
    "w5-ALL-02": "hypertension, well controlled: no substantial comorbidity",
    "w5-bone-01": "'a good response with no progression' passes the progression question: local control",
    "w5-bone-09": "'staging done (CT chest, PET, bilateral marrow)': the induction after the staging",
    "w5-kidney-10": "'pT3a': a pathological stage means the nephrectomy was done, so the adjuvant step",
}
MIN_5 = 0.85  # rules only 33/45 before its fixes, 35/45 after the first ones, 39/45 after session 17, 44/45 now

# the sixth wordings file (clinician_wordings_6.jsonl: bone only, ward shorthand and specimen reports)
CASES_6 = {
    "w6-bone-04": "'Femoral OS': the capitals alone name osteosarcoma (not overall survival)",
    "w6-bone-05": "'Huvos grade II' is a poor histologic response, not a grade 2 tumour",
    "w6-bone-07": "'further surgery not possible' after the resection: not re-resectable now, though the primary "
                  "was resected",
    "w6-bone-12": "'OS with lung relapse 14 months after diagnosis': the early-relapse box",
    "w6-bone-21": "'the primary grew during induction': progression at the primary site",
    "w6-bone-01": "'Echo and audiogram normal': the shorthand's own words mark the evaluation done",
    "w6-bone-37": "'high-dose busulfan-melphalan' names a regimen, not a dosing request",
}
MIN_6 = 0.8  # rules only (and model + rules) 28/39 before its fixes, 34/39 after them


@dataclass(frozen=True)
class WordingsSet:
    """One wordings file, its failure-class sample and the floor of its whole-file accuracy (rules only)."""

    path: Path
    cases: dict[str, str]
    min_accuracy: float


SETS = (
    WordingsSet(clinician.WORDINGS_PATH, CASES_1, 0.9),    # 58/80 before its fixes, 79/80 after
    WordingsSet(clinician.WORDINGS_2_PATH, CASES_2, 0.9),  # 40/63 before its fixes, 62/63 now
    WordingsSet(clinician.WORDINGS_3_PATH, CASES_3, 0.9),  # 41/64 before its fixes, 61/64 now
    WordingsSet(clinician.WORDINGS_4_PATH, CASES_4, MIN_4),
    WordingsSet(clinician.WORDINGS_5_PATH, CASES_5, MIN_5),
    WordingsSet(clinician.WORDINGS_6_PATH, CASES_6, MIN_6),
)
SAMPLE = [(s.path.stem, item_id) for s in SETS for item_id in sorted(s.cases)]


def test_every_wordings_file_has_a_sample() -> None:
    assert [s.path for s in SETS] == list(clinician.WORDINGS_PATHS)


@pytest.fixture(scope="module")
def items() -> dict[str, dict[str, clinician.ClinicianItem]]:
    return {s.path.stem: {i.id: i for i in clinician.load_items(s.path)} for s in SETS}


@pytest.mark.parametrize(("stem", "item_id"), SAMPLE, ids=[f"{stem}-{item_id}" for stem, item_id in SAMPLE])
def test_wording_class_is_answered(rules_service: TextToCypherService,
                                   items: dict[str, dict[str, clinician.ClinicianItem]], stem: str,
                                   item_id: str) -> None:
    cases = next(s.cases for s in SETS if s.path.stem == stem)
    result = clinician.run(rules_service, [items[stem][item_id]])[0]
    assert result.correct, f"{cases[item_id]}: got {result.answer_boxes} {result.verdict} {result.no_answer_reason}"


@pytest.mark.parametrize("wordings", SETS, ids=[s.path.stem for s in SETS])
def test_the_whole_wordings_file(rules_service: TextToCypherService,
                                 items: dict[str, dict[str, clinician.ClinicianItem]], wordings: WordingsSet) -> None:
    results = clinician.run(rules_service, list(items[wordings.path.stem].values()))
    accuracy = sum(r.correct for r in results) / len(results)
    assert accuracy >= wordings.min_accuracy, [r.id for r in results if not r.correct]


def test_the_done_step_is_passed(rules_service: TextToCypherService) -> None:
    # 'baseline imaging done': the surveillance schedule after it, not the baseline step itself
    item = next(i for i in clinician.load_items(clinician.DEV_PATH) if i.id == "dev-bone-10")
    assert clinician.run(rules_service, [item])[0].correct


def test_a_subtype_does_not_start_behind_an_arrow_that_excludes_another(rules_service: TextToCypherService) -> None:
    # 'histology != chromophobe' tests a course fact's way, not a subtype's: papillary RCC gets its own box, not
    # also the 'neither papillary nor chromophobe' one
    answer = rules_service.answer("Stage IV papillary renal cell carcinoma. What systemic options?")
    boxes = clinician.box_uids("kidney", "1.2026")
    assert answer.matched_nodes == [boxes["kid5_tx_pap"]]


def test_a_performance_status_measured_now_places_the_patient(rules_service: TextToCypherService) -> None:
    # ECOG 3-4 is tested only on the relapsed/refractory page: stated with a progression, it is evidence that the
    # treatment before that page was given, so the answer is the palliative step there, not the progression step
    # of the induction page (which ignores the stated ECOG)
    answer = rules_service.answer("17M with localised Ewing sarcoma of the femur, progressing on treatment, now "
                                  "ECOG 4 and mostly bed-bound. What now?")
    boxes = clinician.box_uids("bone", "1.2026")
    assert answer.matched_nodes == [boxes["b10_pall"]]


def test_a_drug_named_in_an_option_s_footnote_is_that_option(rules_service: TextToCypherService) -> None:
    # 'second-line chemotherapy (Options include irinotecan with temozolomide, ...)': the combination, written
    # with '+' or '/', is advisable where the step recommends second-line chemotherapy, and not at diagnosis
    item = next(i for i in clinician.load_items(clinician.DEV_PATH) if i.id == "dev-bone-15")
    assert clinician.run(rules_service, [item])[0].correct
    relapse = rules_service.answer("16yo, Ewing sarcoma relapsed 10 months after diagnosis. Would "
                                   "temozolomide/irinotecan be reasonable?")
    assert clinician.verdict_of(relapse) == "yes", relapse.answer
    assert "footnote" in relapse.answer
    diagnosis = rules_service.answer("16yo, newly diagnosed localised Ewing sarcoma of the tibia, no metastases. "
                                     "Is irinotecan + temozolomide appropriate?")
    assert clinician.verdict_of(diagnosis) == "no", diagnosis.answer


def test_a_new_diagnosis_starts_at_the_beginning_of_the_pathway(rules_service: TextToCypherService) -> None:
    # 'recurrence confirmed? NO' after surveillance tests disease_status != recurrent, which a new diagnosis
    # passes too; it is no place for a patient just diagnosed (course_events.onset)
    answer = rules_service.answer("16yo, newly diagnosed localised Ewing sarcoma of the tibia, no metastases. "
                                  "What next?")
    boxes = clinician.box_uids("bone", "1.2026")
    assert answer.matched_nodes == [boxes["b6_vdcie"]]


def test_a_step_said_to_be_done_with_s_p_is_passed(rules_service: TextToCypherService) -> None:
    # 's/p' says the nephrectomy was done, so the follow-up comes after it
    boxes = clinician.box_uids("kidney", "1.2026")
    follow_up = rules_service.answer("57M s/p radical nephrectomy for a stage II clear cell RCC, margins negative, "
                                     "intermediate risk. What follow-up?")
    assert follow_up.matched_nodes == [boxes["kid3_surv"]]


def test_a_value_that_changes_over_the_course_is_the_value_now(rules_service: TextToCypherService) -> None:
    # the MRD was negative after induction (the only way to maintenance); rising now, at surveillance, is a relapse
    answer = rules_service.answer("41M, Ph-negative B-ALL in first remission, currently on POMP maintenance. "
                                  "Latest marrow: MRD now rising. Next step?")
    boxes = clinician.box_uids("ALL", "1.2026")
    assert answer.matched_nodes == [boxes["all7_workup"]]


def test_a_cardiac_dysfunction_during_chemotherapy_places_the_patient_but_not_one_at_diagnosis(
        rules_service: TextToCypherService) -> None:
    boxes = clinician.box_uids("bone", "1.2026")
    # a finding of the course: the cardiac branch after the resection specimen, though metastases are unstated
    during = rules_service.answer("Osteosarcoma of the tibia, 14M; currently on MAP, echo shows a new drop in "
                                  "ejection fraction (cardiac dysfunction). How to proceed?")
    assert during.matched_nodes == [boxes["b13_omit_dox"]]
    # the same finding with no step said to be under way is one at diagnosis: the first treatment
    at_diagnosis = rules_service.answer("Osteosarcoma of the femur, 16M, localized, history of cardiomyopathy. "
                                        "What is the first step?")
    assert at_diagnosis.matched_nodes == [boxes["b12_map"]]


def test_the_walk_starts_at_a_done_step_whatever_the_decisions_before_it_tested(
        rules_service: TextToCypherService) -> None:
    boxes = clinician.box_uids("bone", "1.2026")
    # the size and cortical breach that chose the curettage are unstated; the curettage being done says they held
    done = rules_service.answer("Low-grade chondrosarcoma of the humerus; intralesional curettage with cryotherapy "
                                "completed last spring. What imaging schedule from here?")
    assert done.matched_nodes == [boxes["b16_low_sched"]]
    # planned is not done: the workup that decides on it
    planned = rules_service.answer("Grade 1 chondrosarcoma of the femur, curettage with phenol planned. "
                                   "What comes next?")
    assert planned.matched_nodes == [boxes["b2_entry"]]


def test_the_step_after_a_done_step_is_the_answer_when_nothing_decides_between(
        rules_service: TextToCypherService) -> None:
    # the extent-of-spread workup is said to be done and one unconditional arrow leads on: the induction
    answer = rules_service.answer("Ewing sarcoma of the pelvis in a 19-year-old, bone metastases. Chest CT, PET "
                                  "and bilateral marrow sampling performed. What now?")
    boxes = clinician.box_uids("bone", "1.2026")
    assert answer.matched_nodes == [boxes["b9_chemo"]]
