"""The hybrid answer behind `dkg ask`, the demo and ``/api/ask``: text-to-Cypher first (precise when the question
fits the schema), the GRAG retriever when it is unavailable or returns no rows, and both with ``explain``.

Both routes are :class:`Answerer` s: the text-to-Cypher service (:class:`dkg.qa.service.TextToCypherService`)
is one as it is, the retriever through :class:`GragAnswerer` (which fixes how many nodes one request wants).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from dkg.answers import Answer
from dkg.errors import DKGError
from dkg.graph.db import Graph
from dkg.qa.facts import refused_facts
from dkg.retrieval.grag import Retriever

if TYPE_CHECKING:
    from dkg.qa.service import TextToCypherService


class Answerer(Protocol):
    """One answering route: a question in, an :class:`Answer` (or a reasoned refusal) out."""

    def answer(self, question: str) -> Answer:
        """The route's answer; ``no_answer_reason`` says why when it has none."""
        ...


@dataclass(frozen=True)
class GragAnswerer:
    """The GRAG route as an :class:`Answerer`: ``retrieve(question, k)`` (:meth:`Retriever.answer`, or a
    caller's guarded or lazily built call to it) with this request's ``k``."""

    retrieve: Callable[[str, int], Answer]
    k: int = 5

    def answer(self, question: str) -> Answer:
        return self.retrieve(question, self.k)


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


def load_text_to_cypher(graph: Graph, model_dir: Path | None = None) -> tuple[TextToCypherService | None, str | None]:
    """The text-to-Cypher service over ``graph`` (model from ``model_dir``, default the shipped location),
    or None and why it cannot be used (it is optional)."""
    try:
        from dkg.qa.service import TextToCypherService  # torch and the model: imported only when answering
    except ImportError as exc:
        return None, f"text-to-Cypher is not available ({exc})"
    try:
        return TextToCypherService(graph.settings, graph=graph, model_dir=model_dir), None
    except DKGError as exc:
        return None, f"text-to-Cypher is not ready: {exc}"
    except (ImportError, OSError, TypeError, ValueError, RuntimeError) as exc:
        return None, f"text-to-Cypher could not be started ({type(exc).__name__}: {exc})"


def _ask_text_to_cypher(service: Answerer, question: str) -> tuple[Answer | None, str | None]:
    try:
        answer = service.answer(question)
    except DKGError as exc:
        return None, f"text-to-Cypher failed: {exc}"
    except (OSError, TypeError, ValueError, AttributeError, RuntimeError) as exc:
        return None, f"text-to-Cypher could not be used: {type(exc).__name__}: {exc}"
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
    with service:
        return _ask_text_to_cypher(service, question)


def route_answer(question: str, text_to_cypher: Answerer | None, retrieval: Answerer, *, explain: bool = False,
                 text_to_cypher_problem: str | None = None) -> HybridResult:
    """The hybrid routing over loaded routes (``text_to_cypher`` None: ``text_to_cypher_problem`` says why):
    the text-to-Cypher answer when its query validates and returns rows, else (and with ``explain``, also) the
    ``retrieval`` answer; route ``none`` with both reasons when neither has an answer."""
    start = time.perf_counter()
    impossible = refused_facts(question)
    if impossible:  # never answer, by any route, for a patient other than the one described
        reason = f"I could not use: {'; '.join(r.note for r in impossible)}; correct it and ask again"
        refused = Answer(question=question, route="none", answer="", no_answer_reason=reason,
                         timings_ms={"total": (time.perf_counter() - start) * 1000})
        return HybridResult(refused, None, None, ["refused before either route: impossible patient facts"])
    cypher_answer: Answer | None = None
    problem = text_to_cypher_problem
    if text_to_cypher is not None:
        cypher_answer, problem = _ask_text_to_cypher(text_to_cypher, question)
    notes = [problem] if problem else []
    if problem is None and not explain:
        assert cypher_answer is not None
        return HybridResult(cypher_answer, cypher_answer, None, notes)
    grag_answer = retrieval.answer(question)
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
        "timings_ms": {**cypher_answer.timings_ms, **{f"grag_{k}": v for k, v in grag_answer.timings_ms.items()},
                       "total": (time.perf_counter() - start) * 1000},
    })
    return HybridResult(merged, cypher_answer, grag_answer, notes)


def hybrid_answer(graph: Graph, question: str, *, explain: bool = False, retriever: Retriever | None = None,
                  k: int = 5, service: Answerer | None = None) -> HybridResult:
    """Text-to-Cypher first; GRAG when it has no answer (and always, alongside it, with ``explain``).

    Pass a loaded ``service`` (:class:`dkg.qa.service.TextToCypherService`) to answer many questions without
    reloading the model for each; without one, the service is loaded for this question and closed after it.
    The retriever (``retriever``, else one over ``graph``) is only built when the GRAG route is asked.
    """

    def retrieve(text: str, top_k: int) -> Answer:
        return (retriever or Retriever(graph)).answer(text, top_k)

    if service is not None:
        return route_answer(question, service, GragAnswerer(retrieve, k), explain=explain)
    own, problem = load_text_to_cypher(graph)
    try:
        return route_answer(question, own, GragAnswerer(retrieve, k), explain=explain, text_to_cypher_problem=problem)
    finally:
        if own is not None:
            own.close()
