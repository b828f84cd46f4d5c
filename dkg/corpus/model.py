"""Typed model of the guideline source format (``datasets/guidelines/FORMAT.md``) and its validation.

:func:`load_guideline` reads one YAML file and returns a :class:`Guideline` whose structure has been
checked; every problem found is reported at once in one :class:`CorpusSourceError` whose message
names the file, the page and the box.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg.config import PROJECT_ROOT
from dkg.errors import ConstraintError, CorpusError
from dkg.types import Constraint, EffectivePeriod

GUIDELINES_DIR = PROJECT_ROOT / "datasets" / "guidelines"
VERSION_FILE = re.compile(r"^(?P<version>\d+\.\d{4})\.yaml$")
CHANGES_FILE = re.compile(r"^changes-(?P<old>\d+\.\d{4})-to-(?P<new>\d+\.\d{4})\.yaml$")
BOX_ID = re.compile(r"^[a-z0-9_]+$")
FOOTNOTE_KEY = re.compile(r"^[a-z]{1,2}$")
# `^a`, `^ab` or `^{a,b}` right after a word.
MARKER = re.compile(r"\^(?:\{(?P<many>[a-z ,]+)\}|(?P<one>[a-z]{1,2}))")
PAGE_CODE = re.compile(r"^[A-Za-z]+-\d+$")


class CorpusSourceError(CorpusError):
    """A guideline source or change-list file is invalid; the message lists every problem."""

    def __init__(self, path: Path | str, problems: list[str]) -> None:
        self.path = Path(path)
        self.problems = problems
        shown = problems[:25]
        more = f"\n  … and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        super().__init__(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(shown) + more)


class BoxKind(StrEnum):
    DECISION = "decision"
    TREATMENT = "treatment"
    STEP = "step"
    NOTE = "note"
    LINK = "link"


class PageStyle(StrEnum):
    NCCN = "nccn"
    DIAMOND = "diamond"
    BANDED = "banded"
    TWO_COLUMN = "two_column"
    MIXED = "mixed"


class Shape(StrEnum):
    RECT = "rect"
    ROUNDED = "rounded"
    DIAMOND = "diamond"
    BANDED = "banded"


class ArrowStyle(StrEnum):
    SOLID = "solid"
    DASHED = "dashed"
    BLOCK = "block"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Box(_Strict):
    """One flowchart box; ``text`` may carry footnote markers (``^a``, ``^{a,b}``)."""

    id: str
    kind: BoxKind
    text: str = Field(min_length=1)
    constraints: list[str] = Field(default_factory=list)
    shape: Shape | None = None
    target: str | None = None


class Arrow(_Strict):
    """A connector between two boxes of the same page."""

    from_: str = Field(alias="from")
    to: str
    label: str = ""
    style: ArrowStyle = ArrowStyle.SOLID
    label_constraints: list[str] = Field(default_factory=list)


class Page(_Strict):
    code: str
    title: str
    style: PageStyle = PageStyle.NCCN
    boxes: list[Box]
    arrows: list[Arrow] = Field(default_factory=list)

    def box(self, box_id: str) -> Box | None:
        return next((b for b in self.boxes if b.id == box_id), None)


class Guideline(_Strict):
    """One guideline version as authored (see FORMAT.md)."""

    format: int = 1
    guideline: str
    title: str
    version: str
    effective: EffectivePeriod | None = Field(default=None, description="dates the version is in force")
    diseases: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    footnotes: dict[str, str] = Field(default_factory=dict)
    pages: list[Page]

    def boxes(self) -> Iterator[tuple[Page, Box]]:
        for page in self.pages:
            for box in page.boxes:
                yield page, box

    def box_index(self) -> dict[str, tuple[Page, Box]]:
        return {box.id: (page, box) for page, box in self.boxes()}

    def page(self, code: str) -> Page | None:
        return next((p for p in self.pages if p.code == code), None)


class Change(_Strict):
    box: str
    reason: str = ""
    text: str | None = None
    set: list[str] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)


class ChangeList(_Strict):
    """The intended edits from one version to the next (constraints and their wording only)."""

    from_version: str
    to_version: str
    effective: EffectivePeriod | None = Field(default=None, description="the new version's effective period "
                                              "(the old version's is not carried over)")
    changes: list[Change]


def footnote_markers(text: str) -> list[str]:
    """The footnote keys referenced in ``text``, in order of appearance."""
    keys: list[str] = []
    for match in MARKER.finditer(text):
        group = match["many"] if match["many"] is not None else match["one"]
        keys.extend(k.strip() for k in group.split(",") if k.strip())
    return keys


def entry_boxes(page: Page) -> list[Box]:
    """The non-note boxes of ``page`` with no incoming arrow from the same page."""
    targets = {arrow.to for arrow in page.arrows}
    return [b for b in page.boxes if b.kind is not BoxKind.NOTE and b.id not in targets]


def entry_box(page: Page) -> Box:
    """The page's unique entry box (the guideline must have been validated)."""
    entries = entry_boxes(page)
    if len(entries) != 1:
        raise CorpusError(f"page {page.code} has {len(entries)} entry boxes, expected exactly one")
    return entries[0]


def _where(raw: Any, loc: tuple[int | str, ...]) -> str:
    """Name a pydantic error location by page code / box id instead of list indices."""
    parts: list[str] = []
    node = raw
    for step in loc:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            parts.append(str(step))
            node = None
            continue
        if isinstance(step, int) and isinstance(node, dict):
            label = node.get("code") or node.get("id") or node.get("box")
            if label is None and "from" in node:
                label = f"{node.get('from')}->{node.get('to')}"
            parts.append(f"[{label or step}]")
        else:
            parts.append(str(step))
    return ".".join(parts).replace(".[", "[")


def _pydantic_problems(raw: Any, exc: ValidationError) -> list[str]:
    return [f"{_where(raw, err['loc'])}: {err['msg']}" for err in exc.errors()]


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CorpusSourceError(path, [f"not UTF-8 text (byte {exc.start}): save the file as UTF-8 YAML"]) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CorpusSourceError(path, [f"not valid YAML: {exc}"]) from exc


def _check_constraints(texts: list[str], where: str, problems: list[str]) -> None:
    for text in texts:
        try:
            Constraint.parse(text)
        except ConstraintError as exc:
            problems.append(f"{where}: {exc}")


def _find_cycle(edges: dict[str, list[str]]) -> list[str] | None:
    """Return one cycle as a node list (first node repeated at the end), or None for a DAG."""
    white, grey, black = 0, 1, 2
    colour: dict[str, int] = {}
    stack_path: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = grey
        stack_path.append(node)
        for nxt in edges.get(node, []):
            state = colour.get(nxt, white)
            if state == grey:
                return stack_path[stack_path.index(nxt):] + [nxt]
            if state == white:
                found = visit(nxt)
                if found:
                    return found
        stack_path.pop()
        colour[node] = black
        return None

    for start in sorted(edges):
        if colour.get(start, white) == white:
            found = visit(start)
            if found:
                return found
    return None


def structural_problems(guideline: Guideline) -> list[str]:
    """Every semantic problem of a parsed guideline, each naming its page and box."""
    problems: list[str] = []
    page_codes: dict[str, int] = {}
    for page in guideline.pages:
        if page.code in page_codes:
            problems.append(f"page {page.code}: duplicate page code")
        page_codes[page.code] = page_codes.get(page.code, 0) + 1
        if not PAGE_CODE.match(page.code):
            problems.append(f"page {page.code}: page code must look like 'ALL-3' (letters, hyphen, number)")
    prefixes = sorted({p.code.rsplit("-", 1)[0] for p in guideline.pages})
    if len(prefixes) > 1:
        problems.append(f"pages: all page codes of a guideline share one prefix; found {', '.join(prefixes)}")

    for key in guideline.footnotes:
        if not FOOTNOTE_KEY.match(key):
            problems.append(f"footnote {key!r}: keys are lower-case letters (a..z, aa, ab, ...)")
    for key, text in guideline.footnotes.items():
        if MARKER.search(text):
            problems.append(f"footnote {key!r}: footnote texts must not carry markers")

    seen: dict[str, str] = {}
    for page, box in guideline.boxes():
        where = f"page {page.code}, box {box.id}"
        if not BOX_ID.match(box.id):
            problems.append(f"{where}: box id must match [a-z0-9_]+")
        if box.id in seen:
            problems.append(f"{where}: duplicate box id (also on page {seen[box.id]})")
        seen.setdefault(box.id, page.code)
        for key in footnote_markers(box.text):
            if key not in guideline.footnotes:
                problems.append(f"{where}: unknown footnote marker ^{key} (defined: "
                                f"{', '.join(sorted(guideline.footnotes)) or 'none'})")
        if "^" in MARKER.sub("", box.text):
            problems.append(f"{where}: malformed footnote marker in {box.text!r}; write ^a or ^{{a,b}}")
        if box.kind is BoxKind.DECISION and not box.constraints:
            problems.append(f"{where}: decision box without constraints")
        _check_constraints(box.constraints, where, problems)
        if box.kind is BoxKind.LINK:
            if not box.target:
                problems.append(f"{where}: link box needs 'target: <page code>'")
            elif box.target not in page_codes:
                problems.append(f"{where}: unknown link target {box.target!r} "
                                f"(pages: {', '.join(page_codes)})")
            elif box.target == page.code:
                problems.append(f"{where}: link box points at its own page")
            elif f"({box.target})" not in box.text:
                problems.append(f"{where}: link text must end with '({box.target})', got {box.text!r}")
        elif box.target is not None:
            problems.append(f"{where}: only link boxes have a target (kind is {box.kind.value})")

    for page in guideline.pages:
        ids = {b.id for b in page.boxes}
        pairs: set[tuple[str, str]] = set()
        for arrow in page.arrows:
            where = f"page {page.code}, arrow {arrow.from_}->{arrow.to}"
            for end in (arrow.from_, arrow.to):
                if end not in ids:
                    if end in seen:
                        problems.append(f"{where}: dangling arrow: box {end!r} is on page {seen[end]}, "
                                        f"not on {page.code} (use a link box)")
                    else:
                        problems.append(f"{where}: unknown box id {end!r}")
            src, dst = page.box(arrow.from_), page.box(arrow.to)
            if arrow.from_ == arrow.to:
                problems.append(f"{where}: arrow from a box to itself")
            if (arrow.from_, arrow.to) in pairs:
                problems.append(f"{where}: duplicate arrow")
            pairs.add((arrow.from_, arrow.to))
            for end_box in (src, dst):
                if end_box is not None and end_box.kind is BoxKind.NOTE:
                    problems.append(f"{where}: note box {end_box.id} must have no arrows")
            if src is not None and src.kind is BoxKind.LINK:
                problems.append(f"{where}: arrows may not leave a link box")
            if arrow.label_constraints and not arrow.label:
                problems.append(f"{where}: label_constraints given without a label")
            _check_constraints(arrow.label_constraints, where, problems)
        entries = entry_boxes(page)
        if len(entries) != 1:
            names = ", ".join(b.id for b in entries) or "none"
            problems.append(f"page {page.code}: needs exactly one entry box (non-note box without an "
                            f"incoming arrow), found {len(entries)}: {names}")

    if not problems:
        edges: dict[str, list[str]] = {}
        for page in guideline.pages:
            for arrow in page.arrows:
                edges.setdefault(arrow.from_, []).append(arrow.to)
        # A link box continues into the entry box of its target page.
        for _page, box in guideline.boxes():
            if box.kind is BoxKind.LINK and box.target:
                target = guideline.page(box.target)
                if target is not None:
                    edges.setdefault(box.id, []).append(entry_box(target).id)
        cycle = _find_cycle(edges)
        if cycle:
            pages = {b.id: p.code for p, b in guideline.boxes()}
            hops = " -> ".join(f"{node} ({pages.get(node, '?')})" for node in cycle)
            problems.append(f"cycle in the flow (it must be a DAG): {hops}")
    return problems


def parse_guideline(raw: Any, path: Path | str = "<memory>") -> Guideline:
    """Validate already-loaded YAML data; raise :class:`CorpusSourceError` listing every problem."""
    if not isinstance(raw, dict):
        raise CorpusSourceError(path, ["top level must be a mapping (format, guideline, pages, ...)"])
    try:
        guideline = Guideline.model_validate(raw)
    except ValidationError as exc:
        raise CorpusSourceError(path, _pydantic_problems(raw, exc)) from None
    if guideline.format != 1:
        raise CorpusSourceError(path, [f"format: unsupported format {guideline.format}; this reader knows 1"])
    problems = structural_problems(guideline)
    if problems:
        raise CorpusSourceError(path, problems)
    return guideline


def load_guideline(path: Path | str) -> Guideline:
    """Load and validate one guideline version file."""
    path = Path(path)
    guideline = parse_guideline(_read_yaml(path), path)
    match = VERSION_FILE.match(path.name)
    if match and match["version"] != guideline.version:
        raise CorpusSourceError(path, [f"version: file name says {match['version']}, "
                                       f"content says {guideline.version}"])
    return guideline


def load_change_list(path: Path | str) -> ChangeList:
    """Load one change-list file (structure only; see :func:`dkg.corpus.changes.apply_changes`)."""
    path = Path(path)
    raw = _read_yaml(path)
    if not isinstance(raw, dict):
        raise CorpusSourceError(path, ["top level must be a mapping (from_version, to_version, changes)"])
    try:
        changes = ChangeList.model_validate(raw)
    except ValidationError as exc:
        raise CorpusSourceError(path, _pydantic_problems(raw, exc)) from None
    match = CHANGES_FILE.match(path.name)
    if match and (match["old"], match["new"]) != (changes.from_version, changes.to_version):
        raise CorpusSourceError(path, [f"file name says {match['old']} -> {match['new']}, content says "
                                       f"{changes.from_version} -> {changes.to_version}"])
    return changes


def _version_key(version: str) -> tuple[int, int]:
    major, _, year = version.partition(".")
    return (int(year), int(major))


def discover(root: Path | str | None = None) -> list[tuple[str, str, Path]]:
    """Every ``(guideline, version, path)`` source file under ``root``, sorted by guideline and version."""
    base = Path(root) if root is not None else GUIDELINES_DIR
    found: list[tuple[str, str, Path]] = []
    if not base.is_dir():
        return found
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for path in folder.glob("*.yaml"):
            match = VERSION_FILE.match(path.name)
            if match:
                found.append((folder.name, match["version"], path))
    found.sort(key=lambda item: (item[0], _version_key(item[1])))
    return found


def discover_changes(root: Path | str | None = None) -> list[tuple[str, str, str, Path]]:
    """Every ``(guideline, old_version, new_version, path)`` change list under ``root``."""
    base = Path(root) if root is not None else GUIDELINES_DIR
    found: list[tuple[str, str, str, Path]] = []
    if not base.is_dir():
        return found
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("changes-*.yaml")):
            match = CHANGES_FILE.match(path.name)
            if match:
                found.append((folder.name, match["old"], match["new"], path))
    return found
