"""Realistic scans of the real guideline pages: one image-only PDF per page and resolution, from a fixed seed.

The real pages (``datasets/realpdfs``) are born-digital; their scanned variants are made here rather than stored.
Each page is rasterised in greyscale at each resolution, degraded like a flatbed scan (skew, blur, noise and paper
tone from :func:`dkg.corpus.scan.degrade`), passed once through JPEG at a drawn quality, and saved as a one-page
image-only PDF. Same page, resolution and settings give the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from dkg.corpus.scan import degrade
from dkg.errors import CorpusError


@dataclass(frozen=True)
class RealScanSettings:
    """Resolutions written and the JPEG quality range a page's artefacts are drawn from."""

    dpis: tuple[int, ...] = (150, 200, 300)
    jpeg_quality_min: int = 45
    jpeg_quality_max: int = 75

    def __post_init__(self) -> None:
        if not self.dpis or any(not 100 <= dpi <= 400 for dpi in self.dpis):
            raise CorpusError(f"scan resolutions {self.dpis} must be 100–400 dpi; use 150, 200 or 300")
        if not 10 <= self.jpeg_quality_min <= self.jpeg_quality_max <= 95:
            raise CorpusError("JPEG quality must satisfy 10 <= min <= max <= 95")


@dataclass(frozen=True)
class RealPage:
    """One page of the real set as listed in ``split.json``."""

    page_id: str
    pdf: Path
    page: int
    split: str


def real_pages(root: str | Path) -> list[RealPage]:
    """The pages listed in ``<root>/split.json`` (``dev`` or ``heldout``), in file order."""
    root = Path(root)
    split_file = root / "split.json"
    if not split_file.is_file():
        raise CorpusError(f"{split_file} does not exist; the real page set needs its split.json")
    listing = json.loads(split_file.read_text(encoding="utf-8"))["pages"]
    pages = []
    for page_id, info in listing.items():
        if info.get("split") not in ("dev", "heldout"):
            raise CorpusError(f"{split_file}: page {page_id} has split {info.get('split')!r}; use dev or heldout")
        pages.append(RealPage(page_id, root / info["pdf"], int(info["page"]), info["split"]))
    return pages


def _seed(page_id: str, dpi: int) -> int:
    return int.from_bytes(hashlib.sha256(f"real:{page_id}:{dpi}".encode()).digest()[:8], "big")


def scan_page(page: RealPage, dpi: int, settings: RealScanSettings | None = None) -> bytes:
    """An image-only one-page PDF of ``page`` scanned at ``dpi``."""
    settings = settings or RealScanSettings()
    import pypdfium2 as pdfium  # heavy; only needed here

    seed = _seed(page.page_id, dpi)
    document = pdfium.PdfDocument(page.pdf)
    try:
        if not 1 <= page.page <= len(document):
            raise CorpusError(f"{page.pdf} has {len(document)} page(s); {page.page_id} asks for page {page.page}")
        pdf_page = document[page.page - 1]
        try:
            image = degrade(pdf_page.render(scale=dpi / 72.0, grayscale=True).to_pil(), seed)
        finally:
            pdf_page.close()
    finally:
        document.close()
    rng = np.random.default_rng(seed + 1)
    quality = int(rng.integers(settings.jpeg_quality_min, settings.jpeg_quality_max + 1))
    jpeg = io.BytesIO()
    image.save(jpeg, format="JPEG", quality=quality)
    jpeg.seek(0)
    compressed = Image.open(jpeg).convert("L")
    out = io.BytesIO()
    compressed.save(out, format="PDF", resolution=float(dpi), quality=quality,
                    title=f"{page.page_id} (scanned {dpi} dpi)", producer="dkg real scans",
                    creationDate=None, modDate=None)
    return out.getvalue()


def scan_name(page: RealPage, dpi: int) -> str:
    return f"{page.page_id}-scan{dpi}.pdf"


def write_real_scans(root: str | Path, out_dir: str | Path, settings: RealScanSettings | None = None,
                     dpis: tuple[int, ...] | None = None) -> list[Path]:
    """Write every page's scans under ``out_dir`` (atomically, one file per page and resolution)."""
    settings = settings or RealScanSettings()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for page in real_pages(root):
        for dpi in dpis or settings.dpis:
            target = out_dir / scan_name(page, dpi)
            tmp = target.with_suffix(".pdf.tmp")
            tmp.write_bytes(scan_page(page, dpi, settings))
            tmp.replace(target)
            written.append(target)
    return written
