"""Human-written clinician questions (``datasets/qa/clinician_*.jsonl``): the fixed dev / held-out split and
the scoring rules of the dataset's README.

Split rule (fixed before any tuning): the 60 source items are ordered by guideline, question type,
expected yes/no verdict (advise items), then ``sha256(SPLIT_SEED + id)``; every third item of that order
(positions 0, 3, 6, ...) is held out. That is a systematic sample of a list sorted by stratum, so each
guideline and type keeps about a third of its items in the held-out file (20 items) and the rest (40) is
the dev file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from dkg.config import PROJECT_ROOT

CLINICIAN_DIR = PROJECT_ROOT / "datasets" / "qa"
SOURCE_PATH = CLINICIAN_DIR / "clinician_source.jsonl"
DEV_PATH = CLINICIAN_DIR / "clinician_dev.jsonl"
HELDOUT_PATH = CLINICIAN_DIR / "clinician_heldout.jsonl"
SPLIT_SEED = "dkg-clinician-split-1"
HELDOUT_EVERY = 3

ClinicianType = Literal["next_step", "advise", "conditions", "out_of_scope"]


class ClinicianItem(BaseModel):
    """One human-written question with the box(es) that answer it (see datasets/qa/clinician_README.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    guideline: str
    version: str
    type: ClinicianType
    question: str
    expected_box_ids: list[str]
    expected_answer: Literal["yes", "no"] | None
    expected_constraints: list[str] | None
    path: list[str]
    why: str


def load_items(path: Path) -> list[ClinicianItem]:
    """The items of one clinician JSONL file, validated."""
    return [ClinicianItem.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


def split_items(items: list[ClinicianItem], seed: str = SPLIT_SEED) -> tuple[list[ClinicianItem], list[ClinicianItem]]:
    """(dev, held-out) by the module's split rule; both keep the source order."""
    def order(item: ClinicianItem) -> tuple[str, str, str, str]:
        return (item.guideline, item.type, item.expected_answer or "",
                hashlib.sha256(f"{seed}{item.id}".encode()).hexdigest())

    ranked = sorted(items, key=order)
    held = {item.id for position, item in enumerate(ranked) if position % HELDOUT_EVERY == 0}
    return [i for i in items if i.id not in held], [i for i in items if i.id in held]


def write_items(items: list[ClinicianItem], path: Path) -> None:
    path.write_text("".join(json.dumps(i.model_dump(), ensure_ascii=False) + "\n" for i in items))
