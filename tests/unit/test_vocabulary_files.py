"""The constraint vocabulary is data: a base file plus one file per guideline, validated on load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from dkg.config import PROJECT_ROOT
from dkg.errors import ConstraintError
from dkg.types import Constraint
from dkg.vocabulary import (
    BASE_FILE,
    GUIDELINES_ROOT,
    VOCABULARY,
    KeyKind,
    VocabularyError,
    detect_domains,
    entry_of,
    guideline_files,
    keys_in_scope,
    load_vocabulary,
    merge,
    parse_file,
    reload_vocabulary,
    used_keys,
)


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A base file with one numeric key and a guideline root with one guideline file."""
    base = write(tmp_path / "base.yaml", {"units": {"ECOG": "[ecog_score]"}, "keys": {
        "age": {"kind": "numeric", "unit": "years", "range": [0, 120], "synonyms": ["age"]},
        "performance_status": {"kind": "numeric", "unit": "ECOG", "range": [0, 4]}}})
    root = tmp_path / "guidelines"
    write(root / "stroke" / "vocabulary.yaml", {"keys": {
        "blood_glucose": {"kind": "numeric", "description": "Blood glucose", "unit": "mg/dL", "range": [0, 2000],
                          "synonyms": ["blood glucose", "glucose"]},
        "heart_rate": {"kind": "numeric", "unit": "1/min", "range": [0, 300]},
        "pulse_present": {"kind": "boolean", "yes": ["pulse present"], "no": ["pulseless"]},
        "rhythm": {"kind": "categorical", "values": {"vf": ["ventricular fibrillation"], "asystole": []}}}})
    return base, root


def test_shipped_files_give_the_shipped_keys() -> None:
    assert {g for g, _ in guideline_files()} >= {"ALL", "bone", "kidney"}
    assert load_vocabulary() == VOCABULARY
    assert VOCABULARY["age"].source == "base" and VOCABULARY["age"].unit == "years"
    assert VOCABULARY["mrd"].source == "ALL" and "negative" in VOCABULARY["mrd"].values
    assert VOCABULARY["stage"].values["IV"] == ("stage iv", "stage 4")


def test_guideline_keys_merge_after_the_base(tree: tuple[Path, Path]) -> None:
    base, root = tree
    vocabulary = load_vocabulary(base, root)
    assert list(vocabulary) == ["age", "performance_status", "blood_glucose", "heart_rate", "pulse_present", "rhythm"]
    glucose = vocabulary["blood_glucose"]
    assert (glucose.kind, glucose.unit, glucose.minimum, glucose.maximum, glucose.source) == (
        KeyKind.NUMERIC, "mg/dL", 0, 2000, "stroke")
    pulse = vocabulary["pulse_present"]
    assert pulse.kind is KeyKind.CATEGORICAL and pulse.boolean and pulse.values == {
        "yes": ("pulse present",), "no": ("pulseless",)}


def test_entry_round_trips(tree: tuple[Path, Path]) -> None:
    base, root = tree
    vocabulary = load_vocabulary(base, root)
    file = parse_file({"keys": {k: entry_of(s) for k, s in vocabulary.items() if s.source == "stroke"}}, "x")
    again = merge(parse_file(yaml.safe_load(base.read_text()), "base"), [("stroke", file)])
    assert again == vocabulary


def test_unknown_unit_is_named(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "stroke" / "vocabulary.yaml", {"keys": {
        "blood_glucose": {"kind": "numeric", "unit": "mgg/dL", "range": [0, 2000]}}})
    with pytest.raises(VocabularyError, match=r"stroke.*'blood_glucose' has an unknown unit 'mgg/dL'.*pint unit"):
        load_vocabulary(base, root)


def test_contradictory_bounds_are_named(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "stroke" / "vocabulary.yaml", {"keys": {
        "heart_rate": {"kind": "numeric", "unit": "1/min", "range": [300, 0]}}})
    with pytest.raises(VocabularyError, match=r"keys\.heart_rate.*contradictory bounds: range \[300, 0\]"):
        load_vocabulary(base, root)


def test_key_clashing_with_the_base_is_refused(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "stroke" / "vocabulary.yaml", {"keys": {
        "age": {"kind": "numeric", "unit": "months", "range": [0, 1200]}}})
    with pytest.raises(VocabularyError, match=r"'stroke'.*key 'age' clashes with the base vocabulary"):
        load_vocabulary(base, root)


def test_key_defined_by_two_guidelines_is_refused(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "tia" / "vocabulary.yaml", {"keys": {
        "heart_rate": {"kind": "numeric", "unit": "1/min", "range": [0, 250]}}})
    with pytest.raises(VocabularyError, match=r"'tia'.*'heart_rate' clashes with the 'stroke' vocabulary"):
        load_vocabulary(base, root)


def test_a_guideline_lists_the_keys_of_another_it_uses_and_only_those(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "tia" / "vocabulary.yaml", {"uses_keys": ["heart_rate", "pulse_present"], "keys": {}})
    (root / "tia" / "topic.yaml").write_text("title: TIA\n", encoding="utf-8")
    load_vocabulary(base, root)  # valid: both are the stroke guideline's keys
    assert used_keys("tia", root) == ("heart_rate", "pulse_present") and used_keys("stroke", root) == ()
    for listed, named in ((["heart_rat"], "'heart_rat'"), (["age"], "'age'")):  # unknown, or a base key
        write(root / "tia" / "vocabulary.yaml", {"uses_keys": listed, "keys": {}})
        with pytest.raises(VocabularyError, match=rf"'tia': `uses_keys:` lists {named}, which no other guideline"):
            load_vocabulary(base, root)


@pytest.mark.parametrize(("entry", "message"), [
    ({"kind": "numeric", "range": [0, 1]}, r"unit: Field required"),
    ({"kind": "ordinal", "values": {}}, r"does not match any of the expected tags"),
    ({"kind": "categorical", "values": {"yes": [True]}}, r"Input should be a valid string"),
    ({"kind": "categorical", "values": {}}, r"needs values"),
    ({"kind": "boolean", "colour": "red"}, r"colour: Extra inputs are not permitted"),
])
def test_malformed_entries_are_named(tree: tuple[Path, Path], entry: dict[str, object], message: str) -> None:
    base, root = tree
    write(root / "stroke" / "vocabulary.yaml", {"keys": {"k": entry}})
    with pytest.raises(VocabularyError, match=message):
        load_vocabulary(base, root)


def test_bad_key_names_and_guideline_units_are_refused(tree: tuple[Path, Path]) -> None:
    base, root = tree
    write(root / "stroke" / "vocabulary.yaml", {"keys": {"Blood Glucose": {"kind": "boolean"}}})
    with pytest.raises(VocabularyError, match=r"String should match pattern"):
        load_vocabulary(base, root)
    write(root / "stroke" / "vocabulary.yaml", {"units": {"bpm": "1/min"}, "keys": {}})
    with pytest.raises(VocabularyError, match=r"`units:`, `domains:` and `proposal_units:` belong in the base"):
        load_vocabulary(base, root)


def test_reload_updates_the_shared_vocabulary_in_place(tree: tuple[Path, Path]) -> None:
    base, root = tree
    shared = VOCABULARY
    try:
        reload_vocabulary(base, root)
        assert shared is VOCABULARY and "blood_glucose" in shared
        assert str(Constraint.parse("blood_glucose < 70")) == "blood_glucose<70"
        assert str(Constraint.parse("pulse_present = yes")) == "pulse_present=yes"
        with pytest.raises(ConstraintError, match="allowed: yes, no"):
            Constraint.parse("pulse_present = maybe")
        write(root / "stroke" / "vocabulary.yaml", {"keys": {"age": {"kind": "boolean"}}})
        with pytest.raises(VocabularyError):
            reload_vocabulary(base, root)
        assert "blood_glucose" in shared  # a failed reload changes nothing
    finally:
        reload_vocabulary()
    assert "blood_glucose" not in VOCABULARY and BASE_FILE.is_file()


def _with_domains(base: Path) -> None:
    data = yaml.safe_load(base.read_text(encoding="utf-8"))
    data["domains"] = {"oncology": {"cues": ["cancer", "chemotherapy", "lymph node"], "min_cues": 2}}
    data["keys"]["performance_status"]["domain"] = "oncology"
    write(base, data)


def test_base_keys_carry_their_domain_and_guideline_keys_their_files(tree: tuple[Path, Path]) -> None:
    base, root = tree
    _with_domains(base)
    write(root / "lung" / "vocabulary.yaml", {"uses_domains": ["oncology"], "keys": {
        "egfr": {"kind": "categorical", "values": {"mutated": ["egfr mutated"]}}}})
    vocabulary = load_vocabulary(base, root)
    assert vocabulary["performance_status"].domains == ("oncology",)
    assert vocabulary["age"].domains == () and vocabulary["blood_glucose"].domains == ()
    assert vocabulary["egfr"].domains == ("oncology",)
    # a stroke page reads general keys and its own; a lung page reads the oncology keys of the base and of lung
    assert keys_in_scope("stroke", [], vocabulary) == {"age", "blood_glucose", "heart_rate", "pulse_present",
                                                       "rhythm"}
    assert keys_in_scope("new", ["oncology"], vocabulary) == {"age", "performance_status", "egfr"}
    assert keys_in_scope("new", [], vocabulary) == {"age"}


@pytest.mark.parametrize(("where", "change", "message"), [
    ("base", {"keys.age.domain": "cardiology"}, "unknown domain 'cardiology'"),
    ("base", {"uses_domains": ["oncology"]}, "`uses_domains:` belongs in a guideline"),
    ("guideline", {"uses_domains": ["oncolgy"]}, "unknown domain(s) 'oncolgy'"),
    ("guideline", {"domains": {"x": {"cues": ["x"]}}}, "`domains:`"),
    ("guideline", {"keys.heart_rate.domain": "oncology"}, "a guideline's keys take the domains"),
    ("base", {"domains": {"oncology": {"cues": []}}}, "domains.oncology.cues"),
    ("base", {"domains": {"oncology": {"cues": ["cancer"], "min_cues": 0}}}, "domains.oncology.min_cues"),
])
def test_bad_domains_are_named(tree: tuple[Path, Path], where: str, change: dict[str, object], message: str) -> None:
    base, root = tree
    _with_domains(base)
    path = base if where == "base" else root / "stroke" / "vocabulary.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    write(path, data)
    with pytest.raises(VocabularyError, match=re.escape(message)):
        load_vocabulary(base, root)


def test_domains_are_detected_from_cue_words_counting_repeats(tree: tuple[Path, Path]) -> None:
    base, _ = tree
    _with_domains(base)
    [one] = detect_domains(["History of cancer", "Rhythm shockable?"], base)
    assert one.cues == {"cancer": 1} and not one.chosen
    [two] = detect_domains(["Cancers of the lung", "Lymph nodes sampled", "Chemotherapy"], base)
    assert two.cues == {"cancer": 1, "lymph node": 1, "chemotherapy": 1} and two.chosen
    [none] = detect_domains(["Precancerous lesion", "chemotherapy-free"], base)
    assert none.cues == {"chemotherapy": 1}  # 'precancerous' is not the word 'cancer'


def test_shipped_guidelines_declare_oncology_and_their_pdfs_are_detected_as_it() -> None:
    import pdfplumber

    from dkg.vocabulary import declared_domains

    for guideline in ("ALL", "kidney", "bone"):
        assert declared_domains(guideline) == ("oncology",)
        with pdfplumber.open(GUIDELINES_ROOT / guideline / "pdf" / f"{guideline}-1.2026.pdf") as pdf:
            texts = [page.extract_text() or "" for page in pdf.pages]
        assert [e.domain for e in detect_domains(texts) if e.chosen] == ["oncology"], guideline
    # real cardiac and CBRN flowcharts (development pages) are of no base domain
    for name in ("smog-cardiac-flowcharts.pdf", "cbrn-bio-response.pdf"):
        with pdfplumber.open(PROJECT_ROOT / "datasets" / "realpdfs" / name) as pdf:
            texts = [page.extract_text() or "" for page in pdf.pages]
        assert not [e.domain for e in detect_domains(texts) if e.chosen], name
    assert declared_domains("no-such-guideline") is None
