"""Parser benchmark: edge F1 and pages/s on the rendered corpus PDFs, digital and scanned.

Run: ``.venv/bin/python bench/parser_bench.py --runs 3`` (whole scanned PDFs; ``--scanned-pages 2`` for a quick look)
Writes flat figures to ``bench/results/parser.json``. Speed is the median over ``--runs`` timed parses of
every digital PDF (and of the first ``--scanned-pages`` pages of each scanned PDF; 0 = all pages, the default).
F1 is edge F1 (exact match after whitespace/case normalisation) over all corpus PDFs; the scanned F1 uses
all pages of every scanned PDF unless ``--scanned-pages`` limits it (then only gold rows of those pages count);
``edge_f1_scanned_pages_1_2`` scores the first two pages of each scanned PDF from the same parse.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.parsing import parse_pdf  # noqa: E402
from dkg.parsing.corpus_eval import corpus_pdfs  # noqa: E402
from dkg.parsing.evaluate import prf, read_edges  # noqa: E402


def _score(items: list, pages: str | None, first: int = 0
           ) -> tuple[dict[str, float], float, int, dict[str, float], dict[str, float]]:
    """Edge scores over ``items`` (and over their first ``first`` pages only, from the same parse), seconds,
    pages parsed and F1 per document."""
    pred_all: list[dict[str, str]] = []
    gold_all: list[dict[str, str]] = []
    pred_first: list[dict[str, str]] = []
    gold_first: list[dict[str, str]] = []
    per_doc: dict[str, float] = {}
    seconds = 0.0
    page_count = 0
    for item in items:
        start = time.perf_counter()
        result = parse_pdf(item.pdf, pages=pages)
        seconds += time.perf_counter() - start
        page_count += len(result.pages)
        tag = item.gold.name.removesuffix("-edges.csv")
        pred = [{**e.model_dump(), "head": f"{tag}|{e.head}", "tail": f"{tag}|{e.tail}"} for e in result.edges]
        gold_rows = read_edges(item.gold)
        if pages is not None:
            codes = {p.code for p in result.pages if p.code}
            gold_rows = [g for g in gold_rows if g.get("page") in codes]
        gold = [{**g, "head": f"{tag}|{g['head']}", "tail": f"{tag}|{g['tail']}"} for g in gold_rows]
        per_doc[item.run] = prf(pred, gold)["f1"]
        pred_all += pred
        gold_all += gold
        if first:
            codes = {p.code for p in result.pages[:first] if p.code}
            pred_first += [e for e in pred if e.get("page") in codes]
            gold_first += [g for g in gold if g.get("page") in codes]
    return prf(pred_all, gold_all), seconds, page_count, per_doc, prf(pred_first, gold_first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=ROOT / "datasets" / "guidelines")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scanned-pages", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "parser.json")
    args = parser.parse_args()
    items = corpus_pdfs(args.corpus)
    digital = [i for i in items if not i.scanned]
    scanned = [i for i in items if i.scanned]
    if not digital or not scanned:
        sys.exit(f"need digital and scanned corpus PDFs under {args.corpus}; run `dkg corpus render` first")

    d_scores, _, _, d_docs, _ = _score(digital, None)
    rates = []
    for _ in range(args.runs):
        _, seconds, pages, _, _ = _score(digital, None)
        rates.append(pages / seconds)
    spec = f"1-{args.scanned_pages}" if args.scanned_pages else None
    s_scores, s_seconds, s_pages, s_docs, s_first = _score(scanned, spec, first=2)
    s_rates = [s_pages / s_seconds]
    for _ in range(max(0, min(args.runs, 3) - 1)):
        _, seconds, pages, _, _ = _score(scanned[:1], "1-2")
        s_rates.append(pages / seconds)
    figures = {
        "edge_f1_digital": round(d_scores["f1"], 4),
        "edge_precision_digital": round(d_scores["precision"], 4),
        "edge_recall_digital": round(d_scores["recall"], 4),
        "edge_f1_scanned": round(s_scores["f1"], 4),
        "edge_precision_scanned": round(s_scores["precision"], 4),
        "edge_recall_scanned": round(s_scores["recall"], 4),
        "edge_f1_scanned_pages_1_2": round(s_first["f1"], 4),
        "pages_per_s_digital": round(statistics.median(rates), 3),
        "pages_per_s_scanned": round(statistics.median(s_rates), 3),
        "digital_pdfs": len(digital),
        "scanned_pdfs": len(scanned),
        "scanned_pages_scored": s_pages,
        "runs": args.runs,
        "cpu_count": __import__("os").cpu_count() or 0,
    }
    figures.update({f"edge_f1_{k.replace(' ', '_').replace('.', '_')}": round(v, 4)
                    for k, v in {**d_docs, **s_docs}.items()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=1))
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")


if __name__ == "__main__":
    main()
