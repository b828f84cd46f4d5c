"""``dkg parse --overlay DIR``: one review PNG per page, and the picture follows the parse."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from dkg.cli.main import app
from dkg.parsing import parse_pdf
from dkg.parsing.overlay import render_overlay

REAL = Path(__file__).resolve().parents[2] / "datasets" / "realpdfs"
PDF = REAL / "smog-cardiac-flowcharts.pdf"  # development pages only (split.json)


def test_overlay_writes_one_png_per_page(tmp_path: Path) -> None:
    out, pictures = tmp_path / "edges.csv", tmp_path / "review"
    result = CliRunner().invoke(app, ["parse", str(PDF), "--pages", "1-2", "-o", str(out),
                                      "--overlay", str(pictures)])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in pictures.iterdir())
    assert written == ["smog-cardiac-flowcharts-p1.png", "smog-cardiac-flowcharts-p2.png"]
    with Image.open(pictures / written[0]) as image:
        assert image.format == "PNG" and image.width > 1000
    sidecar = json.loads(out.with_suffix(".json").read_text())
    kinds = {note["kind"] for page in sidecar["pages"] for note in page["notes"]}
    assert {"side_box", "branch_label"} <= kinds


def test_overlay_differs_when_the_parse_differs() -> None:
    page = parse_pdf(PDF, pages="1").pages[0]
    fewer = copy.deepcopy(page)
    fewer.connectors = fewer.connectors[1:]
    fewer.edges = fewer.edges[1:]
    assert render_overlay(PDF, page).tobytes() != render_overlay(PDF, fewer).tobytes()
    assert render_overlay(PDF, page).tobytes() == render_overlay(PDF, copy.deepcopy(page)).tobytes()
    untitled = copy.deepcopy(page)
    untitled.title = None
    assert render_overlay(PDF, page).tobytes() != render_overlay(PDF, untitled).tobytes()  # the title read is shown


def test_overlay_into_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    result = CliRunner().invoke(app, ["parse", str(PDF), "--pages", "1", "-o", str(tmp_path / "e.csv"),
                                      "--overlay", str(blocker)])
    assert result.exit_code != 0
    assert "is a file" in result.output
    assert not (tmp_path / "e.csv").exists()  # refused before anything was written


def test_overlay_shows_a_link_to_another_page_on_the_page_it_leaves() -> None:
    result = parse_pdf(PDF, pages="2,4")  # the tachycardia chart's "Chest Pain Guideline" names page 2's chart
    chest_pain, tachycardia = result.pages
    assert [link.head_box_id for link in result.links] == ["p4-b10"]
    assert render_overlay(PDF, tachycardia, links=result.links).tobytes() != render_overlay(PDF, tachycardia).tobytes()
    # the page it points to draws nothing for it (the arrow leaves the other page)
    assert render_overlay(PDF, chest_pain, links=result.links).tobytes() == render_overlay(PDF, chest_pain).tobytes()
