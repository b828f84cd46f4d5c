"""How `dkg constraint set/update/remove` reports the change it made (or did not make)."""

from __future__ import annotations

import pytest
from rich.console import Console

from dkg.cli import build_cmd
from dkg.graph.curation import UNCHANGED, ChangeRecord


def _printed(record: ChangeRecord, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(build_cmd, "console", Console(width=120, color_system=None))
    build_cmd._show_change(record)
    return capsys.readouterr().out


def test_a_no_op_says_nothing_was_written(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    record = ChangeRecord(id="", node_uid="ALL|1.2026|all2_assess", op=UNCHANGED, before=["age>=65"],
                          after=["age>=65"], rev_before=3, rev_after=3)
    out = _printed(record, monkeypatch, capsys)
    assert "unchanged" in out and "nothing written" in out and "age>=65" in out
    assert "revision 3 → 3" not in out


def test_a_change_shows_its_revisions(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    record = ChangeRecord(id="c1", node_uid="ALL|1.2026|all2_assess", op="set", before=["age>=65"],
                          after=["age>=70"], rev_before=3, rev_after=4)
    out = _printed(record, monkeypatch, capsys)
    assert "change c1" in out and "revision 3 → 4" in out and "age>=70" in out
