"""The way into the pathway (dkg/qa/way_in.py): position starts a question's facts reach from a root, and the
facts that way tests (issue #17 own wordings: a partial response landing on the relapse page; a surveillance
page re-testing the histology preferred over the adjuvant step)."""

from __future__ import annotations

from dkg.qa.way_in import WayIn, way_in_facts

# root -> decision 'metastasis=none' -> question box: progression? YES -> relapse page / NO -> local control;
# the relapse page is also reached from surveillance when a recurrence is confirmed
ROWS = [
    {"a": "root", "b": "local", "arrow": [], "box": ["metastasis=none"], "action": False},
    {"a": "local", "b": "induction", "arrow": [], "box": [], "action": True},
    {"a": "induction", "b": "q_prog", "arrow": [], "box": [], "action": False},
    {"a": "q_prog", "b": "relapse_entry", "arrow": ["response=progression"], "box": [], "action": True},
    {"a": "q_prog", "b": "surgery", "arrow": ["response!=progression"], "box": [], "action": True},
    {"a": "surgery", "b": "surveillance", "arrow": [], "box": [], "action": True},
    {"a": "surveillance", "b": "relapse_entry", "arrow": ["disease_status=recurrent"], "box": [], "action": True},
    {"a": "relapse_entry", "b": "relapse_early", "arrow": [], "box": ["disease_status=relapsed"], "action": False},
    {"a": "relapse_early", "b": "second_line", "arrow": [], "box": [], "action": True},
]


def test_a_stated_response_blocks_the_way_through_another_response() -> None:
    ways = WayIn(ROWS).ways(way_in_facts({"metastasis": "none", "response": "pr"}))
    assert "surgery" in ways and "relapse_entry" not in ways


def test_an_unstated_relapse_is_never_assumed() -> None:
    ways = WayIn(ROWS).ways(way_in_facts({"metastasis": "none"}))
    assert "relapse_entry" in ways and "second_line" not in ways


def test_a_stated_relapse_opens_its_page_whatever_came_before() -> None:
    # relapsed vs the page's 'recurrent' wording, and a response stated for after the relapse, do not block
    ways = WayIn(ROWS).ways(way_in_facts({"metastasis": "none", "disease_status": "relapsed", "response": "cr"}))
    assert "second_line" in ways


def test_the_way_in_reports_the_stated_keys_it_tests_and_the_actions_it_passes() -> None:
    way = WayIn(ROWS).ways(way_in_facts({"metastasis": "none", "response": "pr"}))["surveillance"]
    assert way.keys == frozenset({"metastasis", "response"})
    assert way.actions == 3  # induction, surgery, surveillance



def test_steps_the_question_says_were_done() -> None:
    rows = [
        {"a": "path", "b": "baseline", "arrow": ["margin=negative"], "box": [], "action": True,
         "content": "Post-treatment baseline chest CT and MRI of the primary"},
        {"a": "baseline", "b": "schedule", "arrow": [], "box": [], "action": True,
         "content": "Exam, chest CT and primary-site imaging every 3-6 months (schedule set by the grade)"},
    ]
    way_in = WayIn(rows)
    assert way_in.done_steps("Margins negative. Baseline post-op CT chest and MRI done. How often now?") == {
        "baseline"}
    # one shared word is not enough, and without a done cue nothing was done
    assert way_in.done_steps("CT chest done last week") == set()
    assert way_in.done_steps("Baseline chest CT and MRI of the primary: when?") == set()


def test_a_duration_of_weeks_tells_a_step_apart() -> None:
    rows = [
        {"a": "entry", "b": "chemo", "arrow": [], "box": [], "action": True,
         "content": "MAP chemotherapy with resection of the primary tumor"},
        {"a": "chemo", "b": "restage", "arrow": [], "box": [], "action": True,
         "content": "Restaging after 10 weeks of chemotherapy"},
        {"a": "other", "b": "restage_2", "arrow": [], "box": [], "action": True,
         "content": "Restaging after induction: MRI of the primary, chest CT and PET/CT"},
    ]
    assert WayIn(rows).done_steps("Bone metastases. Restaging after 10 weeks of MAP done. Residual lesions?") == {
        "restage"}


def test_a_done_step_named_by_one_word_no_other_step_has() -> None:
    rows = [
        {"a": "entry", "b": "curettage", "arrow": [], "box": ["site=extremity"], "action": True,
         "content": "Intralesional curettage with a local adjuvant or wide excision"},
        {"a": "entry", "b": "wide", "arrow": [], "box": ["site=pelvis"], "action": True,
         "content": "Wide en bloc excision"},
        {"a": "curettage", "b": "schedule", "arrow": [], "box": [], "action": True,
         "content": "Exam and imaging every 6-12 months"},
    ]
    way_in = WayIn(rows)
    assert way_in.done_steps("Grade 1 chondrosarcoma curettage with phenol finished in 2025. Follow-up?") == {
        "curettage"}
    # a word two steps share names neither
    assert way_in.done_steps("excision done last year") == set()


def test_a_finding_the_question_reports_in_shorthand_is_a_step_passed() -> None:
    # "EKG looks like VT" reports the finding box "Probable Ventricular Tachycardia" (the lexicon spells VT out);
    # before, neither "looks" was a done cue nor an abbreviation's expansion part of the clause's words
    rows = [
        {"a": "q_width", "b": "probable_vt", "arrow": ["qrs_width=wide"], "box": [], "action": True,
         "content": "Probable Ventricular Tachycardia"},
        {"a": "probable_vt", "b": "cardioversion", "arrow": [], "box": [], "action": True,
         "content": "Synchronized cardioversion"},
    ]
    way_in = WayIn(rows)
    assert way_in.done_steps("HR 230, wide QRS. EKG looks like VT. Next step?") == {"probable_vt"}
    assert way_in.done_steps("HR 230, wide QRS. Could it be VT? Next step?") == set()


# a decision -> a question box that asks about one site only; its arrows test resectability, not the site
SITE_ROWS = [
    {"a": "entry", "b": "q_ext", "arrow": [], "box": ["site=extremity"], "action": False,
     "content": "Extremity primary: resectable?"},
    {"a": "entry", "b": "q_axial", "arrow": [], "box": ["site=axial"], "action": False,
     "content": "Axial primary: resectable?"},
    {"a": "q_ext", "b": "surgery", "arrow": ["resectable=yes"], "box": [], "action": True, "content": "Wide resection"},
    {"a": "q_axial", "b": "surgery_rt", "arrow": ["resectable=yes"], "box": [], "action": True,
     "content": "Wide resection or preoperative RT"},
]


def test_a_question_box_for_another_site_is_blocked() -> None:
    # second wordings set (w2-bone-04, L3 vertebra): the extremity box's own condition contradicts 'axial'
    way_in = WayIn(SITE_ROWS)
    assert way_in.blocked_question_boxes(way_in_facts({"site": "axial", "resectable": "yes"})) == {"q_ext"}
    assert way_in.blocked_question_boxes(way_in_facts({"resectable": "yes"})) == set()


def test_a_step_whose_every_way_on_is_blocked_is_a_dead_end() -> None:
    # w2-bone-12: the link to the recurrence page needs a recurrence (never assumed) or metastases (stated none)
    rows = [
        {"a": "unresectable", "b": "definitive_rt", "arrow": [], "box": [], "action": True, "content": "RT"},
        {"a": "unresectable", "b": "restaging", "arrow": [], "box": [], "action": True, "content": "Restaging"},
        {"a": "restaging", "b": "local", "arrow": [], "box": ["disease_status=recurrent", "metastasis=none"],
         "action": False},
        {"a": "restaging", "b": "distant", "arrow": [], "box": ["metastasis=any"], "action": False},
        {"a": "definitive_rt", "b": "baseline", "arrow": [], "box": [], "action": True, "content": "Baseline CT"},
    ]
    way_in = WayIn(rows)
    assert way_in.dead_ends(way_in_facts({"metastasis": "none"})) == {"restaging"}
    # a stated recurrence opens the way on
    assert way_in.dead_ends(way_in_facts({"metastasis": "none", "disease_status": "recurrent"})) == set()


# workup -> resectable: upfront surgery / not: biopsy first; both then branch on the histology
WILMS_ROWS = [
    {"a": "workup", "b": "surgery", "arrow": ["resectable=yes"], "box": [], "action": True, "content": "Nephrectomy"},
    {"a": "workup", "b": "biopsy", "arrow": ["resectable=no"], "box": [], "action": True, "content": "Biopsy"},
    {"a": "workup", "b": "bilateral", "arrow": [], "box": ["stage=V"], "action": False},
    {"a": "surgery", "b": "favorable", "arrow": [], "box": ["histology=favorable"], "action": False},
    {"a": "surgery", "b": "anaplasia", "arrow": [], "box": ["histology=focal_anaplasia"], "action": False},
    {"a": "biopsy", "b": "favorable", "arrow": [], "box": ["histology=favorable"], "action": False},
    {"a": "biopsy", "b": "anaplasia", "arrow": [], "box": ["histology=focal_anaplasia"], "action": False},
]


def test_a_branch_whose_every_value_leads_to_the_same_steps_does_not_need_its_key() -> None:
    # first wordings set w-kidney-20: 'favorable histology Wilms, stage 1' need not say whether it was resectable
    found = WayIn(WILMS_ROWS).indifferent(way_in_facts({"histology": "favorable", "stage": "I"}))
    assert found.arrows == {"workup>surgery", "workup>biopsy"} and found.keys == {"resectable"}
    # stated, the key is simply tested; branches that lead on differently still need it
    assert not WayIn(WILMS_ROWS).indifferent(way_in_facts({"resectable": "yes"})).arrows
    assert not WayIn(SITE_ROWS).indifferent(way_in_facts({"site": "axial"})).arrows


def test_a_single_question_box_only_restates_who_reaches_it() -> None:
    # CPG-QA generated items (UPS of bone on the osteosarcoma restaging question 'resectable?'): not blocked
    rows = [{"a": "neoadjuvant", "b": "q_res", "arrow": [], "box": ["histology=osteosarcoma"], "action": False,
             "content": "High-grade localized osteosarcoma on restaging: resectable?"},
            {"a": "q_res", "b": "surgery", "arrow": ["resectable=yes"], "box": [], "action": True,
             "content": "Surgery"}]
    assert WayIn(rows).blocked_question_boxes(way_in_facts({"histology": "ups"})) == set()


def test_a_branch_that_does_not_matter_is_not_crossed_when_nothing_stated_lies_beyond() -> None:
    # CPG-QA test items (localized grade 2 chondrosarcoma, resectable): excision, then a margins branch whose
    # both values lead to surveillance; crossing it without a stated fact beyond answered 'surveillance'
    rows = [
        {"a": "entry", "b": "excision", "arrow": [], "box": ["resectable=yes"], "action": True,
         "content": "Wide en bloc excision"},
        {"a": "excision", "b": "clear", "arrow": ["resectable=yes"], "box": [], "action": True, "content": "Observe"},
        {"a": "excision", "b": "close", "arrow": ["resectable=no"], "box": [], "action": True, "content": "Re-excise"},
        {"a": "clear", "b": "surveillance", "arrow": [], "box": [], "action": True, "content": "Surveillance"},
        {"a": "close", "b": "surveillance", "arrow": [], "box": [], "action": True, "content": "Surveillance"},
    ]
    assert not WayIn(rows).indifferent(way_in_facts({"histology": "chondrosarcoma"})).arrows


# fifth wordings set (datasets/qa/clinician_wordings_5.jsonl)
DONE_ROWS = [
    {"a": "entry", "b": "surg_chemo", "arrow": [], "box": ["performance_status<=1"], "action": True,
     "content": "Wide excision with perioperative doxorubicin and cisplatin"},
    {"a": "staging", "b": "extent", "arrow": ["metastasis=any"], "box": [], "action": True,
     "content": "Define the extent of spread: chest CT, PET/CT and bilateral marrow sampling"},
]


def test_the_clause_that_asks_reports_no_done_step() -> None:
    way_in = WayIn(DONE_ROWS)
    assert way_in.done_steps("Localised, ECOG 0 - should doxorubicin and cisplatin be given around surgery?") == set()
    assert way_in.done_steps("Doxorubicin and cisplatin given around surgery. Margins?") == {"surg_chemo"}



def test_a_list_in_brackets_is_one_clause() -> None:
    assert WayIn(DONE_ROWS).done_steps("17M, Ewing of the rib; staging done (CT chest, PET, bilateral marrow): lung "
                                       "metastases. Which induction?") == {"extent"}


def test_the_steps_before_a_done_step_are_past() -> None:
    # surgery said to be done: the steps leading to it are behind the patient, the steps after it are not
    before = WayIn(ROWS).before({"surgery"})
    assert before == {"root", "local", "induction", "q_prog"}
    assert not WayIn(ROWS).before(set())


def test_shorthand_and_the_parts_of_a_hyphenated_word_name_a_done_step() -> None:
    rows = [
        {"a": "entry", "b": "evaluation", "arrow": [], "box": [], "action": True,
         "content": "Before therapy: echocardiogram, audiogram and creatinine clearance"},
        {"a": "evaluation", "b": "restage", "arrow": [], "box": [], "action": True,
         "content": "Restaging after induction: MRI of the primary and chest CT"},
        {"a": "entry", "b": "other", "arrow": [], "box": [], "action": True,
         "content": "Audiogram after cisplatin"},
    ]
    way_in = WayIn(rows)
    # 'echo' is the lexicon's shorthand for echocardiogram: two words of the evaluation
    assert way_in.done_steps("16M, osteosarcoma. Echo and audiogram normal. Neoadjuvant plan?") == {"evaluation"}
    # 'post-induction' holds the word 'induction'
    assert way_in.done_steps("post-induction restaging done. Local control?") == {"restage"}
    assert way_in.done_steps("Audiogram normal. Neoadjuvant plan?") == set()


def test_a_note_typed_without_full_stops_asks_only_from_its_last_sentence() -> None:
    rows = [
        {"a": "entry", "b": "resection", "arrow": [], "box": [], "action": True,
         "content": "Wide resection with endoprosthesis"},
        {"a": "resection", "b": "baseline", "arrow": [], "box": [], "action": True,
         "content": "Baseline post-op CT chest and MRI"},
        {"a": "baseline", "b": "surveillance", "arrow": [], "box": [], "action": True,
         "content": "Surveillance imaging every 6 months"},
    ]
    way_in = WayIn(rows)
    question = ("Grade II chondrosarcoma margins negative Baseline post-op CT chest and MRI done How often should we "
                "image?")
    assert way_in.done_steps(question) == {"baseline"}
    assert way_in.done_steps("16M osteosarcoma Baseline post-op CT chest and MRI done Next plan?") == {"baseline"}
    # the sentence that asks reports nothing, even with a name in it
    assert not way_in.done_steps("Was the baseline post-op CT chest and MRI done for Mrs Smith?")


def test_a_complete_response_is_a_result_not_a_step_done() -> None:
    rows = [
        {"a": "entry", "b": "restage", "arrow": [], "box": [], "action": True,
         "content": "Restaging of residual lung nodules after 12 weeks"},
    ]
    way_in = WayIn(rows)
    assert not way_in.done_steps("Restaging residual lung nodules less than a complete response What next?")
    assert way_in.done_steps("Restaging of residual lung nodules completed What next?") == {"restage"}


def test_a_done_step_is_named_by_another_form_of_its_words() -> None:
    # 'primary resected' reports 'resection of the primary' (Porter stems; 'resected' is a cue that names a step)
    rows = [
        {"a": "entry", "b": "chemo", "arrow": [], "box": [], "action": True,
         "content": "MAP chemotherapy with resection of the primary tumor"},
        {"a": "chemo", "b": "restage", "arrow": [], "box": [], "action": True,
         "content": "Restaging after 10 weeks of chemotherapy"},
        {"a": "other", "b": "wide", "arrow": [], "box": [], "action": True, "content": "Wide resection"},
    ]
    way_in = WayIn(rows)
    assert way_in.done_steps("Lung metastases: primary resected, MAP completed. What now?") == {"chemo"}
    assert way_in.says_done("primary resected last month")
    # the cue alone is one word of the step: not enough
    assert way_in.done_steps("primary resected") == set()


def test_a_fact_on_another_alternative_of_an_or_is_tested_at_that_choice() -> None:
    # two parallel arrows into one event, one per alternative of an OR: a stated fact that rules out one
    # alternative ("no growth", the other arrow's key) was tested at the choice the way took
    rows = [{"a": "crit", "b": "event", "arrow": ["tumor_size>=3"], "box": [], "action": False},
            {"a": "crit", "b": "event", "arrow": ["performance_status>=2"], "box": [], "action": False},
            {"a": "crit", "b": "other", "arrow": ["age>=18"], "box": [], "action": False}]
    way = WayIn(rows).ways(way_in_facts({"tumor_size": 0.0, "performance_status": 3.0, "age": 40.0}))
    assert way["event"].keys == {"tumor_size", "performance_status"}
    assert way["other"].keys == {"age"}  # an arrow to another box is no alternative of this one
