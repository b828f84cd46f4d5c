"""Which text-to-Cypher model the QA service answers with, and the audit trail of every change (issue #19 item 4).

The shipped model (``models/text2cypher``) is served until a model update passes its gate
(:mod:`dkg.qa.model_gate`); then the candidate is moved into ``$DKG_HOME/qa/served/<stamp>/`` and
``$DKG_HOME/qa/served/current.json`` names it and the model it replaced, which is kept for rollback. Every
decision — installed, kept (the gate refused, with why), rolled back — is a line of
``$DKG_HOME/qa/served/history.jsonl``. ``TextToCypherService`` and the API load :func:`served_model_dir` when no
model folder is given; a ``current.json`` naming a folder that is gone falls back to the shipped model.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from dkg.config import Settings
from dkg.errors import QAError

SERVED_SUBDIR = ("qa", "served")
CURRENT_FILE = "current.json"
HISTORY_FILE = "history.jsonl"
MODEL_FILES = ("model.pt", "meta.json", "tokenizer.json")


class ServedModel(BaseModel):
    """The content of ``current.json``: the served model folder and the one it replaced."""

    model_config = ConfigDict(extra="forbid")

    model_dir: Path
    previous: Path = Field(description="the model served before; `dkg train rollback` goes back to it")
    installed_at: str
    who: str
    reason: str


class ServedChange(BaseModel):
    """One line of the audit trail."""

    model_config = ConfigDict(extra="forbid")

    at: str
    who: str
    action: Literal["install", "keep", "rollback"]
    model_dir: Path = Field(description="the model served after the action")
    candidate: Path | None = None
    reason: str
    scores: dict[str, Any] = Field(default_factory=dict)


def served_root(settings: Settings) -> Path:
    return settings.home.joinpath(*SERVED_SUBDIR)


def shipped_model_dir() -> Path:
    from dkg.qa.training import MODEL_DIR

    return MODEL_DIR


def current(settings: Settings) -> ServedModel | None:
    """What ``current.json`` says, or None when the shipped model is served."""
    path = served_root(settings) / CURRENT_FILE
    if not path.is_file():
        return None
    try:
        return ServedModel.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise QAError(f"{path} is not a valid served-model record ({exc}); delete it to serve the shipped model "
                      "or roll back with `dkg train rollback`") from exc


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in MODEL_FILES)


def served_model_dir(settings: Settings) -> Path:
    """The model folder the QA service answers with: the installed one, else the shipped one."""
    record = current(settings)
    if record is not None and _complete(record.model_dir):
        return record.model_dir
    return shipped_model_dir()


def history(settings: Settings) -> list[ServedChange]:
    path = served_root(settings) / HISTORY_FILE
    if not path.is_file():
        return []
    return [ServedChange.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _who(who: str | None) -> str:
    return who or os.environ.get("DKG_CURATOR") or getpass.getuser()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _audit(settings: Settings, change: ServedChange) -> ServedChange:
    root = served_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    with (root / HISTORY_FILE).open("a", encoding="utf-8") as handle:
        handle.write(change.model_dump_json() + "\n")
    return change


def _write_current(settings: Settings, record: ServedModel) -> None:
    root = served_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".{CURRENT_FILE}.tmp"
    tmp.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    tmp.replace(root / CURRENT_FILE)  # atomic: the service reads the old or the new record, never half of one


def install(settings: Settings, candidate: Path, *, reason: str, scores: dict[str, Any] | None = None,
            who: str | None = None) -> ServedChange:
    """Serve ``candidate`` from now on: it is moved under the served folder; the model it replaces is kept."""
    if not _complete(candidate):
        raise QAError(f"{candidate} is not a complete model folder (needs {', '.join(MODEL_FILES)}); train it first")
    before = served_model_dir(settings)
    at = _now()
    target = served_root(settings) / f"text2cypher-{at.replace(':', '').replace('+0000', 'Z')}"
    n = 1
    while target.exists():
        target = target.with_name(f"{target.name.split('.')[0]}.{n}")
        n += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(candidate), target)
    author = _who(who)
    _write_current(settings, ServedModel(model_dir=target, previous=before, installed_at=at, who=author,
                                         reason=reason))
    return _audit(settings, ServedChange(at=at, who=author, action="install", model_dir=target,
                                         candidate=candidate, reason=reason, scores=scores or {}))


def keep(settings: Settings, candidate: Path, *, reason: str, scores: dict[str, Any] | None = None,
         who: str | None = None) -> ServedChange:
    """Record that the candidate was not installed (the served model stays) and why."""
    return _audit(settings, ServedChange(at=_now(), who=_who(who), action="keep", model_dir=served_model_dir(settings),
                                         candidate=candidate, reason=reason, scores=scores or {}))


def rollback(settings: Settings, *, reason: str, who: str | None = None) -> ServedChange:
    """Serve the model the current one replaced again (its folder is kept; the replaced one stays on disk)."""
    record = current(settings)
    if record is None:
        raise QAError("the shipped model is served: there is nothing to roll back to")
    back_to_shipped = record.previous.resolve() == shipped_model_dir().resolve()
    # The shipped model's folder may not be trained yet (a fresh clone): serving it again needs only the
    # record gone, and the QA service then says how to train it.
    if not back_to_shipped and not _complete(record.previous):
        raise QAError(f"the previous model {record.previous} is gone; cannot roll back (delete "
                      f"{served_root(settings) / CURRENT_FILE} to serve the shipped model)")
    at, author = _now(), _who(who)
    if back_to_shipped:
        (served_root(settings) / CURRENT_FILE).unlink()
    else:
        _write_current(settings, ServedModel(model_dir=record.previous, installed_at=at, who=author, reason=reason,
                                             previous=_previous_of(settings, record.previous)))
    return _audit(settings, ServedChange(at=at, who=author, action="rollback", model_dir=record.previous,
                                         candidate=record.model_dir, reason=reason))


def _previous_of(settings: Settings, folder: Path) -> Path:
    """The model that was served before ``folder`` was installed (from the audit trail)."""
    served_before = shipped_model_dir()
    for change in history(settings):
        if change.action == "install" and change.model_dir == folder:
            return served_before
        if change.action in ("install", "rollback"):
            served_before = change.model_dir
    return shipped_model_dir()


def describe(settings: Settings) -> dict[str, str]:
    """The served model and where it comes from, for the CLI."""
    record = current(settings)
    folder = served_model_dir(settings)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
    return {"model_dir": str(folder), "kind": "installed" if record and folder == record.model_dir else "shipped",
            "previous": str(record.previous) if record else "",
            "generated_versions": ", ".join(meta.get("generated_versions", [])) or "none"}
