"""Speed of the scanned-page route: how tesseract is run, against the way it was run before, in the same run.

Run: ``.venv/bin/python bench/scan_speed_bench.py --runs 3`` → ``bench/results/scan_speed.json``.

Pages: the real development pages (``datasets/realpdfs/split.json``, ``split: dev``) scanned at 200 dpi by
``dkg.corpus.real_scans`` into a temporary folder, and one whole scanned PDF of the project's own corpus. Two
configurations parse every page, each in a fresh process, alternating run by run so both see the same machine:

- ``baseline``: tesseract's own OpenMP threads (``DKG_TESSERACT_THREADS=0``) and one tesseract process at a time
  (``DKG_TESSERACT_PROCESSES=1``), as the parser ran it before;
- ``default``: the platform's settings (one OpenMP thread per process, one process per core).

Reported: the median wall time of each over ``--runs`` runs, per file and in total, the ratio baseline / default,
and whether both read exactly the same edges (they must: only the way tesseract runs differs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS_SCAN = ROOT / "datasets" / "guidelines" / "ALL" / "pdf" / "ALL-1.2026-scanned.pdf"
CONFIGS = {"baseline": {"DKG_TESSERACT_THREADS": "0", "DKG_TESSERACT_PROCESSES": "1"}, "default": {}}


def worker(files: list[str]) -> None:
    """Parse each file; print one JSON object: file name → seconds and edges read."""
    from dkg.parsing import parse_pdf

    out = {}
    for name in files:
        start = time.perf_counter()
        result = parse_pdf(name)
        out[Path(name).name] = {"seconds": time.perf_counter() - start,
                                "edges": sorted([e.head, e.tail, e.label or ""] for e in result.edges)}
    print(json.dumps(out))


def _scans(folder: Path) -> list[Path]:
    from dkg.corpus.real_scans import real_pages, scan_name, write_real_scans

    write_real_scans(ROOT / "datasets" / "realpdfs", folder, dpis=(200,))
    return [folder / scan_name(p, 200) for p in real_pages(ROOT / "datasets" / "realpdfs") if p.split == "dev"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scan_speed.json")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if args.runs < 1:
        raise SystemExit("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="dkg-scan-speed-") as tmp:
        files = [str(p) for p in [*_scans(Path(tmp)), CORPUS_SCAN]]
        seconds: dict[str, list[dict[str, float]]] = {name: [] for name in CONFIGS}
        edges: dict[str, set[str]] = {name: set() for name in CONFIGS}
        for run in range(args.runs):
            for name, env in CONFIGS.items():
                done = subprocess.run([sys.executable, __file__, "--worker", *files], env={**os.environ, **env},
                                      check=True, capture_output=True, text=True, cwd=ROOT)
                read = json.loads(done.stdout.strip().splitlines()[-1])
                seconds[name].append({f: v["seconds"] for f, v in read.items()})
                edges[name].add(json.dumps({f: v["edges"] for f, v in read.items()}, sort_keys=True))
                print(f"run {run + 1} {name}: {sum(seconds[name][-1].values()):.1f} s", flush=True)
    totals = {name: statistics.median(sum(r.values()) for r in runs) for name, runs in seconds.items()}
    figures = {
        "pages": [Path(f).name for f in files],
        "runs": args.runs,
        "cores": os.cpu_count(),
        "configs": CONFIGS,
        "median_seconds_total": {name: round(t, 1) for name, t in totals.items()},
        "median_seconds_per_file": {name: {f: round(statistics.median(r[f] for r in runs), 1) for f in runs[0]}
                                    for name, runs in seconds.items()},
        "ratio_baseline_to_default": round(totals["baseline"] / totals["default"], 2),
        "same_edges_every_run": len(edges["baseline"] | edges["default"]) == 1,
        "command": "python bench/scan_speed_bench.py --runs " + str(args.runs),
        "measured": time.strftime("%Y-%m-%d"),
    }
    args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: figures[k] for k in ("median_seconds_total", "ratio_baseline_to_default",
                                                "same_edges_every_run")}))


if __name__ == "__main__":
    main()
