"""Choose the reader of a scanned page (see :class:`ScanRoute`) and report why a page could not be read."""

from __future__ import annotations

import logging
import os

import numpy as np

from dkg.errors import ServiceError
from dkg.parsing.assemble import assemble
from dkg.parsing.models import PagePrimitives
from dkg.parsing.scan.pipeline import pipeline_primitives
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanRoute, ScanSettings

log = logging.getLogger(__name__)


ROUTE_ENV = "DKG_SCAN_ROUTE"


def settings_from_env() -> ScanSettings:
    """The default settings with the route named by ``DKG_SCAN_ROUTE`` (hybrid, pipeline or legacy), if set."""
    name = os.environ.get(ROUTE_ENV, "").strip().lower()
    if not name:
        return DEFAULT_SETTINGS
    try:
        return ScanSettings(route=ScanRoute(name))
    except ValueError:
        allowed = ", ".join(r.value for r in ScanRoute)
        raise ValueError(f"{ROUTE_ENV}={name!r} is not a scan route; use one of {allowed}") from None


def _connected(prims: PagePrimitives) -> bool:
    """Whether assembly finds at least one connector with a source and a target box."""
    return any(c.sources and c.targets for c in assemble(prims).connectors)


def scanned_primitives(gray: np.ndarray, page_number: int, width_pt: float, height_pt: float,
                       settings: ScanSettings | None = None) -> tuple[PagePrimitives, list[str]]:
    """Primitives of a page image by ``settings.route``, and the page's issues (a reader that failed, and why).

    Raises :class:`ServiceError` (tesseract missing or failing) and ``ValueError`` only when no reader could
    read the page."""
    settings = settings or settings_from_env()
    issues: list[str] = []
    if settings.route is ScanRoute.PIPELINE:
        return pipeline_primitives(gray, page_number, width_pt, height_pt, settings), issues
    from dkg.parsing.raster import raster_primitives

    try:
        legacy = raster_primitives(gray, page_number, width_pt, height_pt)
    except ServiceError:
        raise
    except Exception as exc:  # noqa: BLE001  (the rule-based reader's failure on one page is reported)
        if settings.route is ScanRoute.LEGACY:
            raise
        log.debug("legacy scan reader failed on page %s", page_number, exc_info=True)
        issues.append(f"the rule-based scan reader failed ({type(exc).__name__}: {exc}); read by the scan "
                      "pipeline instead")
        return pipeline_primitives(gray, page_number, width_pt, height_pt, settings), issues
    if settings.route is ScanRoute.LEGACY or _connected(legacy):
        return legacy, issues
    piped = pipeline_primitives(gray, page_number, width_pt, height_pt, settings)
    return (piped if _connected(piped) else legacy), issues
