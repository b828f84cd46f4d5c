"""The CPG-QA dataset's guideline versions come from the sources, in the committed dataset's order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from dkg.corpus.model import GUIDELINES_DIR, discover
from dkg.qa.dataset import DATASET_META_PATH, GenConfig, dataset_versions


def test_the_default_config_is_the_one_the_committed_dataset_was_generated_with() -> None:
    # the hashed config (with the sources) is the dataset's input hash: equal config, same items and ids
    meta = json.loads(DATASET_META_PATH.read_text(encoding="utf-8"))
    assert json.loads(json.dumps(GenConfig().hashed())) == meta["config"]


def _corpus(tmp_path: Path, codes: list[str]) -> Path:
    root = tmp_path / "guidelines"
    for code, _version, path in discover():
        if code in codes:
            (root / code).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, root / code / path.name)
    return root


def test_a_new_guideline_with_sources_is_added_after_the_recorded_ones(tmp_path: Path) -> None:
    codes = sorted({code for code, _v, _p in discover()})
    root = _corpus(tmp_path, codes)
    meta = tmp_path / "meta.json"
    recorded = [codes[-1], codes[0]]
    meta.write_text(json.dumps({"config": {"versions": [[c, "1.2026"] for c in recorded]}}))
    got = [code for code, _version in dataset_versions(root, meta)]
    assert got == recorded + [c for c in codes if c not in recorded]
    assert all(version == "1.2026" for _code, version in dataset_versions(root, meta))  # the first version


def test_without_a_meta_file_the_versions_are_in_name_order_and_onboarded_folders_are_left_out(
        tmp_path: Path) -> None:
    codes = sorted({code for code, _v, _p in discover()})
    root = _corpus(tmp_path, codes)
    onboarded = next(p.parent for p in GUIDELINES_DIR.glob("*/topic.yaml"))
    shutil.copytree(onboarded, root / onboarded.name)
    assert [c for c, _v in dataset_versions(root, tmp_path / "missing.json")] == codes


def test_uid_shaped_injections_take_the_targets_version() -> None:
    from dkg.api.adversarial import INJECTIONS, VERSION_UID, Target, injections

    sent = injections(Target("G|3.2030|g1_box", 1, "c", "r"))
    assert len(sent) == len(INJECTIONS) and not any(VERSION_UID in text for text in sent)
    assert "G|3.2030|x'}) DETACH DELETE n; //" in sent and "G|3.2030|../../x" in sent
