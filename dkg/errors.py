"""One root error for the platform, one subclass per stage.

Every message names the bad value and what to do about it. Retryable failures
(:class:`TransientError`) are kept apart from permanent ones.
"""

from __future__ import annotations


class DKGError(Exception):
    """Root of every error the platform raises on purpose."""


class ConfigError(DKGError):
    """A setting is missing or invalid."""


class ServiceError(DKGError):
    """An external process (Neo4j, CoreNLP, tesseract, Java, Maven) could not be used."""


class JavaNotFoundError(ServiceError):
    """No usable Java runtime."""


class ArtifactFetchError(ServiceError):
    """A Maven artifact could not be downloaded."""


class PortInUseError(ServiceError):
    """The port a local server should listen on is taken by another process."""


class GraphError(DKGError):
    """A Neo4j operation failed."""


class GraphUnavailableError(GraphError):
    """The Neo4j server cannot be reached."""


class TransientError(DKGError):
    """A failure that may go away when retried."""


class CorpusError(DKGError):
    """A guideline source file is invalid."""


class ParseError(DKGError):
    """A guideline PDF could not be parsed."""


class ConstraintError(DKGError):
    """A constraint is malformed or outside the vocabulary."""


class BuildError(DKGError):
    """Loading a guideline into the graph failed (nothing was written)."""


class CurationError(DKGError):
    """A constraint change was refused (unknown node, stale read, invalid value)."""


class QAError(DKGError):
    """Question answering failed."""


class UnsafeQueryError(QAError):
    """Generated Cypher was refused before it ran (writes, file access, disallowed procedure)."""


class RetrievalError(DKGError):
    """Retrieval failed (index missing or stale, model missing)."""
