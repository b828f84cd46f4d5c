"""Errors of the FHIR stage: export, code mapping and CDS Hooks requests."""

from __future__ import annotations

from dkg.errors import DKGError


class FhirError(DKGError):
    """The FHIR export or the CDS Hooks service failed."""


class CodeMappingError(FhirError):
    """The constraint-key code mapping (datasets/fhir/codes.yaml) is invalid."""


class UnknownGuidelineVersionError(FhirError):
    """The guideline version asked for is not loaded in the graph."""


class CdsRequestError(FhirError):
    """A CDS Hooks request is malformed (HTTP 400 by the CDS Hooks specification)."""
