"""An onboarded document is read only with the keys of its domains: choosing them, and what is left out."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dkg.constraints.io import ConstrainedEdge
from dkg.graph.drafts import DraftItem, OnboardingError, _write_vocabulary
from dkg.graph.onboard import choose_domains, within_scope
from dkg.types import Constraint, HeadTailEdge
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, keys_in_scope, reload_vocabulary


def _row(head: str, tail: str, label: str = "", head_constraints: tuple[str, ...] = (),
         label_constraints: tuple[str, ...] | None = None) -> ConstrainedEdge:
    return ConstrainedEdge(HeadTailEdge(head=head, tail=tail, label=label, page="1"),
                           [Constraint.parse(c) for c in head_constraints], [],
                           None if label_constraints is None else [Constraint.parse(c) for c in label_constraints])


def test_oncology_keys_read_in_a_cardiac_box_are_left_out_and_named() -> None:
    rows = [
        _row("UNSTABLE: Congestive heart failure (acute)", "Synchronized cardioversion", "",
             ("comorbidity=cardiac", "age>=18")),
        _row("Adenosine", "Consider expert consultation", "If refractory", (), ("disease_status=refractory",)),
    ]
    kept, left_out = within_scope(rows, keys_in_scope("new-cardiac", []))
    assert [str(c) for c in kept[0].head_constraints] == ["age>=18"]  # age is a general key
    assert kept[1].label_constraints == []
    assert left_out == ["UNSTABLE: Congestive heart failure (acute): comorbidity=cardiac",
                        "If refractory: disease_status=refractory"]
    kept, left_out = within_scope(rows, keys_in_scope("new-oncology", ["oncology"]))
    assert [str(c) for c in kept[0].head_constraints] == ["comorbidity=cardiac", "age>=18"] and not left_out


def test_domains_are_the_curators_then_the_files_then_the_documents() -> None:
    oncology_words = ["Induction chemotherapy", "Relapsed leukemia"]
    assert choose_domains("new", oncology_words, ["none"])[0] == ()
    assert choose_domains("new", ["Rhythm shockable?"], ["oncology"]) == (("oncology",), "named by the curator")
    assert choose_domains("ALL", ["Rhythm shockable?"])[0] == ("oncology",)  # its vocabulary file declares it
    chosen, reason = choose_domains("new", oncology_words)
    assert chosen == ("oncology",) and "chemotherapy ×1" in reason and "leukemia ×1" in reason
    chosen, reason = choose_domains("new", ["Rhythm shockable?", "History of cancer"])
    assert chosen == () and "oncology: 1 cue word(s) of 2 needed (cancer ×1)" in reason


@pytest.mark.parametrize(("named", "message"), [
    (["oncolgy"], "unknown domain(s) 'oncolgy'; the base vocabulary defines: oncology"),
    (["none", "oncology"], "--domain none cannot be combined with oncology"),
])
def test_bad_domains_are_refused_naming_the_known_ones(named: list[str], message: str) -> None:
    with pytest.raises(OnboardingError) as caught:
        choose_domains("new", [], named)
    assert message in str(caught.value)


def test_publishing_writes_the_drafts_domains_into_the_vocabulary_file(tmp_path: Path) -> None:
    key = DraftItem("k:egfr", "key", "egfr", entry='{"kind": "categorical", "values": {"mutated": ["egfr+"]}}')
    try:
        assert _write_vocabulary("lung", [key], tmp_path, ("oncology",)) is None
        written = yaml.safe_load((tmp_path / "lung" / GUIDELINE_FILE).read_text(encoding="utf-8"))
        assert list(written) == ["uses_domains", "keys"] and written["uses_domains"] == ["oncology"]
        assert list(written["keys"]) == ["egfr"]
        # domains alone (no accepted key) are written too; a file without either is not created
        assert _write_vocabulary("lung-2", [], tmp_path, ("oncology",)) is None
        written = yaml.safe_load((tmp_path / "lung-2" / GUIDELINE_FILE).read_text(encoding="utf-8"))
        assert written == {"uses_domains": ["oncology"], "keys": {}}
        assert _write_vocabulary("cardiac", [], tmp_path, ()) is None
        assert not (tmp_path / "cardiac").exists()
    finally:
        reload_vocabulary()


def test_publishing_lists_the_other_guidelines_keys_its_boxes_and_arrows_use(tmp_path: Path) -> None:
    # a second bradycardia algorithm whose arrows test the cardiac charts' keys: its file lists them, so questions
    # about it are read with them; its own new key goes under keys, a base key and a rejected arrow's key nowhere
    import shutil

    shutil.copytree(GUIDELINES_ROOT / "cardiac-smog", tmp_path / "cardiac-smog")
    key = DraftItem("k:pacer_ready", "key", "pacer_ready", entry='{"kind": "boolean"}')
    arrows = [DraftItem("e1", "edge", "", ["heart_rate<60", "pacer_ready=yes"], head="n1", tail="n2"),
              DraftItem("e2", "edge", "", ["signs_of_hemodynamic_compromise=yes", "age>=18"], head="n1", tail="n3"),
              DraftItem("e3", "edge", "", ["av_block=high_grade"], head="n1", tail="n4", status="rejected")]
    try:
        reload_vocabulary(root=tmp_path)
        assert _write_vocabulary("brady-2", [key, *arrows], tmp_path) is None
        written = yaml.safe_load((tmp_path / "brady-2" / GUIDELINE_FILE).read_text(encoding="utf-8"))
        assert written["uses_keys"] == ["heart_rate", "signs_of_hemodynamic_compromise"]
        assert list(written["keys"]) == ["pacer_ready"]
    finally:
        reload_vocabulary()
