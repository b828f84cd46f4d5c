"""Gold authoring aid for the real pages: fill box texts from the PDF and draw an overlay to check the gold.

  python datasets/realpdfs/gold_tool.py fill PAGE_ID      # nodes.csv rows with empty text get the words in their bbox
  python datasets/realpdfs/gold_tool.py edges PAGE_ID     # edges.csv head/tail texts rewritten from the node ids
  python datasets/realpdfs/gold_tool.py overlay PAGE_ID OUT.png

Files per page under gold/: <id>-nodes.csv (id,x0,top,x1,bottom,text; PDF points, origin top left),
<id>-edges.csv (the corpus edge format plus a ``direction`` column), <id>-notes.csv (text kept out of the graph).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
EDGE_COLUMNS = ["head", "tail", "label", "page", "head_box_id", "tail_box_id", "direction"]


def page_info(pid: str) -> dict:
    return json.loads((HERE / "split.json").read_text())["pages"][pid]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write(path: Path, columns: list[str], data: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(data)


def words_in(pid: str, box: tuple[float, float, float, float]) -> str:
    import pdfplumber

    info = page_info(pid)
    with pdfplumber.open(HERE / info["pdf"]) as pdf:
        page = pdf.pages[info["page"] - 1]
        text = page.within_bbox(box).extract_text() or ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    joined = ""
    for line in lines:
        if joined.endswith("-") and re.match(r"[a-z]", line) and re.search(r"[a-z]-$", joined):
            joined = joined[:-1] + line
        else:
            joined = f"{joined} {line}".strip()
    return re.sub(r"\s+", " ", joined)


def fill(pid: str) -> None:
    path = GOLD / f"{pid}-nodes.csv"
    nodes = rows(path)
    for node in nodes:
        if not node["text"].strip():
            node["text"] = words_in(pid, (float(node["x0"]), float(node["top"]), float(node["x1"]),
                                          float(node["bottom"])))
        print(f'{node["id"]}: {node["text"]}')
    write(path, ["id", "x0", "top", "x1", "bottom", "text"], nodes)


def edges(pid: str) -> None:
    nodes = {n["id"]: n for n in rows(GOLD / f"{pid}-nodes.csv")}
    path = GOLD / f"{pid}-edges.csv"
    data = rows(path)
    for edge in data:
        edge["head"] = nodes[edge["head_box_id"]]["text"]
        edge["tail"] = nodes[edge["tail_box_id"]]["text"]
        edge["page"] = pid
        edge.setdefault("direction", "")
    write(path, EDGE_COLUMNS, data)
    for edge in data:
        print(f'{edge["head_box_id"]} -> {edge["tail_box_id"]} [{edge["label"]}] {edge["direction"]}')


def overlay(pid: str, out: str) -> None:
    import pypdfium2 as pdfium
    from PIL import ImageDraw

    info = page_info(pid)
    scale = 100 / 72
    document = pdfium.PdfDocument(HERE / info["pdf"])
    image = document[info["page"] - 1].render(scale=scale).to_pil().convert("RGB")
    draw = ImageDraw.Draw(image)
    nodes = {n["id"]: n for n in rows(GOLD / f"{pid}-nodes.csv")}

    def box(n: dict[str, str]) -> tuple[float, float, float, float]:
        return tuple(float(n[k]) * scale for k in ("x0", "top", "x1", "bottom"))  # type: ignore[return-value]

    for node_id, node in nodes.items():
        x0, y0, x1, y1 = box(node)
        draw.rectangle((x0, y0, x1, y1), outline=(0, 0, 255), width=2)
        draw.text((x0 + 2, y0 - 11), node_id, fill=(0, 0, 255))
    notes_path = GOLD / f"{pid}-notes.csv"
    if notes_path.is_file():
        for note in rows(notes_path):
            if note.get("x0"):
                x0, y0, x1, y1 = box(note)
                draw.rectangle((x0, y0, x1, y1), outline=(255, 140, 0), width=2)
                draw.text((x0 + 2, y0 + 1), note["kind"], fill=(255, 140, 0))
    for edge in rows(GOLD / f"{pid}-edges.csv"):
        a, b = box(nodes[edge["head_box_id"]]), box(nodes[edge["tail_box_id"]])
        start = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
        end = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
        draw.line((start, end), fill=(220, 0, 0), width=2)
        draw.ellipse((end[0] - 5, end[1] - 5, end[0] + 5, end[1] + 5), fill=(220, 0, 0))
        if edge["label"]:
            draw.text(((start[0] + end[0]) / 2 + 3, (start[1] + end[1]) / 2), edge["label"], fill=(0, 150, 0))
    image.save(out)


if __name__ == "__main__":
    command, pid = sys.argv[1], sys.argv[2]
    {"fill": lambda: fill(pid), "edges": lambda: edges(pid), "overlay": lambda: overlay(pid, sys.argv[3])}[command]()
