"""The fastText embedding option: trained deterministically on our text, unit vectors, sub-word vectors for
unseen words, a save/load round trip, and a vector index whose dimension matches the embedder."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dkg.config import PROJECT_ROOT
from dkg.retrieval.embedding import FASTTEXT_DIM, LSA_DIM, MINILM_DIM, FastTextEmbedder
from dkg.retrieval.errors import IndexMissingError
from dkg.retrieval.grag import MODEL_TABLE
from dkg.retrieval.index import MODELS, trained_model_path

CORPUS = [
    "blinatumomab is given for MRD positive B-cell acute lymphoblastic leukemia",
    "nephrectomy removes the kidney in renal cell cancer",
    "MAP chemotherapy with methotrexate doxorubicin and cisplatin for osteosarcoma",
    "Wilms tumor is a kidney cancer of children treated with nephrectomy and chemotherapy",
    "imatinib is added for Philadelphia chromosome positive leukemia",
    "childhood leukemia is treated in phases: induction, consolidation and maintenance",
] * 20


@pytest.fixture(scope="module")
def model() -> FastTextEmbedder:
    return FastTextEmbedder.fit(CORPUS, epochs=5)


def test_same_input_same_vectors_and_same_training(model: FastTextEmbedder) -> None:
    texts = ["kidney cancer in children", "leukemia maintenance"]
    assert np.array_equal(model.encode(texts), model.encode(texts))
    again = FastTextEmbedder.fit(CORPUS, epochs=5)
    assert np.array_equal(model.encode(texts), again.encode(texts))
    other_seed = FastTextEmbedder.fit(CORPUS, seed=7, epochs=5)
    assert not np.array_equal(model.encode(texts), other_seed.encode(texts))


def test_vectors_are_unit_length_with_the_declared_dimension(model: FastTextEmbedder) -> None:
    vectors = model.encode(CORPUS[:6] + ["nephrectomy"])
    assert vectors.shape == (7, FASTTEXT_DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert model.encode([]).shape == (0, FASTTEXT_DIM)
    assert not model.encode(["?!"]).any()  # no words: a zero row, as the other embedders give


def test_unseen_words_get_subword_vectors(model: FastTextEmbedder) -> None:
    unseen = model.encode(["nephrectomies"])[0]  # not in CORPUS, shares n-grams with "nephrectomy"
    assert np.isclose(float(np.linalg.norm(unseen)), 1.0, atol=1e-5)
    seen, unrelated = model.encode(["nephrectomy", "imatinib"])
    assert float(unseen @ seen) > float(unseen @ unrelated)


def test_save_load_round_trip(model: FastTextEmbedder, tmp_path: Path) -> None:
    path = trained_model_path(tmp_path, "fasttext")
    model.save(path)
    again = FastTextEmbedder.load(path)
    texts = ["blinatumomab for MRD", "an unseen word: nephroblastoma"]
    assert np.array_equal(model.encode(texts), again.encode(texts))


def test_missing_model_file_says_to_index(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match="dkg index --model fasttext"):
        FastTextEmbedder.load(trained_model_path(tmp_path, "fasttext"))


def test_empty_corpus_is_refused() -> None:
    with pytest.raises(ValueError, match="no words"):
        FastTextEmbedder.fit(["", "?!"])


def test_vector_index_dimensions_match_the_embedders() -> None:
    schema = (PROJECT_ROOT / "cypher" / "schema_retrieval.cypher").read_text()
    declared = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"VECTOR INDEX (\w+) .*?`vector.dimensions`: (\d+)", schema, re.DOTALL)}
    dims = {"minilm": MINILM_DIM, "lsa": LSA_DIM, "fasttext": FASTTEXT_DIM}
    assert set(MODEL_TABLE) == set(MODELS) == set(dims)
    assert {MODEL_TABLE[m]["index"]: dims[m] for m in MODELS} == declared
