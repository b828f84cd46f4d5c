"""Parser benchmark: edge F1 and pages/s on the rendered corpus PDFs, digital and scanned.

Run: ``.venv/bin/python bench/parser_bench.py --runs 3`` (whole scanned PDFs; ``--scanned-pages 2`` for a quick look)
Writes flat figures to ``bench/results/parser.json``. Speed is the median over ``--runs`` timed parses of
every digital PDF (and of the first ``--scanned-pages`` pages of each scanned PDF; 0 = all pages, the default).
F1 is edge F1 (exact match after whitespace/case normalisation) over all corpus PDFs; the scanned F1 uses
all pages of every scanned PDF unless ``--scanned-pages`` limits it (then only gold rows of those pages count);
``edge_f1_scanned_pages_1_2`` scores the first two pages of each scanned PDF from the same parse.

``--real`` adds the real guideline pages (``datasets/realpdfs``: born-digital pages of other publishers, gold
annotated by hand, a fixed dev/held-out split in ``split.json``) and their scans made by
``dkg.corpus.real_scans`` at ``--real-dpi`` (repeatable; default 200); ``--real-only`` skips the corpus run.
Each real page is parsed on its own; edges are scored per split (``edge_f1_real_{digital,scanned}_{dev,heldout}``)
and per page, and a page whose parse raises is recorded under ``real_errors`` (it scores as no edges).
``--real-dpi 200 --real-dpi 150 --real-dpi 300`` gives one row per resolution (``edge_f1_real_scanned_<dpi>_*``);
``--jobs 3`` scores the resolutions side by side, one process each.
``edge_f1_real_scanned_{dev,heldout}`` (no resolution in the key) are the scores at the first ``--real-dpi``
(200 by default, recorded as ``real_scanned_keys_dpi``); ``edge_f1_fuzzy_real_*`` match head and tail texts at
fuzzy ratio >= 90 (OCR misreads a letter or two) and are shown beside the exact scores, never instead.
The exact and fuzzy scores compare edges by the texts of their two boxes, so on a page with several boxes of
one text ("Rhythm Shockable?", "CPR 2 min") an edge found once stands for all its twins;
``edge_{f1,precision,recall}_boxes_real_*`` count edges between boxes instead (each parsed box matched to a gold
box by position, :func:`dkg.parsing.evaluate.box_edge_prf`; texts not compared), and
``edge_label_accuracy_boxes_real_*`` is the share of those edges whose label (YES / NO / ...) agrees with the gold.

The own corpus is split too (``datasets/guidelines/parser_split.json``: every third page of each PDF held
out): ``edge_f1_{digital,scanned}_{dev,heldout}`` score the same parse per split. ``DKG_SCAN_ROUTE``
(``hybrid``, the default; ``pipeline``; ``legacy``) picks the scanned-page reader, recorded as ``scan_route``.
``--real-frames`` scores the digital route on the real pages re-saved in the page frames other producers write
(:mod:`dkg.corpus.page_frames`: MediaBox moved, bleed round the CropBox, landscape with ``/Rotate 90``, both, and
shrunk to 70 %), keys ``edge_f1_real_digital_<variant>_{dev,heldout}``: each should equal the plain page's score.
``--corpus-digital-only`` scores the own corpus's born-digital PDFs alone (the ``edge_*_digital*`` and
``pages_per_s_digital`` keys). Results are merged into the existing JSON file: keys not computed by this run are
kept.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.corpus.page_frames import FRAME_VARIANTS, write_frame_variant  # noqa: E402
from dkg.corpus.real_scans import RealPage, real_pages, scan_name, write_real_scans  # noqa: E402
from dkg.parsing import parse_pdf  # noqa: E402
from dkg.parsing.corpus_eval import corpus_pdfs  # noqa: E402
from dkg.parsing.evaluate import box_edge_prf, pooled_box_prf, prf, read_edges, read_gold_boxes  # noqa: E402
from dkg.parsing.geometry import BBox  # noqa: E402
from dkg.parsing.scan.route import settings_from_env  # noqa: E402

SPLIT_FILE = "parser_split.json"


def _heldout_numbers(corpus: Path) -> dict[str, set[int]]:
    """Held-out page numbers per corpus document stem (``datasets/guidelines/parser_split.json``)."""
    data = json.loads((corpus / SPLIT_FILE).read_text(encoding="utf-8"))
    return {stem: set(numbers) for stem, numbers in data["heldout"].items()}


def _code_number(code: str | None) -> int | None:
    """The page number a page code ``G-N`` prints (the corpus numbers its pages in order)."""
    if not code or "-" not in code:
        return None
    tail = code.rsplit("-", 1)[1]
    return int(tail) if tail.isdigit() else None


def _score(items: list, pages: str | None, first: int = 0, heldout: dict[str, set[int]] | None = None
           ) -> tuple[dict[str, float], float, int, dict[str, float], dict[str, float], dict[str, dict[str, float]]]:
    """Edge scores over ``items`` (and over their first ``first`` pages only, from the same parse), seconds,
    pages parsed, F1 per document and scores per split (``dev``/``heldout`` by page, from the same parse)."""
    pred_all: list[dict[str, str]] = []
    gold_all: list[dict[str, str]] = []
    pred_first: list[dict[str, str]] = []
    gold_first: list[dict[str, str]] = []
    by_split: dict[str, tuple[list[dict[str, str]], list[dict[str, str]]]] = {"dev": ([], []), "heldout": ([], [])}
    per_doc: dict[str, float] = {}
    seconds = 0.0
    page_count = 0
    for item in items:
        start = time.perf_counter()
        result = parse_pdf(item.pdf, pages=pages)
        seconds += time.perf_counter() - start
        page_count += len(result.pages)
        tag = item.gold.name.removesuffix("-edges.csv")
        held = (heldout or {}).get(tag, set())
        pred: list[dict[str, str]] = []
        for page in result.pages:
            split = "heldout" if page.number in held else "dev"
            rows = [{**e.model_dump(), "head": f"{tag}|{e.head}", "tail": f"{tag}|{e.tail}"} for e in page.edges]
            pred += rows
            by_split[split][0].extend(rows)
        gold_rows = read_edges(item.gold)
        if pages is not None:
            codes = {p.code for p in result.pages if p.code}
            gold_rows = [g for g in gold_rows if g.get("page") in codes]
        gold = [{**g, "head": f"{tag}|{g['head']}", "tail": f"{tag}|{g['tail']}"} for g in gold_rows]
        for row in gold:
            by_split["heldout" if _code_number(row.get("page")) in held else "dev"][1].append(row)
        per_doc[item.run] = prf(pred, gold)["f1"]
        pred_all += pred
        gold_all += gold
        if first:
            codes = {p.code for p in result.pages[:first] if p.code}
            pred_first += [e for e in pred if e.get("page") in codes]
            gold_first += [g for g in gold if g.get("page") in codes]
    splits = {name: prf(p, g) for name, (p, g) in by_split.items()}
    return prf(pred_all, gold_all), seconds, page_count, per_doc, prf(pred_first, gold_first), splits


def _real_page_edges(pdf: Path, page_number: int, page_id: str
                     ) -> tuple[list[dict[str, str]], dict[str, BBox], float]:
    """Edges of one page of ``pdf`` (heads/tails tagged with ``page_id``), its boxes (id → bbox) and the seconds
    the parse took."""
    start = time.perf_counter()
    result = parse_pdf(pdf, pages=str(page_number))
    seconds = time.perf_counter() - start
    pages = [page for page in result.pages if page.number == page_number]
    edges = [e for page in pages for e in page.edges]
    boxes = {box.id: box.bbox for page in pages for box in page.boxes}
    return ([{**e.model_dump(), "head": f"{page_id}|{e.head}", "tail": f"{page_id}|{e.tail}", "page": page_id}
             for e in edges], boxes, seconds)


def _real_gold(root: Path, page: RealPage) -> list[dict[str, str]]:
    rows = read_edges(root / "gold" / f"{page.page_id}-edges.csv")
    return [{**g, "head": f"{page.page_id}|{g['head']}", "tail": f"{page.page_id}|{g['tail']}"} for g in rows]


def _real_route(root: Path, pages: list[RealPage], route: str, pdf_of: Any) -> dict[str, Any]:
    """Scores of one route (``digital`` or ``scanned``) per split and per page; errors recorded, not raised."""
    figures: dict[str, Any] = {}
    errors: dict[str, str] = {}
    pooled: dict[str, tuple[list[dict[str, str]], list[dict[str, str]]]] = {"dev": ([], []), "heldout": ([], [])}
    by_boxes: dict[str, list[dict[str, float]]] = {"dev": [], "heldout": []}
    seconds = 0.0
    for page in pages:
        gold = _real_gold(root, page)
        pdf, number = pdf_of(page)
        try:
            pred, found, took = _real_page_edges(pdf, number, page.page_id)
            seconds += took
        except Exception as exc:  # noqa: BLE001  (a crash is a measured outcome, recorded per page)
            pred, found = [], {}
            errors[page.page_id] = f"{type(exc).__name__}: {exc}"
        scores = prf(pred, gold)
        boxed = box_edge_prf(pred, found, gold, read_gold_boxes(root / "gold" / f"{page.page_id}-nodes.csv"))
        figures[f"edge_f1_real_{route}_page_{page.page_id}"] = round(scores["f1"], 4)
        figures[f"edge_f1_boxes_real_{route}_page_{page.page_id}"] = round(boxed["f1"], 4)
        pooled[page.split][0].extend(pred)
        pooled[page.split][1].extend(gold)
        by_boxes[page.split].append(boxed)
        print(f"{route:8} {page.split:8} {page.page_id:8} P={scores['precision']:.3f} R={scores['recall']:.3f} "
              f"F1={scores['f1']:.3f} pred={int(scores['pred'])} gold={int(scores['gold'])}  by box: "
              f"P={boxed['precision']:.3f} R={boxed['recall']:.3f} F1={boxed['f1']:.3f} "
              f"labels={int(boxed['labelled'])}/{int(boxed['matched'])}"
              + (f"  ERROR {errors[page.page_id]}" if page.page_id in errors else ""), flush=True)
    for split, (pred, gold) in pooled.items():
        scores = prf(pred, gold)
        figures[f"edge_f1_real_{route}_{split}"] = round(scores["f1"], 4)
        figures[f"edge_f1_fuzzy_real_{route}_{split}"] = round(prf(pred, gold, fuzzy=True)["f1"], 4)
        figures[f"edge_precision_real_{route}_{split}"] = round(scores["precision"], 4)
        figures[f"edge_recall_real_{route}_{split}"] = round(scores["recall"], 4)
        boxed = pooled_box_prf(by_boxes[split])
        figures[f"edge_f1_boxes_real_{route}_{split}"] = round(boxed["f1"], 4)
        figures[f"edge_precision_boxes_real_{route}_{split}"] = round(boxed["precision"], 4)
        figures[f"edge_recall_boxes_real_{route}_{split}"] = round(boxed["recall"], 4)
        figures[f"edge_label_accuracy_boxes_real_{route}_{split}"] = round(boxed["label_accuracy"], 4)
    figures[f"pages_per_s_real_{route}"] = round(len(pages) / seconds, 3) if seconds else 0.0
    figures[f"real_errors_{route}"] = errors
    return figures


def _scanned_route(root: Path, pages: list[RealPage], scans: Path, dpi: int) -> dict[str, Any]:
    """Scores of the scans at ``dpi`` (a module-level function, so a worker process can run it)."""
    return _real_route(root, pages, f"scanned_{dpi}", lambda p: (scans / scan_name(p, dpi), 1))


def real_digital_figures(root: Path) -> dict[str, Any]:
    """Edge scores of the digital route on the real pages (its keys only, ``edge_*_real_digital_*``)."""
    listed = real_pages(root)
    pages = [p for p in listed if (root / "gold" / f"{p.page_id}-edges.csv").is_file()]
    figures: dict[str, Any] = {"real_pages_without_gold": [p.page_id for p in listed if p not in pages]}
    figures |= _real_route(root, pages, "digital", lambda p: (p.pdf, p.page))
    figures["real_pages_dev"] = [p.page_id for p in pages if p.split == "dev"]
    figures["real_pages_heldout"] = [p.page_id for p in pages if p.split == "heldout"]
    return figures


def real_figures(root: Path, dpis: list[int], scans_dir: Path | None, jobs: int = 1) -> dict[str, Any]:
    """Edge scores on the real pages, digital and scanned at each of ``dpis`` (``jobs`` resolutions at once,
    each in its own process; the per-resolution pages/s then share the cores)."""
    listed = real_pages(root)
    pages = [p for p in listed if (root / "gold" / f"{p.page_id}-edges.csv").is_file()]
    figures = real_digital_figures(root)
    with tempfile.TemporaryDirectory(prefix="dkg-real-scans-") as tmp:
        out = scans_dir or Path(tmp)
        write_real_scans(root, out, dpis=tuple(dpis))
        if jobs > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(jobs, len(dpis))) as pool:
                by_dpi = list(pool.map(_scanned_route, *zip(*[(root, pages, out, d) for d in dpis], strict=True)))
        else:
            by_dpi = [_scanned_route(root, pages, out, dpi) for dpi in dpis]
        for dpi, scanned in zip(dpis, by_dpi, strict=True):
            figures.update(scanned)
            if dpi == dpis[0]:
                figures.update({k.replace(f"scanned_{dpi}", "scanned"): v for k, v in scanned.items()
                                if k.startswith(("edge_", "pages_per_s_")) and "_page_" not in k})
    figures["real_scan_dpis"] = dpis
    figures["real_scanned_keys_dpi"] = dpis[0]
    figures["scan_route"] = settings_from_env().route.value
    figures["real_pages_dev"] = [p.page_id for p in pages if p.split == "dev"]
    figures["real_pages_heldout"] = [p.page_id for p in pages if p.split == "heldout"]
    return figures


def real_frame_figures(root: Path) -> dict[str, Any]:
    """Edge scores of the digital route on each page frame variant of the real pages (``--real-frames``)."""
    pages = [p for p in real_pages(root) if (root / "gold" / f"{p.page_id}-edges.csv").is_file()]
    figures: dict[str, Any] = {"real_frame_variants": list(FRAME_VARIANTS)}
    with tempfile.TemporaryDirectory(prefix="dkg-real-frames-") as tmp:
        for kind in FRAME_VARIANTS:
            variants = {p.page_id: write_frame_variant(p, kind, Path(tmp)) for p in pages}
            scored = _real_route(root, pages, f"digital_{kind}", lambda p, v=variants: (v[p.page_id], 1))
            # box positions are not compared: a shrunk or turned page moves every box off the gold's coordinates
            figures.update({k: v for k, v in scored.items() if not k.startswith("pages_per_s_") and "_boxes_" not in k})
    return figures


def corpus_digital_figures(digital: list, heldout: dict[str, set[int]], runs: int) -> dict[str, Any]:
    """Edge scores and pages/s of the own corpus's born-digital PDFs (the ``edge_*_digital*`` keys only)."""
    scores, _, _, docs, _, splits = _score(digital, None, heldout=heldout)
    rates = []
    for _ in range(runs):
        _, seconds, pages, _, _, _ = _score(digital, None)
        rates.append(pages / seconds)
    figures: dict[str, Any] = {
        "edge_f1_digital": round(scores["f1"], 4),
        "edge_precision_digital": round(scores["precision"], 4),
        "edge_recall_digital": round(scores["recall"], 4),
        "pages_per_s_digital": round(statistics.median(rates), 3),
        "digital_pdfs": len(digital),
    }
    figures.update({f"edge_f1_{k.replace(' ', '_').replace('.', '_')}": round(v, 4) for k, v in docs.items()})
    for split, split_scores in splits.items():
        for metric in ("f1", "precision", "recall"):
            figures[f"edge_{metric}_digital_{split}"] = round(split_scores[metric], 4)
    return figures


def _write_merged(out: Path, figures: dict[str, Any]) -> None:
    merged: dict[str, Any] = {}
    if out.is_file():
        merged = json.loads(out.read_text(encoding="utf-8"))
    merged.update(figures)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=ROOT / "datasets" / "guidelines")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scanned-pages", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "parser.json")
    parser.add_argument("--real", action="store_true", help="also score the real guideline pages and their scans")
    parser.add_argument("--real-only", action="store_true", help="score only the real pages (skip the corpus)")
    parser.add_argument("--real-digital-only", action="store_true",
                        help="score only the digital route on the real pages (no scans, no corpus)")
    parser.add_argument("--real-frames", action="store_true",
                        help="score only the digital route on the real pages re-saved in other page frames")
    parser.add_argument("--corpus-digital-only", action="store_true",
                        help="score only the own corpus's born-digital PDFs (digital keys; no scans, no real pages)")
    parser.add_argument("--real-root", type=Path, default=ROOT / "datasets" / "realpdfs")
    parser.add_argument("--real-dpi", type=int, action="append", help="scan resolution (repeatable; default 200)")
    parser.add_argument("--real-scans-dir", type=Path, default=None,
                        help="write the real scans here (default: a temporary folder)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="score this many scan resolutions at once, one process each (default 1)")
    args = parser.parse_args()
    if args.real_frames or args.real_digital_only:
        real = real_frame_figures(args.real_root) if args.real_frames else real_digital_figures(args.real_root)
        _write_merged(args.out, real)
        print(json.dumps(real, indent=1, ensure_ascii=False))
        return
    if args.real or args.real_only:
        real = real_figures(args.real_root, args.real_dpi or [200], args.real_scans_dir, args.jobs)
        _write_merged(args.out, real)
        print(json.dumps(real, indent=1, ensure_ascii=False))
        if args.real_only:
            return
    items = corpus_pdfs(args.corpus)
    digital = [i for i in items if not i.scanned]
    scanned = [i for i in items if i.scanned]
    if args.corpus_digital_only:
        own = corpus_digital_figures(digital, _heldout_numbers(args.corpus), args.runs)
        _write_merged(args.out, own)
        print(json.dumps(own, indent=1))
        return
    if not digital or not scanned:
        sys.exit(f"need digital and scanned corpus PDFs under {args.corpus}; run `dkg corpus render` first")

    heldout = _heldout_numbers(args.corpus)
    d_scores, _, _, d_docs, _, d_splits = _score(digital, None, heldout=heldout)
    rates = []
    for _ in range(args.runs):
        _, seconds, pages, _, _, _ = _score(digital, None)
        rates.append(pages / seconds)
    spec = f"1-{args.scanned_pages}" if args.scanned_pages else None
    s_scores, s_seconds, s_pages, s_docs, s_first, s_splits = _score(scanned, spec, first=2, heldout=heldout)
    s_rates = [s_pages / s_seconds]
    for _ in range(max(0, min(args.runs, 3) - 1)):
        _, seconds, pages, _, _, _ = _score(scanned[:1], "1-2")
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
    for route, splits in (("digital", d_splits), ("scanned", s_splits)):
        for split, scores in splits.items():
            for metric in ("f1", "precision", "recall"):
                figures[f"edge_{metric}_{route}_{split}"] = round(scores[metric], 4)
    figures["scan_route"] = settings_from_env().route.value
    _write_merged(args.out, figures)
    print(json.dumps(figures, indent=1))
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")


if __name__ == "__main__":
    main()
