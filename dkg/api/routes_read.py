"""Read endpoints: ask, retrieve, guidelines, node search, node detail, neighbourhood and evidence paths."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import AfterValidator, BaseModel, Field

from dkg import MEDICAL_DISCLAIMER, __version__
from dkg.answers import Answer
from dkg.api.auth import reader
from dkg.api.errors import NotFoundError
from dkg.api.settings import Principal
from dkg.api.state import AppState
from dkg.api.typed import to_typed, vocabulary_schema
from dkg.errors import ConstraintError
from dkg.graph.curation import Curator
from dkg.graph.db import named_queries
from dkg.types import GUIDELINE_NAME_PATTERN, VERSION_NAME_PATTERN

# The text-to-Cypher service refuses longer questions (dkg.qa.service.MAX_CHARS); say so at the door.
MAX_QUESTION_CHARS = 600
UID_PATTERN = r"^[A-Za-z0-9_.\-]+\|[A-Za-z0-9_.\-]+\|[A-Za-z0-9_.\-]+$"
NodeUid = Annotated[str, Path(min_length=5, max_length=200, pattern=UID_PATTERN,
                              description="node id 'guideline|version|key'")]


def not_blank(text: str) -> str:
    """``text`` unchanged, or a ValueError when it holds nothing but whitespace.

    >>> not_blank("why?")
    'why?'
    """
    if not text.strip():
        raise ValueError("the text is blank (only whitespace); type a question")
    return text


QuestionText = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question, free text"),
                         AfterValidator(not_blank)]
RetrievalText = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(not_blank)]

router = APIRouter(prefix="/api", dependencies=[Depends(reader)])
Q = named_queries("api")


def state_of(request: Request) -> AppState:
    return request.app.state.dkg  # type: ignore[no-any-return]


class AskRequest(BaseModel):
    question: QuestionText
    k: int = Field(default=5, ge=1, le=50, description="Retrieved nodes to show (GRAG route)")
    explain: bool = Field(default=False, description="Run both routes and return what each produced")


class AskResponse(BaseModel):
    answer: Answer
    notes: list[str]
    cached: bool = Field(description="Served from the answer cache (or joined an identical question in flight)")
    snapshot: str = Field(description="Graph snapshot the answer was computed on")
    grag_answer: Answer | None = None
    cypher_answer: Answer | None = None


class RetrieveRequest(BaseModel):
    question: RetrievalText
    k: int = Field(default=10, ge=1, le=100)
    method: Literal["grag", "vector", "vector_exact", "bm25", "hybrid"] = "grag"


class PathsRequest(BaseModel):
    uids: list[Annotated[str, Field(max_length=200, pattern=UID_PATTERN)]] = Field(min_length=1, max_length=50)


@router.get("/health", summary="Service status: graph, retriever, text-to-Cypher model, cache")
def health(request: Request) -> dict[str, Any]:
    state = state_of(request)
    state.graph.verify()
    engine = state.engine
    return {"status": "ok", "version": __version__, "graph": state.graph.uri,
            "retriever": engine.retriever is not None, "retriever_problem": engine.retriever_problem,
            "text2cypher": engine.service is not None, "text2cypher_problem": engine.service_problem,
            "cache": {"size": len(engine.cache), "hits": engine.cache.hits, "misses": engine.cache.misses},
            "workers": engine.workers, "graph_breaker": state.graph.breaker.stats(), "disclaimer": MEDICAL_DISCLAIMER}


@router.get("/meta", summary="Disclaimer, constraint vocabulary (for typed inputs) and authentication mode")
def meta(request: Request) -> dict[str, Any]:
    s = state_of(request).api_settings
    return {"disclaimer": MEDICAL_DISCLAIMER, "vocabulary": vocabulary_schema(),
            "read_token_required": s.require_read_token, "max_question_chars": MAX_QUESTION_CHARS}


@router.get("/whoami", summary="Who the bearer token belongs to and whether it may curate")
def whoami(principal: Principal = Depends(reader)) -> dict[str, Any]:
    return {"name": principal.name, "curator": principal.curator}


@router.post("/ask", response_model=AskResponse, summary="Hybrid answer: text-to-Cypher, else GRAG retrieval")
async def ask(body: AskRequest, request: Request) -> Response:
    engine = state_of(request).engine
    snapshot = await engine.current_snapshot()
    key = (body.question, body.k, body.explain, snapshot)
    done = engine.rendered.get(key)
    if done is not None:
        return Response(done, media_type="application/json")
    outcome = await engine.ask(body.question, body.k, body.explain)
    r = outcome.result
    response = AskResponse(answer=r.answer, notes=r.notes, cached=outcome.cached, snapshot=outcome.snapshot,
                           grag_answer=r.grag_answer if body.explain else None,
                           cypher_answer=r.cypher_answer if body.explain else None)
    if outcome.snapshot == snapshot:
        engine.rendered.put(key, response.model_copy(update={"cached": True}).model_dump_json().encode())
    return Response(response.model_dump_json().encode(), media_type="application/json")


@router.post("/retrieve", response_model=Answer, summary="GRAG (or a baseline) retrieval with provenance")
async def retrieve(body: RetrieveRequest, request: Request) -> Answer:
    engine = state_of(request).engine
    retriever = engine.retriever
    if retriever is None:
        return engine.grag(body.question, body.k)  # raises NotReadyError naming the problem
    return await engine.run(retriever.answer, body.question, body.k, body.method)  # type: ignore[no-any-return]


@router.get("/guidelines", summary="Guideline versions loaded in the graph")
def guidelines(request: Request) -> list[dict[str, Any]]:
    return state_of(request).graph.read(Q["guidelines"])


@router.get("/nodes", summary="Find nodes whose content contains a text (type-ahead)")
def find_nodes(request: Request, q: Annotated[str, Query(min_length=1, max_length=200)],
               guideline: Annotated[str | None, Query(max_length=50, pattern=GUIDELINE_NAME_PATTERN)] = None,
               version: Annotated[str | None, Query(max_length=50, pattern=VERSION_NAME_PATTERN)] = None,
               decisions_only: bool = False, limit: Annotated[int, Query(ge=1, le=100)] = 20) -> list[dict[str, Any]]:
    return state_of(request).graph.read(Q["search_nodes"], {"text": q, "guideline": guideline, "version": version,
                                                            "decisions_only": decisions_only, "limit": limit})


@router.get("/nodes/{uid}", summary="One node with its constraints as typed inputs")
def node(uid: NodeUid, request: Request) -> dict[str, Any]:
    snap = Curator(state_of(request).graph, who="api").get(uid)
    try:
        typed: dict[str, Any] | None = to_typed(snap.constraints)
        typed_problem = None
    except ConstraintError as exc:
        typed, typed_problem = None, str(exc)
    return {**snap.__dict__, "typed": typed, "typed_problem": typed_problem}


@router.get("/nodes/{uid}/neighbourhood", summary="A node's parents, children and offered treatments")
def neighbourhood(uid: NodeUid, request: Request, limit: Annotated[int, Query(ge=1, le=200)] = 50) -> dict[str, Any]:
    rows = state_of(request).graph.read(Q["neighbourhood"], {"uid": uid, "limit": limit})
    if not rows:
        raise NotFoundError(f"no node with id {uid!r}")
    return rows[0]


@router.get("/nodes/{uid}/history", summary="The node's audited constraint changes, oldest first")
def history(uid: NodeUid, request: Request) -> list[dict[str, Any]]:
    return [h.__dict__ for h in Curator(state_of(request).graph, who="api").history(uid)]


@router.post("/paths", summary="For each node, the shortest path from its guideline's root (evidence graph)")
def paths(body: PathsRequest, request: Request) -> list[dict[str, Any]]:
    return state_of(request).graph.read(Q["root_paths"], {"uids": body.uids})
