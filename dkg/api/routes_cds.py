"""CDS Hooks 2.0 endpoints in the web app's process: ``GET /cds-services`` (discovery) and
``POST /cds-services/{id}`` for the ``patient-view`` hook (logic in :mod:`dkg.fhir.cds`).

The request body is validated here rather than by FastAPI so that a malformed request is a 400, as the CDS
Hooks specification says (the rest of the API answers 422 for a body that does not validate); a request
without the prefetched Patient is a 412 (this service does not query the EHR's FHIR server)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from pydantic import ValidationError

from dkg.api.auth import reader
from dkg.api.errors import NotFoundError
from dkg.api.routes_read import state_of
from dkg.fhir.cds import CdsRequest, CdsResponse, CdsService, Discovery, PrefetchMissingError, discovery
from dkg.fhir.errors import CdsRequestError
from dkg.fhir.settings import load_fhir_settings

router = APIRouter(prefix="/cds-services", dependencies=[Depends(reader)], tags=["CDS Hooks"])
_create_lock = threading.Lock()
ServiceId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9\-.]+$")]


def cds_service(request: Request) -> CdsService:
    """The process's one CDS service (made on first use, sharing the app's graph connection and breaker)."""
    service: CdsService | None = getattr(request.app.state, "fhir_cds", None)
    if service is None:
        with _create_lock:
            service = getattr(request.app.state, "fhir_cds", None)
            if service is None:
                state = state_of(request)
                engine = getattr(state, "engine", None)
                service = CdsService(state.graph, load_fhir_settings(),
                                     snapshot=engine.snapshot if engine is not None else None)
                request.app.state.fhir_cds = service
    return service


@router.get("", response_model=Discovery, response_model_exclude_none=True,
            summary="CDS Hooks discovery: the services this server offers")
def list_services(request: Request) -> Discovery:
    return discovery(cds_service(request).settings)


def _parse(body: bytes) -> CdsRequest:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CdsRequestError(f"the request body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CdsRequestError("the request body must be a JSON object (a CDS Hooks request)")
    try:
        return CdsRequest.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:8])
        raise CdsRequestError(f"malformed CDS Hooks request: {problems}") from exc


@router.post("/{service_id}", response_model=CdsResponse, response_model_exclude_none=True,
             summary="patient-view: cards with the next step of each guideline, or the facts it needs")
async def call_service(service_id: ServiceId, request: Request) -> CdsResponse:
    service = cds_service(request)
    if service_id != service.settings.cds_service_id:
        raise NotFoundError(f"no CDS service {service_id!r}; this server offers {service.settings.cds_service_id!r} "
                            "(GET /cds-services)")
    body = _parse(await request.body())
    base = str(request.base_url).rstrip("/")

    def node_url(uid: str) -> str:
        return f"{base}/api/nodes/{quote(uid, safe='')}"

    try:
        return await asyncio.to_thread(service.answer, body, node_url=node_url)
    except PrefetchMissingError as exc:
        raise HTTPException(status_code=412, detail=str(exc)) from exc
