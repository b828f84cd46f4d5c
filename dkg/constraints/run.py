"""Wire the extractor to its resources: the CoreNLP server and the parse cache, for one run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from dkg.config import Settings
from dkg.constraints.cache import ParseCache
from dkg.constraints.extractor import ConstraintExtractor
from dkg.constraints.io import ConstrainedEdge, read_edges, write_outputs
from dkg.services.corenlp import PARSE_MODEL, PROPERTIES


def cache_path(settings: Settings) -> Path:
    """Where parses are cached: ``<home>/cache/corenlp-parses.sqlite``."""
    return settings.home / "cache" / "corenlp-parses.sqlite"


@contextmanager
def open_extractor(settings: Settings, rules_only: bool = False, use_cache: bool = True
                   ) -> Iterator[ConstraintExtractor]:
    """An extractor for one run: starts CoreNLP (unless ``rules_only``) and stops it on exit."""
    if rules_only:
        yield ConstraintExtractor(rules_only=True)
        return
    from dkg.services.corenlp import CoreNLPServer

    namespace = f"corenlp-{settings.corenlp_version}|{PARSE_MODEL}|{sorted(PROPERTIES.items())}"
    with ExitStack() as stack:
        cache = stack.enter_context(ParseCache(cache_path(settings), namespace)) if use_cache else None
        server = stack.enter_context(CoreNLPServer(settings))
        yield ConstraintExtractor(parser=server, cache=cache)


def extract_file(extractor: ConstraintExtractor, source: Path, output: Path, json_out: Path | None = None,
                 progress: Callable[[int], None] | None = None) -> list[ConstrainedEdge]:
    """Read ``source`` (head–tail CSV), extract constraints, write ``output`` (and ``json_out``) atomically."""
    edges, has_label = read_edges(source)
    sentences = [e.head for e in edges] + [e.tail for e in edges]
    found = extractor.extract_many(sentences, progress)
    heads, tails = found[: len(edges)], found[len(edges):]
    labels = extractor.extract_labels([e.label for e in edges], [e.head for e in edges]) if has_label else None
    rows = [
        ConstrainedEdge(edge, head, tail, labels[i] if labels is not None else None)
        for i, (edge, head, tail) in enumerate(zip(edges, heads, tails, strict=True))
    ]
    write_outputs(rows, output, json_out)
    return rows
