"""memdesk over HTTP: a FastAPI app around one :class:`~memdesk.Memory`.

``create_app(memory, api_keys=...)`` builds it (constructor injection: the caller owns the memory);
``memdesk serve`` runs it with uvicorn. Every route under ``/v1`` (and ``/mcp``) needs an API key when keys
are configured; ``/healthz``, ``/openapi.json`` and ``/docs`` do not. Without keys the server answers only
requests addressed to a loopback name (DNS-rebinding protection), unless ``allowed_hosts`` says otherwise.

Every route is scoped: the caller's key decides which scopes it reaches (:mod:`memdesk.tenants`). A tenant
key gets its ``user_id`` (and ``agent_id``) filled in where a request leaves them out; naming another tenant
is a 404 for reads and by-id calls (as if nothing were there) and a 403 for writes. By-id routes take the
scope as query parameters (``GET /v1/memories/{id}?user_id=ana``) and a record outside it is a 404.

Errors come back as ``{"error": {"type": "<memdesk exception>", "message": "..."}}`` with a status from
:mod:`memdesk.server.statuses` (403 another tenant's scope, 404 unknown id, 409 embedder mismatch, 413
message too large, 422 bad input, 503 database locked, 502 model failure). Handlers are synchronous and run
on the server's thread pool; the stores are safe to share between threads and concurrent writers lose nothing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response, Security, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from ..conversation.memory import Memory
from ..errors import InvalidInputError, MemdeskError
from ..reasoning.service import ReasoningBanks
from ..hits import Answer, Evidence, MemoryItem, SearchHit
from ..records import AddResult, HistoryEntry, MemoryType, RawMessage
from ..client.remote import NEXT_CURSOR
from ..tenants import Caller
from .auth import LOOPBACK_HOSTS, ApiKeys, HostGuard
from .docs_pages import docs_router
from .gate import RequestGate
from .limits import ServerLimits, check_messages, check_retrieval, check_scope_fields
from .metrics import MetricsAccess, ServerMetrics
from .bank_routes import bank_router
from .portability_routes import portability_router
from .mcp_common import CALLER_STATE
from .schemas import (
    AddRequest, AnswerRequest, Deleted, ErrorBody, Health, RetrievalOptions, ScopeDeleted, SearchRequest, UpdateRequest,
)  # fmt: skip
from .statuses import error_response, retry_after, status_for, unauthorized

_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="X-API-Key: <API key>")

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "Missing or wrong API key."},
    422: {"model": ErrorBody, "description": "Invalid input (bad scope, empty text, wrong shape)."},
}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No memory with that id under the scope (also: another tenant's)."}
}
_UNKNOWN_SCOPE: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "Nothing under the scope (also: another tenant's scope)."}
}
_FORBIDDEN: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody, "description": "A tenant key named another tenant's scope."}
}
_NEXT_CURSOR: dict[int | str, dict[str, Any]] = {
    200: {"headers": {NEXT_CURSOR: {"description": "Pass as ?cursor= to read the next page; absent on the last page.",
                                    "schema": {"type": "string"}}}}
}


class NotAuthenticated(Exception):
    """Raised by the key check; answered with 401."""


def require_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
    x_api_key: Annotated[str | None, Security(_header)] = None,
) -> Caller:
    """The caller the request's API key stands for (the app's :class:`ApiKeys` decide); 401 if none."""
    found = getattr(request.state, CALLER_STATE, None)  # the request gate checked the key before the body
    if found is not None:
        return found
    keys: ApiKeys = request.app.state.memdesk_keys
    caller = keys.caller(f"Bearer {bearer.credentials}" if bearer else None, x_api_key)
    if caller is None:
        raise NotAuthenticated()
    return caller


class QueryScope:
    """The scope fields of a query string (``?user_id=...&agent_id=...&run_id=...``), as the caller gives them."""

    def __init__(
        self,
        user_id: Annotated[str | None, Query(description="user_id of the scope (a tenant key fills its own)")] = None,
        agent_id: Annotated[str | None, Query(description="agent_id of the scope")] = None,
        run_id: Annotated[str | None, Query(description="run_id of the scope")] = None,
    ) -> None:
        self.fields = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}


Who = Annotated[Caller, Depends(require_key)]
Where = Annotated[QueryScope, Depends()]


def _json_filters(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise InvalidInputError(f"filters is not JSON: {e}") from None
    if not isinstance(value, dict):
        raise InvalidInputError("filters must be a JSON object")
    return value


def _search_args(req: RetrievalOptions) -> dict[str, Any]:
    return {
        "k": req.k, "K": req.K, "types": req.types, "speaker": req.speaker, "mode": req.mode, "merge": req.merge,
        "hybrid": req.hybrid, "as_of": req.as_of, "filters": req.filters, "asked_at": req.asked_at,
    }


def create_app(
    memory: Memory,
    *,
    api_keys: ApiKeys | None = None,
    mcp: bool = True,
    allowed_hosts: Sequence[str] | None = None,
    title: str = "memdesk",
    ui: bool = True,
    banks: ReasoningBanks | None = None,
    limits: ServerLimits | None = None,
    metrics: MetricsAccess = "admin",
    sessions: dict[str, Any] | None = None,
) -> FastAPI:
    """The HTTP API (and, with ``mcp=True`` and the MCP SDK installed, the MCP server at ``/mcp``, streamable HTTP).

    ``banks``: the reasoning banks served under ``/v1/banks`` (and by the MCP tools); default: the banks of the
    memory's own store and embedder, with no chat model (solving then answers 501).

    ``allowed_hosts``: Host header names the server answers for (``"*"``: any). By default any host when API
    keys are required, else only the loopback names, which blocks DNS-rebinding attacks from web pages.

    ``limits``: body size, per-request bounds, request rate and concurrency per key (:mod:`memdesk.server.limits`;
    default :class:`ServerLimits`). ``metrics``: who may read ``/metrics``: ``admin``, ``open`` or ``off``
    (:mod:`memdesk.server.metrics`). ``sessions``: the UI sessions' ``ttl_s`` and cookie ``secure`` (``auto``,
    ``always``, ``never``; :mod:`memdesk.server.sessions`).
    """
    from .. import __version__

    keys = api_keys or ApiKeys()
    banks = banks if banks is not None else ReasoningBanks(memory.store, memory.embedder)
    if allowed_hosts is None:
        allowed_hosts = ["*"] if keys.required else list(LOOPBACK_HOSTS)

    mcp_endpoint = None
    session_manager = None
    if mcp:
        from .mcp_common import MCPServer
        from .mcp_tools import create_mcp_server

        if MCPServer is not None:
            mcp_server = create_mcp_server(memory, banks=banks)
            # the SDK's own host check is replaced by HostGuard, which covers every route with one rule
            from mcp.server.transport_security import TransportSecuritySettings

            mcp_app = mcp_server.streamable_http_app(
                transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
            )
            mcp_endpoint = next(r.endpoint for r in mcp_app.routes if isinstance(r, Route) and r.path == "/mcp")
            session_manager = mcp_server.session_manager

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if session_manager is None:
            yield
            return
        async with session_manager.run():
            yield

    app = FastAPI(
        title=title,
        version=__version__,
        description="Typed conversational memory (ENGRAM) for LLM agents: add, search, get, update, delete, "
        "history, scoped by user_id / agent_id / run_id; and reasoning banks of verified solved examples (MAC).",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    limits = limits or ServerLimits()
    scraped = ServerMetrics(memory._worker.pending_by_tenant, per_tenant=metrics != "open") if metrics != "off" else None
    from .sessions import UiSessions

    ui_sessions = UiSessions(keys, **(sessions or {}))
    # a browser may send a full-size form once logged in (on a keyless loopback server, always)
    logged_in = (lambda sid: not keys.required or (bool(sid) and ui_sessions.caller(sid) is not None)) if ui else None
    app.add_middleware(RequestGate, keys=keys, limits=limits, metrics=scraped, ui_session=logged_in)
    app.add_middleware(HostGuard, allowed=allowed_hosts)  # outermost: the Host header before anything else
    app.include_router(docs_router(app.openapi_url or "/openapi.json", title))

    @app.exception_handler(MemdeskError)
    async def memdesk_error(request: Request, exc: MemdeskError) -> JSONResponse:
        after = retry_after(exc)
        return error_response(status_for(exc), type(exc).__name__, str(exc), {"Retry-After": after} if after else None)

    @app.exception_handler(NotAuthenticated)
    async def not_authenticated(request: Request, exc: NotAuthenticated) -> JSONResponse:
        return unauthorized()

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        names = {404: "NotFound", 405: "MethodNotAllowed"}
        return error_response(exc.status_code, names.get(exc.status_code, "HTTPError"), str(exc.detail), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return error_response(422, "InvalidInputError", f"{where}: {first.get('msg', 'invalid request')}")

    @app.get("/healthz", tags=["service"])
    def healthz() -> Health:
        """Liveness and what the server runs on (no key needed)."""
        return Health(version=__version__, embedding_model=memory.embedder.model_id, store=type(memory.store).__name__)

    app.state.memdesk_keys = keys
    if scraped is not None:

        @app.get("/metrics", tags=["service"], responses={403: {"model": ErrorBody, "description": "Not an admin key."}})
        def prometheus_metrics(request: Request) -> Response:
            """Prometheus metrics (text format). Who may scrape: the ``metrics`` setting (default: admin keys)."""
            if metrics == "admin":
                who = keys.caller(request.headers.get("authorization"), request.headers.get("x-api-key"))
                if who is None:
                    raise NotAuthenticated()
                if who.tenant is not None:
                    return error_response(403, "ForbiddenScopeError", "/metrics names every tenant: an admin key reads it")
            body, content_type = scraped.exposition()
            return Response(body, media_type=content_type)

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_key)], responses=_ERRORS)

    @v1.post(
        "/memories", status_code=status.HTTP_201_CREATED, tags=["memories"],
        responses={**_FORBIDDEN, 202: {"description": "wait=false: logged pending, processed in the background"}},
    )  # fmt: skip
    def add_memories(req: AddRequest, caller: Who, response: Response) -> AddResult:
        """Route, extract, embed and store messages (one transaction; known message ids are skipped).
        With ``wait: false`` the messages are logged pending and the reply (202) comes at once."""
        check_scope_fields(req.scope_fields(), limits)
        check_messages(req.messages, limits, speaker=req.speaker)
        scope = caller.scope(**req.scope_fields(), access="write")
        if not req.wait:
            response.status_code = status.HTTP_202_ACCEPTED
        return memory.add(list(req.messages), scope=scope, timestamp=req.timestamp, speaker=req.speaker, wait=req.wait)

    @v1.post("/memories/search", tags=["memories"], responses=_UNKNOWN_SCOPE)
    def search_memories(req: SearchRequest, caller: Who) -> list[SearchHit]:
        """Top-k per memory type, merged, de-duplicated, truncated to K; best first."""
        check_retrieval(req, limits)
        return memory.search(req.query, scope=caller.scope(**req.scope_fields(), access="read"), **_search_args(req))

    @v1.post("/memories/evidence", tags=["memories"], responses=_UNKNOWN_SCOPE)
    def evidence(req: SearchRequest, caller: Who) -> Evidence:
        """The serialized evidence block for a query (records with temporal anchors) and its token count."""
        check_retrieval(req, limits)
        return memory.evidence(req.query, scope=caller.scope(**req.scope_fields(), access="read"), **_search_args(req))

    @v1.post("/memories/answer", tags=["memories"], responses=_UNKNOWN_SCOPE)
    def answer(req: AnswerRequest, caller: Who) -> Answer:
        """Answer from memory: generated by the configured chat model, else the best evidence (extractive)."""
        check_retrieval(req, limits)
        scope = caller.scope(**req.scope_fields(), access="read")
        return memory.answer(req.question, scope=scope, question_time=req.question_time, **_search_args(req))

    @v1.get("/memories", tags=["memories"], responses={**_UNKNOWN_SCOPE, **_NEXT_CURSOR})
    def list_memories(
        response: Response,
        where: Where,
        caller: Who,
        types: Annotated[list[MemoryType] | None, Query()] = None,
        speaker: str | None = None,
        cursor: Annotated[str | None, Query(description="The X-Next-Cursor of the previous page.")] = None,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
        as_of: Annotated[datetime | None, Query(description="The memories that held at this time.")] = None,
        filters: Annotated[str | None, Query(description="A RecordFilter's fields as JSON, as in search.")] = None,
    ) -> list[MemoryItem]:
        """Current memories under a scope (unset ids are wildcards), by type then age, ``limit`` at a time: the
        next page's cursor is in the ``X-Next-Cursor`` header (absent on the last page). Keyset paging."""
        scope = caller.scope(**where.fields, access="read")
        page = memory.page(
            scope=scope, types=types, speaker=speaker, limit=limit, cursor=cursor, as_of=as_of, filters=_json_filters(filters)
        )
        if page.next_cursor is not None:
            response.headers[NEXT_CURSOR] = page.next_cursor
        return [MemoryItem.of(r) for r in page.items]

    @v1.delete("/memories", tags=["memories"], responses=_FORBIDDEN)
    def delete_scope(
        where: Where,
        caller: Who,
        wildcard: Annotated[bool, Query(description="Also every scope under a partial one (default: the exact scope only).")] = False,
    ) -> ScopeDeleted:
        """Forget the exact scope: its memories, every version of them in history, its raw messages and
        caches (``Memory.forget``). With ``wildcard=true``, every scope under a partial one: ``?user_id=ana``
        then also takes ana's memories under any agent or run. The scope's reasoning banks go too. A tenant key
        forgets within its own scope."""
        got = memory.forget(caller.scope(**where.fields, access="write"), wildcard=wildcard)
        return ScopeDeleted(
            deleted=got.records, messages=got.messages, history=got.history, scopes=got.scopes, banks=got.banks, keys=got.keys
        )

    @v1.get("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def get_memory(memory_id: str, where: Where, caller: Who) -> MemoryItem:
        """One memory, if it lies under the scope (a tenant key: its own)."""
        return MemoryItem.of(memory.get(memory_id, scope=caller.scope(**where.fields, access="record", record_id=memory_id)))

    @v1.patch("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def update_memory(memory_id: str, req: UpdateRequest, where: Where, caller: Who) -> MemoryItem:
        """Supersede a memory with new text and/or fields (re-embedded); the old version stays in its history."""
        clash = {"record_id", "text", "scope"} & set(req.fields)
        if clash:  # they would collide with Memory.update's own arguments (a TypeError: 500)
            raise InvalidInputError(f"cannot update {sorted(clash)} through fields; give the new text as text")
        scope = caller.scope(**where.fields, access="record", record_id=memory_id)
        return MemoryItem.of(memory.update(memory_id, req.text, scope=scope, **req.fields))

    @v1.delete("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def delete_memory(memory_id: str, where: Where, caller: Who) -> Deleted:
        """Delete one memory under the scope."""
        memory.delete(memory_id, scope=caller.scope(**where.fields, access="record", record_id=memory_id))
        return Deleted(deleted=1)

    @v1.get("/memories/{memory_id}/history", tags=["memories"], responses=_NOT_FOUND)
    def memory_history(memory_id: str, where: Where, caller: Who) -> list[HistoryEntry]:
        """Every version of a memory under the scope: created, updated, deleted."""
        return memory.history(memory_id, scope=caller.scope(**where.fields, access="record", record_id=memory_id))

    @v1.get("/messages", tags=["messages"], responses=_UNKNOWN_SCOPE)
    def messages(where: Where, caller: Who) -> list[RawMessage]:
        """The raw message log under a scope: everything ever said, routed or not."""
        return memory.messages(scope=caller.scope(**where.fields, access="read"))

    app.include_router(v1)
    app.include_router(bank_router(banks, require_key), dependencies=[Depends(require_key)], responses=_ERRORS)
    app.include_router(portability_router(memory, require_key), dependencies=[Depends(require_key)], responses=_ERRORS)
    if ui:  # the memory browser at /ui, behind the same keys (memdesk/server/ui.py)
        from .ui import ui_router

        app.include_router(ui_router(memory, keys, sessions=ui_sessions, banks=banks))

    if mcp_endpoint is not None:
        app.router.routes.append(Route("/mcp", endpoint=_KeyGuard(mcp_endpoint, keys), include_in_schema=False))
    return app


class _KeyGuard:
    """ASGI wrapper: the same API-key check for the MCP endpoint (streamable HTTP at ``/mcp``). The caller it
    finds travels in the request's state (``request.state.memdesk_caller``), where the MCP tools read it."""

    def __init__(self, app: Any, keys: ApiKeys) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and CALLER_STATE not in scope.get("state", {}):  # the request gate found none
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            # a tenant key is looked up in the database: off the event loop
            caller = await anyio.to_thread.run_sync(self.keys.caller, headers.get("authorization"), headers.get("x-api-key"))
            if caller is None:
                await unauthorized()(scope, receive, send)
                return
            scope.setdefault("state", {})[CALLER_STATE] = caller
        await self.app(scope, receive, send)
