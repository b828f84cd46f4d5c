"""An advise question whose patient reaches several steps the stated facts do not tell apart."""

from __future__ import annotations

from dkg.qa.clinician import verdict_of
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.service import TextToCypherService


def test_a_treatment_one_of_the_tied_steps_lists_is_advisable_and_that_step_answers() -> None:
    # 'relapse in bone' leads on to two steps with no condition between them; the second lists samarium-153
    service = TextToCypherService.__new__(TextToCypherService)  # ADVISE answers need no model or graph
    rows = [{"uid": "systemic", "content": "Clinical trial or second-line chemotherapy",
             "options": ["Clinical trial", "second-line chemotherapy"], "option_details": [], "advisable": False},
            {"uid": "bone_tx", "content": "Samarium-153 or SBRT or palliative radiotherapy",
             "options": ["Samarium-153", "SBRT", "palliative radiotherapy"], "option_details": [], "advisable": True}]
    sketch = QuerySketch(QuestionType.ADVISE, "bone", ("disease_status", "metastasis"), "samarium-153")
    answer = service._answer("Relapse in bone: is samarium-153 an option?", sketch, "1.2026", "", {}, rows, {})
    assert answer.answer.startswith("Yes: samarium-153 is among the recommended options. Recommended: Samarium-153")
    assert answer.matched_nodes == ["bone_tx", "systemic"]
    assert verdict_of(answer) == "yes"
    # no tied step lists it: no, and the steps keep their order
    rows = [{**row, "advisable": False} for row in rows]
    answer = service._answer("Relapse in bone: is denosumab an option?", sketch, "1.2026", "", {}, rows, {})
    assert answer.answer.startswith("No:") and answer.matched_nodes == ["systemic", "bone_tx"]
