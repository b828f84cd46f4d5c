"""Credentials are redacted from every log line the API process writes (issue 21 item 12)."""

from __future__ import annotations

import io
import logging

import pytest
from uvicorn.logging import AccessFormatter

from dkg.api.redaction import REDACTED, RedactingFilter, install_log_redaction, redact

TOKEN = "s3cret-curator-token-77"


@pytest.mark.parametrize("line,leak", [
    ("GET /api/whoami?token=abcdef123456 HTTP/1.1", "abcdef123456"),
    ("GET /api/x?q=1&access_token=zz-99-yy&k=2 HTTP/1.1", "zz-99-yy"),
    ("POST /login?password=hunter2hunter2", "hunter2hunter2"),
    ("GET /?api_key=AKIA1234&API-KEY=q9q9q9", "AKIA1234"),
    ("GET /?API-KEY=q9q9q9", "q9q9q9"),
    ("headers: {'authorization': 'Bearer eyJhbGciOi.x.y'}", "eyJhbGciOi"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    (f"GET /api/nodes/{TOKEN} HTTP/1.1", TOKEN),
    ("GET /api/nodes/s3cret%2Dcurator%2Dtoken%2D77", "s3cret%2Dcurator"),
])
def test_credentials_are_redacted(line: str, leak: str) -> None:
    out = redact(line, [TOKEN, "s3cret-curator-token-77".replace("-", "%2D")])
    assert leak not in out and REDACTED in out


def test_harmless_text_is_kept() -> None:
    line = '127.0.0.1:4242 - "GET /api/nodes?q=ph&guideline=ALL&limit=20 HTTP/1.1" 200'
    assert redact(line, [TOKEN]) == line


def test_the_access_log_line_keeps_its_shape() -> None:
    # uvicorn's access formatter unpacks exactly five arguments: the filter must keep them
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "GET", f"/api/changes/x/rollback?token={TOKEN}", "1.1", 401), None)
    assert RedactingFilter([TOKEN]).filter(record)
    text = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False).format(record)
    assert text == f'127.0.0.1:5000 - "GET /api/changes/x/rollback?token={REDACTED} HTTP/1.1" 401 Unauthorized'


def test_installed_filter_covers_child_loggers_through_the_handlers() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    parent = logging.getLogger("dkg-test-redaction")
    parent.addHandler(handler)
    try:
        install_log_redaction([TOKEN], ["dkg-test-redaction"])
        install_log_redaction([TOKEN], ["dkg-test-redaction"])  # again: replaced, not stacked
        assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
        logging.getLogger("dkg-test-redaction.child").warning("token %s in %s", TOKEN, "/x?password=pw12345")
        assert stream.getvalue() == f"token {REDACTED} in /x?password={REDACTED}\n"
    finally:
        parent.removeHandler(handler)
        for f in list(parent.filters):
            parent.removeFilter(f)
