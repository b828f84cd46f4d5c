"""Human-written clinician questions (datasets/qa/clinician_dev.jsonl) against the real Neo4j, answered by the
rule layer alone (no model: the answers below must not depend on one): clinical shorthand and negation, the
patient's course, treatment detection, out-of-scope refusals and the facts a clarifying answer asks for."""

from __future__ import annotations

import json

import pytest

from dkg.config import PROJECT_ROOT
from dkg.qa import clinician
from dkg.qa.dataset import GenConfig
from dkg.qa.service import TextToCypherService

pytestmark = [pytest.mark.neo4j]

# one item per failure class of issue #17
CASES = {
    "dev-ALL-02": "shorthand age/sex, Ph-pos, 'nothing substantial' -> comorbidity none",
    "dev-ALL-05": "no PMH, CR1, negative flow MRD: the consolidation step",
    "dev-ALL-06": "relapse, salvage back into CR, donor found: the relapse page, not the first",
    "dev-ALL-03": "'clearly not fit for anything intensive' -> substantial comorbidities",
    "dev-kidney-09": "IMDC factors, nivo/ipi given, stable disease at restaging",
    "dev-kidney-12": "nivo/ipi asked about with ECOG 2: advise 'no'",
    "dev-kidney-14": "papillary RCC reaches its own decision under non-clear-cell",
    "dev-bone-03": "recurrent chondrosarcoma, unresectable: its own recurrence page",
    "dev-bone-12": "dexrazoxane asked about (the first drug named), not doxorubicin",
    "dev-kidney-19": "a disease no guideline covers, though the kidney is named",
    "dev-ALL-19": "CLL: a disease no guideline covers",
}


@pytest.fixture(scope="module")
def items() -> dict[str, clinician.ClinicianItem]:
    return {i.id: i for i in clinician.load_items(clinician.DEV_PATH)}


@pytest.mark.parametrize("item_id", sorted(CASES))
def test_clinician_question_is_answered_by_the_rules(rules_service: TextToCypherService,
                                                     items: dict[str, clinician.ClinicianItem],
                                                     item_id: str) -> None:
    result = clinician.run(rules_service, [items[item_id]])[0]
    assert result.correct, f"{CASES[item_id]}: got {result.answer_boxes} {result.verdict} {result.no_answer_reason}"


def test_marrow_is_not_taken_for_a_treatment(rules_service: TextToCypherService) -> None:
    answer = rules_service.answer("22F, new dx Ph+ B-ALL confirmed on marrow yesterday, no PMH, otherwise well. "
                            "Plan for induction?")
    assert answer.answered and "advisable" not in answer.rows[0]
    assert "AYA" not in answer.answer and "hyper-CVAD + TKI" in answer.answer


def test_unreviewed_comorbidities_get_a_clarifying_answer(rules_service: TextToCypherService,
                                                          items: dict[str, clinician.ClinicianItem]) -> None:
    answer = rules_service.answer(items["dev-ALL-01"].question)
    assert answer.answer.startswith("Before induction")
    assert [(m.key, m.allowed) for m in answer.missing_facts] == [("comorbidity", ["none", "substantial"])]


@pytest.mark.parametrize(("question", "reason"), [
    ("What is the starting dose of dasatinib in mg for Ph+ ALL?", "dosing"),
    ("30M with Ph+ B-ALL in CR1 asks whether he can have the flu vaccine this winter", "vaccination"),
])
def test_out_of_scope_request_is_refused_with_a_reason(rules_service: TextToCypherService, question: str,
                                                        reason: str) -> None:
    answer = rules_service.answer(question)
    assert not answer.answered and not answer.matched_nodes
    assert reason in (answer.no_answer_reason or "")


def test_re_asking_with_the_missing_facts_moves_the_answer_along(rules_service: TextToCypherService) -> None:
    # the clinician page's follow-up form appends the chosen values as 'key=value' and asks again
    question = ("48 year old man, BCR-ABL1 positive B-lineage ALL on marrow; fitness and other illnesses "
                "not assessed yet. What comes before induction?")
    first = rules_service.answer(question)
    assert first.answered and "comorbidity" in [m.key for m in first.missing_facts]
    allowed = next(m.allowed for m in first.missing_facts if m.key == "comorbidity")
    assert "none" in allowed
    again = rules_service.answer(f"{question} (comorbidity=none)")
    assert again.answered and again.matched_nodes != first.matched_nodes
    assert "comorbidity" not in [m.key for m in again.missing_facts]


# Questions written for this test, independently of the clinician dev and held-out files, with the boxes the
# guideline sources give for them ('yes'/'no': the verdict of an advise answer; None: no answer expected).
OWN_WORDINGS: list[tuple[str, list[str] | str | None]] = [
    ("Sixty-eight year old woman, newly diagnosed Philadelphia chromosome positive B cell ALL, diabetic on insulin "
     "with CKD stage 4 and prior MI - clearly not fit. Which induction?", ["all2_tx_low"]),
    ("27M, Ph+ B-ALL just confirmed, no medical history to speak of. Induction regimen?", ["all2_tx_intensive"]),
    ("Ph-neg B-ALL in a 33 yo, healthy otherwise - what induction?", ["all3_tx_peds"]),
    ("Ph-negative B-ALL, achieved complete remission, MRD came back positive at 0.05 percent. Consolidation?",
     ["all5_tx_blina", "all5_tx_hct"]),
    ("Our Ph+ ALL patient relapsed on dasatinib; ABL1 mutation testing shows T315I. What are the options?",
     ["all7_tx_tki"]),
    ("T-ALL that has relapsed 14 months after diagnosis in a 25-year-old. Next step?", ["all7_tx_nel"]),
    ("Would blinatumomab be reasonable for a Ph-negative B-ALL that relapsed after consolidation?", "yes"),
    # Ph+ maintenance is "TKI maintenance ... with or without POMP": POMP is an option there, beside a TKI (the
    # answer quotes that box), not the Ph-negative "POMP maintenance" box
    ("Is POMP maintenance appropriate for Ph-positive ALL in remission?", "yes"),
    ("What dose of dasatinib do we start with in Ph+ ALL?", None),
    ("72F, 3.2 cm enhancing renal mass, cT1a N0 M0, ECOG 1. Management?", ["kid2_tx_small"]),
    ("Renal mass measuring 55 mm, stage one, no mets, in a 59 year old man. What do we offer?", ["kid2_tx_pn_rn"]),
    ("s/p radical nephrectomy for clear cell RCC, pathology high risk for recurrence. Adjuvant?", ["kid3_tx_adj"]),
    ("Stage four clear cell kidney cancer, IMDC favourable risk; which systemic therapy?", ["kid4_tx_fav"]),
    ("Stage IV papillary renal cell carcinoma. What systemic options?", ["kid5_tx_pap"]),
    ("3-year-old with bilateral Wilms tumour. Plan?", ["kid6_tx_bilat"]),
    ("Which patients should get adjuvant pembrolizumab after nephrectomy?", ["kid3_adj"]),
    ("Can you recommend a hotel near the cancer centre?", None),
    ("Ewing sarcoma of the femur, localised, 19 year old. Induction chemo?", ["b6_vdcie"]),
    ("Ewing sarcoma relapsed 30 months after diagnosis. Options?", ["b10_late_tx"]),
    ("Dedifferentiated chondrosarcoma, localized and resectable, ECOG 0: treatment?", ["b4_surg_chemo"]),
    ("Low grade chondrosarcoma of the femur, resectable, 45F. Surgery of choice?", ["b2_curettage"]),
    ("Osteosarcoma with an isolated lung relapse 30 months after diagnosis, resectable. What now?", ["b15_metast"]),
    ("How should I treat metastatic pancreatic cancer?", None),
    ("Is the shingles vaccine safe during maintenance for ALL?", None),
]


@pytest.fixture(scope="module")
def uid_boxes() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for guideline, version in GenConfig().versions:
        for box, uid in clinician.box_uids(guideline, version).items():
            out.setdefault(uid, []).append(box)
    return out


@pytest.mark.parametrize(("question", "expected"), OWN_WORDINGS, ids=[f"own-{i}" for i in range(len(OWN_WORDINGS))])
def test_own_wordings_are_answered_from_the_right_box(rules_service: TextToCypherService,
                                                      uid_boxes: dict[str, list[str]],
                                                      question: str, expected: list[str] | str | None) -> None:
    answer = rules_service.answer(question)
    if expected is None:
        assert not answer.answered and not answer.matched_nodes and answer.no_answer_reason
    elif isinstance(expected, str):
        assert clinician.verdict_of(answer) == expected, answer.answer
    else:
        assert answer.matched_nodes and all(set(uid_boxes.get(u, [])) & set(expected) for u in answer.matched_nodes), \
            [uid_boxes.get(u, u) for u in answer.matched_nodes]


def test_an_optional_add_on_is_answered_with_the_box_that_offers_it(rules_service: TextToCypherService,
                                                                    uid_boxes: dict[str, list[str]]) -> None:
    answer = rules_service.answer("Is POMP maintenance appropriate for Ph-positive ALL in remission?")
    assert clinician.verdict_of(answer) == "yes" and "TKI maintenance" in answer.answer, answer.answer
    assert all("all6_tx_tki" in uid_boxes.get(u, []) for u in answer.matched_nodes), answer.matched_nodes


# Generated questions (CPG-QA test items of an earlier file, datasets/qa/generated_regressions.jsonl) the rule layer
# once got wrong: a context sentence about vaccination was read as a vaccination request, and plain patient
# questions (no fact about the course so far) were re-ranked by the position walk (UPS of bone: the osteosarcoma
# start instead of its own branch; cardiac comorbidity: full MAP instead of omitting doxorubicin)
GENERATED_REGRESSIONS = [(r["question"], r["expected_node"]) for r in map(
    json.loads, (PROJECT_ROOT / "datasets" / "qa" / "generated_regressions.jsonl").read_text().splitlines())]


@pytest.mark.parametrize(("question", "expected_node"), GENERATED_REGRESSIONS)
def test_generated_question_keeps_the_guidelines_own_answer(rules_service: TextToCypherService, question: str,
                                                            expected_node: str) -> None:
    answer = rules_service.answer(question)
    assert answer.matched_nodes == [expected_node], (question, answer.answer, answer.no_answer_reason)
