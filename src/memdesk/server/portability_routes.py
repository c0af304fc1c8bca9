"""Export and import over HTTP: a tenant's own export (``GET /v1/export``: the right of access beside the right to
be forgotten, ``DELETE /v1/memories``) and the admin's export and import of any scope (``/v1/admin/...``).

An export is the JSON Lines file of :mod:`memdesk.portability.format` (``application/x-ndjson``), written to a
temporary file and streamed. A tenant key exports only under its own scope (its ids filled in; naming another
tenant is a 404, as for every read); the admin routes answer 403 to a tenant key. An import takes the file as the
request body; a clash with what the store holds is a 409 unless ``on_conflict`` says skip or replace.
"""

import os
import tempfile
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse

from ..conversation.memory import Memory
from ..errors import ForbiddenScopeError
from ..portability.importer import ImportResult
from ..records import Scope
from ..tenants import Caller
from .schemas import ErrorBody

NDJSON = "application/x-ndjson"
_FILE = {200: {"content": {NDJSON: {}}, "description": "A memdesk export (JSON Lines; see docs/portability.md)."}}
_ADMIN = {403: {"model": ErrorBody, "description": "Not an admin key."}}
_CLASH = {409: {"model": ErrorBody, "description": "The store already holds some of the file (on_conflict=fail)."}}


def _stream(memory: Memory, scope: Scope, wildcard: bool, vectors: bool) -> StreamingResponse:
    fd, path = tempfile.mkstemp(prefix="memdesk-export-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            memory.export(scope, out, wildcard=wildcard, vectors=vectors)
    except BaseException:
        os.unlink(path)
        raise

    def chunks() -> Iterator[bytes]:
        try:
            with open(path, "rb") as f:
                while block := f.read(1 << 16):
                    yield block
        finally:
            os.unlink(path)

    return StreamingResponse(chunks(), media_type=NDJSON, headers={"Content-Disposition": 'attachment; filename="memdesk-export.jsonl"'})


def _admin(caller: Caller) -> None:
    if not caller.is_admin:
        raise ForbiddenScopeError("only an admin key may use /v1/admin")


def portability_router(memory: Memory, require_key: Any) -> APIRouter:
    """The export and import routes; ``require_key`` is the HTTP API's key dependency (it returns the caller)."""
    Who = Annotated[Caller, Depends(require_key)]
    router = APIRouter(prefix="/v1", tags=["export and import"])
    Wildcard = Annotated[bool, Query(description="Every scope under a partial one (default: the exact scope only).")]
    Vectors = Annotated[bool, Query(description="Include the vectors and the embedder's identity.")]

    @router.get("/export", response_class=StreamingResponse, responses=_FILE)
    def export_own(
        caller: Who, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
        wildcard: Wildcard = True, vectors: Vectors = False,
    ) -> StreamingResponse:  # fmt: skip
        """Everything stored under the caller's scope (a tenant key: its own; by default with every agent and run
        under it): memories with their history, raw messages, reasoning banks."""
        scope = caller.scope(user_id, agent_id, run_id, access="read")
        return _stream(memory, scope, wildcard, vectors)

    @router.get("/admin/export", response_class=StreamingResponse, responses={**_FILE, **_ADMIN})
    def export_any(
        caller: Who, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
        wildcard: Wildcard = False, vectors: Vectors = False,
    ) -> StreamingResponse:  # fmt: skip
        """Any scope (admin keys only)."""
        _admin(caller)
        return _stream(memory, caller.scope(user_id, agent_id, run_id, access="read"), wildcard, vectors)

    @router.post("/admin/import", responses={**_ADMIN, **_CLASH})
    async def import_file(
        request: Request, caller: Who, on_conflict: Literal["fail", "skip", "replace"] = "fail"
    ) -> ImportResult:
        """Restore an export file sent as the request body (admin keys only)."""
        _admin(caller)
        fd, path = tempfile.mkstemp(prefix="memdesk-import-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "wb") as f:
                async for block in request.stream():
                    f.write(block)
            return await anyio.to_thread.run_sync(lambda: memory.import_(path, on_conflict=on_conflict))
        finally:
            os.unlink(path)

    return router


__all__ = ["portability_router"]
