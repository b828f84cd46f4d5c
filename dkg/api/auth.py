"""Bearer-token authentication: curator endpoints always need a curator token; read endpoints need a
read (or curator) token only when ``DKG_API_REQUIRE_READ_TOKEN`` is set."""

from __future__ import annotations

import hmac

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from dkg.api.settings import Principal

bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer <token>` (DKG_API_CURATOR_TOKENS)")
ANONYMOUS = Principal("anonymous", False)


def identify(token: str | None, principals: dict[str, Principal]) -> Principal | None:
    """The principal owning ``token`` (constant-time comparison), or None.

    >>> identify("a" * 12, {"a" * 12: Principal("alice", True)})
    Principal(name='alice', curator=True)
    >>> identify("b" * 12, {"a" * 12: Principal("alice", True)}) is None
    True
    """
    if not token:
        return None
    found = None
    for known, principal in principals.items():
        if hmac.compare_digest(known.encode(), token.encode()):
            found = principal
    return found


def _unauthorised(message: str) -> HTTPException:
    return HTTPException(status_code=401, detail=message, headers={"WWW-Authenticate": "Bearer"})


def reader(request: Request, creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
    """Dependency of read endpoints."""
    state = request.app.state.dkg
    principal = identify(creds.credentials if creds else None, state.principals)
    if principal is not None:
        return principal
    if creds is not None:
        raise _unauthorised("the bearer token is not valid")
    if state.api_settings.require_read_token:
        raise _unauthorised("this server needs a token to read; send `Authorization: Bearer <token>`")
    return ANONYMOUS


def curator(request: Request, creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
    """Dependency of endpoints that change the graph or the qrels."""
    state = request.app.state.dkg
    if creds is None:
        raise _unauthorised("changing the graph needs a curator token; send `Authorization: Bearer <token>`")
    principal = identify(creds.credentials, state.principals)
    if principal is None:
        raise _unauthorised("the bearer token is not valid")
    if not principal.curator:
        raise HTTPException(status_code=403, detail=f"{principal.name} may read but not curate")
    return principal
