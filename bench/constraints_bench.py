"""Benchmark of the constraint extractor: server start, warm throughput, F1 against the corpus gold.

Run: ``.venv/bin/python bench/constraints_bench.py`` → ``bench/results/constraints.json`` (flat keys).
Throughput is measured without the parse cache (every sentence really parsed) after one warm-up
pass, as the median of ``--runs`` passes over the gold sentences.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from dkg.config import PROJECT_ROOT, get_settings
from dkg.constraints.evaluate import default_gold, load_gold, predict, score
from dkg.constraints.extractor import ConstraintExtractor
from dkg.constraints.run import open_extractor
from dkg.services.corenlp import CoreNLPServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="timed passes (median reported)")
    parser.add_argument("--starts", type=int, default=3, help="server starts timed (median reported)")
    parser.add_argument("--sentences", type=int, default=200, help="distinct sentences per timed pass")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "bench" / "results" / "constraints.json")
    args = parser.parse_args()

    settings = get_settings()
    items = load_gold(default_gold(PROJECT_ROOT / "datasets" / "guidelines"))
    reference = [i.constraints for i in items]

    starts: list[float] = []
    for _ in range(args.starts):
        with CoreNLPServer(settings) as server:
            assert server.start_seconds is not None
            starts.append(server.start_seconds)

    sentences = list(dict.fromkeys(i.text for i in items if not i.is_label))[: args.sentences]
    rates: list[float] = []
    with CoreNLPServer(settings) as server:
        extractor = ConstraintExtractor(parser=server)  # no cache: every pass parses every sentence
        extractor.extract_many(sentences)  # warm-up (JIT, model pages)
        for _ in range(args.runs):
            began = time.perf_counter()
            extractor.extract_many(sentences)
            rates.append(len(sentences) / (time.perf_counter() - began))

    with open_extractor(settings) as extractor:
        figures = score(predict(extractor, items), reference)
    flat = score(predict(ConstraintExtractor(rules_only=True), items), reference)

    results = {
        "f1_micro": round(figures["f1_micro"], 4),
        "precision": round(figures["precision"], 4),
        "recall": round(figures["recall"], 4),
        "f1_min_key": round(figures["f1_min_key"], 4),
        "exact_match": round(figures["exact_match"], 4),
        "f1_rules_only": round(flat["f1_micro"], 4),
        "exact_match_rules_only": round(flat["exact_match"], 4),
        "sentences_per_s": round(statistics.median(rates), 2),
        "server_start_s": round(statistics.median(starts), 2),
        "gold_sentences": len(items),
        "gold_constraints": int(figures["gold_constraints"]),
        "timed_sentences": len(sentences),
        "runs": args.runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
