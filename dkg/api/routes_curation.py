"""Curator endpoints (curator bearer token): set, remove, update or replace a node's constraints, roll back.

Every change is based on the revision the curator read (``expected_rev``); a stale one gets 409."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, Field

from dkg.api.auth import curator
from dkg.api.errors import NotFoundError
from dkg.api.routes_read import NodeUid, state_of
from dkg.api.settings import Principal
from dkg.api.typed import TypedConstraint, to_constraints
from dkg.graph.curation import ChangeRecord, Curator, UnknownChangeError

router = APIRouter(prefix="/api")
ConstraintText = Annotated[str, Field(min_length=1, max_length=200)]
Reason = Annotated[str, Field(min_length=1, max_length=1000, description="Why; goes into the audit trail")]


class SetBody(BaseModel):
    constraints: list[ConstraintText] = Field(min_length=1, max_length=50)
    reason: Reason
    expected_rev: int = Field(ge=0, description="The node revision the change is based on")


class RemoveBody(BaseModel):
    targets: list[ConstraintText] = Field(min_length=1, max_length=50, description="a key, or a constraint text")
    reason: Reason
    expected_rev: int = Field(ge=0)


class UpdateBody(BaseModel):
    old: ConstraintText
    new: ConstraintText
    reason: Reason
    expected_rev: int = Field(ge=0)


class ReplaceBody(BaseModel):
    typed: dict[Annotated[str, Field(max_length=40)], TypedConstraint] = Field(max_length=40)
    reason: Reason
    expected_rev: int = Field(ge=0)


class RollbackBody(BaseModel):
    reason: str = Field(default="", max_length=1000)


def _curator(request: Request, principal: Principal) -> Curator:
    return Curator(state_of(request).graph, who=f"api:{principal.name}")


def _done(request: Request, record: ChangeRecord) -> ChangeRecord:
    state_of(request).engine.invalidate()
    return record


@router.post("/nodes/{uid}/constraints/set", response_model=ChangeRecord, summary="Add constraints (a key's "
             "new constraint replaces its old ones)")
def set_constraints(uid: NodeUid, body: SetBody, request: Request,
                    principal: Principal = Depends(curator)) -> ChangeRecord:
    return _done(request, _curator(request, principal).set(uid, body.constraints, body.reason, body.expected_rev))


@router.post("/nodes/{uid}/constraints/remove", response_model=ChangeRecord, summary="Remove constraints")
def remove_constraints(uid: NodeUid, body: RemoveBody, request: Request,
                       principal: Principal = Depends(curator)) -> ChangeRecord:
    return _done(request, _curator(request, principal).remove(uid, body.targets, body.reason, body.expected_rev))


@router.post("/nodes/{uid}/constraints/update", response_model=ChangeRecord, summary="Replace one constraint")
def update_constraint(uid: NodeUid, body: UpdateBody, request: Request,
                      principal: Principal = Depends(curator)) -> ChangeRecord:
    return _done(request, _curator(request, principal).update(uid, body.old, body.new, body.reason,
                                                              body.expected_rev))


@router.put("/nodes/{uid}/constraints", response_model=ChangeRecord,
            summary="Replace all constraints from typed inputs (the web app's editor)")
def replace_constraints(uid: NodeUid, body: ReplaceBody, request: Request,
                        principal: Principal = Depends(curator)) -> ChangeRecord:
    cur = _curator(request, principal)
    planned = cur.plan_replace(uid, to_constraints(body.typed), body.reason, body.expected_rev)
    return _done(request, cur.apply([planned])[0])


@router.post("/changes/{change_id}/rollback", response_model=ChangeRecord,
             summary="Restore what a change replaced (as a new audited change)")
def rollback(change_id: Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9\-]+$")],
             body: RollbackBody, request: Request, principal: Principal = Depends(curator)) -> ChangeRecord:
    try:
        record = _curator(request, principal).rollback(change_id, body.reason)
    except UnknownChangeError as exc:
        raise NotFoundError(str(exc)) from exc
    return _done(request, record)
