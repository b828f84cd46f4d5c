"""Every development wordings file (and the clinician dev split) is consistent with the guideline it is about: each
item's ``path`` follows the guideline's arrows (a link box leads to its target page's entry box) from the
guideline's entry and ends at one of its ``expected_box_ids``, so a gold answer cannot silently go stale when a
guideline source is edited. The held-out split is left alone: it is reported only."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from dkg.corpus.model import BoxKind, Guideline, Page, load_guideline
from dkg.qa import clinician

GUIDELINES_DIR = Path(__file__).resolve().parents[3] / "datasets" / "guidelines"
DEVELOPMENT_FILES = (clinician.DEV_PATH, *clinician.WORDINGS_PATHS)


def _entry(page: Page) -> str:
    targets = {a.to for a in page.arrows}
    entries = [b.id for b in page.boxes if b.kind is not BoxKind.NOTE and b.id not in targets]
    assert len(entries) == 1, f"page {page.code} has entries {entries}"
    return entries[0]


@cache
def _steps(guideline: str, version: str) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
    """The (from, to) steps a path may take and the guideline's entry boxes (the first page's entry)."""
    source: Guideline = load_guideline(GUIDELINES_DIR / guideline / f"{version}.yaml")
    steps = {(a.from_, a.to) for page in source.pages for a in page.arrows}
    for _, box in source.boxes():
        if box.kind is BoxKind.LINK and box.target:
            target = source.page(box.target)
            assert target is not None, f"{box.id} links to a missing page {box.target}"
            # the path may name the link box or go straight on to the target page's entry
            steps.add((box.id, _entry(target)))
            steps.update((a, _entry(target)) for a, b in list(steps) if b == box.id)
    return frozenset(steps), frozenset({_entry(source.pages[0])})


def _items() -> list[tuple[str, clinician.ClinicianItem]]:
    return [(path.stem, item) for path in DEVELOPMENT_FILES for item in clinician.load_items(path)
            if item.type != "out_of_scope"]


ITEMS = _items()


@pytest.mark.parametrize(("stem", "item"), ITEMS, ids=[f"{stem}-{item.id}" for stem, item in ITEMS])
def test_the_gold_path_follows_the_guideline(stem: str, item: clinician.ClinicianItem) -> None:
    steps, entries = _steps(item.guideline, item.version)
    assert item.path, "an in-scope item needs its path"
    assert item.path[0] in entries, f"{item.id}: starts at {item.path[0]}, not the guideline's entry"
    broken = [(a, b) for a, b in zip(item.path, item.path[1:], strict=False) if (a, b) not in steps]
    assert not broken, f"{item.id}: no arrow for {broken}"
    assert item.path[-1] in item.expected_box_ids, f"{item.id}: the path ends at {item.path[-1]}"
