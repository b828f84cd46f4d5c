"""Settings of the FHIR stage (environment prefix ``DKG_FHIR_``): canonical URLs, the code mapping file and the
CDS Hooks service's limits."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from dkg.config import PROJECT_ROOT
from dkg.settings_loader import GroupSettings, build_settings


def _default_codes_file() -> Path:
    return PROJECT_ROOT / "datasets" / "fhir" / "codes.yaml"


class FhirSettings(GroupSettings):
    """Validated FHIR export and CDS Hooks settings: ``DKG_FHIR_*``."""

    model_config = SettingsConfigDict(env_prefix="DKG_FHIR_", extra="ignore", validate_default=True)

    codes_file: Path = Field(default_factory=_default_codes_file,
                             description="The constraint-key → code mapping (YAML data, validated on load)")
    canonical_base: str = Field(default="http://dkg.local/fhir", pattern=r"^https?://[^\s]+[^/\s]$",
                                description="Base of the canonical URLs of exported PlanDefinitions (no trailing /)")
    publisher: str = Field(default="DKG platform (illustrative guideline content)", min_length=1, max_length=200)
    cds_service_id: str = Field(default="dkg-next-step", pattern=r"^[a-z0-9][a-z0-9\-]{0,63}$")
    cds_max_observations: int = Field(default=500, ge=1, le=10_000,
                                      description="Observations accepted in one CDS Hooks prefetch")
    cds_cache_size: int = Field(default=32, ge=1, le=1024,
                                description="Exported PlanDefinitions kept in memory by the CDS Hooks service")
    max_paths: int = Field(default=200_000, ge=100, le=10_000_000,
                           description="Paths one evaluation may walk before it refuses (guards cyclic graphs)")


def load_fhir_settings(**overrides: object) -> FhirSettings:
    """FHIR settings from the environment, or a :class:`ConfigError` naming each bad variable."""
    return build_settings(FhirSettings, "FHIR settings", overrides)
