"""The gate of a model update and the served-model registry (issue #19 item 4): a candidate is served only when
the old guidelines do not drop and the new ones improve; the replaced model is kept for rollback; every decision
is audited."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.config import Settings, get_settings
from dkg.errors import QAError
from dkg.qa import served_model
from dkg.qa.dataset import load_dataset
from dkg.qa.model_gate import DevScore, GateScores, GateSettings, decide, gate_sets
from dkg.qa.served_model import MODEL_FILES, install, keep, rollback, served_model_dir, shipped_model_dir


def scores(old: float, new: float, new_beams: float = 0.5, n: int = 100) -> GateScores:
    return GateScores(old_dev=DevScore(accuracy=old, beams=old, n=n), new_dev=DevScore(accuracy=new, beams=new_beams,
                                                                                       n=n))


def test_a_candidate_that_keeps_the_old_guidelines_and_improves_the_new_is_installed() -> None:
    decision = decide(scores(0.98, 0.90), scores(0.98, 0.95))
    assert decision.install and decision.reason.startswith("installed")
    assert "0.980" in decision.reason and "0.950" in decision.reason


def test_a_drop_on_the_old_guidelines_keeps_the_served_model_and_says_so() -> None:
    decision = decide(scores(0.984, 0.90), scores(0.978, 0.99))
    assert not decision.install
    assert "drops the old guidelines" in decision.reason and "0.984" in decision.reason and "0.978" in decision.reason
    assert decide(scores(0.984, 0.90), scores(0.978, 0.99), GateSettings(max_old_drop=0.01)).install


def test_no_gain_on_the_new_guideline_keeps_the_served_model() -> None:
    decision = decide(scores(0.98, 0.95, new_beams=0.80), scores(0.99, 0.95, new_beams=0.80))
    assert not decision.install and "does not improve the new guidelines" in decision.reason
    assert not decide(scores(0.98, 0.95), scores(0.98, 0.94, new_beams=0.99)).install


def test_a_curator_may_waive_the_gain_on_the_new_guideline_but_not_the_old_guidelines_check() -> None:
    waived = GateSettings(require_new_gain=False)
    decision = decide(scores(0.98, 0.95, new_beams=0.80), scores(0.98, 0.95, new_beams=0.80), waived)
    assert decision.install and "not required to improve" in decision.reason
    assert not decide(scores(0.984, 0.95), scores(0.978, 0.95), waived).install
    assert not decide(scores(0.98, 0.0, n=0), scores(0.98, 0.0, n=0), waived).install


def test_a_tie_in_answers_is_broken_by_the_models_own_beams() -> None:
    assert decide(scores(0.98, 0.99, new_beams=0.69), scores(0.98, 0.99, new_beams=0.86)).install


def test_without_generated_dev_questions_nothing_is_installed() -> None:
    decision = decide(scores(0.98, 0.0, n=0), scores(0.99, 0.0, n=0))
    assert not decision.install and "no generated dev questions" in decision.reason


def test_the_gate_scores_cpgqa_dev_questions_the_update_did_not_early_stop_on() -> None:
    old = load_dataset()
    dev = [i for i in old if i.split == "dev"]
    sample, new = gate_sets(old, [], GateSettings(old_dev_sample=50, old_dev_skip=300))
    assert len(sample) == 50 and not new
    assert {i.id for i in sample} <= {i.id for i in dev[300:]}
    assert gate_sets(old, [], GateSettings(old_dev_sample=50))[0] == sample  # seeded
    with pytest.raises(ValueError, match="max_old_drop"):
        GateSettings(max_old_drop=-0.1)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return get_settings().model_copy(update={"home": tmp_path / "home"})


def fake_model(folder: Path, tag: str) -> Path:
    folder.mkdir(parents=True)
    for name in MODEL_FILES:
        (folder / name).write_text(tag)
    return folder


def test_install_serves_the_candidate_keeps_the_replaced_model_and_audits(settings: Settings, tmp_path: Path) -> None:
    assert served_model_dir(settings) == shipped_model_dir()
    first = install(settings, fake_model(tmp_path / "c1", "one"), reason="installed: better", scores={"x": 1})
    assert served_model_dir(settings) == first.model_dir and (first.model_dir / "model.pt").read_text() == "one"
    assert first.model_dir.parent == settings.home / "qa" / "served" and not (tmp_path / "c1").exists()
    second = install(settings, fake_model(tmp_path / "c2", "two"), reason="installed: better again")
    assert served_model_dir(settings) == second.model_dir != first.model_dir
    record = served_model.current(settings)
    assert record is not None and record.previous == first.model_dir

    kept = keep(settings, fake_model(tmp_path / "c3", "three"), reason="kept the served model: drops")
    assert kept.model_dir == second.model_dir and served_model_dir(settings) == second.model_dir

    back = rollback(settings, reason="clinician report")
    assert back.model_dir == first.model_dir and served_model_dir(settings) == first.model_dir
    record = served_model.current(settings)
    assert record is not None and record.previous == shipped_model_dir()
    rollback(settings, reason="back to the shipped model")
    assert served_model_dir(settings) == shipped_model_dir()
    with pytest.raises(QAError, match="nothing to roll back"):
        rollback(settings, reason="again")
    actions = [(c.action, c.reason) for c in served_model.history(settings)]
    assert [a for a, _ in actions] == ["install", "install", "keep", "rollback", "rollback"]
    assert actions[2][1] == "kept the served model: drops"


def test_an_incomplete_candidate_is_refused_and_a_vanished_served_model_falls_back(settings: Settings,
                                                                                    tmp_path: Path) -> None:
    half = tmp_path / "half"
    half.mkdir()
    (half / "model.pt").write_text("x")
    with pytest.raises(QAError, match="not a complete model folder"):
        install(settings, half, reason="r")
    assert served_model.history(settings) == []
    change = install(settings, fake_model(tmp_path / "c", "c"), reason="r")
    (change.model_dir / "model.pt").unlink()
    assert served_model_dir(settings) == shipped_model_dir()


def test_the_cli_shows_the_served_model_and_refuses_a_rollback_with_nothing_to_go_back_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from dkg.cli.main import app

    monkeypatch.setenv("DKG_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    try:
        shown = CliRunner().invoke(app, ["train", "served"], env={"COLUMNS": "200"})
        assert shown.exit_code == 0 and f"served: {shipped_model_dir()} (shipped" in shown.output
        refused = CliRunner().invoke(app, ["train", "rollback", "--reason", "probe"], env={"COLUMNS": "200"})
        assert refused.exit_code != 0 and "nothing to roll back to" in refused.output
        missing = CliRunner().invoke(app, ["train", "update", "--candidate", str(tmp_path / "none")],
                                     env={"COLUMNS": "200"})
        assert missing.exit_code != 0 and "no generated questions" in missing.output
    finally:
        get_settings.cache_clear()
