"""Errors of the retrieval stage (all subclasses of :class:`dkg.errors.RetrievalError`)."""

from __future__ import annotations

from dkg.errors import RetrievalError


class BadQueryError(RetrievalError):
    """The query is empty or too long."""


class IndexMissingError(RetrievalError):
    """The graph has no embeddings / vector index yet."""


class IndexStaleError(RetrievalError):
    """The graph changed since the last `dkg index`."""


class EmbeddingModelMissingError(RetrievalError):
    """The embedding model cannot be loaded."""


class KnowledgeSourceError(RetrievalError):
    """The MedQuAD knowledge source is missing or malformed."""
