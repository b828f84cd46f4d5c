"""The ``dkg`` command. Each stage registers its commands in its own module; this one only imports them."""

from __future__ import annotations

from dkg.cli import (  # noqa: F401  (imported for their command registrations)
    ask_cmd,
    build_cmd,
    corpus_cmd,
    demo_cmd,
    export_cmd,
    extract_cmd,
    neo4j_cmd,
    onboard_cmd,
    parse_cmd,
    qa_cmd,
    retrieval_cmd,
    serve_cmd,
)
from dkg.cli.common import app

__all__ = ["app"]

if __name__ == "__main__":
    app()
