"""QA metrics as small pure functions over (prediction, reference) pairs, wrapping the reference
implementations: ROUGE-1 (``rouge-score``), BLEU (nltk ``sentence_bleu``, equal 1–4-gram weights,
smoothing method 1 of Chen & Cherry 2014 so short answers with no 4-gram match do not score 0),
Jaccard of lower-cased word sets, and exact-match accuracy.

>>> round(jaccard("Yes: imatinib", "yes imatinib"), 2)
1.0
>>> rouge1("a b c", "a b d")["rouge1_f"] > 0.6
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from statistics import mean
from typing import Any

_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (punctuation dropped)."""
    return _WORD.findall(text.lower())


@lru_cache(maxsize=1)
def _scorer() -> Any:
    from rouge_score import rouge_scorer
    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)


def rouge1(prediction: str, reference: str) -> dict[str, float]:
    """ROUGE-1 precision, recall and F1 of one prediction."""
    score = _scorer().score(reference, prediction)["rouge1"]
    return {"rouge1_p": score.precision, "rouge1_r": score.recall, "rouge1_f": score.fmeasure}


def bleu(prediction: str, reference: str) -> float:
    """Sentence BLEU, weights (0.25, 0.25, 0.25, 0.25), smoothing method1."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    hyp, ref = words(prediction), words(reference)
    if not hyp or not ref:
        return 0.0
    return float(sentence_bleu([ref], hyp, weights=(0.25, 0.25, 0.25, 0.25),
                               smoothing_function=SmoothingFunction().method1))


def jaccard(prediction: str, reference: str) -> float:
    """|A ∩ B| / |A ∪ B| of the word sets (1.0 when both are empty)."""
    a, b = set(words(prediction)), set(words(reference))
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def text_scores(predictions: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """Mean ROUGE-1 P/R/F, BLEU and Jaccard over aligned predictions and references."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    if not predictions:
        return {"rouge1_p": 0.0, "rouge1_r": 0.0, "rouge1_f": 0.0, "bleu": 0.0, "jaccard": 0.0}
    rouges = [rouge1(p, r) for p, r in zip(predictions, references, strict=True)]
    return {
        **{k: mean(x[k] for x in rouges) for k in ("rouge1_p", "rouge1_r", "rouge1_f")},
        "bleu": mean(bleu(p, r) for p, r in zip(predictions, references, strict=True)),
        "jaccard": mean(jaccard(p, r) for p, r in zip(predictions, references, strict=True)),
    }


def accuracy(hits: Sequence[bool]) -> float:
    """Share of True values (0.0 for an empty list)."""
    return sum(hits) / len(hits) if hits else 0.0


def same_text(prediction: str, reference: str) -> bool:
    """Exact match after lower-casing and dropping punctuation (the baseline's 'answer matches')."""
    return words(prediction) == words(reference)
