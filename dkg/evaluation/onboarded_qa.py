"""Hand-written questions about an onboarded guideline, scored against the hand-made page gold.

An onboarded guideline has no YAML source, so its questions (``datasets/qa/<name>_questions.jsonl``, see
``cardiac_smog_README.md``) name gold boxes of the real pages (``smog-41/n7``: box ``n7`` of
``datasets/realpdfs/gold/smog-41-nodes.csv``). A published node stands for the gold boxes of its page whose
text matches its own (whitespace-free, case-folded; fuzzy ratio >= :data:`MATCH_RATIO`), so scoring does not
depend on how the parser numbered the boxes. The split is the README's rule: held out = every item whose id
number is divisible by 3.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from rapidfuzz import fuzz

from dkg.config import PROJECT_ROOT
from dkg.graph.db import Graph, named_queries
from dkg.qa.clinician import AnswersQuestions, ClinicianItem, ClinicianResult, load_items, score

GOLD_DIR = PROJECT_ROOT / "datasets" / "realpdfs" / "gold"
SPLIT_FILE = PROJECT_ROOT / "datasets" / "realpdfs" / "split.json"
MATCH_RATIO = 90.0


def split(items: list[ClinicianItem]) -> tuple[list[ClinicianItem], list[ClinicianItem]]:
    """(dev, held-out): held out = every item whose id number is divisible by 3."""
    def held(item: ClinicianItem) -> bool:
        return int(re.findall(r"\d+", item.id)[-1]) % 3 == 0

    return [i for i in items if not held(i)], [i for i in items if held(i)]


def _squash(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", text).casefold()


def same_box(content: str, gold_text: str) -> bool:
    """Whether a published node's text is a gold box's: the same characters, or the same words in another order
    (a review may put a box's clauses in reading order).

    >>> same_box("Confirm in two leads: rhythm shockable?", "Rhythm shockable? Confirm in two leads")
    True
    >>> same_box("Rhythm Shockable?", "Rhythm shockable? Confirm in two leads")
    False
    """
    return max(fuzz.ratio(_squash(content), _squash(gold_text)),
               fuzz.token_sort_ratio(content.casefold(), gold_text.casefold())) >= MATCH_RATIO


SMOG_PDF = "smog-cardiac-flowcharts.pdf"


def _pdf_pages(pdf: str) -> dict[str, str]:
    """PDF page number (as the draft stores it) → page id (``smog-41``) of the pages of ``pdf`` (a file name)."""
    pages = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))["pages"]
    return {str(spec["page"]): page for page, spec in pages.items() if spec["pdf"] == pdf}


def gold_boxes(page: str, gold_dir: Path = GOLD_DIR) -> dict[str, str]:
    """``{gold id: text}`` of a page's gold boxes."""
    with (gold_dir / f"{page}-nodes.csv").open(encoding="utf-8", newline="") as handle:
        return {row["id"]: row["text"] for row in csv.DictReader(handle)}


def node_boxes(graph: Graph, guideline: str, version: str, pdf: str = SMOG_PDF) -> dict[str, list[str]]:
    """Published node uid → the ``<page>/<gold id>`` boxes it stands for (empty when none matches); ``pdf`` is the
    file name of the PDF the guideline was onboarded from."""
    pages = _pdf_pages(pdf)
    gold: dict[str, dict[str, str]] = {}
    out: dict[str, list[str]] = {}
    for row in graph.read(named_queries("onboard")["published_node_pages"],
                          {"uid": f"{guideline}|{version}"}):
        boxes: list[str] = []
        for pdf_page in row.get("pages") or []:
            page = pages.get(str(pdf_page))
            if page is None:
                continue
            gold.setdefault(page, gold_boxes(page))
            content = str(row["content"])
            boxes += [f"{page}/{box}" for box, gold_text in gold[page].items() if same_box(content, gold_text)]
        out[str(row["uid"])] = boxes
    return out


def run(service: AnswersQuestions, graph: Graph, items: list[ClinicianItem], pdf: str = SMOG_PDF
        ) -> list[ClinicianResult]:
    """Ask every item's question and score the answer by the clinician dataset's rules."""
    uid_to_boxes: dict[str, list[str]] = {}
    for guideline, version in sorted({(i.guideline, i.version) for i in items}):
        uid_to_boxes.update(node_boxes(graph, guideline, version, pdf))
    results = []
    for item in items:
        result = score(item, service.answer(item.question), uid_to_boxes)
        results.append(result.model_copy(update={"path": service.last_path}))
    return results


__all__ = ["gold_boxes", "load_items", "node_boxes", "run", "same_box", "split"]
