"""Researcher endpoints: benchmark figures and plots, and relevance annotation (pooled results, qrels)."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import FileResponse
from pydantic import AfterValidator, BaseModel, Field

from dkg.api import annotation
from dkg.api.auth import curator, reader
from dkg.api.errors import NotFoundError
from dkg.api.routes_read import not_blank, state_of
from dkg.api.settings import Principal
from dkg.config import PROJECT_ROOT
from dkg.errors import DKGError

RESULTS_DIR = PROJECT_ROOT / "bench" / "results"
PLOTS_DIR = PROJECT_ROOT / "docs" / "img"
_PLOT_NAME = r"^[A-Za-z0-9_.\-]+\.png$"

router = APIRouter(prefix="/api")


def load_results() -> dict[str, dict[str, Any]]:
    """Every ``bench/results/*.json`` as {topic: flat figures} (unreadable files reported, not fatal)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(RESULTS_DIR.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            out[path.stem] = {"_error": f"cannot read {path.name}: {exc}"}
            continue
        out[path.stem] = data if isinstance(data, dict) else {"_error": f"{path.name} is not a flat JSON object"}
    return out


@router.get("/benchmarks", dependencies=[Depends(reader)], summary="Latest benchmark figures and plot names")
def benchmarks() -> dict[str, Any]:
    plots = sorted(p.name for p in PLOTS_DIR.glob("*.png")
                   if re.match(_PLOT_NAME, p.name) and not p.name.startswith("webapp-"))  # screenshots, not plots
    return {"results": load_results(), "plots": plots}


@router.get("/benchmarks/plots/{name}", dependencies=[Depends(reader)], summary="One plot from docs/img")
def plot(name: Annotated[str, Path(max_length=120, pattern=_PLOT_NAME)]) -> FileResponse:
    path = PLOTS_DIR / name
    if not path.is_file() or path.resolve().parent != PLOTS_DIR.resolve():
        raise NotFoundError(f"no plot {name!r}; see /api/benchmarks for the list")
    return FileResponse(path, media_type="image/png")


@router.get("/annotation/pool", dependencies=[Depends(reader)],
            summary="The pooled top-k of every retrieval method for a query, side by side")
async def annotation_pool(request: Request,
                          query: Annotated[str, Query(min_length=1, max_length=500), AfterValidator(not_blank)],
                          k: Annotated[int, Query(ge=1, le=30)] = 10) -> dict[str, Any]:
    engine = state_of(request).engine
    if engine.retriever is None:
        engine.grag(query, k)  # raises NotReadyError naming the problem
    from dkg.retrieval.grag import METHODS
    pooled: dict[str, Any] = await engine.run(annotation.pool, engine.retriever, query, k, METHODS)
    folder = state_of(request).qrels_dir
    latest = annotation.versions(folder)
    if latest:
        previous = {q.qid: q for q in annotation.load_version(latest[-1])}.get(pooled["qid"])
        pooled["previous"] = None if previous is None else {"qrels": previous.qrels, "meta": previous.meta}
    return pooled


class QrelsBody(BaseModel):
    query: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(not_blank)]
    judgments: list[annotation.Judgment] = Field(min_length=1, max_length=200)


@router.post("/annotation/qrels", summary="Save judgments as a new qrels version (curator token)")
def save_qrels(body: QrelsBody, request: Request, principal: Principal = Depends(curator)) -> dict[str, Any]:
    annotation.check_known(state_of(request).graph, body.judgments)
    question = annotation.to_question(body.query, body.judgments, principal.name)
    path = annotation.save(question, state_of(request).qrels_dir)
    try:
        shown = str(path.relative_to(PROJECT_ROOT))
    except ValueError:
        shown = str(path)
    return {"version": path.stem, "path": shown, "qid": question.qid, "qrels": question.qrels,
            "queries": len(annotation.load_version(path)),
            "evaluate": f"dkg eval retrieval --sets qrels/{path.stem}"}


@router.get("/annotation/qrels", dependencies=[Depends(reader)], summary="Saved qrels versions")
def list_qrels(request: Request) -> list[dict[str, Any]]:
    out = []
    for path in annotation.versions(state_of(request).qrels_dir):
        try:
            count = len(annotation.load_version(path))
        except (DKGError, ValueError, TypeError):
            count = -1  # listed anyway, so a damaged version is visible
        out.append({"version": path.stem, "queries": count})
    return out
