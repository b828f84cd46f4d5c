"""Benchmark of onboarding on the real SMOG cardiac pages: wall time PDF → draft, and constraint F1 against
hand-made gold (``datasets/onboarding/gold.yaml``, development pages only).

Run: ``.venv/bin/python bench/onboard_bench.py`` → ``bench/results/onboard.json`` (flat keys). Each page is
onboarded as its own draft (``bench-<page>`` 1.2026) into the configured graph and the draft is deleted after
it is scored. Two F1 figures: *exact* (the constraint text, key name included, as a curator would publish it)
and *lenient* (same operator and value, key names sharing a word: ``narrow_qrs<0.12`` ~ ``qrs_width<0.12``).
Constraints the proposer or the extractor put on the draft are scored before any review.

``--qa`` (instead of the F1 part): the recorded review of each onboarded guideline
(``datasets/guidelines/<name>/review-<version>.yaml``) is replayed — onboard → review → publish — and its
hand-written questions (``datasets/qa/<name>_questions.jsonl``) are answered by the rule layer; wall time from
the PDF to the last answer, accuracy on the development and held-out items (split rule in the README beside
them; a second, independent set ``<name>_fresh_questions.jsonl``, when present, is scored the same way under
``<name>.qa_fresh_{dev,heldout}_*``), and, with ``--clinician``, the rule layer's accuracy on the shipped
guidelines' clinician dev questions with the onboarded guideline published (it must not drop). The keys are merged
into the results file.

``--box-wordings`` (instead): the same replay with every key the review writes cut to the wordings a box gives
it (a boolean key its first synonym, a categorical value its own name; numeric keys kept), as a curator who adds
no wordings leaves an onboarded guideline; then the same questions. It measures, on development data, how much the
answers owe to the curator's wordings and how much the shared clinical wordings (``dkg/lexicon/data/
wording_groups.yaml``) give back; keys ``<name>.box_wordings.*``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from dkg.config import PROJECT_ROOT, get_settings
from dkg.graph.db import open_graph
from dkg.graph.drafts import draft_items
from dkg.graph.onboard import discard_onboarding, onboard
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, onboarded_sources, reload_vocabulary

PDF = PROJECT_ROOT / "datasets" / "realpdfs" / "smog-cardiac-flowcharts.pdf"
GOLD = PROJECT_ROOT / "datasets" / "onboarding" / "gold.yaml"
VERSION = "1.2026"
_PARTS = re.compile(r"^(?P<key>[a-z0-9_]+)(?P<op><=|>=|!=|<|>|=)(?P<value>.+)$")


def _split(text: str) -> tuple[set[str], str, str] | None:
    match = _PARTS.match(text.replace(" ", ""))
    if not match:
        return None
    return set(match["key"].split("_")), match["op"], match["value"]


def lenient_matches(predicted: list[str], gold: list[str]) -> int:
    """Greedy one-to-one matches with the same operator and value and key names sharing a word.

    >>> lenient_matches(["narrow_qrs<0.12", "stable=yes"], ["qrs_width<0.12", "stable=no"])
    1
    """
    remaining = [_split(g) for g in gold]
    hits = 0
    for text in predicted:
        p = _split(text)
        if p is None:
            continue
        for i, g in enumerate(remaining):
            if g is not None and g[1:] == p[1:] and g[0] & p[0]:
                remaining[i] = None
                hits += 1
                break
    return hits


def f1(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 of ``tp`` hits among ``n_pred`` predictions and ``n_gold`` gold items."""
    p = tp / n_pred if n_pred else 1.0
    r = tp / n_gold if n_gold else 1.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "bench" / "results" / "onboard.json")
    parser.add_argument("--pages", nargs="*", help="page ids of the gold file (default all)")
    parser.add_argument("--qa", action="store_true", help="replay the recorded reviews and answer the questions")
    parser.add_argument("--clinician", action="store_true", help="with --qa: also the clinician dev questions")
    parser.add_argument("--runs", type=int, default=3,
                        help="with --qa: PDF -> answers runs per guideline; times are medians, with the parse of the "
                             "same pages alone (median of as many runs) as the baseline of the same run")
    parser.add_argument("--model-update", nargs="+", choices=("finetune", "retrain"), default=None,
                        help="generate questions for every published onboarded guideline, update the text-to-Cypher "
                             "model each way named and score CPG-QA test and the generated test split before/after")
    parser.add_argument("--minutes", type=float, nargs=2, default=(10.0, 12.0), metavar=("FINETUNE", "RETRAIN"),
                        help="with --model-update: training budgets in minutes (retrain: the shipped trainer's 12)")
    parser.add_argument("--limit", type=int, default=0, help="with --model-update: score only N CPG-QA test items")
    parser.add_argument("--no-shipped", action="store_true", help="with --model-update: do not score the shipped model")
    parser.add_argument("--epochs", type=int, default=None, help="with --model-update: fine-tuning epochs")
    parser.add_argument("--label", default="", help="with --model-update: suffix of the model folders and keys")
    parser.add_argument("--lr", type=float, default=None, help="with --model-update: fine-tuning peak rate")
    parser.add_argument("--old-sample", type=int, default=None,
                        help="with --model-update: CPG-QA training questions replayed in the fine-tune")
    parser.add_argument("--heldout", action="store_true",
                        help="onboard each held-out page of datasets/onboarding/heldout.yaml as a new guideline: "
                             "PDF -> draft -> recorded review -> publish -> its hand-written questions, once")
    parser.add_argument("--dev-only", action="store_true",
                        help="with --heldout: only the pages marked `split: dev` (developing without running the "
                             "held-out ones again)")
    parser.add_argument("--box-wordings", action="store_true",
                        help="replay each recorded review with its keys cut to their box wordings and answer the "
                             "questions (what the curator's wordings carry)")
    args = parser.parse_args()
    if args.box_wordings:
        box_wordings_part(args.out)
        return
    if args.heldout:
        heldout_part(args.out, dev_only=args.dev_only)
        return
    if args.qa:
        qa_part(args.out, clinician_dev=args.clinician, runs=args.runs)
        return
    if args.model_update:
        tuning = {k: v for k, v in (("max_epochs", args.epochs), ("lr", args.lr),
                                    ("old_train_sample", args.old_sample)) if v is not None}
        model_update_part(args.out, args.model_update, args.minutes, args.limit, shipped=not args.no_shipped,
                          tuning=tuning, label=args.label)
        return

    gold_pages = yaml.safe_load(GOLD.read_text(encoding="utf-8"))["pages"]
    # a fresh draft of a NEW guideline: the shipped onboarded guideline's own keys (made for these pages) are left out
    vocabulary = _vocabulary_without_onboarded(Path(tempfile.mkdtemp(prefix="dkg-onboard-bench-")))
    reload_vocabulary(root=vocabulary)
    pages = args.pages or list(gold_pages)
    settings = get_settings()
    figures: dict[str, float | str] = {}
    totals = Counter[str]()
    start_all = time.perf_counter()
    with open_graph(settings) as graph:
        for page in pages:
            spec = gold_pages[page]
            name = f"bench-{page}"
            graph.write(named_delete(), {"uid": f"{name}|{VERSION}"})
            start = time.perf_counter()
            report = onboard(graph, PDF, name, VERSION, pages=str(spec["pdf_page"]), overlays=False,
                             settings=settings, echo=lambda _: None)
            seconds = time.perf_counter() - start
            predicted = [c for item in draft_items(graph, name, VERSION) for c in item.constraints]
            gold = list(spec["constraints"])
            exact = sum((Counter(predicted) & Counter(gold)).values())
            lenient = lenient_matches(predicted, gold)
            discard_onboarding(graph, name, VERSION, settings=settings, who="onboard_bench", reason="scored")
            figures[f"{page}.seconds"] = round(seconds, 1)
            figures[f"{page}.predicted"] = len(predicted)
            figures[f"{page}.gold"] = len(gold)
            figures[f"{page}.proposed_keys"] = len(report.proposed_keys)
            figures[f"{page}.domains"] = ",".join(report.domains) or "none"
            figures[f"{page}.left_out"] = len(report.left_out)
            figures[f"{page}.f1_exact"] = round(f1(exact, len(predicted), len(gold))["f1"], 3)
            figures[f"{page}.f1_lenient"] = round(f1(lenient, len(predicted), len(gold))["f1"], 3)
            totals.update({"exact": exact, "lenient": lenient, "predicted": len(predicted), "gold": len(gold)})
            print(f"{page}: {seconds:.1f} s, {len(predicted)} predicted / {len(gold)} gold, exact {exact}, "
                  f"lenient {lenient}; predicted {sorted(predicted)}; domains {report.domains or 'none'}, "
                  f"left out {report.left_out}")
    figures["pages"] = len(pages)
    figures["seconds_total"] = round(time.perf_counter() - start_all, 1)
    for kind in ("exact", "lenient"):
        for metric, value in f1(totals[kind], totals["predicted"], totals["gold"]).items():
            figures[f"micro_{metric}_{kind}"] = round(value, 3)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kept = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    kept = {k: v for k, v in kept.items() if not (k.startswith(("micro_", "smog-")) or k in ("pages", "seconds_total"))}
    args.out.write_text(json.dumps({**kept, **figures}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in figures.items() if k.startswith(("micro", "seconds", "pages"))}, indent=2))


def _vocabulary_without_onboarded(into: Path) -> Path:
    """A copy of the shipped guidelines' vocabulary files without those of onboarded guidelines."""
    for path in GUIDELINES_ROOT.glob(f"*/{GUIDELINE_FILE}"):
        if path.parent.name not in onboarded_sources():
            (into / path.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, into / path.parent.name / GUIDELINE_FILE)
    return into


def box_wordings_review(review: Path, into: Path) -> Path:
    """A copy of the recorded ``review`` (written in ``into``) whose keys keep only the wordings a box gives them:
    a boolean key its first synonym (as its yes wording, no ``no`` wordings), a categorical value its own name.
    Numeric keys keep their synonyms (a rate or a pressure is named, not described)."""
    recorded = yaml.safe_load(review.read_text(encoding="utf-8"))

    def cut(entry: dict[str, Any]) -> None:
        if entry.get("kind") == "numeric":
            return
        if entry.get("kind") == "boolean":
            entry["synonyms"] = list(entry.get("synonyms", []))[:1] or [entry["description"].casefold()]
            entry["yes"], entry["no"] = list(entry["synonyms"]), []
            return
        entry["values"] = {value: [value.replace("_", " ")] for value in entry.get("values", {})}

    for entry in (recorded.get("add") or {}).get("keys", {}).values():
        cut(entry)
    for decision in recorded.get("decisions", []):
        if isinstance(decision, dict) and isinstance(decision.get("entry"), dict):
            cut(decision["entry"])
    path = into / review.name
    path.write_text(yaml.safe_dump(recorded, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _question_sets(name: str) -> dict[str, dict[str, list[Any]]]:
    """The hand-written question sets of guideline ``name`` that exist, by label and part: ``main``, ``fresh`` and
    ``fresh2`` (second and third independent sets, each written by another session) split dev / held out,
    ``steps`` (procedure-style questions: a named step, what follows) all dev."""
    from dkg.evaluation.onboarded_qa import load_items, split

    stem = PROJECT_ROOT / "datasets" / "qa" / name.replace("-", "_")
    sets: dict[str, dict[str, list[Any]]] = {}
    for label, suffix in (("main", ""), ("fresh", "_fresh"), ("fresh2", "_fresh2"), ("steps", "_steps")):
        path = Path(f"{stem}{suffix}_questions.jsonl")
        if path.is_file():
            items = load_items(path)
            sets[label] = {"dev": items} if label == "steps" else dict(
                zip(("dev", "heldout"), split(items), strict=True))
    return sets


def _answer_sets(service: Any, graph: Any, sets: dict[str, dict[str, list[Any]]]) -> dict[tuple[str, str], list[Any]]:
    """The scored rows of every part of ``sets``, by (label, part)."""
    from dkg.evaluation.onboarded_qa import run

    return {(label, part): run(service, graph, items) for label, parts in sets.items() for part, items in parts.items()}


def _record(figures: dict[str, Any], key: str, rows: list[Any]) -> None:
    """Accuracy, size and the wrong ids of one scored question set under ``key``."""
    figures[f"{key}_accuracy"] = round(sum(r.correct for r in rows) / len(rows), 3)
    figures[f"{key}_n"] = len(rows)
    figures[f"{key}_wrong"] = ",".join(r.id for r in rows if not r.correct)


def box_wordings_part(out: Path) -> None:
    """Each recorded review replayed with :func:`box_wordings_review`, then its question sets (rule layer)."""
    from dkg.graph.drafts_replay import onboard_reviewed, review_files
    from dkg.qa.service import TextToCypherService

    figures: dict[str, float | str] = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    settings = get_settings()
    with open_graph(settings) as graph:
        for path in review_files(GUIDELINES_ROOT):
            with tempfile.TemporaryDirectory(prefix="dkg-box-wordings-") as work:
                review = box_wordings_review(path, Path(work))
                name = onboard_reviewed(graph, review, settings=settings, work=Path(work), echo=lambda _: None
                                        ).guideline
            service = TextToCypherService(settings, graph=graph, rules_only=True)
            for (label, part), rows in _answer_sets(service, graph, _question_sets(name)).items():
                _record(figures, f"{name}.box_wordings.qa_{label}_{part}", rows)
                print(f"{name} box wordings {label} {part}: {sum(r.correct for r in rows)}/{len(rows)}")
            figures[f"{name}.box_wordings.note"] = (
                "the recorded review with its keys cut to their box wordings (bench/onboard_bench.py "
                "--box-wordings): a curator who adds no wordings; rule layer")
        # the shipped vocabulary again, for whatever runs next in this process
        reload_vocabulary()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def qa_part(out: Path, *, clinician_dev: bool, runs: int = 3) -> None:
    """PDF → published guideline → answered questions, per recorded review, ``runs`` times (median wall times;
    the parse of the same pages alone is the baseline measured in the same run); figures merged into ``out``."""
    import statistics
    import tempfile

    from dkg.evaluation.onboarded_qa import load_items, run, split
    from dkg.graph.drafts_replay import load_review, onboard_reviewed, review_files
    from dkg.parsing import parse_pdf
    from dkg.qa.service import TextToCypherService
    if runs < 1:
        raise SystemExit("--runs must be at least 1")
    figures: dict[str, float | str] = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    settings = get_settings()
    with open_graph(settings) as graph:
        for path in review_files(GUIDELINES_ROOT):
            recorded = load_review(path)
            name = recorded.guideline
            questions = PROJECT_ROOT / "datasets" / "qa" / f"{name.replace('-', '_')}_questions.jsonl"
            dev, held_out = split(load_items(questions))
            times: dict[str, list[float]] = {k: [] for k in ("parse", "total", "onboard", "review", "answer")}
            wrong_per_run: set[tuple[str, ...]] = set()
            for _ in range(runs):
                start = time.perf_counter()
                parse_pdf(PROJECT_ROOT / recorded.pdf, pages=recorded.pages)
                times["parse"].append(time.perf_counter() - start)
                start = time.perf_counter()
                with tempfile.TemporaryDirectory(prefix="dkg-onboard-bench-") as work:
                    report = onboard_reviewed(graph, path, settings=settings, work=Path(work), echo=lambda _: None)
                service = TextToCypherService(settings, graph=graph, rules_only=True)
                answered = time.perf_counter()
                results = {part: run(service, graph, items) for part, items in (("dev", dev), ("heldout", held_out))}
                end = time.perf_counter()
                times["total"].append(end - start)
                times["onboard"].append(report.onboard_seconds)
                times["review"].append(report.review_publish_seconds)
                times["answer"].append(end - answered)
                wrong_per_run.add(tuple(r.id for rows in results.values() for r in rows if not r.correct))
            median = {k: statistics.median(v) for k, v in times.items()}
            figures[f"{name}.pdf_to_answers_seconds"] = round(median["total"], 1)
            figures[f"{name}.onboard_seconds"] = round(median["onboard"], 1)
            figures[f"{name}.review_publish_seconds"] = round(median["review"], 1)
            figures[f"{name}.answer_seconds"] = round(median["answer"], 1)
            # the first run also warms the rule layer (negspaCy, lexicon) and the parse cache: what a curator waits
            figures[f"{name}.pdf_to_answers_seconds_first_run"] = round(times["total"][0], 1)
            figures[f"{name}.parse_seconds_baseline"] = round(median["parse"], 2)
            figures[f"{name}.pdf_to_answers_ratio_to_parse"] = round(median["total"] / median["parse"], 1)
            figures[f"{name}.timing_runs"] = runs
            figures[f"{name}.timing_note"] = (f"medians of {runs} runs on {os.cpu_count()} cores; baseline: parsing "
                                              "the same PDF pages alone, in the same run")
            # the answers are deterministic: a run that answered differently is reported, not averaged away
            figures[f"{name}.qa_runs_agree"] = str(len(wrong_per_run) == 1).lower()
            figures[f"{name}.review_actions"] = report.actions
            figures[f"{name}.published_nodes"] = report.counts["nodes"]
            figures[f"{name}.vocabulary_matches_shipped"] = str(report.matches_shipped).lower()
            for part, rows in results.items():
                _record(figures, f"{name}.qa_{part}", rows)
                print(f"{name} {part}: {sum(r.correct for r in rows)}/{len(rows)}; wrong: "
                      f"{[(r.id, r.answer_boxes, r.verdict) for r in rows if not r.correct]}")
            # the procedure-style set (all dev) and the second, independent set written by another session
            others = {label: parts for label, parts in _question_sets(name).items() if label != "main"}
            for (label, part), rows in _answer_sets(service, graph, others).items():
                _record(figures, f"{name}.qa_{label}_{part}", rows)
                print(f"{name} {label} {part}: {sum(r.correct for r in rows)}/{len(rows)}")
            figures[f"{name}.qa_split"] = "held out = every item whose id number is divisible by 3"
            figures[f"{name}.qa_route"] = "rule layer (TextToCypherService rules_only); model not updated"
        if clinician_dev:
            from dkg.qa import clinician
            from dkg.qa.dataset import GenConfig
            from dkg.qa.training import ensure_graph

            ensure_graph(graph, GenConfig(), lambda _m: None)
            service = TextToCypherService(settings, graph=graph, rules_only=True,
                                          versions=dict(GenConfig().versions))
            rows = clinician.run(service, clinician.load_items(clinician.DEV_PATH))
            figures["clinician_dev_rules_accuracy_with_onboarded"] = round(sum(r.correct for r in rows) / len(rows), 3)
            figures["clinician_dev_rules_wrong_with_onboarded"] = ",".join(r.id for r in rows if not r.correct)
            print(f"clinician dev (rules only, onboarded guideline published): {sum(r.correct for r in rows)}/"
                  f"{len(rows)}")
    out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _score(settings: object, model_dir: Path, items: list, versions: dict[str, str], label: str) -> dict[str, float]:
    """Accuracy (and from the model's own beams) of one model on items, by the service's answers."""
    from dkg.qa.evaluate import run_with_dkg, summarise
    from dkg.qa.service import TextToCypherService

    with TextToCypherService(settings, model_dir=model_dir, versions=versions) as service:  # type: ignore[arg-type]
        rows = run_with_dkg(service, items, lambda m: print(f"  {label}: {m}"))
    got = summarise(rows)
    return {"accuracy": round(got["accuracy"], 4), "accuracy_beams_only": round(got["accuracy_beams_only"], 4),
            "n": len(rows)}


def model_update_part(out: Path, modes: list[str], minutes: tuple[float, float], limit: int, *,
                      shipped: bool = True, tuning: dict[str, Any] | None = None, label: str = "") -> None:
    """Questions generated from each published onboarded guideline's graph; the shipped model and each updated one
    scored on the CPG-QA test split and on the generated questions' test split (held out from the update)."""
    from dataclasses import asdict

    from dkg.graph.drafts import version_state
    from dkg.graph.drafts_replay import load_review, onboard_reviewed, review_files
    from dkg.qa.dataset import GenConfig, load_dataset
    from dkg.qa.generated import generate_for_version
    from dkg.qa.training import MODEL_DIR, ensure_graph, guideline_corpus
    from dkg.qa.training_update import UpdateSettings, finetune, retrain, updated_model_dir

    figures: dict[str, float | str] = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    settings = get_settings()
    old = load_dataset()
    versions = dict(GenConfig().versions)
    new = []
    with open_graph(settings) as graph:
        ensure_graph(graph, GenConfig(), print)
        for path in review_files(GUIDELINES_ROOT):
            recorded = load_review(path)
            if version_state(graph, recorded.guideline, recorded.version) != (True, False):
                with tempfile.TemporaryDirectory(prefix="dkg-onboard-bench-") as work:
                    onboard_reviewed(graph, path, settings=settings, work=Path(work), echo=lambda _: None)
            generated = generate_for_version(graph, settings, recorded.guideline, recorded.version)
            name = recorded.guideline
            figures[f"{name}.generated_items"] = len(generated.items)
            figures[f"{name}.generated_seconds"] = generated.seconds
            for split_name, n in sorted(generated.split_counts().items()):
                figures[f"{name}.generated_{split_name}"] = n
            print(f"{name}: {len(generated.items)} generated questions {generated.split_counts()} in "
                  f"{generated.seconds} s ({generated.stats})")
            new += generated.items
            versions[recorded.guideline] = recorded.version
    old_test = [i for i in old if i.split == "test"]
    old_test = old_test[:limit] if limit else old_test
    new_test = [i for i in new if i.split in ("test", "test_unseen")]
    models = {"shipped": MODEL_DIR} if shipped else {}
    config = UpdateSettings(max_minutes=minutes[0], **(tuning or {}))
    for way in modes:
        mode = way + label
        folder = updated_model_dir(settings).with_name(f"text2cypher-{mode}")
        start = time.perf_counter()
        if way == "finetune":
            _, report = finetune(MODEL_DIR, old, new, folder, config=config, on_progress=print)
        else:
            corpus = guideline_corpus(GenConfig().versions)
            _, report = retrain(old, new, corpus, folder, max_minutes=minutes[1], on_progress=print)
        figures[f"model_update.{mode}_wall_seconds"] = round(time.perf_counter() - start, 1)
        figures[f"model_update.{mode}_cpu_seconds"] = round(report.cpu_seconds, 1)
        figures[f"model_update.{mode}_epochs"] = report.epochs
        figures[f"model_update.{mode}_dev_exact"] = round(report.best_dev_exact, 4)
        figures[f"model_update.{mode}_steps"] = report.steps
        if way == "finetune":
            figures[f"model_update.{mode}_settings"] = json.dumps(asdict(config))
        models[mode] = folder
    for label, folder in models.items():
        for part, items in (("cpgqa_test", old_test), ("generated_test", new_test)):
            got = _score(settings, folder, items, versions, f"{label} {part}")
            for metric, value in got.items():
                figures[f"model_update.{label}.{part}_{metric}"] = value
            print(f"{label} {part}: {got}")
    figures["model_update.finetune_budget_minutes"], figures["model_update.retrain_budget_minutes"] = minutes
    figures["model_update.generated_split"] = "train / dev / test per scenario (70/15/15, dkg.qa.dataset); test + " \
                                              "test_unseen scored, never trained on"
    out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


HELDOUT_GOLD = PROJECT_ROOT / "datasets" / "onboarding" / "heldout.yaml"
HELDOUT_DIR = PROJECT_ROOT / "datasets" / "onboarding" / "heldout"


def heldout_part(out: Path, dev_only: bool = False) -> None:
    """A guideline the onboarding and QA layers were never tuned on, end to end, measured once: PDF -> draft
    (constraint F1 against the hand-made gold, before review) -> the recorded review -> publish -> the
    hand-written questions (rule layer, then the served model; a second, independent set
    ``<name>_fresh_questions.jsonl``, when present, by the rule layer per split, keys ``<key>.qa_fresh_*``). Its
    vocabulary and curated topic are put in ``datasets/guidelines/<name>/`` for the run only, as ``dkg publish``
    would, and removed afterwards; the published version stays in the graph."""
    from dkg.evaluation.onboarded_qa import load_items, run, split
    from dkg.graph.drafts import publish, version_state
    from dkg.graph.drafts_replay import load_review, replay
    from dkg.lexicon.topics import reload_topics
    from dkg.qa.served_model import served_model_dir
    from dkg.qa.service import TextToCypherService

    figures: dict[str, float | str] = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    settings = get_settings()
    if not (served_model_dir(settings) / "model.pt").is_file():
        # checked before any page is onboarded: a held-out page is measured once, and a run stopped half-way
        # would have answered its questions with the rule layer only
        raise SystemExit(f"no trained text-to-Cypher model in {served_model_dir(settings)}: run `dkg train cypher` "
                         "first (about 13 minutes on 2 cores); nothing was onboarded")
    gold_pages = yaml.safe_load(HELDOUT_GOLD.read_text(encoding="utf-8"))["pages"]
    with open_graph(settings) as graph:
        for page, spec in gold_pages.items():
            name, version = spec["guideline"], str(spec["version"])
            part = spec.get("split", "heldout")
            if part not in ("heldout", "dev"):
                raise SystemExit(f"{HELDOUT_GOLD}: page {page} has split {part!r}; write heldout or dev")
            if dev_only and part != "dev":
                continue
            key = f"{part}.{name}"
            review_path = HELDOUT_DIR / name / f"review-{version}.yaml"
            recorded = load_review(review_path)
            target = GUIDELINES_ROOT / name
            if target.exists():
                raise SystemExit(f"{target} exists: the held-out guideline must not be shipped; remove it first")
            if any(version_state(graph, name, version)):
                q = named_queries_onboard()
                for query in ("delete_published", "delete_draft"):
                    graph.write(q[query], {"uid": f"{name}|{version}"})
            work = Path(tempfile.mkdtemp(prefix="dkg-heldout-"))
            try:
                vocabulary = _vocabulary_without_onboarded(work / "vocabulary")
                shipped_onboarded = [d.name for d in GUIDELINES_ROOT.iterdir()
                                     if d.is_dir() and d.name in onboarded_sources()]
                for other in shipped_onboarded:  # the other onboarded guidelines stay published and known
                    shutil.copytree(GUIDELINES_ROOT / other, vocabulary / other, dirs_exist_ok=True)
                reload_vocabulary(root=vocabulary)
                start = time.perf_counter()
                report = onboard(graph, PROJECT_ROOT / spec["pdf"], name, version, pages=str(spec["pdf_page"]),
                                 title=recorded.title, overlays=False, settings=settings, who=recorded.who,
                                 echo=lambda _: None)
                onboarded = time.perf_counter()
                predicted = [c for item in draft_items(graph, name, version) for c in item.constraints]
                gold = list(spec["constraints"])
                exact = sum((Counter(predicted) & Counter(gold)).values())
                actions = replay(graph, recorded, echo=lambda _: None)
                reviewed = [c for item in draft_items(graph, name, version) for c in item.constraints]
                build = publish(graph, name, version, who=recorded.who, reason=f"review replayed from "
                                f"{review_path.name}", vocabulary_root=vocabulary)
                published = time.perf_counter()
                target.mkdir()
                shutil.copy(vocabulary / name / GUIDELINE_FILE, target / GUIDELINE_FILE)
                shutil.copy(HELDOUT_DIR / name / "topic.yaml", target / "topic.yaml")
                reload_vocabulary()
                reload_topics()
                items = load_items(PROJECT_ROOT / "datasets" / "qa" / f"{name.replace('-', '_')}_questions.jsonl")
                rules = run(TextToCypherService(settings, graph=graph, rules_only=True), graph, items,
                            Path(spec["pdf"]).name)
                answered = time.perf_counter()
                fresh_path = PROJECT_ROOT / "datasets" / "qa" / f"{name.replace('-', '_')}_fresh_questions.jsonl"
                fresh_rules = TextToCypherService(settings, graph=graph, rules_only=True)
                fresh = ({part_name: run(fresh_rules, graph, fresh_items, Path(spec["pdf"]).name)
                          for part_name, fresh_items in zip(("dev", "heldout"), split(load_items(fresh_path)),
                                                            strict=True)}
                         if fresh_path.is_file() else {})
                model_dir = served_model_dir(settings)
                with TextToCypherService(settings, graph=graph, model_dir=model_dir) as service:
                    served = run(service, graph, items, Path(spec["pdf"]).name)
            finally:
                # the graph is left as found: the guideline is published here only to be measured
                q = named_queries_onboard()
                for query in ("delete_published", "delete_draft"):
                    graph.write(q[query], {"uid": f"{name}|{version}"})
                shutil.rmtree(target, ignore_errors=True)
                shutil.rmtree(work, ignore_errors=True)
                reload_vocabulary()
                reload_topics()
            figures[f"{key}.page"] = page
            figures[f"{key}.boxes"] = report.nodes
            figures[f"{key}.arrows"] = report.edges
            figures[f"{key}.proposed_keys"] = len(report.proposed_keys)
            figures[f"{key}.constraints_predicted"] = len(predicted)
            figures[f"{key}.constraints_gold"] = len(gold)
            figures[f"{key}.f1_exact_before_review"] = round(f1(exact, len(predicted), len(gold))["f1"], 3)
            reviewed_exact = sum((Counter(reviewed) & Counter(gold)).values())
            figures[f"{key}.f1_exact_after_review"] = round(f1(reviewed_exact, len(reviewed), len(gold))["f1"], 3)
            figures[f"{key}.review_actions"] = actions
            figures[f"{key}.review_decisions"] = len(recorded.decisions)
            figures[f"{key}.review_added_keys"] = len(recorded.add.keys) if recorded.add else 0
            figures[f"{key}.review_added_arrows"] = len(recorded.add.edges) if recorded.add else 0
            figures[f"{key}.published_nodes"] = build.counts()["nodes"]
            figures[f"{key}.onboard_seconds"] = round(onboarded - start, 1)
            figures[f"{key}.review_publish_seconds"] = round(published - onboarded, 1)
            figures[f"{key}.pdf_to_answers_seconds"] = round(answered - start, 1)
            for route, rows in (("rules", rules), ("served_model", served)):
                figures[f"{key}.qa_{route}_accuracy"] = round(sum(r.correct for r in rows) / len(rows), 3)
                figures[f"{key}.qa_{route}_n"] = len(rows)
                figures[f"{key}.qa_{route}_wrong"] = ",".join(r.id for r in rows if not r.correct)
                wrong = [(r.id, r.answer_boxes, r.verdict, (r.no_answer_reason or "")[:60]) for r in rows
                         if not r.correct]
                print(f"{name} {route}: {sum(r.correct for r in rows)}/{len(rows)}; wrong: {wrong}")
            for part_name, rows in fresh.items():  # a second, independent set (its README), rule layer, split alike
                figures[f"{key}.qa_fresh_{part_name}_accuracy"] = round(sum(r.correct for r in rows) / len(rows), 3)
                figures[f"{key}.qa_fresh_{part_name}_n"] = len(rows)
                figures[f"{key}.qa_fresh_{part_name}_wrong"] = ",".join(r.id for r in rows if not r.correct)
                print(f"{name} fresh {part_name}: {sum(r.correct for r in rows)}/{len(rows)}")
            figures[f"{key}.served_model"] = str(model_dir)
            figures[f"{key}.note"] = ("held out: gold and questions written before the page was onboarded, never "
                                      "examined; each run is listed under .runs"
                                      if part == "heldout" else "development: the QA rules were developed on its "
                                      "questions after its held-out runs (datasets/onboarding/heldout.yaml)")
            print({k: v for k, v in figures.items() if k.startswith(key)})
    out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def named_queries_onboard() -> dict[str, str]:
    from dkg.graph.db import named_queries

    return named_queries("onboard")


def named_delete() -> str:
    from dkg.graph.db import named_queries

    return named_queries("onboard")["delete_draft"]


if __name__ == "__main__":
    main()
