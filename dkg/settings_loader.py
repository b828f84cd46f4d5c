"""One loader for every settings group: explicit arguments > environment > the TOML file > defaults, and one
error format (``DKG_X_Y: message``) for whatever fails validation.

The TOML file is ``$DKG_CONFIG`` or ``./dkg.toml``. The platform's own settings (prefix ``DKG_``) are its
top-level keys (``neo4j_heap = "2g"``); every other group is a table named after it (``[retrieval]``
``alpha = 0.5``) or flat keys carrying the group's name (``retrieval_alpha = 0.5``).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource

from dkg.errors import ConfigError

#: Settings groups besides the platform's own, as TOML table names (and flat-key prefixes).
GROUPS = ("retrieval", "api")

S = TypeVar("S", bound=BaseSettings)


def config_file() -> Path | None:
    """The TOML settings file: ``$DKG_CONFIG`` (which must exist), else ``./dkg.toml`` if present."""
    explicit = os.environ.get("DKG_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"DKG_CONFIG points at {path}, which is not a file")
        return path
    local = Path.cwd() / "dkg.toml"
    return local if local.is_file() else None


def group_values(data: dict[str, Any], group: str | None, where: str = "the settings file") -> dict[str, Any]:
    """The keys of one settings group in parsed TOML ``data`` (``group=None``: the platform's own).

    >>> data = {"neo4j_heap": "2g", "retrieval_alpha": 0.5, "retrieval": {"hops": 1}, "api": {"workers": 2}}
    >>> group_values(data, None)
    {'neo4j_heap': '2g'}
    >>> group_values(data, "retrieval")
    {'alpha': 0.5, 'hops': 1}
    >>> group_values({"qa": {"x": 1}}, None)
    Traceback (most recent call last):
    ...
    dkg.errors.ConfigError: the settings file: unknown table [qa]; the tables are [retrieval], [api]
    """
    unknown = [key for key, value in data.items() if isinstance(value, dict) and key not in GROUPS]
    if unknown:
        raise ConfigError(f"{where}: unknown table [{unknown[0]}]; the tables are "
                          + ", ".join(f"[{g}]" for g in GROUPS))
    if group is None:
        return {key: value for key, value in data.items()
                if not isinstance(value, dict) and not key.startswith(tuple(f"{g}_" for g in GROUPS))}
    flat = {key.removeprefix(f"{group}_"): value for key, value in data.items()
            if key.startswith(f"{group}_") and not isinstance(value, dict)}
    return {**flat, **data.get(group, {})}


def file_values(group: str | None) -> dict[str, Any]:
    """The settings file's keys of one group (empty when there is no file)."""
    path = config_file()
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the settings file {path}: {exc}") from exc
    return group_values(data, group, str(path))


class GroupSettings(BaseSettings):
    """Base of every settings group: sources are arguments, then the environment, then the TOML file."""

    toml_group: ClassVar[str | None] = None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, InitSettingsSource(settings_cls, init_kwargs=file_values(cls.toml_group))


def format_problems(exc: ValidationError, prefix: str) -> str:
    """Each validation error as ``<PREFIX><FIELD>: message``, joined by ``; ``."""
    return "; ".join(f"{prefix}{'_'.join(str(p) for p in err['loc']).upper()}: "
                     f"{str(err['msg']).removeprefix('Value error, ')}" for err in exc.errors())


def build_settings(cls: type[S], what: str, overrides: dict[str, Any]) -> S:
    """``cls(**overrides)`` from all its sources, or a :class:`ConfigError` naming each bad variable."""
    try:
        return cls(**overrides)
    except ValidationError as exc:
        prefix = str(cls.model_config.get("env_prefix", ""))
        raise ConfigError(f"invalid {what}: {format_problems(exc, prefix)}") from exc
