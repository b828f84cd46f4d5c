"""Synthetic patients as FHIR resources: a Bundle with a Patient (birthDate from the age fact) and one final
Observation per other fact, coded as the mapping says. Used by the round-trip tests and the benchmark."""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta
from typing import Any

from dkg.fhir.codes import CodeMap
from dkg.fhir.errors import FhirError
from dkg.fhir.fhirpath import UCUM

# a birthday this many days before the age-th anniversary keeps the completed years at the stated age
_DAYS_PAST_BIRTHDAY = 100


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February in a year that has none
        return day.replace(year=day.year - years, day=28)


def birth_date_for(age: float, today: date) -> date:
    """A birth date giving ``age`` completed years on ``today`` (ages are whole years).

    >>> birth_date_for(40, date(2026, 12, 1)).isoformat()
    '1986-08-23'
    """
    if not float(age).is_integer() or age < 0:
        raise FhirError(f"age {age!r} is not a whole number of years; a birth date states completed years")
    return _years_before(today, int(age)) - timedelta(days=_DAYS_PAST_BIRTHDAY)


def patient_bundle(facts: dict[str, float | str], codes: CodeMap, *, today: date | None = None,
                   patient_id: str | None = None) -> dict[str, Any]:
    """The facts as a FHIR Bundle (type collection); :class:`FhirError` names a key or value with no code."""
    today = today or date.today()
    pid = patient_id or "p" + hashlib.sha1(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:12]
    patient: dict[str, Any] = {"resourceType": "Patient", "id": pid}
    observations = []
    for key, value in sorted(facts.items()):
        entry = codes.key(key)
        if entry is None:
            raise FhirError(f"no code for the fact {key!r} in the FHIR code mapping; add it to the mapping file")
        if entry.source == "birthDate":
            patient["birthDate"] = birth_date_for(float(value), today).isoformat()
            continue
        assert entry.code is not None
        obs: dict[str, Any] = {"resourceType": "Observation", "id": f"{pid}-{key.replace('_', '-')}",
                               "status": "final", "code": {"coding": [entry.code.model_dump(exclude_none=True)],
                                                           "text": key},
                               "subject": {"reference": f"Patient/{pid}"}, "effectiveDateTime": today.isoformat()}
        if entry.numeric:
            if isinstance(value, str):
                raise FhirError(f"the fact {key}={value!r} needs a number")
            obs["valueQuantity"] = {"value": value, "unit": entry.unit, "system": UCUM, "code": entry.unit}
        else:
            coding = codes.value(key, str(value))
            if coding is None:
                raise FhirError(f"no code for {key}={value!r} in the FHIR code mapping; add it to the mapping file")
            obs["valueCodeableConcept"] = {"coding": [coding.model_dump(exclude_none=True)], "text": str(value)}
        observations.append(obs)
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"resource": patient}] + [{"resource": o} for o in observations]}
