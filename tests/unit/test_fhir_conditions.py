"""FHIRPath conditions written from typed constraints, evaluated with fhirpathpy on generated patients: the
same truth as the DKG query's comparison for stated facts (bounds strict or not, 'any', exclusions), false for
unstated ones, and unmapped values reported instead of written."""

from __future__ import annotations

from datetime import date

import pytest

from dkg.fhir.codes import load_code_map
from dkg.fhir.errors import FhirError
from dkg.fhir.fhirpath import is_true, write
from dkg.fhir.patients import birth_date_for, patient_bundle
from dkg.fhir.settings import load_fhir_settings
from dkg.graph.model import constraints_to_properties
from dkg.types import Constraint

CODES = load_code_map(load_fhir_settings().codes_file)


def dkg_holds(constraint: str, key: str, value: float | str) -> bool:
    """The DKG query's per-key comparison (cypher/qa.cypher next_step) on the typed properties."""
    p = constraints_to_properties([Constraint.parse(constraint)])
    ok = True
    if p.get(key) is not None:
        ok &= value in p[key] or ("any" in p[key] and value != "none")
    ok &= value not in (p.get(f"{key}_not") or [])
    if p.get(f"{key}_min") is not None:
        ok &= value > p[f"{key}_min"] or (value == p[f"{key}_min"] and not p[f"{key}_min_strict"])
    if p.get(f"{key}_max") is not None:
        ok &= value < p[f"{key}_max"] or (value == p[f"{key}_max"] and not p[f"{key}_max_strict"])
    ok &= value not in (p.get(f"{key}_ne") or [])
    return bool(ok)


def fhir_holds(constraint: str, key: str, value: float | str) -> bool:
    written = write(key, constraints_to_properties([Constraint.parse(constraint)]), CODES)
    assert written.expression is not None
    return is_true(written.expression, patient_bundle({key: value}, CODES))


@pytest.mark.parametrize("constraint", ["age>=40", "age>40", "age<40", "age<=39", "age in [15,39]", "age!=65"])
@pytest.mark.parametrize("age", [14.0, 15.0, 39.0, 40.0, 41.0, 65.0])
def test_age_from_birth_date_matches_the_dkg_comparison(constraint: str, age: float) -> None:
    assert fhir_holds(constraint, "age", age) == dkg_holds(constraint, "age", age)


@pytest.mark.parametrize("constraint", ["tumor_size>7", "tumor_size<=4", "tumor_size in [4,7]", "performance_status<2",
                                        "necrosis>=90", "performance_status!=3"])
@pytest.mark.parametrize("value", [1.5, 2.0, 3.0, 4.0, 4.5, 7.0, 7.5, 90.0])
def test_quantities_match_the_dkg_comparison(constraint: str, value: float) -> None:
    key = Constraint.parse(constraint).key
    assert fhir_holds(constraint, key, value) == dkg_holds(constraint, key, value)


CODED = ["ph=+", "ph!=+", "stage in {I,II}", "metastasis=any", "metastasis!=lung", "comorbidity=none",
         "histology in {papillary,chromophobe}"]


@pytest.mark.parametrize(("constraint", "value"), [(c, v) for c in CODED
                                                   for v in CODES.keys[Constraint.parse(c).key].values])
def test_coded_values_match_the_dkg_comparison(constraint: str, value: str) -> None:
    key = Constraint.parse(constraint).key
    assert fhir_holds(constraint, key, value) == dkg_holds(constraint, key, value)


def test_an_unstated_fact_never_satisfies_a_condition() -> None:
    for constraint in ("age>=18", "ph!=+", "tumor_size<4", "metastasis=any"):
        key = Constraint.parse(constraint).key
        written = write(key, constraints_to_properties([Constraint.parse(constraint)]), CODES)
        other = {"stage": "I"} if key != "stage" else {"ph": "+"}
        assert written.expression and not is_true(written.expression, patient_bundle(other, CODES))


def test_a_value_in_another_unit_does_not_count() -> None:
    written = write("tumor_size", constraints_to_properties([Constraint.parse("tumor_size>7")]), CODES)
    bundle = patient_bundle({"tumor_size": 80.0}, CODES)
    bundle["entry"][1]["resource"]["valueQuantity"].update({"unit": "mm", "code": "mm"})
    assert written.expression and not is_true(written.expression, bundle)


def test_an_open_value_with_no_code_is_reported_not_written() -> None:
    written = write("histology", {"histology": ["myxoid"]}, CODES)
    assert written.expression is None and written.unmapped_values == ("myxoid",)
    assert write("histology", {"histology": ["papillary"]}, CODES.model_copy(update={"keys": {}})).key_unmapped


def test_birth_dates_state_completed_years_and_refuse_fractions() -> None:
    assert birth_date_for(0, date(2024, 2, 29)) == date(2023, 11, 21)
    assert birth_date_for(1, date(2024, 2, 29)).isoformat() == "2022-11-20"
    with pytest.raises(FhirError, match="whole number of years"):
        birth_date_for(30.5, date(2026, 1, 1))
    with pytest.raises(FhirError, match="no code for lineage='nk'"):
        patient_bundle({"lineage": "nk"}, CODES)
