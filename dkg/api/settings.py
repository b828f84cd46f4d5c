"""Settings of the HTTP API (environment prefix ``DKG_API_``), kept apart from the platform settings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from dkg.settings_loader import GroupSettings, build_settings


@dataclass(frozen=True)
class Principal:
    """Who a bearer token belongs to and whether it may change the graph."""

    name: str
    curator: bool


def parse_tokens(text: str, prefix: str) -> dict[str, str]:
    """``name:token,name2:token2`` (or bare tokens, named ``<prefix>-N``) as {token: name}.

    >>> parse_tokens("alice:s3cret-token-1, bare-token-22", "curator")
    {'s3cret-token-1': 'alice', 'bare-token-22': 'curator-2'}
    """
    out: dict[str, str] = {}
    for index, item in enumerate((p.strip() for p in text.split(",")), start=1):
        if not item:
            continue
        name, sep, token = item.partition(":")
        if not sep:
            name, token = f"{prefix}-{index}", name
        name, token = name.strip(), token.strip()
        if len(token) < 12:
            raise ValueError(f"token of {name!r} is {len(token)} characters; use at least 12 (e.g. `openssl rand "
                             "-hex 16`)")
        if not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
            raise ValueError(f"token name {name!r} may only hold letters, digits, '-', '_' and '.'")
        out[token] = name
    return out


class ApiSettings(GroupSettings):
    """Validated API settings (``DKG_API_*``, or ``[api]`` in dkg.toml); tokens are never logged or shown."""

    model_config = SettingsConfigDict(env_prefix="DKG_API_", extra="ignore", validate_default=True)
    toml_group = "api"

    curator_tokens: SecretStr = Field(default=SecretStr(""), description="name:token,... allowed to curate")
    read_tokens: SecretStr = Field(default=SecretStr(""), description="name:token,... allowed to read")
    require_read_token: bool = Field(default=False, description="Read endpoints need a read or curator token")
    max_body_bytes: int = Field(default=65_536, ge=1024, le=10_000_000)
    cache_size: int = Field(default=512, ge=0, le=100_000, description="Answers kept (0 disables the cache)")
    workers: int = Field(default_factory=lambda: os.cpu_count() or 2, ge=1, le=64,
                         description="Threads answering uncached questions (sized to the CPU cores)")
    snapshot_ttl_s: float = Field(default=2.0, ge=0.0, le=600.0,
                                  description="How often the graph snapshot (cache key) is re-read")
    graph_probe_interval_s: float = Field(default=1.0, ge=0.1, le=60.0,
                                          description="How often Neo4j is probed (fail fast while it is down)")
    qa_model_dir: Path | None = Field(default=None, description="Text-to-Cypher model folder (default models/)")
    load_qa_model: bool = Field(default=True, description="Load the text-to-Cypher model at start-up")
    qrels_dir: Path | None = Field(default=None, description="Where annotation qrels go (default "
                                                             "datasets/retrieval/qrels)")

    @field_validator("curator_tokens", "read_tokens")
    @classmethod
    def _check_tokens(cls, value: SecretStr) -> SecretStr:
        parse_tokens(value.get_secret_value(), "x")
        return value

    def principals(self) -> dict[str, Principal]:
        """{token: principal}; a curator token also reads."""
        out = {t: Principal(n, False) for t, n in parse_tokens(self.read_tokens.get_secret_value(), "reader").items()}
        out.update({t: Principal(n, True)
                    for t, n in parse_tokens(self.curator_tokens.get_secret_value(), "curator").items()})
        return out


def load_api_settings(**overrides: object) -> ApiSettings:
    """API settings from the environment and dkg.toml, or a :class:`ConfigError` naming each bad field."""
    return build_settings(ApiSettings, "API settings", overrides)
