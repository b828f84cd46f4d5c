"""`dkg eval qa`: with-DKG (text-to-Cypher) and without-DKG (question → answer text) on the test and
unseen-template splits; overall, per question type and per guideline; a Markdown table in the reference's
layout and a matplotlib plot."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dkg.qa.dataset import QAItem
from dkg.qa.metrics import accuracy, same_text, text_scores
from dkg.qa.seq2seq import Seq2Seq
from dkg.qa.service import TextToCypherService

Progress = Callable[[str], None]


def run_with_dkg(service: TextToCypherService, items: list[QAItem], say: Progress) -> list[dict[str, Any]]:
    """One result row per item: predicted answer text, matched nodes, correctness and latency."""
    out: list[dict[str, Any]] = []
    for n, item in enumerate(items, 1):
        answer = service.answer(item.question)
        t = answer.timings_ms
        out.append({
            "id": item.id, "prediction": answer.answer, "reference": item.answer,
            "correct": answer.matched_nodes == [item.expected_node], "path": service.last_path,
            "no_answer": answer.no_answer_reason, "split": item.split, "question_type": item.question_type.value,
            "guideline": item.guideline, "infer_ms": t.get("generate", 0.0) + t.get("ground", 0.0),
            "total_ms": t.get("total", 0.0),
        })
        if n % 200 == 0:
            say(f"with DKG: {n}/{len(items)}, accuracy so far {accuracy([r['correct'] for r in out]):.3f}")
    return out


def run_without_dkg(model: Seq2Seq, items: list[QAItem], say: Progress, batch: int = 48
                    ) -> list[dict[str, Any]]:
    """The baseline's answers (greedy decoding, batched)."""
    out: list[dict[str, Any]] = []
    for i in range(0, len(items), batch):
        part = items[i:i + batch]
        texts = model.greedy([x.question for x in part])
        for item, text in zip(part, texts, strict=True):
            out.append({"id": item.id, "prediction": text, "reference": item.answer,
                        "correct": same_text(text, item.answer), "split": item.split,
                        "question_type": item.question_type.value, "guideline": item.guideline})
        say(f"without DKG: {min(i + batch, len(items))}/{len(items)}")
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    scores = text_scores([r["prediction"] for r in rows], [r["reference"] for r in rows])
    out = {"accuracy": accuracy([r["correct"] for r in rows]), **scores, "n": float(len(rows))}
    if rows and "path" in rows[0]:
        # the model's own beams, without the repair-from-the-question fallback
        out["accuracy_beams_only"] = accuracy([r["correct"] and r["path"].startswith("beam") for r in rows])
        out["fallback_share"] = accuracy([r["path"] == "fallback" for r in rows])
    return out


def breakdown(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Metrics for the test split overall, per question type, per guideline, and for the unseen split."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["split"] == "test":
            groups["test"].append(r)
            groups[f"test/type={r['question_type']}"].append(r)
            groups[f"test/guideline={r['guideline']}"].append(r)
        elif r["split"] == "test_unseen":
            groups["unseen_templates"].append(r)
    return {name: summarise(group) for name, group in sorted(groups.items())}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def markdown_table(with_dkg: dict[str, dict[str, float]], without: dict[str, dict[str, float]]) -> str:
    """The reference's layout: one row per model and group, ROUGE-1 P/R/F, BLEU, Jaccard, accuracy."""
    lines = ["| Model | Group | n | ROUGE-1 P | ROUGE-1 R | ROUGE-1 F | BLEU | Jaccard | Accuracy |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for label, table in (("with DKG (text-to-Cypher)", with_dkg), ("without DKG (question→answer)", without)):
        for group, m in table.items():
            lines.append(f"| {label} | {group} | {int(m['n'])} | {m['rouge1_p']:.3f} | {m['rouge1_r']:.3f} | "
                         f"{m['rouge1_f']:.3f} | {m['bleu']:.3f} | {m['jaccard']:.3f} | {m['accuracy']:.3f} |")
    return "\n".join(lines)


def plot(with_dkg: dict[str, dict[str, float]], without: dict[str, dict[str, float]], path: Path) -> Path:
    """Bar chart of the test-split metrics, with vs without the DKG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    metrics = ["accuracy", "rouge1_f", "bleu", "jaccard"]
    groups = ["test", "unseen_templates"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, group in zip(axes, groups, strict=True):
        xs = range(len(metrics))
        ax.bar([x - 0.2 for x in xs], [with_dkg.get(group, {}).get(m, 0) for m in metrics], 0.4, label="with DKG")
        ax.bar([x + 0.2 for x in xs], [without.get(group, {}).get(m, 0) for m in metrics], 0.4, label="without DKG")
        ax.set_xticks(list(xs), ["Accuracy", "ROUGE-1 F", "BLEU", "Jaccard"])
        ax.set_title(f"CPG-QA {group.replace('_', ' ')} split")
        ax.set_ylim(0, 1.05)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def evaluate(service: TextToCypherService, baseline: Seq2Seq | None, items: list[QAItem],
             say: Progress, limit: int | None = None) -> dict[str, Any]:
    """Run both routes on the test and unseen-template items; returns tables and latency figures."""
    chosen = [i for i in items if i.split in ("test", "test_unseen")]
    if limit:
        chosen = chosen[:limit]
    start = time.perf_counter()
    dkg_rows = run_with_dkg(service, chosen, say)
    dkg_seconds = time.perf_counter() - start
    base_rows = run_without_dkg(baseline, chosen, say) if baseline is not None else []
    with_dkg, without = breakdown(dkg_rows), breakdown(base_rows)
    stats = dict(service.stats)
    answered_beams = stats.get("valid_beam_1", 0) + stats.get("rescued_by_later_beam", 0)
    return {
        "with_dkg": with_dkg, "without_dkg": without, "n_items": len(chosen),
        "infer_p50_ms": percentile([r["infer_ms"] for r in dkg_rows], 0.5),
        "infer_p95_ms": percentile([r["infer_ms"] for r in dkg_rows], 0.95),
        "answer_p50_ms": percentile([r["total_ms"] for r in dkg_rows], 0.5),
        "answer_mean_ms": statistics.fmean([r["total_ms"] for r in dkg_rows]) if dkg_rows else 0.0,
        "eval_seconds_with_dkg": dkg_seconds,
        "beam_rescues": stats.get("rescued_by_later_beam", 0),
        "beam_rescue_rate": stats.get("rescued_by_later_beam", 0) / answered_beams if answered_beams else 0.0,
        "all_beams_invalid": stats.get("all_beams_invalid", 0), "repaired": stats.get("repaired", 0),
        "unsafe_refused": service.executor.refused, "unsafe_queries_executed": service.executor.unsafe_executed,
        "table": markdown_table(with_dkg, without),
    }
