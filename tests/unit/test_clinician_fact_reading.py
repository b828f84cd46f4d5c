"""Failure classes of the own-wording clinician questions (datasets/qa/clinician_wordings.jsonl, issue #17) in
reading patient facts: each test names the class, with wordings that are not the dataset's."""

from __future__ import annotations

import pytest

from dkg.lexicon.clinical import implied_facts
from dkg.qa.facts import compared_age, detect_guidelines, extract_facts


def facts(question: str) -> dict[str, float | str]:
    return implied_facts(extract_facts(question))


@pytest.mark.parametrize(("question", "age"), [
    ("Frail pt (83) with Ph+ ALL, what induction?", 83.0),
    ("a gentleman (67) with a renal mass", 67.0),
    ("boy (9) with Wilms tumour", 9.0),
])
def test_an_age_in_brackets_after_the_person_is_read(question: str, age: float) -> None:
    assert facts(question)["age"] == age


@pytest.mark.parametrize(("question", "key"), [
    ("Ph- B-ALL in a 61M with CKD stage 4 on dialysis planning", "stage"),
    ("chronic kidney disease stage 3 and Ph+ ALL", "stage"),
    ("clear cell RCC, Fuhrman grade 3, 5 cm, stage I", "grade"),
])
def test_another_scale_is_not_the_cancer_stage_or_grade(question: str, key: str) -> None:
    assert key not in facts(question) or key == "stage" and facts(question)[key] == "I"


def test_the_cancer_stage_beside_another_scale_is_still_read() -> None:
    assert facts("stage III Wilms tumour, CKD stage 2")["stage"] == "III"


@pytest.mark.parametrize("question", [
    "Ph-neg B-ALL, 60F, COPD on home O2 and insulin-dependent diabetes, so substantial comorbidities. Induction?",
    "Ewing sarcoma, 55M, heart failure, renal impairment and significant comorbidities overall",
])
def test_a_summary_of_the_comorbidities_wins_over_the_ones_listed(question: str) -> None:
    assert facts(question)["comorbidity"] == "substantial"


def test_one_listed_comorbidity_alone_is_kept() -> None:
    assert facts("Ewing sarcoma of the rib, 50M with heart failure")["comorbidity"] == "cardiac"


@pytest.mark.parametrize(("question", "ph"), [
    ("End of induction BCR-ABL1 MRD undetectable in this Ph+ ALL", "+"),
    ("B-ALL, bcr-abl1- on FISH", "-"),
])
def test_a_wording_ending_in_a_sign_needs_the_sign(question: str, ph: str) -> None:
    assert facts(question)["ph"] == ph


@pytest.mark.parametrize(("question", "necrosis"), [
    ("Osteosarcoma after resection: necrosis only 40%, margins negative", 40.0),
    ("necrosis was about 95 % in the specimen", 95.0),
    ("70 percent tumour necrosis", 70.0),
])
def test_percent_necrosis_with_words_between(question: str, necrosis: float) -> None:
    assert facts(question)["necrosis"] == necrosis


@pytest.mark.parametrize(("question", "key", "value"), [
    ("Low grade chondro of the scapula", "histology", "chondrosarcoma"),
    ("focally anaplastic Wilms, stage I", "histology", "focal_anaplasia"),
    ("Wilms, diffuse anaplastic, stage III", "histology", "diffuse_anaplasia"),
    ("high-grade OS of the tibia, localised", "histology", "osteosarcoma"),
    ("the specimen shows a positive margin", "margin", "positive"),
    ("close margin on the final pathology", "margin", "close"),
    ("grade 2 chondrosarcoma excised last month", "prior_therapy", "surgery"),
    ("Ph- ALL; he has major comorbidities", "comorbidity", "substantial"),
    ("parosteal osteosarcoma of the femur", "grade", "low"),
    ("periosteal osteosarcoma of the tibia", "grade", "intermediate"),
])
def test_clinicians_wordings_of_facts(question: str, key: str, value: str) -> None:
    assert facts(question)[key] == value


def test_a_guideline_is_implied_by_its_wordings_and_the_values_only_it_tests() -> None:
    assert detect_guidelines("58 y/o with high-grade OS of the humerus") == ["bone"]
    assert detect_guidelines("Low grade chondro in the iliac wing") == ["bone"]
    assert detect_guidelines("What is the OS benefit of pembrolizumab in RCC?") == ["kidney"]
    assert detect_guidelines("Ph-like B-ALL genetics") == ["ALL"]
    # values only one guideline tests disagree (a surgery done: kidney); the one naming the disease decides
    assert detect_guidelines("Proximal humerus OS, post-MAP resection with a positive margin; further surgery not "
                             "possible. Plan?") == ["bone"]
    assert detect_guidelines("positive margin after resection") == ["kidney"]


@pytest.mark.parametrize(("question", "implied"), [
    # a margin status exists only for a resection specimen
    ("chondrosarcoma of the femur, margins clear", {"prior_therapy": "surgery", "resectable": "yes"}),
    # conventional osteosarcoma is high-grade; a named low-grade variant keeps its grade
    ("osteosarcoma of the femur with lung mets", {"grade": "high"}),
    ("low-grade central osteosarcoma", {"grade": "low"}),
])
def test_implied_facts(question: str, implied: dict[str, str]) -> None:
    found = facts(question)
    assert {k: found.get(k) for k in implied} == implied


def test_the_first_remission_is_history_once_a_relapse_is_stated() -> None:
    assert "response" not in facts("45 yo, first relapse of Ph- B-ALL two years into CR1. Options?")
    assert facts("Ph+ ALL relapsed on imatinib, re-induced with ponatinib and now back in CR")["response"] == "cr"
    # without a relapse, CR1 is where the patient is
    assert facts("Ph- B-ALL in CR1, MRD negative")["response"] == "cr"


@pytest.mark.parametrize(("question", "age"), [
    ("Dear Dr Patel, I reviewed Mrs K, 67, in clinic today with Ph- B-ALL.", 67.0),
    ("Clinic letter: Ms T, now 26, had Ewing sarcoma of the pelvis.", 26.0),
    ("Course so far: Ph+ B-ALL at 45, no comorbidities.", 45.0),
])
def test_an_age_in_a_letter_or_a_course_line_is_read(question: str, age: float) -> None:
    # second wordings set (w2-ALL-03, w2-bone-07, w2-ALL-06)
    assert facts(question)["age"] == age


@pytest.mark.parametrize(("question", "age"), [
    ("Induction for an elderly pt 79 with newly diagnosed Philadelphia positive B-lineage ALL?", 79.0),
    ("Dear Dr Patel I reviewed Mrs K 67 in clinic today She has Ph- B-ALL", 67.0),
    ("Handover bed 12 Mrs P 52 Ph-neg B-ALL day 29 marrow in CR", 52.0),
    ("consistent with RCC no adenopathy cT1a N0 M0 Patient 62 Management?", 62.0),
    ("chest clear (cT1a N0 M0). Patient 62. Management?", 62.0),  # a full stop ends the age
    ("Handover: Mr B 71, Ph+ ALL", 71.0),
])
def test_an_age_after_the_person_is_read_without_commas(question: str, age: float) -> None:
    # development questions typed without punctuation (bench/qa_robustness.py): w-ALL-03, w2-ALL-03, w4-ALL-02,
    # w3-kidney-01
    assert facts(question)["age"] == age


@pytest.mark.parametrize("question", ["patient 2 has pT3a, high risk", "pt 45 cycles in", "Mr B 12 cm mass",
                                      "patient 14 months after nephrectomy", "pt 12.5 kg"])
def test_a_number_after_the_person_that_is_no_age_is_not_read(question: str) -> None:
    assert "age" not in facts(question)


@pytest.mark.parametrize("question", ["relapse at 20 months, MRD 0.1%", "MRD at 0.1% and CR at 3 months"])
def test_at_before_a_duration_or_a_percentage_is_no_age(question: str) -> None:
    assert "age" not in facts(question)


def test_an_isolated_cns_relapse_is_a_relapse_at_a_cns_site() -> None:
    found = facts("Ph-negative B-ALL in CR1, blasts in the CSF, marrow clear. Isolated CNS relapse. Plan?")
    assert (found["disease_status"], found["metastasis"]) == ("relapsed", "cns")


@pytest.mark.parametrize(("question", "response"), [
    ("restaging: residual lung nodules, less than a complete response", "less_than_cr"),
    ("lung metastases that have completely resolved after induction", "cr"),
])
def test_response_wordings_of_a_course_narrative(question: str, response: str) -> None:
    assert facts(question)["response"] == response


@pytest.mark.parametrize(("question", "key", "value"), [
    ("T-lymphoblastic leukaemia, 33 y/o, in remission", "lineage", "t_cell"),
    ("new LV dysfunction on echo during MAP", "comorbidity", "cardiac"),
    ("Ewing sarcoma diagnosed 5 years ago, now a relapse in the lungs", "time_to_relapse", 60.0),
    ("CR, but BCR-ABL1 MRD persistent at 0.1%", "mrd", "persistent"),
])
def test_second_set_wordings_of_a_fact(question: str, key: str, value: float | str) -> None:
    assert facts(question)[key] == value


def test_a_value_stated_before_a_recurrence_and_again_after_it_is_history() -> None:
    # w2-kidney-04: the recurrence risk after nephrectomy, then the IMDC risk of the recurrence
    question = ("2025 - nephrectomy for clear-cell RCC, high risk of recurrence. Now biopsy: recurrent clear cell "
                "RCC. IMDC intermediate, ECOG 0.")
    assert facts(question)["risk"] == "intermediate"
    # stated once, before the event, it stays
    assert facts("high risk clear-cell RCC, now a recurrence in the lung")["risk"] == "high"


def test_an_implied_relapse_makes_the_first_remission_history() -> None:
    # w2-ALL-07: 'in CR1 ... Isolated CNS relapse': the relapse is implied by the CNS site, CR1 is the past
    found = facts("Ph-negative B-ALL, in CR1 on POMP maintenance. Isolated CNS relapse. Plan?")
    assert found["disease_status"] == "relapsed" and "response" not in found


# third wordings set (datasets/qa/clinician_wordings_3.jsonl): one test per failure class, other wordings

@pytest.mark.parametrize(("question", "ps"), [
    ("Ewing sarcoma, now bedridden and needing help with all personal care", 4.0),
    ("chondrosarcoma with lung mets; confined to bed or chair more than 50% of waking hours", 3.0),
    ("osteosarcoma, able to self-care but unable to work, up and about over half the day", 2.0),
    ("RCC, restricted in strenuous activity, otherwise well", 1.0),
    ("grade 2 chondrosarcoma in a 40M who is fully active", 0.0),
])
def test_performance_status_in_the_words_of_the_ecog_scale(question: str, ps: float) -> None:
    assert facts(question)["performance_status"] == ps


@pytest.mark.parametrize("question", [
    "Ph+ B-ALL, 60M, needs home oxygen for emphysema. Induction?",
    "Ewing sarcoma, 55F, on haemodialysis three times a week",
    "renal mass 3 cm, stage I; anaesthetics consider him very high risk for surgery",
])
def test_comorbidities_in_prose_are_substantial(question: str) -> None:
    assert facts(question)["comorbidity"] == "substantial"


def test_a_surgical_risk_is_no_recurrence_risk() -> None:
    assert "risk" not in facts("2 cm renal mass, stage I, high risk for surgery per anaesthetics")


def test_a_transplanted_kidney_and_a_low_clearance_are_renal_comorbidity() -> None:
    assert facts("localised high-grade osteosarcoma; kidney transplant recipient")["comorbidity"] == "renal"


@pytest.mark.parametrize(("question", "key", "value"), [
    ("Referral\nAge: 66\nDiagnosis: Ph-negative B-ALL", "age", 66.0),
    ("grade 2 chondrosarcoma, CT chest clear, resectable", "metastasis", "none"),
    ("low-grade chondrosarcoma of the ilium", "site", "pelvis"),
    ("Ewing sarcoma of the left fibula", "site", "extremity"),
    ("resection: sarcoma extends to the deep margin", "margin", "positive"),
    ("partial nephrectomy, positive renal-sinus margin", "margin", "positive"),
    ("partial nephrectomy, negative parenchymal margin", "margin", "negative"),
    ("metastatic chondrosarcoma, nodules enlarging on serial CT", "response", "progression"),
    ("lung metastases unchanged over the last year of scans", "response", "stable"),
    ("Ph+ ALL, MRD after blinatumomab 0.05%, persisting", "mrd", "persistent"),
    ("B-ALL, two years post-allograft, starting maintenance", "prior_therapy", "transplant"),
    ("metastatic clear cell RCC, IMDC good-risk", "risk", "favorable"),
])
def test_third_set_wordings_of_a_fact(question: str, key: str, value: float | str) -> None:
    assert facts(question)[key] == value


def test_a_named_kidney_histology_outweighs_an_organ_word_of_the_spread() -> None:
    # 'ccRCC' names renal cell carcinoma; 'bone' there is where it spread
    assert detect_guidelines("Metastatic ccRCC to bone and liver, IMDC intermediate. First line?") == ["kidney"]


def test_no_remission_that_defines_refractory_disease_is_no_later_response() -> None:
    found = facts("Ph-neg B-ALL, 50M, refractory to induction - no remission after two cycles. Options?")
    assert found["disease_status"] == "refractory" and "response" not in found
    # a response to the next line, in a sentence of its own, is still read
    later = facts("Refractory Ph-neg B-ALL. After blinatumomab there is no remission. Next?")
    assert later["response"] == "less_than_cr"


# fourth wordings set (datasets/qa/clinician_wordings_4.jsonl): one test per failure class, other wordings

@pytest.mark.parametrize(("question", "age"), [
    ("He is 61, relapsed Ph+ B-ALL after imatinib. Options?", 61.0),
    ("Ph-pos B-ALL, 38, no medical problems. Induction?", 38.0),
    ("Dedifferentiated chondrosarcoma, 70, localised; ECOG 2", 70.0),
])
def test_an_age_after_he_or_she_is_or_bare_between_commas(question: str, age: float) -> None:
    assert facts(question)["age"] == age


@pytest.mark.parametrize("question", [
    "grade 2 chondrosarcoma, stage 2, 45 mm",  # a stage, not an age
    "Ewing sarcoma after cycles 4, 5, 6 of VDC/IE",
])
def test_a_number_between_commas_after_a_scale_word_is_no_age(question: str) -> None:
    assert "age" not in facts(question)


@pytest.mark.parametrize("question", [
    "2 cm renal mass, stage I, severe COPD on home O2",
    "Ph+ ALL, 58M, COPD GOLD 4 on LTOT",
    "osteosarcoma in a man with CKD stage 5 and long-term oxygen",
])
def test_severe_organ_disease_in_shorthand_is_substantial(question: str) -> None:
    assert facts(question)["comorbidity"] == "substantial"


@pytest.mark.parametrize(("question", "margin"), [
    ("Ewing resection: tumour 0.8 mm from the deep margin", "close"),
    ("chondrosarcoma excised, tumour within 1 mm of the margin", "close"),
    ("osteosarcoma resected, 15 mm clear of the nearest margin, 95% necrosis", "negative"),
])
def test_a_distance_from_the_margin_is_a_margin_status_not_a_tumour_size(question: str, margin: str) -> None:
    found = facts(question)
    assert found["margin"] == margin and "tumor_size" not in found


@pytest.mark.parametrize("question", [
    "localised Ewing of the femur: primary larger on the restaging MRI",
    "chondrosarcoma lung nodules bigger at the 3-month CT",
    "the pelvic mass has grown despite chemotherapy",
    "ccRCC on cabozantinib: new bone lesions on the 12-week CT",
    "clear cell RCC on sunitinib, responded at first but no longer",
])
def test_growth_new_lesions_on_restaging_and_a_lost_response_are_progression(question: str) -> None:
    assert facts(question)["response"] == "progression"


def test_no_longer_negates_nothing_after_it() -> None:
    found = facts("Metastatic ccRCC, responding to nivolumab no longer - new liver metastases on restaging CT")
    assert found.get("metastasis") != "none"


def test_lesions_gone_completely_in_lay_words_are_a_complete_response() -> None:
    assert facts("Ewing sarcoma with lung mets: after VDC/IE the lung spots are gone completely")["response"] == "cr"


@pytest.mark.parametrize(("question", "site"), [
    ("papillary RCC, now a solitary 1.5 cm brain metastasis", "brain"),
    ("osteosarcoma: a single 9 mm lung nodule at restaging", "lung"),
])
def test_one_metastasis_with_its_size_names_the_site_not_the_tumour_size(question: str, site: str) -> None:
    found = facts(question)
    assert found["metastasis"] == site and "tumor_size" not in found


def test_an_organ_taken_out_in_a_patients_words_is_surgery() -> None:
    assert facts("'they took out my whole kidney last month, report says clear cell'")["prior_therapy"] == "surgery"


def test_a_pathological_t_category_means_the_tumour_was_taken_out() -> None:
    read = facts("55M, clear cell RCC, pT3a N0, high risk of recurrence")
    # the same words state the stage too
    assert (read["prior_therapy"], read["stage"]) == ("surgery", "III")
    # a clinical category, or 'Pt' for patient, says nothing about surgery
    assert "prior_therapy" not in facts("62F, renal mass cT1b, clear cell on biopsy")
    assert "prior_therapy" not in facts("Pt 2 has clear cell RCC, T1a")


@pytest.mark.parametrize(("question", "key", "value"), [
    ("Pt A: 30M, fit. Pt B: 79M, Ph+ B-ALL, frail. Induction for Pt B?", "age", 79.0),
    ("Pt 1 has grade 1 chondrosarcoma; pt 2 has grade 3 chondrosarcoma, resectable. What for pt 2?", "grade", "high"),
    ("Mrs A is stage I; Mrs B is stage III, ECOG 1. What about Mrs A?", "stage", "I"),
])
def test_two_patients_compared_the_facts_are_the_asked_ones(question: str, key: str, value: float | str) -> None:
    assert facts(question)[key] == value


@pytest.mark.parametrize(("question", "key", "value"), [
    ("pt a 30m fit pt b 79m ph+ b-all frail induction for pt b?", "age", 79.0),
    ("mrs a is stage i; mrs b is stage iii, ecog 1. what about mrs b?", "stage", "III"),
    ("case c has grade 1 chondrosarcoma, case d grade 3 chondrosarcoma. what for case d?", "grade", "high"),
])
def test_two_patients_labelled_in_lower_case_are_told_apart(question: str, key: str, value: float | str) -> None:
    # typed in lower case (bench/qa_robustness.py: w4-kidney-13)
    assert facts(question)[key] == value


def test_a_lone_lower_case_letter_after_a_title_is_no_patient_label() -> None:
    # 'case a' and 'miss a' are ordinary words; only a second letter with the same title makes them labels
    assert facts("ewing sarcoma, grade 3. in case a relapse occurs, pt 2 would miss a dose?")["grade"] == "high"


def test_one_labelled_patient_keeps_every_fact() -> None:
    assert facts("Pt A is 45 with a 3 cm grade 1 chondrosarcoma. Plan?")["age"] == 45.0


def test_residual_disease_after_induction_is_less_than_a_complete_response() -> None:
    assert facts("Ewing sarcoma, lung mets at dx; after VDC/IE residual nodules on CT")["response"] == "less_than_cr"


# fifth wordings set (datasets/qa/clinician_wordings_5.jsonl): two unlabelled patients told apart by age
def test_the_older_one_is_the_patient_with_the_larger_age() -> None:
    question = "Two Ph-negative B-ALL referrals: one is 25, the other is 70. What induction for the older one?"
    assert extract_facts(question)["age"] == 70.0
    assert extract_facts("Two with Ewing sarcoma, one is 30 yo and the other 72 years old; plan for the younger one?"
                         )["age"] == 30.0


def test_an_age_comparison_needs_two_ages_and_the_question_to_ask_by_age() -> None:
    assert compared_age("One is 30. Which of the options for the older one?") is None
    assert compared_age("one is 25, the other is 70. Plan for both?") is None


@pytest.mark.parametrize("question", [
    "Ewing sarcoma, neither lung nor bone mets. Plan?",
    "Ewing sarcoma of the femur, mets: none. Plan?",
    "Ewing sarcoma of the femur; metastases: no. Plan?",
])
def test_metastases_said_to_be_absent_are_none(question: str) -> None:
    assert facts(question)["metastasis"] == "none"


def test_neither_negates_only_its_own_clause() -> None:
    assert facts("Ewing sarcoma, lung mets but neither bone nor marrow disease. Plan?")["metastasis"] == "lung"


@pytest.mark.parametrize("question", [
    "Wilms tumour in a 4 yo; the surgeons are not sure yet whether it can be resected. Next step?",
    "Grade 2 chondrosarcoma of the sacrum. The surgeons haven't decided whether it is resectable. Next?",
])
def test_a_fact_after_whether_is_not_stated(question: str) -> None:
    assert "resectable" not in facts(question)


@pytest.mark.parametrize(("question", "site"), [
    ("Recurrent osteosarcoma with relapse in bone (new lesion in the pelvis). Next?", "bone"),
    ("Ewing sarcoma, recurrence in the lungs 30 months after diagnosis. Next?", "lung"),
])
def test_the_site_after_a_relapse_is_the_metastasis(question: str, site: str) -> None:
    assert facts(question)["metastasis"] == site


@pytest.mark.parametrize("question", [
    "58 yo F, Ph+ B-ALL. PMH: hypertension, well controlled on amlodipine - nothing else of note.",
    "67M with Ph-negative ALL and well-controlled type 2 diabetes, no other medical problems.",
])
def test_a_controlled_chronic_condition_is_no_substantial_comorbidity(question: str) -> None:
    assert facts(question)["comorbidity"] == "none"


def test_a_substantial_comorbidity_beside_a_controlled_one_wins() -> None:
    stated = "62F, Ph+ ALL, controlled hypertension but severe COPD on home oxygen."
    assert facts(stated)["comorbidity"] == "substantial"
    assert "comorbidity" not in facts("Ph+ ALL, hypertension poorly controlled on three drugs.")


def test_a_controlled_condition_alone_says_nothing_about_the_others() -> None:
    assert "comorbidity" not in facts("A 65-year-old man has T-cell ALL. Hypertension is well controlled.")


def test_a_good_response_in_words_is_a_good_response() -> None:
    assert facts("Ewing sarcoma, restaging after 12 weeks shows a good response, no progression.")["response"] == "good"


def test_a_recurrence_also_called_a_relapse_is_the_relapse() -> None:
    stated = facts("Recurrent osteosarcoma with relapse in bone (new lesion in the pelvis). Is samarium-153 an option?")
    assert (stated["disease_status"], stated["metastasis"]) == ("relapsed", "bone")
    assert facts("Osteosarcoma, local recurrence 3 years out, no metastases.")["disease_status"] == "recurrent"


# sixth wordings set (datasets/qa/clinician_wordings_6.jsonl): ward shorthand for the histology, specimen reports
@pytest.mark.parametrize(("question", "histology"), [
    ("Tibial OS, post-op. Next?", "osteosarcoma"),
    ("OS pt with new lung nodules", "osteosarcoma"),
    ("ES of the rib, localized", "ewing"),
    ("DDCS of the pelvis", "dedifferentiated"),
])
def test_the_capitals_alone_name_the_histology(question: str, histology: str) -> None:
    assert facts(question)["histology"] == histology


@pytest.mark.parametrize("question", [
    "femoral os, limb salvage after neoadjuvant map. path: 95% necrosis. what's next?",
    "proximal humerus os, post-map resection with a positive margin. plan?",
    "os with lung relapse 14 months after diagnosis, the nodules can be resected. plan?",
])
def test_os_typed_in_lower_case_beside_a_bone_or_a_relapse_site_is_osteosarcoma(question: str) -> None:
    # sixth wordings set typed in lower case (bench/qa_robustness.py): w6-bone-04, -07, -12
    assert facts(question)["histology"] == "osteosarcoma"


@pytest.mark.parametrize("question", [
    "median os with nivolumab in metastatic rcc?",
    "What is the median OS benefit of adjuvant pembrolizumab after nephrectomy?",
    "Does sunitinib improve OS?",
    "PFS and OS for cabozantinib in poor-risk RCC",
    "any data on os and lymph nodes",  # lower case: an ordinary word
    "es ist nicht klar",
])
def test_overall_survival_and_lower_case_words_are_no_histology(question: str) -> None:
    assert "histology" not in facts(question)


@pytest.mark.parametrize(("question", "response"), [
    ("resection specimen: Huvos grade II, margins clear", "poor"),
    ("Huvos III after MAP", "good"),
    ("huvos grade 4, negative margins", "good"),
])
def test_a_huvos_grade_is_the_histologic_response_not_the_tumour_grade(question: str, response: str) -> None:
    read = facts(question)
    assert read["response"] == response
    assert "grade" not in read


def test_a_tumour_that_grew_during_a_treatment_progressed() -> None:
    assert facts("the primary grew during induction")["response"] == "progression"
    assert facts("tumour enlarged on VDC/IE")["response"] == "progression"
    assert "response" not in facts("she grew up in Leeds, Ewing sarcoma of the femur")


@pytest.mark.parametrize("question", [
    "post-MAP resection, positive margin; further surgery not possible",
    "margin involved and re-resection not feasible",
    "close margin, cannot be re-resected",
])
def test_no_further_surgery_is_not_resectable(question: str) -> None:
    assert facts(question)["resectable"] == "no"


# notes typed without punctuation (bench/qa_robustness.py): a negation whose words already gave a fact ends there
@pytest.mark.parametrize(("question", "stated"), [
    ("grade 2 chondrosarcoma of the femur no mets on CT chest resectable plan?",
     {"metastasis": "none", "resectable": "yes"}),
    ("no PMH fit for chemo", {"comorbidity": "none"}),
    ("no mets not resectable", {"metastasis": "none", "resectable": "no"}),
    ("chondrosarcoma, no mets, not resectable", {"metastasis": "none", "resectable": "no"}),
    ("no comorbidities not fit for intensive therapy", {"comorbidity": "substantial"}),
])
def test_a_negation_ends_at_the_fact_its_words_gave(question: str, stated: dict[str, str]) -> None:
    found = facts(question)
    assert {k: found.get(k) for k in stated} == stated


@pytest.mark.parametrize(("question", "stage"), [
    ("renal mass no lymphadenopathy ct2a n0 m0", "II"),
    ("without adenopathy t1b", "I"),
    ("left kidney lesion no nodal disease on ct pT3a", "III"),
])
def test_a_tnm_stage_after_a_denial_is_read(question: str, stage: str) -> None:
    # a stage is a place on a scale, not a finding a cue denies (no punctuation: w3-kidney-01)
    assert facts(question)["stage"] == stage


def test_a_tnm_stage_ends_the_scope_of_a_denial_before_it() -> None:
    assert facts("no adenopathy ct1b resectable")["resectable"] == "yes"
    # right after the cue it is denied, as any wording is
    assert "stage" not in facts("renal mass, not stage iv, ecog 1")


def test_a_negated_list_goes_on_with_or() -> None:
    assert "resectable" not in facts("no mets or resectable disease")


@pytest.mark.parametrize("question", [
    "Ewing sarcoma, restaging after 12 weeks shows no progression. Local control?",
    "osteosarcoma, no evidence of progression on the interval CT",
    "metastatic ccRCC on cabozantinib without progression at 6 months",
])
def test_no_progression_is_not_progressed_and_no_particular_response(question: str) -> None:
    # 'no progression' is a response or stable disease: it passes 'response != progression' arrows and names
    # none of cr / pr / stable
    assert facts(question)["response"] == "non_progression"


@pytest.mark.parametrize("question", ["ES of the pelvis after induction, stable locally", "the primary remains stable"])
def test_a_primary_said_stable_is_stable_disease(question: str) -> None:
    assert facts(question)["response"] == "stable"
