"""The hybrid answer behind `dkg ask`: text-to-Cypher first (precise when the question fits the schema),
the GRAG retriever when it is unavailable or returns no rows, and both with ``explain``."""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any

from dkg.answers import Answer
from dkg.errors import DKGError
from dkg.graph.db import Graph
from dkg.retrieval.grag import Retriever


def sample_retrieval_questions() -> list[str]:
    """Demo questions the retriever answers (they do not fit the decision schema's Cypher templates)."""
    return [
        "what is blinatumomab used for in ALL?",
        "why is MRD monitored?",
        "How is Wilms tumor treated in children?",
        "what is denosumab used for in bone tumors?",
        "Which tests are used to find acute lymphoblastic leukemia in adults?",
    ]


@dataclass
class HybridResult:
    """The answer given, plus what each route produced (for ``--explain``)."""

    answer: Answer
    cypher_answer: Answer | None = None
    grag_answer: Answer | None = None
    notes: list[str] = field(default_factory=list)


def _make_service(cls: type, graph: Graph) -> Any:
    params = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = {}
    if "graph" in params:
        kwargs["graph"] = graph
    if "settings" in params:
        kwargs["settings"] = graph.settings
    return cls(**kwargs)


def text_to_cypher(graph: Graph, question: str) -> tuple[Answer | None, str | None]:
    """The text-to-Cypher answer, or None and the reason it could not be used."""
    try:
        from dkg.qa.service import TextToCypherService  # another stage; optional at run time
    except ImportError as exc:
        return None, f"text-to-Cypher is not available ({exc})"
    try:
        service = _make_service(TextToCypherService, graph)
    except DKGError as exc:
        return None, f"text-to-Cypher is not ready: {exc}"
    except Exception as exc:  # noqa: BLE001 — an optional stage still being built must never break `dkg ask`
        return None, f"text-to-Cypher could not be started ({type(exc).__name__}: {exc})"
    try:
        answer = service.answer(question)
    except DKGError as exc:
        return None, f"text-to-Cypher failed: {exc}"
    except Exception as exc:  # noqa: BLE001 — same reason: fall back to GRAG and say why
        return None, f"text-to-Cypher could not be used: {type(exc).__name__}: {exc}"
    finally:
        close = getattr(service, "close", None)
        if callable(close):
            close()
    if not isinstance(answer, Answer):
        return None, f"text-to-Cypher returned {type(answer).__name__}, not an Answer"
    if not answer.answered:
        return answer, f"text-to-Cypher gave no answer: {answer.no_answer_reason}"
    if not answer.rows:
        return answer, "text-to-Cypher's query returned no rows"
    return answer, None


def hybrid_answer(graph: Graph, question: str, *, explain: bool = False, retriever: Retriever | None = None,
                  k: int = 5) -> HybridResult:
    """Text-to-Cypher first; GRAG when it has no answer (and always, alongside it, with ``explain``)."""
    start = time.perf_counter()
    cypher_answer, problem = text_to_cypher(graph, question)
    notes = [problem] if problem else []
    if problem is None and not explain:
        assert cypher_answer is not None
        return HybridResult(cypher_answer, cypher_answer, None, notes)
    grag = (retriever or Retriever(graph)).answer(question, k)
    if problem is not None:
        total = {**grag.timings_ms, "total": (time.perf_counter() - start) * 1000}
        if not grag.answered:
            reason = "; ".join([problem, f"GRAG: {grag.no_answer_reason}"])
            refused = grag.model_copy(update={"route": "none", "no_answer_reason": reason, "timings_ms": total})
            return HybridResult(refused, cypher_answer, grag, notes + ["neither route has an answer"])
        routed = grag.model_copy(update={"timings_ms": total})
        return HybridResult(routed, cypher_answer, grag, notes + ["answered by the GRAG retriever instead"])
    assert cypher_answer is not None
    merged = cypher_answer.model_copy(update={
        "route": "hybrid",
        "evidence": [*cypher_answer.evidence, *grag.evidence],
        "matched_nodes": [*cypher_answer.matched_nodes, *[m for m in grag.matched_nodes
                                                          if m not in cypher_answer.matched_nodes]],
        "timings_ms": {**cypher_answer.timings_ms, **{f"grag_{k_}": v for k_, v in grag.timings_ms.items()},
                       "total": (time.perf_counter() - start) * 1000},
    })
    return HybridResult(merged, cypher_answer, grag, notes)
