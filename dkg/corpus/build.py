"""Corpus build steps behind ``dkg corpus``: next versions, gold files, PDFs and statistics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dkg.corpus import changes as changes_mod
from dkg.corpus.expand import Counts, counts, write_gold
from dkg.corpus.model import GUIDELINES_DIR, discover, discover_changes, load_change_list, load_guideline
from dkg.corpus.render import render_to_file
from dkg.corpus.scan import DEFAULT_DPI, write_scanned
from dkg.errors import CorpusError

_CODE = Path(__file__).resolve().parent


def generated_version(root: Path, guideline: str, old: str, new: str, changes_path: Path) -> tuple[Path, str]:
    """The path and text of the version a change list produces (not written)."""
    source = load_guideline(root / guideline / f"{old}.yaml")
    new_guideline = changes_mod.apply_changes(source, load_change_list(changes_path), changes_path)
    header = changes_mod.GENERATED_HEADER.format(old=old, new=new)
    return root / guideline / f"{new}.yaml", changes_mod.dump_guideline(new_guideline, header)


def write_next_versions(root: Path = GUIDELINES_DIR) -> list[Path]:
    """Write every ``<NEW>.yaml`` produced by a change list; return the files whose content changed."""
    changed: list[Path] = []
    for guideline, old, new, path in discover_changes(root):
        target, text = generated_version(root, guideline, old, new, path)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            changed.append(target)
    return changed


def write_all_gold(root: Path = GUIDELINES_DIR) -> list[Path]:
    """Write the gold files of every guideline version; return the files whose content changed."""
    changed: list[Path] = []
    for guideline, _version, path in discover(root):
        changed += write_gold(load_guideline(path), root / guideline / "gold")
    return changed


def pdf_path(root: Path, guideline: str, version: str, scanned: bool = False) -> Path:
    suffix = "-scanned" if scanned else ""
    return root / guideline / "pdf" / f"{guideline}-{version}{suffix}.pdf"


def _stale(output: Path, inputs: list[Path]) -> bool:
    if not output.is_file():
        return True
    newest = max(p.stat().st_mtime for p in inputs)
    return output.stat().st_mtime < newest


def render_all(root: Path = GUIDELINES_DIR, guideline: str | None = None, scanned: bool = True,
               force: bool = False, dpi: int = DEFAULT_DPI) -> list[Path]:
    """Render (and scan) every version that is out of date; return the files written."""
    sources = [s for s in discover(root) if guideline is None or s[0] == guideline]
    if guideline is not None and not sources:
        known = sorted({s[0] for s in discover(root)})
        raise CorpusError(f"no guideline {guideline!r} under {root}; known: {', '.join(known) or 'none'}")
    code = sorted(_CODE.glob("*.py"))
    written: list[Path] = []
    for name, version, path in sources:
        digital = pdf_path(root, name, version)
        if force or _stale(digital, [path, *code]):
            render_to_file(load_guideline(path), digital)
            written.append(digital)
        if scanned:
            scan = pdf_path(root, name, version, scanned=True)
            if force or _stale(scan, [digital]):
                write_scanned(digital, scan, dpi)
                written.append(scan)
    return written


@dataclass(frozen=True)
class VersionStats:
    guideline: str
    version: str
    counts: Counts
    pages: int
    constraint_changes: int | None  # versus the previous version, when a change list produced it


def corpus_stats(root: Path = GUIDELINES_DIR) -> list[VersionStats]:
    """Counts per guideline version and the number of constraint changes from the previous version."""
    loaded = {(g, v): load_guideline(p) for g, v, p in discover(root)}
    previous = {(g, new): old for g, old, new, _ in discover_changes(root)}
    out: list[VersionStats] = []
    for (name, version), guideline in loaded.items():
        old_version = previous.get((name, version))
        n_changes = None
        if old_version is not None and (name, old_version) in loaded:
            n_changes = len(changes_mod.constraint_changes(loaded[(name, old_version)], guideline))
        out.append(VersionStats(name, version, counts(guideline), len(guideline.pages), n_changes))
    return out


def flat_figures(stats: list[VersionStats], base_version: str = "1.2026") -> dict[str, float]:
    """The flat keys of ``bench/results/corpus.json`` (counts of ``base_version``, changes to the next)."""
    figures: dict[str, float] = {}
    for s in stats:
        if s.version == base_version:
            figures[f"{s.guideline}_nodes"] = s.counts.nodes
            figures[f"{s.guideline}_decision"] = s.counts.decision
            figures[f"{s.guideline}_relations"] = s.counts.relations
            figures[f"{s.guideline}_pages"] = s.pages
        elif s.constraint_changes is not None:
            major = s.version.split(".")[0]
            figures[f"changes_v{major}_{s.guideline}"] = s.constraint_changes
    return dict(sorted(figures.items()))
