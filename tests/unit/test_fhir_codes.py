"""The FHIR code mapping (datasets/fhir/codes.yaml) loads, covers the vocabulary, and a bad file is refused
with every problem named."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dkg.fhir.codes import load_code_map, resolve
from dkg.fhir.errors import CodeMappingError
from dkg.fhir.settings import load_fhir_settings
from dkg.vocabulary import VOCABULARY, KeyKind

SHIPPED = load_fhir_settings().codes_file


def shipped_data() -> dict:
    return yaml.safe_load(SHIPPED.read_text())


def test_the_shipped_mapping_codes_every_vocabulary_key_and_listed_value() -> None:
    codes = load_code_map(SHIPPED)
    assert set(codes.keys) == set(VOCABULARY)
    for key, spec in VOCABULARY.items():
        if spec.kind is KeyKind.CATEGORICAL:
            assert set(spec.values) <= set(codes.keys[key].values), key
    assert codes.key("age").source == "birthDate"
    assert codes.key("performance_status").code.system == "http://loinc.org"
    assert codes.value("ph", "+").system == "http://snomed.info/sct"
    assert codes.value("lineage", "b_cell").system == "http://dkg.local/fhir/CodeSystem/lineage"
    assert codes.key_of_coding("http://loinc.org", "89247-1") == "performance_status"


def test_diagnosis_codes_name_guidelines_including_codes_below_a_category() -> None:
    codes = load_code_map(SHIPPED)
    assert codes.guidelines_of("http://hl7.org/fhir/sid/icd-10", "C40.2") == ["bone"]
    assert codes.guidelines_of("http://snomed.info/sct", "C40") == []


@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["keys"].update({"weight": {"code": "local", "unit": "kg"}}), "keys.weight: not a vocabulary key"),
    (lambda d: d["keys"]["lineage"]["values"].update({"nk_cell": "local"}), "nk_cell not values of lineage"),
    (lambda d: d["keys"]["tumor_size"].pop("unit"), "needs its UCUM `unit`"),
    (lambda d: d["keys"]["necrosis"].update({"code": d["keys"]["tumor_size"]["code"]}), "also stands for"),
    (lambda d: d["keys"]["ph"].pop("code"), "needs `code`"),
    (lambda d: d.update({"format": 2}), "format"),
    (lambda d: d["keys"]["ph"]["values"].update({"+": {"system": "not a uri", "code": "x"}}), "system"),
])
def test_a_bad_mapping_is_refused_naming_the_problem(edit, words: str) -> None:  # type: ignore[no-untyped-def]
    data = shipped_data()
    edit(data)
    with pytest.raises(CodeMappingError, match="codes.yaml") as info:
        resolve(data, str(SHIPPED))
    assert words in str(info.value)


def test_an_unreadable_mapping_file_says_which_setting_to_fix(tmp_path: Path) -> None:
    bad = tmp_path / "codes.yaml"
    bad.write_text("keys: [unclosed")
    with pytest.raises(CodeMappingError, match="DKG_FHIR_CODES_FILE"):
        load_code_map(bad)
