"""How much the QA layer's accuracy on development questions depends on how they are typed: every development
question (clinician dev split and the project's wordings files; never the held-out split) is asked as written and
under deterministic perturbations a clinician's typing produces — all lower case, no punctuation, and both — and
each variant is scored by the dataset's rules. A rule that works only on one spelling of a question shows up as a
drop here, on data nobody has to hold out.

    python bench/qa_robustness.py [--port 7704] [--model]   # own Neo4j server under .dkg-bench-robust/

Writes bench/results/qa-robustness.json (accuracy per variant and file, and the items that a variant breaks).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.config import load_settings  # noqa: E402
from dkg.graph.db import Graph  # noqa: E402
from dkg.qa import clinician  # noqa: E402
from dkg.qa.dataset import GenConfig  # noqa: E402
from dkg.qa.service import TextToCypherService  # noqa: E402
from dkg.qa.training import MODEL_DIR, ensure_graph  # noqa: E402
from dkg.services.neo4j_server import LocalNeo4jServer  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DEVELOPMENT_FILES = (clinician.DEV_PATH, *clinician.WORDINGS_PATHS)


def _no_punctuation(question: str) -> str:
    """Sentence punctuation dropped as in a hurried note; the question mark kept, since it tells a question from a
    report, and signs that carry meaning (+, -, %, /, <, >, .) inside words and numbers kept."""
    text = re.sub(r"[,;:!()\[\]\"]", " ", question)
    text = re.sub(r"\.(?=\s|$)", " ", text)
    return re.sub(r"\s+", " ", text).strip()


VARIANTS: dict[str, Callable[[str], str]] = {
    "as_written": lambda q: q,
    "lower_case": str.lower,
    "no_punctuation": _no_punctuation,
    "lower_no_punctuation": lambda q: _no_punctuation(q.lower()),
}


def say(message: str) -> None:
    print(time.strftime("%H:%M:%S"), message, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=7704, help="Bolt port of the benchmark's own Neo4j server")
    parser.add_argument("--home", type=Path, default=ROOT / ".dkg-bench-robust", help="data folder of that server")
    parser.add_argument("--model", action="store_true", help="answer with models/text2cypher beside the rule layer "
                                                             "(default: the rule layer alone)")
    parser.add_argument("--out", type=Path, default=RESULTS / "qa-robustness.json")
    args = parser.parse_args()

    settings = load_settings(home=args.home, neo4j_bolt_port=args.port)
    items = {path.stem: clinician.load_items(path) for path in DEVELOPMENT_FILES}
    results: dict[str, object] = {"variants": list(VARIANTS), "files": list(items),
                                  "route": "model + rules" if args.model else "rules only"}
    broken: dict[str, list[dict[str, str]]] = {}
    with LocalNeo4jServer(settings).running(), Graph(settings) as graph:
        ensure_graph(graph, GenConfig(), say)
        with TextToCypherService(settings, graph=graph, rules_only=not args.model,
                                 model_dir=MODEL_DIR if args.model else None,
                                 versions=dict(GenConfig().versions)) as service:
            as_written: dict[str, bool] = {}
            for variant, perturb in VARIANTS.items():
                right = total = 0
                for stem, file_items in items.items():
                    changed = [i.model_copy(update={"question": perturb(i.question)}) for i in file_items]
                    scored = clinician.run(service, changed)
                    results[f"accuracy_{variant}_{stem}"] = round(sum(r.correct for r in scored) / len(scored), 4)
                    right += sum(r.correct for r in scored)
                    total += len(scored)
                    for item, result in zip(changed, scored, strict=True):
                        key = f"{stem}/{item.id}"
                        if variant == "as_written":
                            as_written[key] = result.correct
                        elif as_written[key] and not result.correct:
                            broken.setdefault(variant, []).append({"item": key, "question": item.question,
                                                                   "got": ", ".join(result.answer_boxes)})
                results[f"accuracy_{variant}"] = round(right / total, 4)
                results[f"n_{variant}"] = total
                say(f"{variant}: {right}/{total} = {right / total:.3f}")
    results["broken_by_variant"] = broken
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    say(f"wrote {args.out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
