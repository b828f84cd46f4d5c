"""Onboarding review endpoints (curator bearer token): drafts, their review items, accept / edit / reject,
the flowchart titles of their pages, publish, unpublish and discard, and the parser's review pictures. The work is done
by :mod:`dkg.graph.drafts`.

A draft is unvetted content kept out of clinicians' view, so even reading one needs a curator token. Every
review is based on the item revision the curator read (``expected_rev``); a stale one gets 409."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field, model_validator

from dkg.api.auth import curator
from dkg.api.errors import ApiError, NotFoundError
from dkg.api.routes_read import state_of
from dkg.api.settings import Principal
from dkg.errors import BuildError
from dkg.graph import drafts
from dkg.types import GUIDELINE_NAME_PATTERN, VERSION_NAME_PATTERN

router = APIRouter(prefix="/api", dependencies=[Depends(curator)])

GuidelineName = Annotated[str, Path(max_length=40, pattern=GUIDELINE_NAME_PATTERN, description="guideline name")]
VersionName = Annotated[str, Path(max_length=20, pattern=VERSION_NAME_PATTERN, description="version, e.g. 1.2026")]
ItemId = Annotated[str, Path(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9:_\-]+$",
                             description="review item: n3 (box), e5 (arrow), k:blood_glucose (proposed key)")]
PageId = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.\-]+$",
                             description="page as the draft's boxes name it (its printed code, else its number)")]
PictureName = Annotated[str, Path(min_length=5, max_length=120, pattern=r"^[A-Za-z0-9_.\-]+\.png$")]
ConstraintText = Annotated[str, Field(min_length=1, max_length=200)]
EntryValue = str | float | list[float] | list[str]


class ConflictError(ApiError):
    status = 409


class DraftSummary(BaseModel):
    guideline: str
    version: str
    items: int
    pending: int


class ReviewItem(BaseModel):
    item: str = Field(description="n… box, e… arrow, k:… proposed vocabulary key")
    kind: Literal["node", "edge", "key"]
    status: Literal["pending", "accepted", "edited", "rejected"]
    content: str = Field(description="box text, arrow label, or the proposed key's name")
    constraints: list[str]
    head: str = Field(description="arrow: the item id of the box it leaves")
    tail: str = Field(description="arrow: the item id of the box it enters")
    page: str
    entry: dict[str, Any] = Field(description="proposed key: its vocabulary entry (kind, unit, range ...)")
    rev: int = Field(description="the item revision; send it back as expected_rev")

    @classmethod
    def of(cls, item: drafts.DraftItem) -> ReviewItem:
        return cls.model_validate({**item.__dict__, "entry": item.key_entry})


class DraftView(BaseModel):
    guideline: str
    version: str
    items: list[ReviewItem]
    pending: int = Field(description="items not yet reviewed; publishing is refused while any is pending")
    pictures: list[str] = Field(description="URLs of the parser's review pictures (PNG), one per page")
    pages: list[str] = Field(default_factory=list, description="the pages the draft's boxes are on")
    page_titles: dict[str, str] = Field(default_factory=dict,
                                        description="page → the flowchart title read on it (corrected in review)")


class PageTitleBody(BaseModel):
    title: str = Field(max_length=300, description="the flowchart title printed on the page; '' removes it")
    reason: str = Field(default="", max_length=1000, description="Why; goes into the audit trail")


class PageTitles(BaseModel):
    guideline: str
    version: str
    page_titles: dict[str, str]


class ReviewBody(BaseModel):
    action: Literal["accept", "edit", "reject"]
    expected_rev: int = Field(ge=0, description="The item revision the review is based on")
    reason: str = Field(default="", max_length=1000, description="Why; goes into the audit trail")
    content: str | None = Field(default=None, max_length=2000, description="edit: new box text or arrow label")
    constraints: list[ConstraintText] | None = Field(default=None, max_length=50,
                                                     description="edit: the new constraints ([] for none)")
    entry: dict[Annotated[str, Field(max_length=40)], EntryValue] | None = Field(
        default=None, max_length=20, description="edit of a proposed key: its whole vocabulary entry")

    @model_validator(mode="after")
    def _reasoned_edit(self) -> ReviewBody:
        if self.action != "accept" and not self.reason.strip():
            raise ValueError(f"a {self.action} needs a reason (it goes into the audit trail)")
        if self.action != "edit" and (self.content, self.constraints, self.entry) != (None, None, None):
            raise ValueError(f"content, constraints and entry belong to an edit, not a {self.action}")
        return self


class AddBody(BaseModel):
    """What the parser or the proposer missed: a box, an arrow between two boxes, or a vocabulary key."""

    kind: Literal["node", "edge", "key"]
    reason: str = Field(min_length=1, max_length=1000, description="Why; goes into the audit trail")
    text: str = Field(default="", max_length=2000, description="node: the box text as printed")
    page: str = Field(default="", max_length=40, description="node: the page it is on")
    head: str = Field(default="", max_length=80, description="edge: the item id of the box it leaves")
    tail: str = Field(default="", max_length=80, description="edge: the item id of the box it enters")
    label: str = Field(default="", max_length=200, description="edge: its label")
    constraints: list[ConstraintText] = Field(default_factory=list, max_length=50)
    name: str = Field(default="", max_length=40, description="key: its name")
    entry: dict[Annotated[str, Field(max_length=40)], EntryValue] | None = Field(
        default=None, max_length=20, description="key: its vocabulary entry (kind, unit, range, synonyms ...)")


class PublishBody(BaseModel):
    reason: str = Field(default="", max_length=1000)


class PublishResult(BaseModel):
    guideline: str
    version: str
    counts: dict[str, int] = Field(description="nodes, decision nodes, relations ... now visible to clinicians")
    note: str


class UnpublishResult(BaseModel):
    guideline: str
    version: str
    items: int = Field(description="items of the draft it became (all accepted)")


class DiscardResult(BaseModel):
    guideline: str
    version: str
    items: int = Field(description="items of the draft deleted")


class HistoryRow(BaseModel):
    id: str
    at: str
    who: str
    action: str
    item: str | None
    kind: str | None
    reason: str
    before: str
    after: str


def _who(principal: Principal) -> str:
    return f"api:{principal.name}"


def _picture_dir(request: Request, guideline: str, version: str) -> FilePath | None:
    """Where ``dkg onboard`` wrote the draft's review pictures (None: a name that cannot be a folder)."""
    from dkg.graph.onboard import onboarding_folder

    try:
        return onboarding_folder(state_of(request).settings, guideline, version) / "overlay"
    except BuildError:
        return None


def _pictures(request: Request, guideline: str, version: str) -> list[str]:
    folder = _picture_dir(request, guideline, version)
    if folder is None or not folder.is_dir():
        return []
    return [f"/api/drafts/{guideline}/{version}/pictures/{p.name}" for p in sorted(folder.glob("*.png"))]


def _items(request: Request, guideline: str, version: str) -> list[drafts.DraftItem]:
    try:
        return drafts.draft_items(state_of(request).graph, guideline, version)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc


@router.get("/drafts", response_model=list[DraftSummary], summary="Every draft awaiting review")
def list_drafts(request: Request) -> list[DraftSummary]:
    return [DraftSummary(**row) for row in drafts.list_drafts(state_of(request).graph)]


@router.get("/drafts/{guideline}/{version}", response_model=DraftView,
            summary="A draft's review items (boxes, arrows, proposed keys) with their state and revision")
def show_draft(guideline: GuidelineName, version: VersionName, request: Request) -> DraftView:
    items = _items(request, guideline, version)
    titles, pages = drafts.draft_page_titles(state_of(request).graph, guideline, version)
    return DraftView(guideline=guideline, version=version, items=[ReviewItem.of(i) for i in items],
                     pending=len(drafts.pending(items)), pictures=_pictures(request, guideline, version),
                     pages=pages, page_titles=titles)


@router.post("/drafts/{guideline}/{version}/pages/{page}/title", response_model=PageTitles,
             summary="Set or remove the flowchart title of one page of a draft (audited)")
def set_page_title(guideline: GuidelineName, version: VersionName, page: PageId, body: PageTitleBody,
                   request: Request, principal: Principal = Depends(curator)) -> PageTitles:
    try:
        titles = drafts.set_page_title(state_of(request).graph, guideline, version, page, body.title,
                                       who=_who(principal), reason=body.reason)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc
    except drafts.StaleReviewError as exc:
        raise ConflictError(str(exc)) from exc
    return PageTitles(guideline=guideline, version=version, page_titles=titles)


@router.get("/drafts/{guideline}/{version}/history", response_model=list[HistoryRow],
            summary="The audit trail of a version's onboarding, review, publishing, unpublishing and discarding")
def draft_history(guideline: GuidelineName, version: VersionName, request: Request) -> list[HistoryRow]:
    rows = drafts.review_history(state_of(request).graph, guideline, version)
    return [HistoryRow(**{**r, "reason": r["reason"] or "", "before": r["before"] or "", "after": r["after"] or "",
                          "who": r["who"] or ""}) for r in rows]


@router.get("/drafts/{guideline}/{version}/pictures/{name}", include_in_schema=True, response_class=FileResponse,
            summary="One review picture (PNG) written by `dkg onboard`")
def draft_picture(guideline: GuidelineName, version: VersionName, name: PictureName, request: Request) -> FileResponse:
    folder = _picture_dir(request, guideline, version)
    path = folder / name if folder is not None else None
    if path is None or path.parent != folder or not path.is_file():
        raise NotFoundError(f"no review picture {name!r} for {guideline} {version}; the draft lists its pictures")
    return FileResponse(path, media_type="image/png")


@router.post("/drafts/{guideline}/{version}/items/{item}/review", response_model=ReviewItem,
             summary="Accept, edit or reject one item (audited; a stale expected_rev gets 409)")
def review_item(guideline: GuidelineName, version: VersionName, item: ItemId, body: ReviewBody, request: Request,
                principal: Principal = Depends(curator)) -> ReviewItem:
    try:
        done = drafts.review(state_of(request).graph, guideline, version, item, body.action, content=body.content,
                             constraints=body.constraints, entry=body.entry, who=_who(principal),
                             reason=body.reason, expected_rev=body.expected_rev)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc
    except drafts.StaleReviewError as exc:
        raise ConflictError(str(exc)) from exc
    return ReviewItem.of(done)


@router.post("/drafts/{guideline}/{version}/items", response_model=ReviewItem, status_code=201,
             summary="Add a box, an arrow or a vocabulary key the parser or the proposer missed (audited)")
def add_item(guideline: GuidelineName, version: VersionName, body: AddBody, request: Request,
             principal: Principal = Depends(curator)) -> ReviewItem:
    try:
        new = drafts.add_item(state_of(request).graph, guideline, version, body.kind, text=body.text, page=body.page,
                              head=body.head, tail=body.tail, label=body.label, constraints=body.constraints,
                              name=body.name, entry=body.entry, who=_who(principal), reason=body.reason)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc
    except drafts.StaleReviewError as exc:
        raise ConflictError(str(exc)) from exc
    return ReviewItem.of(new)


@router.post("/drafts/{guideline}/{version}/publish", response_model=PublishResult,
             summary="Make a fully reviewed draft visible to clinicians, atomically (refused while items pend)")
def publish_draft(guideline: GuidelineName, version: VersionName, body: PublishBody, request: Request,
                  principal: Principal = Depends(curator)) -> PublishResult:
    state = state_of(request)
    try:
        build = drafts.publish(state.graph, guideline, version, who=_who(principal), reason=body.reason)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc
    except drafts.PendingItemsError as exc:
        raise ConflictError(str(exc)) from exc
    state.engine.invalidate()
    return PublishResult(guideline=guideline, version=version, counts=build.counts(),
                         note="published; run `dkg index` so that retrieval (the GRAG route) covers it too")


@router.post("/drafts/{guideline}/{version}/discard", response_model=DiscardResult,
             summary="Delete a draft, its items and its review pictures (audited; the audit trail stays)")
def discard_draft(guideline: GuidelineName, version: VersionName, body: PublishBody, request: Request,
                  principal: Principal = Depends(curator)) -> DiscardResult:
    from dkg.graph.onboard import discard_onboarding

    state = state_of(request)
    try:
        items = discard_onboarding(state.graph, guideline, version, settings=state.settings, who=_who(principal),
                                   reason=body.reason)
    except drafts.UnknownDraftError as exc:
        raise NotFoundError(str(exc)) from exc
    return DiscardResult(guideline=guideline, version=version, items=items)


@router.post("/guidelines/{guideline}/{version}/unpublish", response_model=UnpublishResult,
             summary="Take a published version out of clinicians' view, back into a draft, atomically")
def unpublish_version(guideline: GuidelineName, version: VersionName, body: PublishBody, request: Request,
                      principal: Principal = Depends(curator)) -> UnpublishResult:
    from dkg.graph.onboard import unpublish_version

    state = state_of(request)
    items = unpublish_version(state.graph, guideline, version, settings=state.settings, who=_who(principal),
                              reason=body.reason)
    state.engine.invalidate()
    return UnpublishResult(guideline=guideline, version=version, items=items)
