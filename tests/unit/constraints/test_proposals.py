"""Proposed keys for conditions the vocabulary does not know, and YES/NO branch constraints."""

from __future__ import annotations

import pytest

from dkg.constraints.proposals import branch, branch_condition, condition_of, slug
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, reload_vocabulary


@pytest.fixture(autouse=True)
def base_vocabulary_only(tmp_path):  # type: ignore[no-untyped-def]
    """Proposals are what the base vocabulary lacks; a shipped onboarded guideline (cardiac-smog) defines some of
    these keys (heart_rate reads 'HR'), so they are read without the onboarded guidelines' vocabularies."""
    for path in GUIDELINES_ROOT.glob(f"*/{GUIDELINE_FILE}"):
        if not (path.parent / "topic.yaml").is_file():  # shipped guidelines with sources, not onboarded ones
            (tmp_path / path.parent.name).mkdir()
            (tmp_path / path.parent.name / GUIDELINE_FILE).write_text(path.read_text())
    reload_vocabulary(root=tmp_path)
    yield
    reload_vocabulary()


@pytest.mark.parametrize(("box", "text", "kind", "unit"), [
    ("Blood Glucose <70?", "blood_glucose<70", "numeric", "mg/dL"),
    ("GCS > 8?", "gcs>8", "numeric", "GCS"),
    ("HR < 60/min", "hr<60", "numeric", "1/min"),
    ("SBP ≤ 90 mmHg", "sbp<=90", "numeric", "mmHg"),
    ("Narrow QRS? <0.12 Second", "narrow_qrs<0.12", "numeric", "second"),
    ("SpO2 <90%", "spo2<90", "numeric", "percent"),
    ("Rhythm shockable?", "rhythm_shockable=yes", "boolean", None),
    ("Pulse present?", "pulse_present=yes", "boolean", None),
    ("“Sinus Tach”?", "sinus_tach=yes", "boolean", None),
    ("Is the patient hypotensive?", "hypotensive=yes", "boolean", None),
    ("Does the patient have chest pain?", "chest_pain=yes", "boolean", None),
    ("Any signs of shock?", "signs_of_shock=yes", "boolean", None),
    ("Is SBP < 90?", "sbp<90", "numeric", "mmHg"),
    ("Temperature > 38 °C?", "temperature>38", "numeric", "degC"),
    ("SBP < 90 mm Hg", "sbp<90", "numeric", "mmHg"),
    ("RR > 30 breaths/min", "rr>30", "numeric", "1/min"),
    ("Symptom onset < 4.5 hrs?", "symptom_onset<4.5", "numeric", "hour"),
])
def test_unknown_conditions_propose_a_key(box: str, text: str, kind: str, unit: str | None) -> None:
    condition = condition_of(box)
    assert condition is not None and condition.text == text
    assert condition.proposal is not None
    assert (condition.proposal.name, condition.proposal.kind, condition.proposal.unit) == (
        text.split("<")[0].split(">")[0].split("=")[0], kind, unit)


@pytest.mark.parametrize("box", ["Temperature > 38 °C?", "SBP < 90 mm Hg", "RR > 30 breaths/min",
                                 "Symptom onset < 4.5 hrs?", "HR < 60/min", "Glucose > 180 mg/dl"])
def test_a_proposed_unit_is_one_the_vocabulary_accepts(box: str) -> None:
    from dkg.vocabulary import BASE_FILE, check_unit, read_file

    proposal = condition_of(box).proposal  # type: ignore[union-attr]
    assert proposal is not None and proposal.unit
    check_unit(proposal.unit, proposal.name, box, dict(read_file(BASE_FILE).units))


def test_a_proposed_range_holds_the_threshold() -> None:
    proposal = condition_of("Blood Glucose <70?").proposal  # type: ignore[union-attr]
    assert proposal is not None and proposal.range is not None
    assert proposal.range[0] <= 70 <= proposal.range[1]
    assert proposal.entry() == {"kind": "numeric", "description": "Blood Glucose", "unit": "mg/dL",
                                "range": [0.0, 1000.0], "synonyms": ["blood glucose", "bg"]}


def test_a_known_key_is_used_not_proposed() -> None:
    condition = condition_of("Age >= 65?")
    assert condition is not None and condition.text == "age>=65" and condition.proposal is None
    assert condition_of("Stage > 2") is None  # a categorical key is not compared with numbers


@pytest.mark.parametrize("box", [
    "Atropine IV / IO 1mg IVP Repeat q 3-5 minutes (MAX 3mg)",
    "Heart Rate?: o Infants: >220/min (typically) o Child: >180/min",
    "Is this a very long question that goes on for many more words than a box label?",
    "Observe Reassess q 5 minutes",
])
def test_boxes_without_one_condition_propose_nothing(box: str) -> None:
    assert condition_of(box) is None


@pytest.mark.parametrize(("label", "answer"), [
    ("YES", True), ("Yes", True), ("y", True), ("YES YES", True), ("No", False), ("NO.", False),
    ("No improvement", None), ("", None), ("If refractory", None),
])
def test_branch_labels(label: str, answer: bool | None) -> None:
    assert branch(label) is answer


@pytest.mark.parametrize(("box", "label", "expected"), [
    ("Blood Glucose <70?", "YES", "blood_glucose<70"),
    ("Blood Glucose <70?", "NO", "blood_glucose>=70"),
    ("GCS > 8?", "No", "gcs<=8"),
    ("SBP <= 90", "no", "sbp>90"),
    ("Rhythm shockable?", "NO", "rhythm_shockable=no"),
    ("Rhythm shockable?", "Yes", "rhythm_shockable=yes"),
])
def test_branch_edges_carry_the_condition_or_its_negation(box: str, label: str, expected: str) -> None:
    condition = condition_of(box)
    assert condition is not None
    on_branch = branch_condition(condition, label)
    assert on_branch is not None and on_branch.text == expected


def test_other_labels_carry_nothing() -> None:
    condition = condition_of("Blood Glucose <70?")
    assert condition is not None and branch_condition(condition, "If refractory") is None


def test_slug() -> None:
    assert slug("Return of Spontaneous Circulation (ROSC)") == "return_of_spontaneous_circulation_rosc"


@pytest.mark.parametrize(("box", "text", "unit"), [
    ("Platelets < 100,000/mm3?", "platelets<100000", "1/mm**3"),  # thousands separator
    ("Platelets < 100 × 10⁹/L?", "platelets<100", "1/nL"),
    ("WBC ≥ 12,000 cells/mm3?", "wbc>=12000", "1/mm**3"),
    ("Urine output < 0.5 mL/kg/h?", "urine_output<0.5", "mL/kg/hour"),
    ("MAP < 65 mm Hg?", "map<65", "mmHg"),
])
def test_numbers_and_units_as_written_in_real_boxes_are_read(box: str, text: str, unit: str) -> None:
    condition = condition_of(box)
    assert condition is not None and condition.text == text
    assert condition.proposal is not None and condition.proposal.unit == unit


def test_a_unit_pint_cannot_read_is_left_to_the_curator_and_said_in_the_description() -> None:
    condition = condition_of("eGFR < 30 mL/min/1.73m2?")
    assert condition is not None and condition.text == "egfr<30" and condition.proposal is not None
    assert condition.proposal.unit is None and condition.proposal.description == "eGFR (written unit: mL/min/1.73m2)"


@pytest.mark.parametrize("box", ["SBP < 90 despite fluids?", "Age < 65 and no comorbidity?",
                                 "Troponin > 99th percentile?"])
def test_words_after_the_number_that_are_no_unit_leave_the_box_to_the_curator(box: str) -> None:
    assert condition_of(box) is None


@pytest.mark.parametrize(("box", "text", "unit", "description"), [
    # the comparison in brackets after the finding it defines: the measured name is the key, the finding described
    ("Hypotension (SBP <90 mm Hg)", "sbp<90", "mmHg", "SBP (Hypotension)"),
    ("Hypoglycemia (blood glucose < 70 mg/dL)?", "blood_glucose<70", "mg/dL", "blood glucose (Hypoglycemia)"),
    ("Fever (Temp > 38 C", "temp>38", "degC", "Temp (Fever)"),  # the closing bracket lost by the parser
    ("Glucose (< 70 mg/dL)", "glucose<70", "mg/dL", "Glucose"),  # brackets round the comparison alone
    ("Lactate > 4 (mmol/L)", "lactate>4", "mmol/L", "Lactate"),  # the unit in brackets after the number
    ("SBP (mmHg) < 90", "sbp<90", "mmHg", "SBP"),  # ... or after the name
])
def test_comparisons_and_units_in_brackets_are_read(box: str, text: str, unit: str, description: str) -> None:
    condition = condition_of(box)
    assert condition is not None and condition.text == text and condition.proposal is not None
    assert (condition.proposal.unit, condition.proposal.description) == (unit, description)


@pytest.mark.parametrize("written", ["min (", "mm Hg)", "x10^9/(L"])
def test_a_unit_with_an_unclosed_bracket_is_refused_not_raised(written: str) -> None:
    """pint reads units with Python's tokenizer, which raises its own error on an unclosed bracket: onboarding the
    whole SMOG PDF stopped with a traceback on "Hypotension (SBP <90 mm Hg)" before."""
    from dkg.constraints.proposals import pint_unit
    from dkg.vocabulary import VocabularyError, base_units, check_unit

    assert pint_unit(written) is None
    with pytest.raises(VocabularyError, match="unknown unit"):
        check_unit(written, "proposed", "a proposed key", base_units())
