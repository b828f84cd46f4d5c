"""Request body size limit (pure ASGI middleware): a declared or streamed body above the limit gets 413."""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException

Scope = dict[str, Any]


class _TooLarge(HTTPException):
    # an HTTPException so that FastAPI's body parsing passes it on instead of turning it into a 400
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than the limit of {limit} bytes (DKG_API_MAX_BODY_BYTES)")


class BodySizeLimit:
    """Refuse request bodies larger than ``limit`` bytes, whether announced by Content-Length or streamed."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def _refuse(self, send: Any, message: str) -> None:
        body = json.dumps({"error": {"status": 413, "message": message}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        too_big = f"the request body is larger than the limit of {self.limit} bytes (DKG_API_MAX_BODY_BYTES)"
        if declared is not None:
            if not declared.isdigit():
                await self._refuse(send, f"invalid Content-Length {declared[:20]!r}")
                return
            if int(declared) > self.limit:
                await self._refuse(send, too_big)
                return
        received = 0
        started = False

        async def limited_receive() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge(self.limit)
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send, too_big)
