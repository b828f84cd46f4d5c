"""Reading and validating the lexicon's data files (YAML a curator can extend)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from dkg.lexicon.errors import LexiconError
from dkg.lexicon.model import LexiconData

DATA_DIR = Path(__file__).resolve().parent / "data"
# file name → {key in the file: field of LexiconData}
FILES: dict[str, dict[str, str]] = {
    "abbreviations.yaml": {"entries": "terms"},
    "spelling.yaml": {"entries": "spellings"},
    "disease_aliases.yaml": {"diseases": "diseases", "cancer_words": "cancer_words"},
    "populations.yaml": {"populations": "populations"},
}
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ModelT = TypeVar("ModelT", bound=BaseModel)


def _document(path: Path) -> Any:
    """The YAML document of the lexicon file ``path``; :class:`LexiconError` when it is missing or not YAML."""
    if not path.is_file():
        raise LexiconError(f"lexicon file {path} is missing; it ships with the package (dkg/lexicon/data/)")
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        raise LexiconError(f"{path} is not valid YAML: {exc}") from exc


def _read(path: Path, keys: list[str]) -> dict[str, Any]:
    doc = _document(path)
    missing = [k for k in keys if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise LexiconError(f"{path} must be a mapping with the top-level key(s) {', '.join(map(repr, missing))}")
    extra = sorted(set(doc) - set(keys))
    if extra:
        raise LexiconError(f"{path} has unknown top-level key(s) {extra}; allowed: {keys}")
    return {k: doc[k] for k in keys}


def _describe(exc: ValidationError, raw: dict[str, Any], files: dict[str, str]) -> str:
    problems = []
    for err in exc.errors():
        loc = list(err["loc"])
        where = files.get(str(loc[0]), str(loc[0])) if loc else "the lexicon files"
        entry = ""
        if len(loc) > 1 and isinstance(loc[1], int):
            item = raw[str(loc[0])][loc[1]]
            name = item.get("term") or item.get("disease") or item.get("british") if isinstance(item, dict) else item
            entry = f" entry {loc[1] + 1} ({name!r})"
        rest = ".".join(str(p) for p in loc[2:] if not isinstance(p, int) or p != loc[1])
        problems.append(f"{where}{entry}{': ' + rest if rest else ''}: {err['msg']}")
    return "; ".join(problems)


def validated_file(path: Path, model: type[ModelT]) -> ModelT:
    """The YAML file ``path`` validated as ``model``; :class:`LexiconError` names the file and each bad entry."""
    raw = _document(path)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise LexiconError(f"{path}: {problems}") from exc


def load_lexicon_data(folder: Path | None = None) -> LexiconData:
    """The validated contents of the data files in ``folder`` (default: the shipped ``dkg/lexicon/data``).

    Raises :class:`LexiconError` naming the file, the entry and the problem.
    """
    folder = Path(folder) if folder is not None else DATA_DIR
    raw: dict[str, Any] = {}
    files: dict[str, str] = {}
    for name, fields in FILES.items():
        doc = _read(folder / name, list(fields))
        for key, field in fields.items():
            raw[field] = doc[key]
            files[field] = str(folder / name)
    try:
        return LexiconData.model_validate(raw)
    except ValidationError as exc:
        raise LexiconError(f"invalid lexicon data: {_describe(exc, raw, files)}") from exc


@lru_cache(maxsize=4)
def _cached(folder: Path) -> LexiconData:
    return load_lexicon_data(folder)


def cached_lexicon_data(folder: Path | None = None) -> LexiconData:
    """Like :func:`load_lexicon_data`, read once per folder and process."""
    return _cached(Path(folder).resolve() if folder is not None else DATA_DIR)
