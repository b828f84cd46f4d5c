"""Digital parsing of the rendered corpus PDFs against their gold edge files."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.corpus_eval import corpus_pdfs
from dkg.parsing.evaluate import prf, read_edges

CORPUS = Path(__file__).resolve().parents[2] / "datasets" / "guidelines"
DIGITAL = [i for i in (corpus_pdfs(CORPUS) if CORPUS.is_dir() else []) if not i.scanned]


@pytest.mark.skipif(not DIGITAL, reason="corpus not rendered (dkg corpus render)")
@pytest.mark.parametrize("item", DIGITAL, ids=lambda i: i.pdf.name)
def test_digital_corpus_edge_f1(item) -> None:  # type: ignore[no-untyped-def]
    result = parse_pdf(item.pdf, ocr="never")
    scores = prf([e.model_dump() for e in result.edges], read_edges(item.gold))
    assert scores["f1"] >= 0.98, scores


# ---- bad input: the real `dkg parse` process; one line naming the problem, nothing written -------------------

FIXTURE_PDF = Path(__file__).resolve().parents[1] / "fixtures" / "pdfs" / "footnotes_links.pdf"
DKG = Path(sys.executable).parent / "dkg"


def _pdf_bytes(pages: int = 0, password: str | None = None, prefix: Path | None = None) -> bytes:
    writer = pypdf.PdfWriter(clone_from=str(prefix)) if prefix else pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    if password:
        writer.encrypt(password)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _image_only_pdf() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", (1275, 1650), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((200, 200, 600, 400), outline=0, width=4)
    draw.text((250, 280), "Stage I renal mass", fill=0)
    draw.rectangle((200, 700, 600, 900), outline=0, width=4)
    draw.text((250, 780), "Partial nephrectomy", fill=0)
    draw.line((400, 400, 400, 700), fill=0, width=4)
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=150)
    return buffer.getvalue()


def _parse(tmp_path: Path, data: bytes, *extra: str, env: dict[str, str] | None = None
           ) -> tuple[int, list[str], Path]:
    pdf = tmp_path / "input.pdf"
    pdf.write_bytes(data)
    out = tmp_path / "edges.csv"
    run = subprocess.run([str(DKG), "parse", str(pdf), "-o", str(out), *extra], capture_output=True, text=True,
                         timeout=600, env={**os.environ, "COLUMNS": "200", **(env or {})})
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, lines, out


BAD_FILES = {
    "not a PDF": (lambda: b"head,tail\nA,B\n", "is not a PDF"),
    "empty": (lambda: b"", "is empty"),
    "zero pages": (lambda: _pdf_bytes(0), "has no pages"),
    "encrypted": (lambda: _pdf_bytes(1, password="secret"), "is encrypted"),
    "truncated": (lambda: FIXTURE_PDF.read_bytes()[:300], "damaged or truncated"),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_bad_file_is_one_line_and_leaves_the_old_output(tmp_path: Path, case: str) -> None:
    make, message = BAD_FILES[case]
    (tmp_path / "edges.csv").write_text("previous output\n")
    code, lines, out = _parse(tmp_path, make())
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines
    assert out.read_text() == "previous output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edges.csv", "input.pdf"]


@pytest.mark.ocr
def test_image_only_pdf_without_tesseract_names_it(tmp_path: Path) -> None:
    code, lines, out = _parse(tmp_path, _image_only_pdf(), env={"DKG_TESSERACT_CMD": "/nonexistent/tesseract"})
    assert code == 1
    assert len(lines) == 1 and "needs OCR" in lines[0] and "tesseract" in lines[0] and "--ocr never" in lines[0]
    assert not out.exists()


def test_500_page_pdf_keeps_its_flowchart_and_merges_the_warnings(tmp_path: Path) -> None:
    code, lines, out = _parse(tmp_path, _pdf_bytes(498, prefix=FIXTURE_PDF))
    assert code == 0, lines
    with out.open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 4
    blank = [line for line in lines if "blank page" in line]
    assert blank == ["warning pages 3–500 (498 pages): blank page (no text layer, no ink); nothing to parse"]
    assert len(lines) <= 4, lines


def test_unwritable_sidecar_writes_neither_file(tmp_path: Path) -> None:
    (tmp_path / "side").mkdir()
    code, lines, out = _parse(tmp_path, FIXTURE_PDF.read_bytes(), "--json", str(tmp_path / "side"))
    assert code == 1
    assert len(lines) == 1 and "cannot write" in lines[0] and "folder" in lines[0], lines
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.pdf", "side"]
