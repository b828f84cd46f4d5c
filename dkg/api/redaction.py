"""Credentials never reach the server's logs: query parameters that carry secrets (``token``, ``access_token``,
``password``, ``api_key`` …), ``Authorization`` values, bearer/basic credentials and the configured tokens
themselves are replaced by ``[REDACTED]`` in every record the API process logs (uvicorn's access and error
logs included)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import quote

REDACTED = "[REDACTED]"
# a query/form parameter whose name says it holds a credential; its value runs to the next separator
_SECRET_PARAM = re.compile(
    r"(?i)((?:^|[?&;\s\"'])[\w.\-]*(?:token|passw(?:or)?d|pwd|secret|api[_-]?key|apikey|credential|auth|session"
    r"|signature)[\w.\-]*=)[^&;\s\"']*")
_AUTH_HEADER = re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;]+")
_SCHEME_CREDENTIAL = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{4,}")
# logger names whose records the API process writes (uvicorn's, ours, and the root for everything else)
LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "dkg", "dkg.api")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with credentials replaced by ``[REDACTED]``.

    >>> redact('127.0.0.1:5 - "GET /api/whoami?q=ph&token=abc123def456 HTTP/1.1" 401')
    '127.0.0.1:5 - "GET /api/whoami?q=ph&token=[REDACTED] HTTP/1.1" 401'
    >>> redact("Authorization: Bearer abc.def-123")
    'Authorization: [REDACTED]'
    >>> redact("GET /api/nodes/s3cret-token-1 failed", ["s3cret-token-1"])
    'GET /api/nodes/[REDACTED] failed'
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
            encoded = quote(secret, safe="")
            if encoded != secret:
                text = text.replace(encoded, REDACTED)
    text = _AUTH_HEADER.sub(lambda m: m[1] + REDACTED, text)
    text = _SCHEME_CREDENTIAL.sub(lambda m: m[1] + m[2] + REDACTED, text)
    return _SECRET_PARAM.sub(lambda m: m[1] + REDACTED, text)


class RedactingFilter(logging.Filter):
    """Redacts a record's message and its string arguments in place (keeping the arguments' shape, which
    uvicorn's access formatter unpacks)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__("dkg-redaction")
        self.secrets = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))

    def _clean(self, value: object) -> object:
        return redact(value, self.secrets) if isinstance(value, str) else value

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg, self.secrets)
        if isinstance(record.args, tuple):
            record.args = tuple(self._clean(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: self._clean(v) for k, v in record.args.items()}
        return True


def install_log_redaction(secrets: Iterable[str] = (), logger_names: Iterable[str] = LOGGERS) -> RedactingFilter:
    """Put one :class:`RedactingFilter` on the named loggers and on each of their handlers (handler filters see
    the records propagated from child loggers too); replaces a filter installed earlier."""
    found = RedactingFilter(secrets)
    for name in logger_names:
        logger = logging.getLogger(name)
        for target in (logger, *logger.handlers):
            for old in [f for f in target.filters if isinstance(f, RedactingFilter)]:
                target.removeFilter(old)
            target.addFilter(found)
    return found
