"""Scoring and gold loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.constraints.evaluate import expand_footnotes, load_gold_csv, score
from dkg.errors import ConstraintError


def test_score_micro_and_per_key() -> None:
    figures = score([frozenset({"age<65", "ph=+"}), frozenset({"mrd=negative"})],
                    [frozenset({"age<65", "ph=-"}), frozenset()])
    assert figures["precision"] == pytest.approx(1 / 3)
    assert figures["recall"] == pytest.approx(1 / 2)
    assert figures["f1_key_age"] == 1.0
    assert figures["f1_key_ph"] == 0.0
    assert figures["f1_min_key"] == 0.0
    assert figures["exact_match"] == 0.0


def test_score_length_mismatch() -> None:
    with pytest.raises(ConstraintError):
        score([frozenset()], [])


def test_expand_footnotes() -> None:
    assert expand_footnotes("TKI^{a,b} + chemo^c", {"a": "A.", "b": "B.", "c": "C."}) == "TKI (A.; B.) + chemo (C.)"


def test_gold_csv_links_labels_to_their_head(tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text('box_id,text,constraints\nq,Age under 40 years?,age<40\narrow:q->t,NO,age>=40\n')
    items = load_gold_csv(path)
    assert items[1].is_label and items[1].head_text == "Age under 40 years?"
    bad = tmp_path / "bad.csv"
    bad.write_text("box_id,text,constraints\nq,x,age<<40\n")
    with pytest.raises(ConstraintError, match="row 2"):
        load_gold_csv(bad)
