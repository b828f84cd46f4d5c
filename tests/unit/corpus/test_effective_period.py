"""A guideline version's effective period: from the source (or pipeline file) to the build input, the FHIR
PlanDefinition's ``effectivePeriod`` and the CDS Hooks service's choice of the version in force."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dkg.corpus.changes import apply_changes
from dkg.corpus.model import ChangeList, CorpusSourceError, discover, load_change_list, load_guideline, parse_guideline
from dkg.fhir.cds import in_force
from dkg.fhir.codes import load_code_map
from dkg.fhir.export import build_bundle
from dkg.fhir.graph_view import NodeRecord, VersionInfo, VersionView
from dkg.fhir.settings import load_fhir_settings
from dkg.graph.sources import input_from_guideline
from dkg.pipeline import load_pipeline, shipped_pipelines
from dkg.types import EffectivePeriod

SETTINGS = load_fhir_settings()
CODES = load_code_map(SETTINGS.codes_file)


def test_a_period_ending_before_it_starts_is_refused_with_both_dates() -> None:
    with pytest.raises(ValidationError, match="effective end 2026-01-01 is before its start 2026-02-01"):
        EffectivePeriod.model_validate({"start": "2026-02-01", "end": "2026-01-01"})


def test_a_period_covers_its_first_and_last_day_and_an_open_period_never_ends() -> None:
    closed = EffectivePeriod(start=date(2026, 1, 15), end=date(2026, 6, 30))
    assert [closed.covers(date(2026, m, d)) for m, d in ((1, 14), (1, 15), (6, 30), (7, 1))] == [
        False, True, True, False]
    assert EffectivePeriod(start=date(2026, 7, 1)).covers(date(2099, 1, 1))


def test_a_source_with_a_bad_effective_date_names_the_field(raw: dict[str, Any]) -> None:
    raw["effective"] = {"start": "2026-13-01"}
    with pytest.raises(CorpusSourceError) as info:
        parse_guideline(raw, "broken.yaml")
    assert "effective.start" in str(info.value) and "broken.yaml" in str(info.value)


def test_the_period_enters_the_build_hash_only_when_set(raw: dict[str, Any]) -> None:
    undated = input_from_guideline(parse_guideline(raw, "fixture.yaml"))
    raw["effective"] = {"start": "2026-01-15"}
    dated = input_from_guideline(parse_guideline(raw, "fixture.yaml"))
    raw["effective"] = {"start": "2026-01-16"}
    moved = input_from_guideline(parse_guideline(raw, "fixture.yaml"))
    assert len({undated.source_sha(), dated.source_sha(), moved.source_sha()}) == 3
    assert dated.version_row("x")["effective_start"] == date(2026, 1, 15)
    assert undated.version_row("x")["effective_start"] is None


def test_a_change_list_gives_the_new_version_its_own_period_and_never_inherits_the_old(raw: dict[str, Any]) -> None:
    raw["effective"] = {"start": "2026-01-15", "end": "2026-06-30"}
    old = parse_guideline(raw, "fixture.yaml")
    box = next(iter(old.box_index()))
    edit = {"box": box, "text": "Changed wording"}
    kept = apply_changes(old, ChangeList.model_validate(
        {"from_version": old.version, "to_version": "9.2026", "changes": [edit]}))
    dated = apply_changes(old, ChangeList.model_validate(
        {"from_version": old.version, "to_version": "9.2026", "effective": {"start": "2026-07-01"}, "changes": [edit]}))
    assert kept.effective is None
    assert dated.effective == EffectivePeriod(start=date(2026, 7, 1))


@pytest.mark.parametrize("path", shipped_pipelines(), ids=lambda p: p.stem)
def test_each_shipped_pipeline_states_the_period_and_title_of_its_guideline_source(path: Path) -> None:
    spec = load_pipeline(path)
    source = next(p for g, v, p in discover() if (g, v) == (spec.guideline, spec.version))
    guideline = load_guideline(source)
    assert (spec.title, spec.effective) == (guideline.title, guideline.effective)
    assert spec.effective is not None


def test_shipped_versions_follow_each_other_without_gap_or_overlap() -> None:
    by_guideline: dict[str, list[EffectivePeriod]] = {}
    for g, _, path in discover():
        period = load_guideline(path).effective
        if period is not None:
            by_guideline.setdefault(g, []).append(period)
    for g, periods in by_guideline.items():
        periods.sort(key=lambda p: p.start)
        for earlier, later in zip(periods, periods[1:], strict=False):
            assert earlier.end is not None and (later.start - earlier.end).days == 1, g
    assert {"ALL", "bone", "kidney"} <= set(by_guideline)


def test_shipped_change_lists_date_the_new_version() -> None:
    for folder in sorted({p.parent for _, _, p in discover()}):
        for path in sorted(folder.glob("changes-*.yaml")):
            assert load_change_list(path).effective is not None, path


def _view(period: EffectivePeriod | None) -> VersionView:
    root = NodeRecord(uid="demo|1.0|root", key="root", content="Presentation", pages=["D-1"], constraints=[],
                      decision=False, options=[], treatments=[], typed={})
    return VersionView(info=VersionInfo(guideline="demo", version="1.0", title="Demo", effective=period),
                       nodes=[root], edges=[])


def test_the_plan_definition_carries_the_effective_period_and_says_it_in_its_version_artifact() -> None:
    bundle, _ = build_bundle(_view(EffectivePeriod(start=date(2026, 1, 15), end=date(2026, 6, 30))), CODES, SETTINGS)
    plan = bundle["entry"][0]["resource"]
    assert plan["effectivePeriod"] == {"start": "2026-01-15", "end": "2026-06-30"}
    assert "effective from 2026-01-15 to 2026-06-30" in plan["relatedArtifact"][0]["display"]
    open_plan = build_bundle(_view(EffectivePeriod(start=date(2026, 7, 1))), CODES, SETTINGS)[0]["entry"][0]["resource"]
    assert open_plan["effectivePeriod"] == {"start": "2026-07-01"}
    assert "effectivePeriod" not in build_bundle(_view(None), CODES, SETTINGS)[0]["entry"][0]["resource"]


def test_a_graph_row_gives_the_period_and_a_row_without_dates_gives_none() -> None:
    row = {"guideline": "demo", "version": "1.0", "title": "Demo", "source_sha": None,
           "effective_start": "2026-07-01", "effective_end": None}
    assert VersionInfo.model_validate(row).effective == EffectivePeriod(start=date(2026, 7, 1))
    assert VersionInfo.model_validate({**row, "effective_start": None}).effective is None


def _info(version: str, start: str | None = None, end: str | None = None) -> VersionInfo:
    return VersionInfo.model_validate({"guideline": "demo", "version": version, "title": "Demo",
                                       "effective_start": start, "effective_end": end})


def test_cds_answers_with_the_version_in_force_not_merely_the_newest() -> None:
    versions = [_info("1.2026", "2026-01-15", "2026-06-30"), _info("2.2026", "2026-07-01"),
                _info("3.2026", "2027-01-01")]
    assert in_force(versions, date(2026, 3, 1)).version == "1.2026"
    assert in_force(versions, date(2026, 12, 1)).version == "2.2026"
    assert in_force(versions, date(2027, 2, 1)).version == "3.2026"


def test_cds_falls_back_to_undated_then_newest_versions() -> None:
    expired_then_undated = [_info("1.2026", "2026-01-15", "2026-06-30"), _info("2.2026")]
    assert in_force(expired_then_undated, date(2026, 12, 1)).version == "2.2026"
    assert in_force([_info("1.2026"), _info("2.2026")], date(2026, 12, 1)).version == "2.2026"
    expired = [_info("1.2025", "2025-01-01", "2025-06-30"), _info("2.2025", "2025-07-01", "2025-12-31")]
    assert in_force(expired, date(2026, 12, 1)).version == "2.2025"
