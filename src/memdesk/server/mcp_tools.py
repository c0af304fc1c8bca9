"""memdesk as an MCP server: tools an agent calls to remember, recall and curate memories.

Build it around a :class:`~memdesk.Memory` with :func:`create_mcp_server`; ``memdesk mcp`` serves it
over stdio, ``memdesk serve`` mounts it at ``/mcp`` (streamable HTTP, behind the API keys). Tool
failures that are the caller's mistake come back as tool errors naming the memdesk exception, so the
model can correct the call; nothing stored is touched by a failed call.
"""

from __future__ import annotations

from datetime import datetime
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..conversation.memory import Memory
from ..reasoning.service import ReasoningBanks
from ..hits import MemoryItem, SearchHit
from ..records import MemoryType, Scope
from ..store.base import Forgotten
from ..tenants import Access, Caller
from .mcp_bank_tools import BANK_INSTRUCTIONS, register_bank_tools

from .mcp_common import MCPServer, scoped, tool_errors

INSTRUCTIONS = (
    "Long-term memory for this conversation partner. Call add_memory with what the user says that is worth "
    "keeping (facts, events, instructions), and search_memory or memory_evidence before answering anything "
    "that depends on the past. Memories are scoped by user_id, agent_id and run_id: give at least one, and "
    "the same ones every time (with a tenant's key, its own user_id is filled in). Each memory has an id for "
    "get/update/delete and a history of versions."
)



class AddOutcome(BaseModel):
    message_ids: list[str]
    routes: dict[str, str] = Field(description="message id -> 3-bit route mask (episodic, semantic, procedural).")
    memories: list[MemoryItem]
    pending: list[str] = Field(default_factory=list, description="wait=false: ids logged pending, processed in the background.")


class EvidenceBlock(BaseModel):
    text: str = Field(description="The serialized evidence, ready to place before a question.")
    tokens: int
    memory_ids: list[str]


class Version(BaseModel):
    id: str
    version: int
    event: str
    changed_at: datetime
    memory: MemoryItem | None = Field(description="What this version said; null for a deletion (only a tombstone is kept).")


_FILTERS = (
    "Conditions on the memories: metadata (key -> value, list of values, or {gt, gte, lt, lte: bound}), roles, "
    "sources, since, until (event time), include_superseded, now (the time a default read counts as now)."
)
_ASKED_AT = "When the question is asked (default now): dates its 'yesterday' or 'two weeks ago'."


_IDS = ("user_id", "agent_id", "run_id")


def _scoped(default: Caller, access: Access, record: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A memory tool's ``scope``: the ids the model gives, checked for ``access`` (for ``"record"``: to the
    record its argument ``record`` names) against the caller (see :func:`.mcp_common.scoped`)."""

    def scope_of(caller: Caller, args: dict[str, Any]) -> Scope:
        record_id = args[record] if record is not None else None
        return caller.scope(args["user_id"], args["agent_id"], args["run_id"], access=access, record_id=record_id)

    return scoped(default, _IDS, scope_of)


def create_mcp_server(
    memory: Memory, *, name: str = "memdesk", caller: Caller | None = None, banks: ReasoningBanks | None = None
) -> "MCPServer":
    """An MCP server whose tools read and write ``memory`` (which the caller owns and closes), and the reasoning
    banks ``banks`` (default: those of the memory's store and embedder, no chat model).

    Over HTTP (mounted by :func:`~memdesk.server.create_app`) each call is scoped by the request's API key;
    over stdio or in process by ``caller`` (default: an admin, who may name any scope; pass
    ``Caller(tenant=Tenant(user_id=...))`` to bind the server to one tenant)."""
    default = caller or Caller()
    if MCPServer is None:
        from ..errors import ConfigError

        raise ConfigError("the MCP server needs the server extra: pip install 'memdesk[server]'")
    from .. import __version__

    server = MCPServer(name=name, version=__version__, instructions=INSTRUCTIONS + BANK_INSTRUCTIONS)

    @server.tool()
    @tool_errors
    @_scoped(default, "write")
    def add_memory(
        text: str,
        scope: Scope,
        speaker: str | None = None,
        timestamp: datetime | None = None,
        metadata: dict[str, Any] | None = Field(default=None, description="Kept on the message and its memories."),
        wait: bool = Field(default=True, description="false: log it pending and return at once; processed in the background."),
    ) -> AddOutcome:
        """Remember one message: it is routed into episodic, semantic and/or procedural memories."""
        message = {"content": text, "speaker": speaker, "timestamp": timestamp, "metadata": metadata or {}}
        result = memory.add(message, scope=scope, wait=wait)
        return AddOutcome(
            message_ids=result.message_ids, routes=result.routes, memories=[MemoryItem.of(r) for r in result.records],
            pending=result.pending,
        )  # fmt: skip

    @server.tool()
    @tool_errors
    @_scoped(default, "read")
    def search_memory(
        query: str,
        scope: Scope,
        limit: int = Field(default=10, ge=1, le=100, description="Memories to return (K)."),
        types: list[MemoryType] | None = None,
        speaker: str | None = None,
        as_of: datetime | None = Field(default=None, description="Read the memory as it stood at this time."),
        filters: dict[str, Any] | None = Field(default=None, description=_FILTERS),
        asked_at: datetime | None = Field(default=None, description=_ASKED_AT),
    ) -> list[SearchHit]:
        """Find the current memories most related to a query, best first."""
        hits = memory.search(
            query, scope=scope, K=limit, types=types, speaker=speaker, as_of=as_of, filters=filters, asked_at=asked_at
        )
        return hits

    @server.tool()
    @tool_errors
    @_scoped(default, "read")
    def memory_evidence(
        query: str,
        scope: Scope,
        speaker: str | None = None,
        as_of: datetime | None = Field(default=None, description="Read the memory as it stood at this time."),
        filters: dict[str, Any] | None = Field(default=None, description=_FILTERS),
        asked_at: datetime | None = Field(default=None, description=_ASKED_AT),
    ) -> EvidenceBlock:
        """The evidence block for a question (retrieved memories with their dates), to read before answering."""
        ev = memory.evidence(query, scope=scope, speaker=speaker, as_of=as_of, filters=filters, asked_at=asked_at)
        return EvidenceBlock(text=ev.text, tokens=ev.tokens, memory_ids=[h.record.id for h in ev.hits])

    @server.tool()
    @tool_errors
    @_scoped(default, "read")
    def list_memories(
        scope: Scope,
        types: list[MemoryType] | None = None,
        limit: int = Field(default=100, ge=1, le=1000),
        as_of: datetime | None = Field(default=None, description="The memories that held at this time."),
        filters: dict[str, Any] | None = Field(default=None, description=_FILTERS),
    ) -> list[MemoryItem]:
        """Every current memory under a scope (episodic, semantic, then procedural; oldest first within each), up to ``limit``."""
        page = memory.page(scope=scope, types=types, limit=limit, as_of=as_of, filters=filters)
        return [MemoryItem.of(r) for r in page.items]

    @server.tool()
    @tool_errors
    @_scoped(default, "record", "memory_id")
    def get_memory(memory_id: str, scope: Scope) -> MemoryItem:
        """One memory by id, if it lies under the scope."""
        return MemoryItem.of(memory.get(memory_id, scope=scope))

    @server.tool()
    @tool_errors
    @_scoped(default, "record", "memory_id")
    def update_memory(memory_id: str, text: str, scope: Scope) -> MemoryItem:
        """Replace a memory's text (re-embedded; the old version stays in its history)."""
        return MemoryItem.of(memory.update(memory_id, text, scope=scope))

    @server.tool()
    @tool_errors
    @_scoped(default, "record", "memory_id")
    def delete_memory(memory_id: str, scope: Scope) -> Literal["deleted"]:
        """Delete a memory under the scope."""
        memory.delete(memory_id, scope=scope)
        return "deleted"

    @server.tool()
    @tool_errors
    @_scoped(default, "write")
    def forget_memories(scope: Scope, wildcard: bool = False) -> Forgotten:
        """Erase a scope for good: its memories, their history, its raw messages and the API keys bound to it
        (this session's own, if so: later calls are refused). The exact scope only, unless ``wildcard`` (then
        also every agent and run under it). Only when the user asks to be forgotten."""
        return memory.forget(scope, wildcard=wildcard)

    @server.tool()
    @tool_errors
    @_scoped(default, "record", "memory_id")
    def memory_history(memory_id: str, scope: Scope) -> list[Version]:
        """Every version of a memory under the scope: created, updated; a deleted memory's is its deletion alone
        (memory null: its content is not kept)."""
        return [
            Version(id=e.record_id, version=e.version, event=e.event.value, changed_at=e.changed_at,
                    memory=None if e.record is None else MemoryItem.of(e.record))
            for e in memory.history(memory_id, scope=scope)
        ]

    register_bank_tools(server, banks if banks is not None else ReasoningBanks(memory.store, memory.embedder), default)
    return server
