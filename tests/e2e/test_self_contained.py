"""The repository needs nothing beside it at run time: a copy of the work tree in a temporary folder whose
parent holds no ``shared/`` runs the CLI's retrieval step (`dkg index` with the MedQuAD knowledge layer, then
`dkg retrieve`) against its own real Neo4j, with the default settings. LSA embeddings keep it light: the point is
where the data comes from, not the embedding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("DKG_TEST_CLONE_PORT", "7700"))


def _copy_work_tree(dest: Path) -> None:
    """What a clone of the current work tree holds: tracked and untracked, not ignored, files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():  # a tracked file deleted in the work tree is listed too
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    base = tmp_path_factory.mktemp("bare")
    repo = base / "x" / "repo"
    _copy_work_tree(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DKG_RETRIEVAL_", "DKG_NEO4J_"))}
    env.update({"DKG_HOME": str(base / "home"), "DKG_NEO4J_BOLT_PORT": str(PORT), "DKG_NEO4J_HEAP": "512m",
                "DKG_NEO4J_PAGECACHE": "64m", "PYTHONPATH": str(repo)})
    env.pop("DKG_CONFIG", None)
    started = _dkg(repo, env, "neo4j", "start")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield repo, env
    finally:
        _dkg(repo, env, "neo4j", "stop")


def _dkg(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dkg.cli.main", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=1800)


def test_the_copy_has_no_shared_folder_beside_it_and_runs_its_own_code(clone: tuple[Path, dict[str, str]]) -> None:
    repo, env = clone
    assert not any((parent / "shared").exists() for parent in repo.parents)
    where = subprocess.run([sys.executable, "-c", "import dkg.config; print(dkg.config.PROJECT_ROOT)"], cwd=repo,
                           env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where) == repo


def test_index_and_retrieve_use_the_knowledge_layer_in_the_repository(clone: tuple[Path, dict[str, str]]) -> None:
    repo, env = clone
    index = _dkg(repo, env, "index", "--model", "lsa")
    assert index.returncode == 0, index.stdout + index.stderr
    assert "knowledge layer loaded" in index.stdout
    retrieved = _dkg(repo, env, "retrieve", "How is Wilms tumor treated?", "-k", "5", "--model", "lsa", "--json")
    assert retrieved.returncode == 0, retrieved.stdout + retrieved.stderr
    answer = json.loads(retrieved.stdout)
    sections = [e for e in answer["evidence"] if e["kind"] == "Section"]
    assert sections, answer
    assert any("Wilms" in (e["content"] or "") for e in sections)
    assert all(e["source_url"].startswith("https://www.cancer.gov/") for e in sections)
