"""The review pictures of built versions: written where a pipeline build leaves them (real parse of a fixture PDF,
real overlay), listed in page order and served by the API; a clear 404 for a version not built, one built without
pictures, an unknown name and a name leading out of the folder. The graph is a stand-in listing built versions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from dkg.api.app import create_app
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.config import Settings, load_settings
from dkg.parsing import parse_pdf
from dkg.parsing.overlay import write_overlays
from dkg.pipeline import overlay_dir

PDF = Path(__file__).resolve().parents[2] / "fixtures" / "pdfs" / "basic_rect_arrows.pdf"
READER = "reader-token-pictures01"
BUILT = [{"guideline": "pics", "version": "1.2026"}, {"guideline": "pics", "version": "2.2026"}]
LIST = "/api/guidelines/pics/1.2026/pictures"


@dataclass
class BuiltVersions:
    rows: list[dict[str, Any]]

    def read(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return self.rows


@dataclass
class PictureState:
    settings: Settings
    api_settings: ApiSettings
    principals: dict[str, Any]
    graph: BuiltVersions

    def close(self) -> None:
        pass


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    settings = load_settings(home=tmp_path / "home")
    result = parse_pdf(PDF)
    folder = overlay_dir(settings, "pics", "1.2026")
    folder.mkdir(parents=True)
    Image.new("RGB", (4, 4)).save(folder / "basic_rect_arrows-p10.png")  # stale: pruned by the next write
    pages = {p.number for p in result.pages}
    assert write_overlays(result, folder, prune=True) == [folder / f"basic_rect_arrows-p{n}.png" for n in sorted(pages)]
    Image.new("RGB", (4, 4)).save(folder / "basic_rect_arrows-p10.png")  # page order is numeric: p10 after p1
    return settings


@pytest.fixture
def client(home: Settings) -> Iterator[TestClient]:
    api_settings = load_api_settings(read_tokens=f"rob:{READER}", require_read_token=True)

    def factory(platform: Settings, api: ApiSettings) -> PictureState:
        return PictureState(platform, api, api.principals(), BuiltVersions(BUILT))

    with TestClient(create_app(home, api_settings, state_factory=factory)) as c:
        c.headers["Authorization"] = f"Bearer {READER}"
        yield c


def test_write_overlays_prunes_pictures_of_an_earlier_parse(tmp_path: Path) -> None:
    result = parse_pdf(PDF)
    (tmp_path / "old-p7.png").write_bytes(b"old")
    (tmp_path / "notes.txt").write_text("kept")
    written = write_overlays(result, tmp_path, prune=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([p.name for p in written] + ["notes.txt"])
    (tmp_path / "old-p7.png").write_bytes(b"old")
    write_overlays(result, tmp_path)  # without prune an earlier picture stays
    assert (tmp_path / "old-p7.png").is_file()


def test_a_built_version_lists_its_pictures_in_page_order_and_serves_them(client: TestClient) -> None:
    listed = client.get(LIST)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert (body["guideline"], body["version"]) == ("pics", "1.2026")
    assert [(p["name"], p["page"]) for p in body["pictures"]] == [("basic_rect_arrows-p1.png", 1),
                                                                    ("basic_rect_arrows-p10.png", 10)]
    picture = client.get(body["pictures"][0]["url"])
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert picture.content.startswith(b"\x89PNG")
    with Image.open(overlay_dir(client.app.state.dkg.settings, "pics", "1.2026")  # type: ignore[attr-defined]
                    / "basic_rect_arrows-p1.png") as image:
        assert image.width > 1000  # the page rendered at 2 px per point, not a placeholder


def test_pictures_need_the_read_token(client: TestClient) -> None:
    assert client.get(LIST, headers={"Authorization": ""}).status_code == 401


@pytest.mark.parametrize("path,message", [
    ("/api/guidelines/pics/3.2026/pictures", "no guideline version pics 3.2026 in the graph"),
    ("/api/guidelines/pics/2.2026/pictures", "no review pictures for pics 2.2026"),
    ("/api/guidelines/pics/2.2026/pictures/basic_rect_arrows-p1.png", "no review pictures for pics 2.2026"),
    (f"{LIST}/basic_rect_arrows-p2.png", "no review picture 'basic_rect_arrows-p2.png' for pics 1.2026"),
])
def test_missing_pictures_get_a_404_that_says_why(client: TestClient, path: str, message: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and message in r.json()["error"]["message"], r.text


@pytest.mark.parametrize("name", ["..%2F..%2Fsecret.png", "..png", "%2Fetc%2Fpasswd.png", "a b.png", "x.jpg"])
def test_picture_names_that_leave_the_folder_are_refused(client: TestClient, name: str) -> None:
    assert client.get(f"{LIST}/{name}").status_code in (404, 422)
