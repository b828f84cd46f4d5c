"""Score the parser on every rendered corpus PDF (digital and ``-scanned``) against its gold edge file."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dkg.errors import ParseError
from dkg.parsing.document import parse_pdf
from dkg.parsing.evaluate import evaluate, read_edges

PDF_NAME = re.compile(r"^(?P<stem>.+?)(?P<scanned>-scanned)?\.pdf$")


@dataclass(frozen=True)
class CorpusPDF:
    """One corpus PDF and the gold file that scores it."""

    pdf: Path
    gold: Path
    scanned: bool

    @property
    def run(self) -> str:
        return f"{self.gold.name.removesuffix('-edges.csv')} {'scanned' if self.scanned else 'digital'}"


def corpus_pdfs(root: str | Path) -> list[CorpusPDF]:
    """Every ``<G>/pdf/<G>-<V>[-scanned].pdf`` under ``root`` that has ``<G>/gold/<G>-<V>-edges.csv``."""
    root = Path(root)
    if not root.is_dir():
        raise ParseError(f"corpus folder {root} does not exist; render it with `dkg corpus render`")
    found = []
    for pdf in sorted(root.glob("*/pdf/*.pdf")):
        match = PDF_NAME.match(pdf.name)
        if not match:
            continue
        gold = pdf.parent.parent / "gold" / f"{match['stem']}-edges.csv"
        if gold.is_file():
            found.append(CorpusPDF(pdf, gold, bool(match["scanned"])))
    return found


def evaluate_corpus(root: str | Path, pages: str | None = None, progress_console: Any = None,
                    scanned: bool | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Scores per corpus PDF (``run`` → scope → metrics), plus parse timing under scope ``timing``."""
    items = corpus_pdfs(root)
    if not items:
        raise ParseError(f"no corpus PDFs with gold edges under {root}; render them with `dkg corpus render`")
    out: dict[str, dict[str, dict[str, float]]] = {}
    for item in items:
        if scanned is not None and item.scanned != scanned:
            continue
        if progress_console is not None:
            progress_console.print(f"parsing {item.pdf}")
        start = time.perf_counter()
        result = parse_pdf(item.pdf, pages=pages)
        seconds = time.perf_counter() - start
        pred = [e.model_dump() for e in result.edges]
        gold = read_edges(item.gold)
        if pages is not None:
            wanted = {e.page for e in result.edges} | {p.code for p in result.pages if p.code}
            gold = [g for g in gold if g.get("page") in wanted]
        scores = evaluate(pred, gold)
        scores["timing"] = {"seconds": seconds, "pages": float(len(result.pages)), "precision": 0.0,
                            "recall": 0.0, "f1": 0.0, "pred": 0.0, "gold": 0.0}
        out[item.run] = scores
    return out
