"""How the platform's errors become HTTP responses: status code by error class, a one-line message."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from dkg.api.annotation import UnknownResultError
from dkg.errors import (
    ConfigError,
    ConstraintError,
    CurationError,
    DKGError,
    GraphError,
    GraphUnavailableError,
    QAError,
    RetrievalError,
    ServiceError,
    TransientError,
    UnsafeQueryError,
)
from dkg.graph.curation import StaleChangeError, UnknownNodeError
from dkg.retrieval.errors import BadQueryError


class ApiError(DKGError):
    """A request the API refuses (bad id, missing resource); carries its HTTP status."""

    status = 400


class NotFoundError(ApiError):
    status = 404


class NotReadyError(ServiceError):
    """A part of the service (retriever, model) is not loaded; the message says how to fix it."""


# Most specific first: the first matching class decides the status.
STATUS_BY_ERROR: tuple[tuple[type[DKGError], int], ...] = (
    (UnknownResultError, 422),
    (UnknownNodeError, 404),
    (StaleChangeError, 409),
    (UnsafeQueryError, 400),
    (ConstraintError, 422),
    (CurationError, 422),
    (QAError, 422),
    (GraphUnavailableError, 503),
    (NotReadyError, 503),
    (TransientError, 503),
    (BadQueryError, 422),
    (RetrievalError, 503),
    (ServiceError, 503),
    (GraphError, 502),
    (ConfigError, 500),
)


def status_for(exc: DKGError) -> int:
    """The HTTP status of a platform error.

    >>> status_for(StaleChangeError("x")), status_for(CurationError("x")), status_for(DKGError("x"))
    (409, 422, 400)
    """
    if isinstance(exc, ApiError):
        return exc.status
    for cls, status in STATUS_BY_ERROR:
        if isinstance(exc, cls):
            return status
    return 400


def error_body(status: int, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"status": status, "message": message, **extra}}


def describe_validation(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """One message naming each bad field, and a JSON-safe list of the problems.

    >>> describe_validation([{"loc": ("body", "question"), "msg": "Field required", "type": "missing"}])[0]
    'body.question: Field required'
    """
    problems = []
    for err in errors:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if err.get("type") == "json_invalid":
            ctx = err.get("ctx") or {}
            where = err.get("loc", ("body",))[-1]
            loc = "body"
            msg = f"malformed JSON at character {where} ({ctx.get('error', 'cannot be parsed')})"
        problems.append({"field": loc, "message": msg, "type": str(err.get("type", ""))})
    return "; ".join(f"{p['field']}: {p['message']}" for p in problems), problems


def install_error_handlers(app: FastAPI) -> None:
    """Map DKG errors and request validation errors to JSON error bodies."""

    @app.exception_handler(DKGError)
    async def _dkg(_: Request, exc: DKGError) -> JSONResponse:
        status = status_for(exc)
        return JSONResponse(error_body(status, str(exc), kind=type(exc).__name__), status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        message, problems = describe_validation(list(exc.errors()))
        status = 400 if any(p["type"] == "json_invalid" for p in problems) else 422
        return JSONResponse(error_body(status, message, problems=problems), status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(error_body(exc.status_code, str(exc.detail)), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))
