"""The code mapping (data, ``datasets/fhir/codes.yaml``): which coding stands for each constraint key and each
categorical value in exported conditions and generated patients. Validated against the vocabulary on load."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from dkg.fhir.errors import CodeMappingError
from dkg.types import GUIDELINE_NAME_PATTERN
from dkg.vocabulary import VOCABULARY, KeyKind

LOCAL = "local"
_URI = r"^(https?://|urn:)[^\s]+$"


class Coding(BaseModel):
    """One coding (system, code, display), as written in a FHIR ``Coding``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str = Field(pattern=_URI)
    code: str = Field(min_length=1, max_length=100, pattern=r"^[^\s]+(\s[^\s]+)*$")
    display: str | None = Field(default=None, min_length=1, max_length=200)


class KeyEntry(BaseModel):
    """The mapping of one constraint key as written in the file (``local`` = a code of the local systems)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: Literal["observation", "birthDate"] = "observation"
    code: Coding | Literal["local"] | None = None
    unit: str | None = Field(default=None, min_length=1, max_length=30, description="UCUM unit of a number")
    values: dict[str, Coding | Literal["local"]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _source_needs(self) -> KeyEntry:
        if self.source == "observation" and self.code is None:
            raise ValueError("an observation key needs `code` (a coding, or `local`)")
        if self.source == "birthDate" and (self.code is not None or self.values):
            raise ValueError("a birthDate key takes no `code` or `values`")
        return self


class MappingFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal[1]
    local_system: str = Field(pattern=_URI)
    diseases: dict[Annotated[str, Field(pattern=GUIDELINE_NAME_PATTERN)], list[Coding]] = Field(default_factory=dict)
    keys: dict[str, KeyEntry]

    @field_validator("local_system")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        if value.endswith("/"):
            raise ValueError("local_system must not end with '/'")
        return value


class KeyCode(BaseModel):
    """The resolved mapping of one key: where its value lives and which codings name the key and its values."""

    model_config = ConfigDict(frozen=True)

    key: str
    source: Literal["observation", "birthDate"]
    code: Coding | None
    unit: str | None
    values: dict[str, Coding]

    @property
    def numeric(self) -> bool:
        return VOCABULARY[self.key].kind is KeyKind.NUMERIC


class CodeMap(BaseModel):
    """Every mapped key; :meth:`key` and :meth:`value` return None for what the file does not map."""

    model_config = ConfigDict(frozen=True)

    local_system: str
    keys: dict[str, KeyCode]
    diseases: dict[str, list[Coding]] = Field(default_factory=dict)

    def guidelines_of(self, system: str, code: str) -> list[str]:
        """The guidelines whose diagnosis codes include this coding (equal, or below an ICD-10 category)."""
        return sorted(g for g, codings in self.diseases.items()
                      if any(c.system == system and (code == c.code or code.startswith(c.code)) for c in codings))

    def key(self, key: str) -> KeyCode | None:
        return self.keys.get(key)

    def value(self, key: str, value: str) -> Coding | None:
        entry = self.keys.get(key)
        return None if entry is None else entry.values.get(value)

    def key_of_coding(self, system: str, code: str) -> str | None:
        """The constraint key an observation code stands for, or None."""
        for entry in self.keys.values():
            if entry.code is not None and entry.code.system == system and entry.code.code == code:
                return entry.key
        return None

    def value_of_coding(self, key: str, system: str, code: str) -> str | None:
        """The canonical value a coding stands for under ``key``, or None."""
        entry = self.keys.get(key)
        for value, coding in (entry.values.items() if entry else ()):
            if coding.system == system and coding.code == code:
                return value
        return None

    def local_codings(self) -> dict[str, list[Coding]]:
        """The local codes in use, by local code-system URL (for the CodeSystem resources of a bundle)."""
        out: dict[str, list[Coding]] = {}
        for entry in self.keys.values():
            for coding in ([entry.code] if entry.code else []) + list(entry.values.values()):
                if coding.system.startswith(self.local_system + "/"):
                    out.setdefault(coding.system, []).append(coding)
        return out


def resolve(data: object, source: str) -> CodeMap:
    """The mapping in ``data`` (the parsed YAML), checked against the vocabulary; :class:`CodeMappingError`
    names every problem."""
    try:
        parsed = MappingFile.model_validate(data)
    except ValidationError as exc:
        found = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}" for e in exc.errors())
        raise CodeMappingError(f"{source}: {found}") from exc
    problems: list[str] = []
    keys: dict[str, KeyCode] = {}
    for key, entry in parsed.keys.items():
        spec = VOCABULARY.get(key)
        if spec is None:
            problems.append(f"keys.{key}: not a vocabulary key (known: {', '.join(sorted(VOCABULARY))})")
            continue
        if spec.kind is KeyKind.NUMERIC and entry.values:
            problems.append(f"keys.{key}: a numeric key takes no `values`")
        if spec.kind is KeyKind.CATEGORICAL and (entry.source == "birthDate" or entry.unit):
            problems.append(f"keys.{key}: a categorical key is an observation with coded values and no unit")
        if spec.kind is KeyKind.NUMERIC and entry.source == "observation" and not entry.unit:
            problems.append(f"keys.{key}: a numeric observation needs its UCUM `unit`")
        unknown = sorted(v for v in entry.values if v not in spec.values)
        if unknown and not spec.open:
            problems.append(f"keys.{key}.values: {', '.join(unknown)} not values of {key} "
                            f"(allowed: {', '.join(spec.values)})")
        code = entry.code
        key_coding = (Coding(system=f"{parsed.local_system}/constraint-key", code=key, display=spec.description)
                      if code == LOCAL else code if isinstance(code, Coding) else None)
        values = {value: coding if isinstance(coding, Coding) else Coding(system=f"{parsed.local_system}/{key}",
                                                                           code=value)
                  for value, coding in entry.values.items()}
        keys[key] = KeyCode(key=key, source=entry.source, code=key_coding, unit=entry.unit, values=values)
    seen: dict[tuple[str, str], str] = {}
    for resolved in keys.values():
        if resolved.code is not None:
            other = seen.setdefault((resolved.code.system, resolved.code.code), resolved.key)
            if other != resolved.key:
                problems.append(f"keys.{resolved.key}: code {resolved.code.code} of {resolved.code.system} also "
                                f"stands for {other}; each key needs its own code")
    if problems:
        raise CodeMappingError(f"{source}: " + "; ".join(problems))
    return CodeMap(local_system=parsed.local_system, keys=keys, diseases=parsed.diseases)


def load_code_map(path: Path) -> CodeMap:
    """The validated mapping of ``path``."""
    return _load(path.resolve())


@lru_cache(maxsize=4)
def _load(path: Path) -> CodeMap:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CodeMappingError(f"cannot read the FHIR code mapping {path}: {exc}; set DKG_FHIR_CODES_FILE to a "
                               "valid file (the shipped one is datasets/fhir/codes.yaml)") from exc
    return resolve(data, str(path))
