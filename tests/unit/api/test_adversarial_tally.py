"""The adversarial suite's own bookkeeping: what counts as refused, as a server error, as unexpected, and what
makes a CLI refusal unclean."""

from __future__ import annotations

from pathlib import Path

import httpx

from dkg.api.adversarial import CliCase, CliOutcome, Tally


def test_tally_counts_and_names_unexpected_answers() -> None:
    answers = iter([401, 503, 200, 422])
    client = httpx.Client(transport=httpx.MockTransport(lambda _: httpx.Response(next(answers))),
                          base_url="http://127.0.0.1")
    tally = Tally()
    for label in ("a", "b", "c", "d"):
        tally.send(client, "auth", label, frozenset({401, 403, 422}), "GET", "/x")
    summary = tally.summary()
    assert (summary["requests"], summary["refused_4xx"], summary["server_5xx"]) == (4, 2, 1)
    assert tally.unexpected == ["auth: b: HTTP 503, allowed [401, 403, 422]",
                                "auth: c: HTTP 200, allowed [401, 403, 422]"]


def test_a_clean_cli_refusal_has_one_error_line_no_traceback_and_no_output(tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    case = CliCase("parse x.pdf", ("parse", "x.pdf", "-o", str(out)), out)
    assert CliOutcome(case, 1, "error: x.pdf is not a PDF (no %PDF- header); give a .pdf file\n").problems == []
    out.write_text("head,tail\n")
    messy = CliOutcome(case, 0, "Traceback (most recent call last):\n  ...\nValueError: boom\n")
    assert messy.problems == ["exit status 0", "a traceback", "0 'error:' lines", "partial output x.csv"]
