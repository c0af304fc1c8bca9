"""memdesk over HTTP: a FastAPI app around one :class:`~memdesk.Memory`.

``create_app(memory, api_keys=...)`` builds it (constructor injection: the caller owns the memory);
``memdesk serve`` runs it with uvicorn. Every route under ``/v1`` (and ``/mcp``) needs an API key when keys
are configured; ``/healthz``, ``/openapi.json`` and ``/docs`` do not. Without keys the server answers only
requests addressed to a loopback name (DNS-rebinding protection), unless ``allowed_hosts`` says otherwise. Errors come back as
``{"error": {"type": "<memdesk exception>", "message": "..."}}`` with a status from
:mod:`memdesk.server.statuses` (404 unknown id, 409 embedder mismatch, 422 bad input, 503 database
locked, 502 model failure). Handlers are synchronous and run on the server's thread pool; the stores
are safe to share between threads and concurrent writers lose nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response, Security, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from ..conversation.memory import Memory
from ..errors import InvalidInputError, MemdeskError
from ..remote import NEXT_CURSOR
from ..records import AddResult, Answer, Evidence, HistoryEntry, MemoryRecord, MemoryType, RawMessage, Scope, SearchHit
from .auth import LOOPBACK_HOSTS, ApiKeys, HostGuard
from .schemas import AddRequest, AnswerRequest, Deleted, ErrorBody, Health, RetrievalOptions, SearchRequest, UpdateRequest
from .statuses import error_response, retry_after, status_for, unauthorized

_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="X-API-Key: <API key>")

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "Missing or wrong API key."},
    422: {"model": ErrorBody, "description": "Invalid input (bad scope, empty text, wrong shape)."},
}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "No memory with that id."}}
_NEXT_CURSOR: dict[int | str, dict[str, Any]] = {
    200: {"headers": {NEXT_CURSOR: {"description": "Pass as ?cursor= to read the next page; absent on the last page.",
                                    "schema": {"type": "string"}}}}
}


class NotAuthenticated(Exception):
    """Raised by the key check; answered with 401."""


def query_scope(
    user_id: Annotated[str | None, Query(description="user_id of the scope")] = None,
    agent_id: Annotated[str | None, Query(description="agent_id of the scope")] = None,
    run_id: Annotated[str | None, Query(description="run_id of the scope")] = None,
) -> Scope:
    return Scope(user_id=user_id, agent_id=agent_id, run_id=run_id)


def _search_args(req: RetrievalOptions) -> dict[str, Any]:
    return {
        "k": req.k, "K": req.K, "types": req.types, "speaker": req.speaker, "mode": req.mode, "merge": req.merge,
        "hybrid": req.hybrid,
    }


def create_app(
    memory: Memory,
    *,
    api_keys: ApiKeys | None = None,
    mcp: bool = True,
    allowed_hosts: Sequence[str] | None = None,
    title: str = "memdesk",
    ui: bool = True,
) -> FastAPI:
    """The HTTP API (and, with ``mcp=True`` and the MCP SDK installed, the MCP server at ``/mcp``, streamable HTTP).

    ``allowed_hosts``: Host header names the server answers for (``"*"``: any). By default any host when API
    keys are required, else only the loopback names, which blocks DNS-rebinding attacks from web pages.
    """
    from .. import __version__

    keys = api_keys or ApiKeys()
    if allowed_hosts is None:
        allowed_hosts = ["*"] if keys.required else list(LOOPBACK_HOSTS)

    def require_key(
        bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
        x_api_key: Annotated[str | None, Security(_header)] = None,
    ) -> None:
        authorization = f"Bearer {bearer.credentials}" if bearer else None
        if not keys.allows(authorization, x_api_key):
            raise NotAuthenticated()

    mcp_endpoint = None
    session_manager = None
    if mcp:
        from .mcp_tools import MCPServer, create_mcp_server

        if MCPServer is not None:
            mcp_server = create_mcp_server(memory)
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
        "history, scoped by user_id / agent_id / run_id.",
        lifespan=lifespan,
    )
    app.add_middleware(HostGuard, allowed=allowed_hosts)

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

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_key)], responses=_ERRORS)

    @v1.post("/memories", status_code=status.HTTP_201_CREATED, tags=["memories"])
    def add_memories(req: AddRequest) -> AddResult:
        """Route, extract, embed and store messages (one transaction; known message ids are skipped)."""
        return memory.add(list(req.messages), scope=req.scope(), timestamp=req.timestamp, speaker=req.speaker)

    @v1.post("/memories/search", tags=["memories"])
    def search_memories(req: SearchRequest) -> list[SearchHit]:
        """Top-k per memory type, merged, de-duplicated, truncated to K; best first."""
        return memory.search(req.query, scope=req.scope(), **_search_args(req))

    @v1.post("/memories/evidence", tags=["memories"])
    def evidence(req: SearchRequest) -> Evidence:
        """The serialized evidence block for a query (records with temporal anchors) and its token count."""
        return memory.evidence(req.query, scope=req.scope(), **_search_args(req))

    @v1.post("/memories/answer", tags=["memories"])
    def answer(req: AnswerRequest) -> Answer:
        """Answer from memory: generated by the configured chat model, else the best evidence (extractive)."""
        return memory.answer(req.question, scope=req.scope(), question_time=req.question_time, **_search_args(req))

    @v1.get("/memories", tags=["memories"], responses=_NEXT_CURSOR)
    def list_memories(
        response: Response,
        scope: Annotated[Scope, Depends(query_scope)],
        types: Annotated[list[MemoryType] | None, Query()] = None,
        speaker: str | None = None,
        cursor: Annotated[str | None, Query(description="The X-Next-Cursor of the previous page.")] = None,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    ) -> list[MemoryRecord]:
        """Memories under a scope, by type then age, ``limit`` at a time: the next page's cursor is in
        the ``X-Next-Cursor`` header (absent on the last page). Keyset paging: every page costs the same."""
        page = memory.page(scope=scope, types=types, speaker=speaker, limit=limit, cursor=cursor)
        if page.next_cursor is not None:
            response.headers[NEXT_CURSOR] = page.next_cursor
        return page.items

    @v1.delete("/memories", tags=["memories"])
    def delete_scope(scope: Annotated[Scope, Depends(query_scope)]) -> Deleted:
        """Delete every memory and raw message under the exact scope."""
        return Deleted(deleted=memory.delete_all(scope=scope))

    @v1.get("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def get_memory(memory_id: str) -> MemoryRecord:
        return memory.get(memory_id)

    @v1.patch("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def update_memory(memory_id: str, req: UpdateRequest) -> MemoryRecord:
        """Supersede a memory with new text and/or fields (re-embedded); the old version stays in its history."""
        clash = {"record_id", "text"} & set(req.fields)
        if clash:  # they would collide with Memory.update's own arguments (a TypeError: 500)
            raise InvalidInputError(f"cannot update {sorted(clash)} through fields; give the new text as text")
        return memory.update(memory_id, req.text, **req.fields)

    @v1.delete("/memories/{memory_id}", tags=["memories"], responses=_NOT_FOUND)
    def delete_memory(memory_id: str) -> Deleted:
        memory.delete(memory_id)
        return Deleted(deleted=1)

    @v1.get("/memories/{memory_id}/history", tags=["memories"], responses=_NOT_FOUND)
    def memory_history(memory_id: str) -> list[HistoryEntry]:
        """Every version of a memory: created, updated, deleted."""
        return memory.history(memory_id)

    @v1.get("/messages", tags=["messages"])
    def messages(scope: Annotated[Scope, Depends(query_scope)]) -> list[RawMessage]:
        """The raw message log under a scope: everything ever said, routed or not."""
        return memory.messages(scope=scope)

    app.include_router(v1)
    if ui:  # the memory browser at /ui, behind the same keys (memdesk/server/ui.py)
        from .ui import ui_router

        app.include_router(ui_router(memory, keys))

    if mcp_endpoint is not None:
        app.router.routes.append(Route("/mcp", endpoint=_KeyGuard(mcp_endpoint, keys), include_in_schema=False))
    return app


class _KeyGuard:
    """ASGI wrapper: the same API-key check for the MCP endpoint (streamable HTTP at ``/mcp``)."""

    def __init__(self, app: Any, keys: ApiKeys) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if not self.keys.allows(headers.get("authorization"), headers.get("x-api-key")):
                await unauthorized()(scope, receive, send)
                return
        await self.app(scope, receive, send)
