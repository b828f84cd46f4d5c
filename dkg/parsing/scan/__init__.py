"""Scanned pages: a pipeline of named steps (binarise/deskew → shapes → connectors and arrowheads → text per
shape) producing the same :class:`~dkg.parsing.models.PagePrimitives` as the digital route, with every
threshold in one :class:`ScanSettings`."""

from dkg.parsing.scan.pipeline import pipeline_primitives
from dkg.parsing.scan.route import scanned_primitives
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanRoute, ScanSettings

__all__ = ["DEFAULT_SETTINGS", "ScanRoute", "ScanSettings", "pipeline_primitives", "scanned_primitives"]
