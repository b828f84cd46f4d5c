"""The parser's review pictures of built guideline versions (read token): the PNGs that building a version from
its pipeline file (`dkg build pipelines/….yaml`) wrote, one per parsed page, listed and served for the curator
page. Drafts have their own pictures behind a curator token (:mod:`dkg.api.routes_review`)."""

from __future__ import annotations

import re
from pathlib import Path as FilePath
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from dkg.api.auth import reader
from dkg.api.errors import NotFoundError
from dkg.api.routes_read import Q, state_of
from dkg.pipeline import overlay_dir
from dkg.types import GUIDELINE_NAME_PATTERN, VERSION_NAME_PATTERN, InvalidNameError, path_under

router = APIRouter(prefix="/api", dependencies=[Depends(reader)])

GuidelineName = Annotated[str, Path(max_length=40, pattern=GUIDELINE_NAME_PATTERN, description="guideline name")]
VersionName = Annotated[str, Path(max_length=20, pattern=VERSION_NAME_PATTERN, description="version, e.g. 1.2026")]
PictureName = Annotated[str, Path(min_length=5, max_length=120, pattern=r"^[A-Za-z0-9_.\-]+\.png$",
                                  description="a picture name from the version's list")]
PAGE_OF_NAME = re.compile(r"-p(\d+)\.png$")


class ReviewPicture(BaseModel):
    name: str = Field(description="file name, <pdf stem>-p<page>.png")
    page: int | None = Field(description="1-based page of the PDF the picture shows")
    url: str


class PictureList(BaseModel):
    guideline: str
    version: str
    pictures: list[ReviewPicture] = Field(description="one per parsed page, in page order")


def _page(name: str) -> int | None:
    match = PAGE_OF_NAME.search(name)
    return int(match.group(1)) if match else None


def _folder(request: Request, guideline: str, version: str) -> FilePath:
    """The version's picture folder; 404 naming the reason when the version is not built or has no pictures."""
    state = state_of(request)
    built = {(row["guideline"], row["version"]) for row in state.graph.read(Q["guidelines"])}
    if (guideline, version) not in built:
        raise NotFoundError(f"no guideline version {guideline} {version} in the graph; GET /api/guidelines lists "
                            "the built versions")
    try:
        folder = overlay_dir(state.settings, guideline, version)
    except InvalidNameError as exc:
        raise NotFoundError(str(exc)) from exc
    if not folder.is_dir() or not any(folder.glob("*.png")):
        raise NotFoundError(f"no review pictures for {guideline} {version}: they are written when the version is "
                            f"built from its PDF (`dkg build pipelines/{guideline}-{version}.yaml`); versions built "
                            "from a CSV, a JSON or a guideline source have none")
    return folder


@router.get("/guidelines/{guideline}/{version}/pictures", response_model=PictureList,
            summary="The parser's review pictures (PNG, one per page) of a version built from its PDF")
def list_pictures(guideline: GuidelineName, version: VersionName, request: Request) -> PictureList:
    folder = _folder(request, guideline, version)
    names = sorted((p.name for p in folder.glob("*.png")), key=lambda n: (_page(n) or 0, n))
    return PictureList(guideline=guideline, version=version, pictures=[
        ReviewPicture(name=n, page=_page(n), url=f"/api/guidelines/{guideline}/{version}/pictures/{n}")
        for n in names])


@router.get("/guidelines/{guideline}/{version}/pictures/{name}", response_class=FileResponse,
            summary="One review picture (PNG) of a built version")
def picture(guideline: GuidelineName, version: VersionName, name: PictureName, request: Request) -> FileResponse:
    folder = _folder(request, guideline, version)
    try:
        path = path_under(folder, name)
    except InvalidNameError as exc:
        raise NotFoundError(str(exc)) from exc
    if not path.is_file():
        raise NotFoundError(f"no review picture {name!r} for {guideline} {version}; GET "
                            f"/api/guidelines/{guideline}/{version}/pictures lists them")
    return FileResponse(path, media_type="image/png")
