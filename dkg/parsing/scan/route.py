"""Choose the reader of a scanned page (see :class:`ScanRoute`) and report why a page could not be read."""

from __future__ import annotations

import logging
import os
from typing import NamedTuple

import numpy as np

from dkg.errors import ServiceError
from dkg.parsing.assemble import assemble
from dkg.parsing.models import PagePrimitives
from dkg.parsing.scan.pipeline import pipeline_primitives
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanRoute, ScanSettings
from dkg.parsing.settings import SCANNED_SETTINGS, AssemblySettings

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


class ReadingSize(NamedTuple):
    """How much of a flowchart a reader's primitives make: head-tail pairs over all connectors, and boxes."""

    edges: int
    boxes: int


def _reading_size(prims: PagePrimitives, assembly: AssemblySettings) -> ReadingSize:
    layout = assemble(prims, assembly)
    return ReadingSize(sum(len(c.sources) * len(c.targets) for c in layout.connectors), len(layout.boxes))


def _edge_count(prims: PagePrimitives, assembly: AssemblySettings) -> int:
    """How many head-tail pairs assembly finds: (source, target) pairs over all connectors."""
    return _reading_size(prims, assembly).edges


class ScanRead(NamedTuple):
    """A scanned page as read: its primitives, its issues (a reader that failed, and why) and the assembly
    settings that fit the reader that produced the primitives."""

    prims: PagePrimitives
    issues: list[str]
    assembly: AssemblySettings


def scanned_primitives(gray: np.ndarray, page_number: int, width_pt: float, height_pt: float,
                       settings: ScanSettings | None = None) -> tuple[PagePrimitives, list[str]]:
    """Primitives of a page image by ``settings.route``, and the page's issues (see :func:`read_scanned_page`)."""
    read = read_scanned_page(gray, page_number, width_pt, height_pt, settings)
    return read.prims, read.issues


def read_scanned_page(gray: np.ndarray, page_number: int, width_pt: float, height_pt: float,
                      settings: ScanSettings | None = None) -> ScanRead:
    """A page image read by ``settings.route``: primitives, issues and the assembly settings of the reader used.

    Raises :class:`ServiceError` (tesseract missing or failing) and ``ValueError`` only when no reader could
    read the page."""
    settings = settings or settings_from_env()
    issues: list[str] = []

    def by_pipeline() -> ScanRead:
        return ScanRead(pipeline_primitives(gray, page_number, width_pt, height_pt, settings), issues,
                        settings.pipeline_assembly)

    if settings.route is ScanRoute.PIPELINE:
        return by_pipeline()
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
        return by_pipeline()
    if settings.route is ScanRoute.LEGACY:
        return ScanRead(legacy, issues, SCANNED_SETTINGS)
    legacy_edges, legacy_boxes = _reading_size(legacy, SCANNED_SETTINGS)
    if legacy_edges >= max(settings.hybrid_legacy_edges, settings.hybrid_legacy_edge_share * legacy_boxes):
        return ScanRead(legacy, issues, SCANNED_SETTINGS)
    piped = by_pipeline()
    return piped if _edge_count(piped.prims, piped.assembly) > legacy_edges else ScanRead(legacy, issues,
                                                                                          SCANNED_SETTINGS)
