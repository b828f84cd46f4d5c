"""QA benchmark: trains (or reuses) the text-to-Cypher model and the no-DKG baseline, evaluates both on the
CPG-QA test and unseen-template splits, re-measures inference latency (median of 3 passes), runs the
unsafe-query suite against the real Neo4j, and writes flat figures to bench/results/qa.json.

    python bench/qa_bench.py [--limit N] [--port 7703]   # own Neo4j server under .dkg-bench-qa/
    python bench/qa_bench.py --clinician-only            # only the human-written clinician questions
    python bench/qa_bench.py --clinician-only --rules-only   # the same, answered by the rule layer alone
    python bench/qa_bench.py --compare DIR [DIR ...]      # trained text-to-Cypher models side by side
    python bench/qa_bench.py --baseline-clinician        # the no-DKG baseline on the clinician questions
    python bench/qa_bench.py --gold-targets              # grounding + walk alone: the gold target as the beam
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.config import Settings, load_settings  # noqa: E402
from dkg.errors import DKGError  # noqa: E402
from dkg.graph.db import Graph  # noqa: E402
from dkg.qa import clinician  # noqa: E402
from dkg.qa.baseline_eval import run_baseline  # noqa: E402
from dkg.qa.dataset import GenConfig, QAItem, dataset_hash, load_dataset  # noqa: E402
from dkg.qa.evaluate import breakdown, evaluate, percentile, plot, run_with_dkg  # noqa: E402
from dkg.qa.safety import SafeExecutor  # noqa: E402
from dkg.qa.seq2seq import Seq2Seq, answer_threads  # noqa: E402
from dkg.qa.service import TextToCypherService  # noqa: E402
from dkg.qa.training import (  # noqa: E402
    MODEL_DIR,
    ensure_baseline,
    ensure_dataset,
    ensure_graph,
    ensure_model,
    write_model_card,
)
from dkg.services.neo4j_server import LocalNeo4jServer  # noqa: E402

RESULTS = ROOT / "bench" / "results"
ATTACKS = [
    "CREATE (n:Evil) RETURN n", "MERGE (n:Evil {x: 1}) RETURN n",
    "MATCH (n:Node) WITH n LIMIT 1 SET n.pwned = true RETURN n.uid",
    "MATCH (n:Node) WITH n LIMIT 1 REMOVE n:Node RETURN n.uid", "MATCH (n:Node) /* x */ DeTaCh DeLeTe n",
    "MATCH (n:Node) WITH collect(n)[..3] AS ns FOREACH (x IN ns | SET x.pwned = true) RETURN 1",
    "MATCH (n:Node) CALL { WITH n CREATE (:Evil) } RETURN count(*) AS c",
    "MATCH (n:Node) CALL { WITH n SET n.pwned = 1 } IN TRANSACTIONS RETURN 1",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "CALL dbms.components() YIELD name RETURN name",
    "CALL db.createLabel('Evil')", "CREATE INDEX evil IF NOT EXISTS FOR (n:Evil) ON (n.x)",
]


def say(message: str) -> None:
    print(time.strftime("%H:%M:%S"), message, flush=True)


def counts(service: TextToCypherService) -> tuple[int, int]:
    row = service.graph.read("MATCH (n) WITH count(n) AS n OPTIONAL MATCH ()-[r]->() RETURN n, count(r) AS r")[0]
    return row["n"], row["r"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=0, help="evaluate only the first N test items")
    parser.add_argument("--port", type=int, default=7703, help="Bolt port of the benchmark's own Neo4j server")
    parser.add_argument("--home", type=Path, default=ROOT / ".dkg-bench-qa", help="data folder of that server")
    parser.add_argument("--clinician-only", action="store_true",
                        help="score only the human-written clinician questions (dev and held-out) and update "
                             "their keys in bench/results/qa.json")
    parser.add_argument("--rules-only", action="store_true",
                        help="with --clinician-only: answer with the rule layer alone (no model is trained or "
                             "loaded); keys get the suffix _rules_only")
    parser.add_argument("--model-dir", type=Path, default=None,
                        help="with --clinician-only: answer with this trained model instead of models/text2cypher")
    parser.add_argument("--label", default="", help="with --clinician-only: suffix for the keys written "
                                                    "(e.g. 'before' for a baseline measurement)")
    parser.add_argument("--compare", type=Path, nargs="+", default=None, metavar="DIR",
                        help="score these trained model folders on the same test split and clinician dev questions "
                             "(keys compare_<architecture>_..., shipped_... for models/text2cypher, in "
                             "bench/results/qa.json); held-out only with --heldout")
    parser.add_argument("--heldout", action="store_true", help="with --compare: also score the clinician held-out "
                                                               "questions (run once, to report)")
    parser.add_argument("--dataset", type=Path, default=None,
                        help="with --compare: the CPG-QA file whose test split is scored (default: the shipped one)")
    parser.add_argument("--gold-targets", action="store_true",
                        help="score the test splits with each item's gold target as the only beam (no model): "
                             "grounding and the walk alone")
    parser.add_argument("--baseline-clinician", action="store_true",
                        help="score the no-DKG baseline (models/baseline-answer) on the clinician questions")
    args = parser.parse_args()
    if args.baseline_clinician:  # no graph needed: the baseline writes text, box contents come from the sources
        run_baseline_clinician()
        return
    # the dataset's expected nodes come from the graph built from the guideline sources, so the benchmark
    # answers on exactly that graph, in a server of its own (the demo's graph is built from the PDFs)
    settings = load_settings(home=args.home, neo4j_bolt_port=args.port)
    with LocalNeo4jServer(settings).running():
        with Graph(settings) as graph:
            ensure_graph(graph, GenConfig(), say)
        if args.gold_targets:
            run_gold_targets(settings)
        elif args.compare:
            run_compare(settings, args.compare, args.limit, args.heldout, args.dataset)
        elif args.clinician_only:
            run_clinician(settings, args.label, args.model_dir, args.rules_only)
        else:
            run(settings, args)


def clinician_figures(service: TextToCypherService) -> dict[str, float]:
    """Accuracy on the clinician dev, the own-wordings files (development data, ``clinician.WORDINGS_PATHS``) and
    held-out files; dev and wordings failures are printed (held-out ones never are, so nothing is tuned on them)
    and dev rows written to bench/results/qa-clinician-dev.jsonl."""
    dev = clinician.run(service, clinician.load_items(clinician.DEV_PATH))
    wordings = {path.stem: clinician.run(service, clinician.load_items(path)) for path in clinician.WORDINGS_PATHS}
    held = clinician.run(service, clinician.load_items(clinician.HELDOUT_PATH))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "qa-clinician-dev.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in dev))
    for r in dev + [r for rows in wordings.values() for r in rows]:
        if not r.correct:
            say(f"dev miss {r.id} ({r.type}): boxes {r.answer_boxes} verdict {r.verdict} path {r.path} "
                f"reason {r.no_answer_reason}")
    figures = clinician.accuracy_figures(dev, "clinician_dev")
    for stem, rows in wordings.items():
        figures.update(clinician.accuracy_figures(rows, stem))
    return {**figures, **clinician.accuracy_figures(held, "clinician_heldout")}


def run_clinician(settings: Settings, label: str, model_dir: Path | None = None, rules_only: bool = False) -> None:
    items, _ = ensure_dataset(settings, on_progress=say)
    versions = {i.guideline: i.version for i in items}
    if rules_only:
        with TextToCypherService(settings, rules_only=True, versions=versions) as service:
            figures = clinician_figures(service)
        label = "_".join(filter(None, ["rules_only", label]))
    else:
        model_dir = model_dir or ensure_model(settings, on_progress=say)
        with TextToCypherService(settings, model_dir=model_dir, versions=versions) as service:
            figures = clinician_figures(service)
        figures["clinician_model_dev_exact_match"] = json.loads((model_dir / "meta.json").read_text()).get(
            "dev_exact", 0.0)
    if label:
        figures = {f"{k}_{label}": v for k, v in figures.items()}
    path = RESULTS / "qa.json"
    saved = json.loads(path.read_text()) if path.is_file() else {}
    saved.update({k: round(float(v), 4) for k, v in figures.items()})
    path.write_text(json.dumps(saved, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


def update_results(figures: dict[str, float]) -> None:
    """Merge ``figures`` into bench/results/qa.json (other keys are kept)."""
    path = RESULTS / "qa.json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    saved = json.loads(path.read_text()) if path.is_file() else {}
    saved.update({k: round(float(v), 4) for k, v in figures.items()})
    path.write_text(json.dumps(saved, indent=2) + "\n")


def run_baseline_clinician() -> None:
    """The no-DKG baseline's accuracy on the clinician dev and held-out questions."""
    from dkg.qa.training import BASELINE_DIR
    model = Seq2Seq.load(BASELINE_DIR)
    figures: dict[str, float] = {}
    for name, path in (("clinician_dev", clinician.DEV_PATH), ("clinician_heldout", clinician.HELDOUT_PATH)):
        results = run_baseline(model, clinician.load_items(path))
        figures.update({f"baseline_{k}": v for k, v in clinician.accuracy_figures(results, name).items()})
    update_results(figures)
    print(json.dumps(figures, indent=2))


def model_figures(settings: Settings, model_dir: Path, items: list[QAItem], limit: int, heldout: bool
                  ) -> dict[str, float]:
    """One trained model on the CPG-QA test + unseen splits, decoding latency (no Neo4j) and clinician questions."""
    meta = json.loads((model_dir / "meta.json").read_text())
    report_meta = meta["train_report"]
    versions = {i.guideline: i.version for i in items}
    with TextToCypherService(settings, model_dir=model_dir, versions=versions) as service:
        scored = [i for i in items if i.split in ("test", "test_unseen")]
        if limit and limit < len(scored):  # every k-th item: all guidelines, types and both splits
            scored = scored[:: max(1, len(scored) // limit)][:limit]
        report = evaluate(service, None, scored, say)
        assert service.model is not None
        sample = [i.question for i in items if i.split == "test"][:100]
        runs = []
        for _ in range(3):  # decoding + grounding only: the model's share of the answer, without Neo4j
            times = []
            for q in sample:
                t = time.perf_counter()
                service.model.beam_search(q, beams=service.beams)
                times.append((time.perf_counter() - t) * 1000)
            runs.append(percentile(times, 0.5))
        dev = clinician.run(service, clinician.load_items(clinician.DEV_PATH))
        figures = {**clinician.accuracy_figures(dev, "clinician_dev")}
        if heldout:
            held = clinician.run(service, clinician.load_items(clinician.HELDOUT_PATH))
            figures.update(clinician.accuracy_figures(held, "clinician_heldout"))
    w = report["with_dkg"]
    if "cpu_seconds" in report_meta:  # recorded since the shared training loop (older models lack it)
        figures["train_cpu_minutes"] = report_meta["cpu_seconds"] / 60
    figures.update({
        "accuracy_test": w["test"]["accuracy"], "accuracy_unseen_templates": w["unseen_templates"]["accuracy"],
        "accuracy_test_beams_only": w["test"]["accuracy_beams_only"],
        "accuracy_unseen_templates_beams_only": w["unseen_templates"]["accuracy_beams_only"],
        "test_items_scored": w["test"]["n"], "unseen_items_scored": w["unseen_templates"]["n"],
        "dev_exact_match": meta.get("dev_exact", 0.0), "epochs": report_meta["epochs"],
        "train_minutes": report_meta["seconds"] / 60,
        "model_parameters_m": report_meta["parameters"] / 1e6, "decode_p50_ms_served": statistics.median(runs),
        "int8": float(bool(service.model.meta.get("int8"))),
    })
    return figures


class GoldTargetService(TextToCypherService):
    """The service with each item's own target (the query head the model learns) as its only beam: what grounding,
    the walk and the answer checks score without the model, i.e. the ceiling a perfect model would reach."""

    def __init__(self, settings: Settings, items: list[QAItem], versions: dict[str, str]) -> None:
        super().__init__(settings, versions=versions, rules_only=True)
        self._targets = {item.question: item.target for item in items}

    def decode(self, question: str) -> list[str]:
        target = self._targets.get(question)
        return [target] if target is not None else []


def run_gold_targets(settings: Settings) -> None:
    """Score the test + unseen items with their gold targets; keys gold_target_* in bench/results/qa.json."""
    items, _ = ensure_dataset(settings, on_progress=say)
    scored = [i for i in items if i.split in ("test", "test_unseen")]
    with GoldTargetService(settings, scored, {i.guideline: i.version for i in items}) as service:
        rows = run_with_dkg(service, scored, say)
    w = breakdown(rows)
    by_id = {item.id: item for item in scored}
    errors = [{"id": r["id"], "split": r["split"], "guideline": r["guideline"], "question_type": r["question_type"],
               "question": by_id[r["id"]].question, "expected_node": by_id[r["id"]].expected_node,
               "expected_answer": r["reference"], "answer": r["prediction"], "no_answer": r["no_answer"]}
              for r in rows if not r["correct"]]
    # the items to look at when the walk changes: every wrong one, with what it answered instead
    (RESULTS / "qa-gold-target-errors.json").write_text(json.dumps(errors, indent=1) + "\n", encoding="utf-8")
    figures = {"gold_target_accuracy_test": w["test"]["accuracy"],
               "gold_target_accuracy_unseen_templates": w["unseen_templates"]["accuracy"]}
    figures.update({f"gold_target_accuracy_{name.replace('test/guideline=', 'test_')}": m["accuracy"]
                    for name, m in w.items() if name.startswith("test/guideline=")})
    update_results(figures)
    print(json.dumps(figures, indent=2))


def run_compare(settings: Settings, folders: list[Path], limit: int, heldout: bool, dataset: Path | None) -> None:
    """The given trained models side by side, keys prefixed by each model's architecture."""
    if dataset is not None:
        items = load_dataset(dataset)
        data_hash = dataset_hash(items)
    else:
        items, data_hash = ensure_dataset(settings, on_progress=say)
    out: dict[str, float] = {}
    for folder in folders:
        meta = json.loads((folder / "meta.json").read_text())
        if meta.get("data_hash") != data_hash:
            say(f"{folder}: trained on other data (hash {str(meta.get('data_hash'))[:12]}); figures not comparable")
        prefix = "shipped" if folder.resolve() == MODEL_DIR.resolve() else \
            "compare_warmstart" if meta.get("architecture") == "minilm-warmstart" else "compare_scratch"
        figures = model_figures(settings, folder, items, limit, heldout)
        say(f"{folder} ({prefix}): {json.dumps(figures)}")
        out.update({f"{prefix}_{k}": v for k, v in figures.items()})
    update_results(out)
    print(json.dumps(out, indent=2))


def run(settings: Settings, args: argparse.Namespace) -> None:
    items, _ = ensure_dataset(settings, on_progress=say)
    model_dir = ensure_model(settings, on_progress=say)
    base_dir = ensure_baseline(settings, on_progress=say)
    write_model_card(model_dir, ROOT / "models" / "text2cypher.md", "Text-to-Cypher model (CPG-QA)",
                     "Question → query head (guideline, treatment phrase, fact slots, query body) for the DKG.")
    write_model_card(base_dir, ROOT / "models" / "baseline-answer.md", "Baseline without the DKG (CPG-QA)",
                     "Same architecture trained question → answer text; no graph at question time.")
    versions = {i.guideline: i.version for i in items}
    meta = json.loads((model_dir / "meta.json").read_text())
    base_meta = json.loads((base_dir / "meta.json").read_text())
    with TextToCypherService(settings, model_dir=model_dir, versions=versions) as service:
        report = evaluate(service, Seq2Seq.load(base_dir), items, say, args.limit or None)
        # latency: median over 3 passes of the p50 on 100 test questions
        sample = [i.question for i in items if i.split == "test"][:100]
        p50s, totals, cpus = [], [], []
        for _ in range(3):
            infer, total, cpu = [], [], []
            for q in sample:
                a = service.answer(q)
                infer.append(a.timings_ms.get("generate", 0) + a.timings_ms.get("ground", 0))
                total.append(a.timings_ms.get("total", 0))
                cpu.append(a.timings_ms.get("generate_cpu", 0) + a.timings_ms.get("ground", 0))
            p50s.append(percentile(infer, 0.5))
            totals.append(percentile(total, 0.5))
            cpus.append(percentile(cpu, 0.5))
        # the same sample decoded by the fp32 model in this process: the int8 speed-up and top-beam agreement
        fp32 = Seq2Seq.load(model_dir)
        assert service.model is not None  # the bench answers with the trained model
        test_questions = [i.question for i in items if i.split == "test"][: args.limit or None]
        agree = sum(fp32.beam_search(q, beams=service.beams)[0] == service.model.beam_search(q, beams=service.beams)[0]
                    for q in test_questions)
        decode_ms: dict[str, float] = {}
        for name, model in (("fp32", fp32), ("int8" if settings.qa_int8 else "fp32_again", service.model)):
            runs = []
            for _ in range(3):
                times = []
                for q in sample:
                    t = time.perf_counter()
                    model.beam_search(q, beams=service.beams)
                    times.append((time.perf_counter() - t) * 1000)
                runs.append(percentile(times, 0.5))
            decode_ms[name] = statistics.median(runs)
        before = counts(service)
        executor = SafeExecutor(service.graph, settings)
        refused = 0
        for attack in ATTACKS:
            try:
                executor.run(attack)
            except DKGError:
                refused += 1
        changed = counts(service) != before
        unsafe_executed = executor.executed + report["unsafe_queries_executed"] + int(changed)
        human = clinician_figures(service)
    plot(report["with_dkg"], report["without_dkg"], RESULTS / "qa.png")
    w, wo = report["with_dkg"], report["without_dkg"]
    figures = {
        "dataset_size": len(items),
        "test_items": w.get("test", {}).get("n", 0), "unseen_items": w.get("unseen_templates", {}).get("n", 0),
        "accuracy_test": w["test"]["accuracy"], "accuracy_unseen_templates": w["unseen_templates"]["accuracy"],
        "rouge1_p_test": w["test"]["rouge1_p"], "rouge1_r_test": w["test"]["rouge1_r"],
        "rouge1_f_test": w["test"]["rouge1_f"], "bleu_test": w["test"]["bleu"], "jaccard_test": w["test"]["jaccard"],
        "rouge1_f_unseen_templates": w["unseen_templates"]["rouge1_f"],
        "accuracy_test_beams_only": w["test"]["accuracy_beams_only"],
        "accuracy_unseen_templates_beams_only": w["unseen_templates"]["accuracy_beams_only"],
        "fallback_share_test": w["test"]["fallback_share"],
        "fallback_share_unseen_templates": w["unseen_templates"]["fallback_share"],
        "baseline_accuracy_test": wo["test"]["accuracy"], "baseline_rouge1_f_test": wo["test"]["rouge1_f"],
        "baseline_bleu_test": wo["test"]["bleu"], "baseline_jaccard_test": wo["test"]["jaccard"],
        "baseline_accuracy_unseen_templates": wo["unseen_templates"]["accuracy"],
        "train_minutes": meta["train_report"]["seconds"] / 60,
        "baseline_train_minutes": base_meta["train_report"]["seconds"] / 60,
        "model_parameters_m": meta["train_report"]["parameters"] / 1e6,
        "dev_exact_match": meta.get("dev_exact", 0.0),
        "infer_p50_ms": statistics.median(p50s), "answer_p50_ms": statistics.median(totals),
        "infer_cpu_p50_ms": statistics.median(cpus), "torch_threads": float(answer_threads()),
        "int8": float(settings.qa_int8), "decode_p50_ms_fp32": decode_ms["fp32"],
        "decode_p50_ms_served": decode_ms.get("int8", decode_ms.get("fp32_again", 0.0)),
        "int8_speedup": decode_ms["fp32"] / decode_ms.get("int8", decode_ms.get("fp32_again", decode_ms["fp32"])),
        "top_beam_agreement_int8_fp32_test": agree / max(len(test_questions), 1),
        "beam_rescues": report["beam_rescues"], "beam_rescue_rate": report["beam_rescue_rate"],
        "all_beams_invalid": report["all_beams_invalid"], "repaired_queries": report["repaired"],
        "unsafe_attacks": len(ATTACKS), "unsafe_attacks_refused": refused,
        "unsafe_queries_executed": unsafe_executed,
        **human,
    }
    for group, m in w.items():
        if group.startswith("test/"):
            figures[f"accuracy_{group.replace('test/', '').replace('=', '_')}"] = m["accuracy"]
    update_results(figures)  # keeps keys written by other modes (clinician labels, model comparison)
    (RESULTS / "qa-table.md").write_text(report["table"] + "\n")
    print(report["table"])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
