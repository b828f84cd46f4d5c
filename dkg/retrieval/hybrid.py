"""The hybrid answer behind `dkg ask`: text-to-Cypher first (precise when the question fits the schema),
the GRAG retriever when it is unavailable or returns no rows, and both with ``explain``."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
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


def _make_service(cls: type, graph: Graph, **extra: Any) -> Any:
    params = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = {k: v for k, v in extra.items() if k in params and v is not None}
    if "graph" in params:
        kwargs["graph"] = graph
    if "settings" in params:
        kwargs["settings"] = graph.settings
    return cls(**kwargs)


def load_text_to_cypher(graph: Graph, model_dir: Any | None = None) -> tuple[Any | None, str | None]:
    """The text-to-Cypher service over ``graph`` (model from ``model_dir``, default the shipped location),
    or None and why it cannot be used (it is optional)."""
    try:
        from dkg.qa.service import TextToCypherService  # another stage; optional at run time
    except ImportError as exc:
        return None, f"text-to-Cypher is not available ({exc})"
    try:
        return _make_service(TextToCypherService, graph, model_dir=model_dir), None
    except DKGError as exc:
        return None, f"text-to-Cypher is not ready: {exc}"
    except (ImportError, OSError, TypeError, ValueError, RuntimeError) as exc:
        return None, f"text-to-Cypher could not be started ({type(exc).__name__}: {exc})"


def _ask_service(service: Any, question: str) -> tuple[Answer | None, str | None]:
    try:
        answer = service.answer(question)
    except DKGError as exc:
        return None, f"text-to-Cypher failed: {exc}"
    except (OSError, TypeError, ValueError, AttributeError, RuntimeError) as exc:
        return None, f"text-to-Cypher could not be used: {type(exc).__name__}: {exc}"
    if not isinstance(answer, Answer):
        return None, f"text-to-Cypher returned {type(answer).__name__}, not an Answer"
    if not answer.answered:
        return answer, f"text-to-Cypher gave no answer: {answer.no_answer_reason}"
    if not answer.rows:
        return answer, "text-to-Cypher's query returned no rows"
    return answer, None


def text_to_cypher(graph: Graph, question: str) -> tuple[Answer | None, str | None]:
    """The text-to-Cypher answer (loading the service for this one question), or None and the reason."""
    service, problem = load_text_to_cypher(graph)
    if service is None:
        return None, problem
    try:
        return _ask_service(service, question)
    finally:
        close = getattr(service, "close", None)
        if callable(close):
            close()


def route_answer(question: str, k: int, explain: bool, service: Any | None, service_problem: str | None,
                 grag: Callable[[str, int], Answer]) -> HybridResult:
    """The hybrid routing with an already-loaded text-to-Cypher service (or the reason there is none):
    its answer when the query validates and returns rows, else (and with ``explain``, also) GRAG;
    route ``none`` with both reasons when neither has an answer."""
    start = time.perf_counter()
    cypher_answer: Answer | None = None
    problem = service_problem
    if service is not None:
        cypher_answer, problem = _ask_service(service, question)
    notes = [problem] if problem else []
    if problem is None and not explain:
        assert cypher_answer is not None
        return HybridResult(cypher_answer, cypher_answer, None, notes)
    grag_answer = grag(question, k)
    if problem is not None:
        total = {**grag_answer.timings_ms, "total": (time.perf_counter() - start) * 1000}
        if not grag_answer.answered:
            reason = f"{problem}; GRAG: {grag_answer.no_answer_reason}"
            refused = grag_answer.model_copy(update={"route": "none", "no_answer_reason": reason,
                                                     "timings_ms": total})
            return HybridResult(refused, cypher_answer, grag_answer, notes + ["neither route has an answer"])
        routed = grag_answer.model_copy(update={"timings_ms": total})
        return HybridResult(routed, cypher_answer, grag_answer, notes + ["answered by the GRAG retriever instead"])
    assert cypher_answer is not None
    merged = cypher_answer.model_copy(update={
        "route": "hybrid",
        "evidence": [*cypher_answer.evidence, *grag_answer.evidence],
        "matched_nodes": [*cypher_answer.matched_nodes,
                          *[m for m in grag_answer.matched_nodes if m not in cypher_answer.matched_nodes]],
        "timings_ms": {**cypher_answer.timings_ms, **{f"grag_{k_}": v for k_, v in grag_answer.timings_ms.items()},
                       "total": (time.perf_counter() - start) * 1000},
    })
    return HybridResult(merged, cypher_answer, grag_answer, notes)


def hybrid_answer(graph: Graph, question: str, *, explain: bool = False, retriever: Retriever | None = None,
                  k: int = 5, service: Any | None = None) -> HybridResult:
    """Text-to-Cypher first; GRAG when it has no answer (and always, alongside it, with ``explain``).

    Pass a loaded ``service`` (``dkg.qa.service.TextToCypherService``) to answer many questions without
    reloading the model for each.
    """
    own = service is None
    problem: str | None = None
    if own:
        service, problem = load_text_to_cypher(graph)
    try:
        return route_answer(question, k, explain, service, problem,
                            lambda q, k_: (retriever or Retriever(graph)).answer(q, k_))
    finally:
        close = getattr(service, "close", None) if own and service is not None else None
        if callable(close):
            close()
