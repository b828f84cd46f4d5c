"""Settings from environment variables (prefix ``DKG_``) and an optional TOML file.

Precedence: explicit arguments > environment > ``$DKG_CONFIG`` (or ``./dkg.toml``) > defaults.
Every setting is documented in the README's configuration table.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from dkg.settings_loader import GroupSettings, build_settings

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _default_home() -> Path:
    """The project's data folder: ``<repo>/.dkg`` for a source checkout, else the user data dir."""
    if (PROJECT_ROOT / "pyproject.toml").is_file():
        return PROJECT_ROOT / ".dkg"
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "dkg"


def _default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dkg"


class Settings(GroupSettings):
    """Validated platform settings."""

    model_config = SettingsConfigDict(env_prefix="DKG_", extra="forbid", validate_default=True)

    home: Path = Field(default_factory=_default_home, description="Data folder (Neo4j data, password, logs)")
    cache_dir: Path = Field(default_factory=_default_cache, description="Download cache (Maven jars)")

    neo4j_uri: str | None = Field(default=None, description="External Neo4j Bolt URI; unset = local server")
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    neo4j_version: str = "5.26.30"
    neo4j_bolt_port: int = Field(default=7687, ge=1, le=65535)
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_start_timeout_s: float = Field(default=120.0, gt=0)
    neo4j_query_timeout_s: float = Field(default=10.0, gt=0)

    corenlp_version: str = "4.5.10"
    corenlp_port: int = Field(default=9011, ge=1, le=65535)
    corenlp_memory: str = "3G"

    qa_int8: bool = Field(default=True, description="Answer with int8 dynamically quantised linear layers")

    tesseract_cmd: str = "tesseract"
    tesseract_threads: int = Field(
        default=1, ge=0, description="OpenMP threads of each tesseract process (OMP_THREAD_LIMIT); 0: tesseract's "
        "own default. One is faster here: the parser OCRs box-sized images, several processes at once")
    tesseract_processes: int = Field(
        default=0, ge=0, description="tesseract processes run at once on a scanned page's boxes (each box is its "
        "own call; the words read do not depend on it); 0: one per CPU core")
    java_cmd: str = "java"
    mvn_cmd: str = "mvn"

    @field_validator("neo4j_uri")
    @classmethod
    def _check_uri(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        allowed = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not value.startswith(allowed):
            raise ValueError(f"must start with one of {', '.join(allowed)}; got {value!r}")
        return value

    @property
    def uses_local_neo4j(self) -> bool:
        """True when the platform manages its own Neo4j server (no DKG_NEO4J_URI)."""
        return self.neo4j_uri is None

    @property
    def neo4j_dir(self) -> Path:
        return self.home / "neo4j"


def load_settings(**overrides: Any) -> Settings:
    """Return validated settings, or raise :class:`ConfigError` naming each bad field."""
    return build_settings(Settings, "settings", overrides)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings (cached; call ``get_settings.cache_clear()`` after changing the env)."""
    return load_settings()
