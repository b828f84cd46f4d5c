"""The hybrid router over two Answerer routes (stand-in answerers; the real routes are tested end to end in
tests/e2e/test_retrieval.py and tests/e2e/test_api_http.py)."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import dkg.answering as answering
from dkg.answering import Answerer, GragAnswerer, HybridResult, hybrid_answer, route_answer, text_to_cypher
from dkg.answers import Answer, Evidence
from dkg.errors import QAError

QUESTION = "Is blinatumomab appropriate for a 70 year old with Ph-negative B-ALL who is MRD-positive?"
CYPHER = Answer(question=QUESTION, route="text2cypher", answer="blinatumomab", rows=[{"uid": "ALL|1|a"}],
                matched_nodes=["ALL|1|a"], cypher="MATCH ...", timings_ms={"generate": 5.0},
                evidence=[Evidence(node_uid="ALL|1|a", content="Blinatumomab", kind="Action")])
RETRIEVED = Answer(question=QUESTION, route="grag", answer="[Action] Blinatumomab ...",
                   matched_nodes=["ALL|1|a", "pdq|mrd"], timings_ms={"search": 2.0},
                   evidence=[Evidence(node_uid="ALL|1|a", content="Blinatumomab", kind="Action"),
                             Evidence(node_uid="pdq|mrd", content="MRD", kind="Section")])


@dataclass
class Scripted:
    """An Answerer that gives (or raises) one prepared result and records the questions it was asked."""

    result: Answer | Exception
    asked: list[str] = field(default_factory=list)

    def answer(self, question: str) -> Answer:
        self.asked.append(question)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def refused(route: Any, reason: str) -> Answer:
    return Answer(question=QUESTION, route=route, answer="", no_answer_reason=reason)


def test_rows_from_text_to_cypher_answer_without_asking_the_retriever() -> None:
    retrieval = Scripted(RETRIEVED)
    result = route_answer(QUESTION, Scripted(CYPHER), retrieval)
    assert result == HybridResult(CYPHER, CYPHER, None, [])
    assert retrieval.asked == []


@pytest.mark.parametrize(("cypher", "note"), [
    (CYPHER.model_copy(update={"rows": []}), "text-to-Cypher's query returned no rows"),
    (refused("text2cypher", "out of scope"), "text-to-Cypher gave no answer: out of scope"),
    (QAError("no decoded query passed validation"), "text-to-Cypher failed: no decoded query passed validation"),
    (RuntimeError("CUDA missing"), "text-to-Cypher could not be used: RuntimeError: CUDA missing"),
])
def test_no_text_to_cypher_answer_falls_back_to_the_retriever(cypher: Answer | Exception, note: str) -> None:
    retrieval = Scripted(RETRIEVED)
    result = route_answer(QUESTION, Scripted(cypher), retrieval)
    assert retrieval.asked == [QUESTION]
    assert result.answer.route == "grag" and result.answer.answer == RETRIEVED.answer
    assert result.notes == [note, "answered by the GRAG retriever instead"]
    assert result.grag_answer == RETRIEVED
    assert set(result.answer.timings_ms) == {"search", "total"}


def test_an_unloaded_text_to_cypher_route_passes_its_reason_on() -> None:
    result = route_answer(QUESTION, None, Scripted(RETRIEVED), text_to_cypher_problem="no trained model")
    assert result.answer.route == "grag" and result.cypher_answer is None
    assert result.notes == ["no trained model", "answered by the GRAG retriever instead"]


def test_neither_route_answering_is_a_refusal_naming_both_reasons() -> None:
    result = route_answer(QUESTION, Scripted(refused("text2cypher", "out of scope")),
                          Scripted(refused("grag", "nothing was retrieved")))
    assert result.answer.route == "none" and result.answer.answer == ""
    assert result.answer.no_answer_reason == ("text-to-Cypher gave no answer: out of scope; "
                                              "GRAG: nothing was retrieved")
    assert result.notes[-1] == "neither route has an answer"


def test_explain_runs_both_and_merges_their_evidence() -> None:
    retrieval = Scripted(RETRIEVED)
    result = route_answer(QUESTION, Scripted(CYPHER), retrieval, explain=True)
    assert retrieval.asked == [QUESTION] and result.notes == []
    merged = result.answer
    assert merged.route == "hybrid" and merged.answer == CYPHER.answer and merged.cypher == CYPHER.cypher
    assert [e.node_uid for e in merged.evidence] == ["ALL|1|a", "ALL|1|a", "pdq|mrd"]
    assert merged.matched_nodes == ["ALL|1|a", "pdq|mrd"]
    assert set(merged.timings_ms) == {"generate", "grag_search", "total"}
    assert (result.cypher_answer, result.grag_answer) == (CYPHER, RETRIEVED)


def test_grag_answerer_passes_the_request_k() -> None:
    calls: list[tuple[str, int]] = []

    def retrieve(question: str, k: int) -> Answer:
        calls.append((question, k))
        return RETRIEVED

    route: Answerer = GragAnswerer(retrieve, 7)
    assert route.answer(QUESTION) is RETRIEVED and calls == [(QUESTION, 7)]


@dataclass
class Closing(Scripted):
    closed: int = 0

    def close(self) -> None:
        self.closed += 1


class NoRetriever:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the retriever is only built when the GRAG route is asked")


def test_hybrid_answer_closes_the_service_it_loaded_and_builds_no_unneeded_retriever(
        monkeypatch: pytest.MonkeyPatch) -> None:
    own = Closing(CYPHER)
    monkeypatch.setattr(answering, "load_text_to_cypher", lambda graph: (own, None))
    monkeypatch.setattr(answering, "Retriever", NoRetriever)
    graph: Any = types.SimpleNamespace(settings=None)
    assert hybrid_answer(graph, QUESTION).answer.route == "text2cypher"
    assert own.closed == 1
    passed = Closing(CYPHER)
    assert hybrid_answer(graph, QUESTION, service=passed).answer.route == "text2cypher"
    assert passed.closed == 0 and passed.asked == [QUESTION]


def test_hybrid_answer_asks_the_given_retriever_for_k_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answering, "load_text_to_cypher", lambda graph: (None, "switched off"))
    asked: list[tuple[str, int | None]] = []

    class Retriever:
        def answer(self, question: str, k: int | None = None) -> Answer:
            asked.append((question, k))
            return RETRIEVED

    graph: Any = types.SimpleNamespace(settings=None)
    result = hybrid_answer(graph, QUESTION, retriever=Retriever(), k=3)  # type: ignore[arg-type]
    assert result.answer.route == "grag" and result.notes[0] == "switched off" and asked == [(QUESTION, 3)]


class FakeService:
    """Stands in for dkg.qa.service.TextToCypherService: records how it was built."""

    built: list[tuple[Any, dict[str, Any]]] = []
    fail: Exception | None = None

    def __init__(self, settings: object = None, *, graph: object = None, model_dir: Path | None = None) -> None:
        if FakeService.fail is not None:
            raise FakeService.fail
        FakeService.built.append((settings, {"graph": graph, "model_dir": model_dir}))
        self.closed = False

    def answer(self, question: str) -> Answer:
        return CYPHER

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FakeService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def fake_service(monkeypatch: pytest.MonkeyPatch) -> type[FakeService]:
    module = types.ModuleType("dkg.qa.service")
    module.TextToCypherService = FakeService  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "dkg.qa.service", module)
    FakeService.built, FakeService.fail = [], None
    return FakeService


def test_the_service_is_built_with_the_graph_its_settings_and_the_model_folder(
        fake_service: type[FakeService]) -> None:
    graph: Any = types.SimpleNamespace(settings="the graph's settings")
    service, problem = answering.load_text_to_cypher(graph, model_dir=Path("models/t2c"))
    assert problem is None and isinstance(service, FakeService)
    assert fake_service.built == [("the graph's settings", {"graph": graph, "model_dir": Path("models/t2c")})]


@pytest.mark.parametrize(("error", "note"), [
    (FileNotFoundError("no trained model in models/t2c"),
     "text-to-Cypher could not be started (FileNotFoundError: no trained model in models/t2c)"),
    (QAError("the model folder is empty; run `dkg train cypher`"),
     "text-to-Cypher is not ready: the model folder is empty; run `dkg train cypher`"),
])
def test_a_service_that_cannot_start_is_a_reason_not_a_crash(fake_service: type[FakeService], error: Exception,
                                                             note: str) -> None:
    fake_service.fail = error
    graph: Any = types.SimpleNamespace(settings=None)
    assert text_to_cypher(graph, "why is MRD monitored?") == (None, note)


@pytest.mark.parametrize("explain", [False, True])
def test_impossible_patient_facts_are_refused_by_every_route(explain: bool) -> None:
    question = "A 1070-year-old with Ph-positive ALL: what next?"
    cypher, retrieval = Scripted(CYPHER), Scripted(RETRIEVED)
    result = route_answer(question, cypher, retrieval, explain=explain)
    assert result.answer.route == "none" and not result.answer.answered
    assert "1070" in (result.answer.no_answer_reason or "") and "correct it" in (result.answer.no_answer_reason or "")
    assert cypher.asked == [] and retrieval.asked == []  # neither route answers for another patient
