"""A mem0-compatible facade: ``from memdesk.compat.mem0 import Memory`` in place of ``from mem0 import Memory``.

mem0's OSS calls with mem0's result shapes, over memdesk's typed memory (docs/mem0.md says what differs)::

    m = Memory()                                         # memdesk's defaults: SQLite + packaged MiniLM, offline
    m.add([{"role": "user", "content": "I'm Alex and I love basketball."}], user_id="alex")
    m.search("What does Alex like?", filters={"user_id": "alex"})   # {"results": [{"id", "memory", "score", ...}]}

Scopes. ``add``, ``search``, ``get_all`` and ``delete_all`` name theirs (``user_id=``/``agent_id=``/``run_id=``,
or ``filters={"user_id": ...}`` for reads, as mem0 takes them today or before). Calls that name a memory by id
(``get``, ``update``, ``delete``, ``history``) take the id alone, as mem0 code writes them.

Who may reach what. The facade is a library object in the application's own process, which holds the
database and may read every scope (as :class:`memdesk.Memory` in process does): an unbound facade
(``Memory()``) is that application, and a by-id call reaches the memory wherever it lies, as mem0's does. A
tenant is in play when the facade is bound to one (``Memory(scope={"user_id": "alex"})``, e.g. one per
authenticated request): every call then stays inside the bound scope, naming another id is a
:class:`~memdesk.errors.ForbiddenScopeError` (writes) or :class:`~memdesk.errors.UnknownScopeError` (reads),
and a by-id call on another tenant's memory reads as a missing one. Ids named in a by-id call
(``m.get(id, user_id="alex")``) narrow the check on either kind. ``delete_all()`` with no id raises
:class:`~memdesk.errors.InvalidScopeError`; ``reset()`` erases the bound scope (everything in the database
when unbound), as mem0's ``reset`` does.

Errors are memdesk's (one tree); the caller mistakes are ``ValueError`` subclasses, as mem0's are.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Mapping

from ..runtime import aio
from ..runtime.closing import ClosesOnExit
from ..client.async_api import AsyncMemory as _CoreAsyncMemory
from ..client.async_api import _AsyncFacade, _with_awaitable_methods
from ..conversation.base import Processor
from ..conversation.memory import Memory as _CoreMemory
from ..conversation.raw import RawTurnProcessor
from ..errors import (
    ConfigError,
    ForbiddenScopeError,
    InvalidInputError,
    InvalidScopeError,
    RecordNotFoundError,
    UnknownScopeError,
)
from ..records import Scope, utcnow
from ..text.textcheck import check_text
from .mem0_add import Mem0Processor, add_events, message_dict, message_list, timestamp_of
from .mem0_config import MappedConfig, map_config
from .mem0_results import ENTITY_KEYS, EXPIRES, UPDATED_AT, expiration, history_rows, memory_item, mem0_where

__all__ = ["AsyncMemory", "Memory"]

log = logging.getLogger(__name__)
_IDENTITY = set(ENTITY_KEYS) | {"actor_id"}
_UNSET: Any = object()  # update(expiration_date=) not given (None clears it)


def _with_processor(memory: _CoreMemory, processor: Processor) -> _CoreMemory:
    twin = copy.copy(memory)  # the same store, embedder, retriever and admission policy
    twin.processor = processor
    return twin


class Memory(ClosesOnExit):
    """mem0's ``Memory`` over a memdesk :class:`~memdesk.Memory`.

    ``Memory()`` runs on memdesk's settings (``MEMDESK_*``, embedded SQLite, packaged MiniLM, rule processor);
    ``Memory(config_dict)`` / :meth:`from_config` maps a mem0 config (:mod:`memdesk.compat.mem0_config`);
    ``Memory(memory=core)`` wraps a memdesk Memory you built (left open on :meth:`close`). ``scope`` binds the
    facade to one scope (a :class:`~memdesk.Scope` or its fields as a dict).
    """

    def __init__(self, config: Mapping[str, Any] | Any = None, *, memory: _CoreMemory | None = None,
                 scope: Scope | Mapping[str, Any] | None = None) -> None:
        if memory is not None and config is not None:
            raise ConfigError("give a mem0 config or a memdesk memory, not both")
        self._owned = memory is None
        if memory is None:
            mapped = map_config(config) if config is not None else MappedConfig()
            memory = _CoreMemory.open(None, **mapped.settings)
            if mapped.embedding_dims is not None and mapped.embedding_dims != memory.embedder.dim:
                memory.close()
                raise ConfigError(
                    f"the config asks for {mapped.embedding_dims}-dimensional embeddings; the embedder "
                    f"{memory.embedder.model_id!r} gives {memory.embedder.dim}"
                )
        self.memory = memory
        self.scope = scope if isinstance(scope, Scope) or scope is None else Scope(**scope)
        self._typed = _with_processor(memory, Mem0Processor(memory.processor))
        self._verbatim = _with_processor(memory, Mem0Processor(RawTurnProcessor(), repeats=False))

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any], *, scope: Scope | Mapping[str, Any] | None = None) -> "Memory":
        """A facade on the memdesk settings a mem0 config dict asks for (what does not map is a ConfigError)."""
        return cls(config_dict, scope=scope)

    def close(self) -> None:
        if self._owned:
            self.memory.close()

    # -- scopes ------------------------------------------------------------------------------
    def _scope(self, op: str, named: dict[str, str], outside: type[Exception] = ForbiddenScopeError) -> Scope:
        """The scope a call works in: the bound scope narrowed by the ids it names (never widened); naming an id
        outside the bound scope raises ``outside``."""
        if self.scope is not None:
            for key, value in named.items():
                bound = getattr(self.scope, key)
                if bound is not None and bound != value:
                    raise outside(f"{op}: this facade is bound to scope {self.scope}; {key}={value!r} is outside it")
            return Scope(**{k: named.get(k, getattr(self.scope, k)) for k in ENTITY_KEYS})
        if not named:
            raise InvalidScopeError(
                f"{op}: name at least one of user_id, agent_id, run_id (or bind the facade: Memory(scope={{'user_id': ...}}))"
            )
        return Scope(**named)

    def _by_id_scope(self, op: str, memory_id: Any, user_id: Any, agent_id: Any, run_id: Any) -> Scope:
        """The scope a by-id call checks the memory against: the bound scope (narrowed by the ids named), the ids
        named, or, on an unbound facade named no ids, the memory's own (the application reaches every scope)."""
        named = _ids(user_id=user_id, agent_id=agent_id, run_id=run_id)
        if self.scope is None and not named:
            return self._owner(memory_id)
        try:
            return self._scope(op, named)
        except ForbiddenScopeError:  # another user's id reads as a missing one
            raise RecordNotFoundError.under(memory_id, Scope(**named)) from None

    def _owner(self, memory_id: Any) -> Scope:
        """The exact scope a memory (or a deleted memory's tombstone) lies in; RecordNotFoundError if none."""
        if not isinstance(memory_id, str) or not memory_id:
            raise InvalidInputError("memory_id must be a non-empty string")
        check_text(memory_id, "memory id")
        record = self.memory.store.get(memory_id)
        if record is not None:
            return record.scope
        entries = self.memory.store.history(memory_id)
        if entries:
            return entries[0].scope
        raise RecordNotFoundError(f"no memory with id {memory_id!r}")

    def _read_scope(self, op: str, filters: Mapping[str, Any] | None, **top_level: Any) -> tuple[Scope, dict[str, Any]]:
        if filters is not None and not isinstance(filters, Mapping):
            raise InvalidInputError(f"{op}: filters must be a dict")
        conditions = dict(filters or {})
        from_filters = _ids(**{k: conditions.pop(k) for k in ENTITY_KEYS if k in conditions})
        named = _ids(**top_level)
        clash = sorted(k for k in set(from_filters) & set(named) if from_filters[k] != named[k])
        if clash:
            raise InvalidInputError(f"{op}: {clash} differ between filters and the keyword arguments")
        return self._scope(op, {**from_filters, **named}, UnknownScopeError), conditions

    # -- write path --------------------------------------------------------------------------
    def add(self, messages: Any, *, user_id: Any = None, agent_id: Any = None, run_id: Any = None,
            metadata: Mapping[str, Any] | None = None, infer: bool = True, memory_type: str | None = None,
            prompt: str | None = None, timestamp: Any = None, expiration_date: Any = None) -> dict[str, Any]:
        """Remember ``messages`` (a string, a message dict or a list of them) under the named scope.

        ``infer=True`` runs memdesk's typed pipeline (episodic, semantic and procedural records; an LLM only
        when one is configured); ``infer=False`` keeps each message verbatim as one memory. ``metadata`` goes
        on every memory written (``user_id``/``agent_id``/``run_id``/``actor_id`` in it are ignored: the
        scope comes from the arguments only). ``timestamp`` (datetime, ISO string or Unix seconds) dates
        messages that carry none. ``expiration_date`` (``YYYY-MM-DD``) hides the memories from ``search`` and
        ``get_all`` after that day, unless ``show_expired``. Returns ``{"results": [{"id", "memory", "event", ...}]}``,
        one event per memory (``mem0_add.add_events``)."""
        if memory_type is not None:
            raise InvalidInputError("memory_type: memdesk decides each memory's type (episodic, semantic, procedural); drop it")
        if prompt is not None:
            raise InvalidInputError("prompt: memdesk's processors take no free-text prompt; drop it")
        if not isinstance(infer, bool):
            raise InvalidInputError("infer must be true or false")
        expires = expiration(expiration_date)
        scope = self._scope("add", _ids(user_id=user_id, agent_id=agent_id, run_id=run_id))
        extra = _strip_identity(metadata, {}, "add()")
        if expires is not None:
            extra[EXPIRES] = expires
        batch = [message_dict(m, i, extra) for i, m in enumerate(message_list(messages))]
        target = self._typed if infer else self._verbatim
        result = target.add(batch, scope=scope, timestamp=timestamp_of(timestamp))
        unchanged = target.processor.unchanged(result.message_ids)  # type: ignore[attr-defined]
        return {"results": add_events(result, unchanged)}

    def update(self, memory_id: str, text: str | None = None, metadata: Mapping[str, Any] | None = None,
               expiration_date: Any = _UNSET, data: str | None = None, *, user_id: Any = None, agent_id: Any = None,
               run_id: Any = None) -> dict[str, str]:
        """Replace a memory's text and/or merge ``metadata`` into it (``data`` is mem0's older name for ``text``)
        and/or set its ``expiration_date`` (None clears it); the old version stays in :meth:`history`. A memory
        outside the scope is a RecordNotFoundError."""
        if text is None:
            text = data
        if text is None and metadata is None and expiration_date is _UNSET:
            raise InvalidInputError("update: give text (or data), metadata or expiration_date")
        expires = {} if expiration_date is _UNSET else {EXPIRES: expiration(expiration_date)}
        scope = self._by_id_scope("update", memory_id, user_id, agent_id, run_id)
        old = self.memory.get(memory_id, scope=scope)
        merged = {**old.metadata, **_strip_identity(metadata, {}, "update()"), **expires, UPDATED_AT: utcnow().isoformat()}
        self.memory.update(memory_id, text, scope=scope, metadata=merged)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str, *, user_id: Any = None, agent_id: Any = None, run_id: Any = None) -> dict[str, str]:
        """Delete one memory (its history keeps the DELETE); outside the scope it is a RecordNotFoundError."""
        self.memory.delete(memory_id, scope=self._by_id_scope("delete", memory_id, user_id, agent_id, run_id))
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, user_id: Any = None, agent_id: Any = None, run_id: Any = None) -> dict[str, str]:
        """Erase every memory, its history and the raw messages under the named scope (every agent and run
        under a user, as in mem0). With no id it raises InvalidScopeError: it never deletes everything."""
        named = _ids(user_id=user_id, agent_id=agent_id, run_id=run_id)
        if not named:
            raise InvalidScopeError(
                "delete_all: name user_id, agent_id or run_id; it never deletes everything (reset() erases all "
                "this facade can reach)"
            )
        self.memory.forget(self._scope("delete_all", named), wildcard=True)
        return {"message": "Memories deleted successfully!"}

    def reset(self) -> None:
        """Erase everything this facade reaches: its bound scope, or, unbound, every scope in the database."""
        if self.scope is not None:
            self.memory.forget(self.scope, wildcard=True)
            return
        for scope in self.memory.store.scopes():
            self.memory.forget(scope)

    # -- read path ---------------------------------------------------------------------------
    def search(self, query: str, *, top_k: int = 20, filters: Mapping[str, Any] | None = None,
               threshold: float | None = None, limit: int | None = None, user_id: Any = None, agent_id: Any = None,
               run_id: Any = None, rerank: bool = False, explain: bool = False, show_expired: bool = False,
               reference_date: Any = None) -> dict[str, Any]:
        """The memories under the scope that best match ``query``, best first, each with its ``score``.

        ``filters`` holds the scope ids and mem0's metadata conditions; ``limit`` is the older name of
        ``top_k``; ``threshold`` drops hits scored below it; ``explain`` adds ``score_details``."""
        if reference_date is not None:
            raise InvalidInputError("reference_date: give memdesk the messages' own timestamps at add() instead")
        top_k = _count("top_k", top_k if limit is None else limit)
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1):
            raise InvalidInputError(f"threshold must be a number between 0 and 1, got {threshold!r}")
        scope, conditions = self._read_scope("search", filters, user_id=user_id, agent_id=agent_id, run_id=run_id)
        where = mem0_where(conditions, expired_before=None if show_expired else utcnow().date())
        if top_k == 0:
            return {"results": []}
        hits = self.memory.search(query, scope=scope, k=top_k, K=top_k, filters=where)  # filtered before ranking
        results = []
        for hit in hits:  # score: memdesk's calibrated relevance in [0, 1], best first (docs/scores.md)
            if threshold is not None and hit.score < threshold:
                break  # the scores never rise down the list
            item = memory_item(hit.record, score=hit.score)
            if explain:
                item["score_details"] = {
                    "why": hit.why, "rank_in_type": hit.rank, "memory_type": hit.memory_type.value, "cosine": hit.cosine,
                }
            results.append(item)
            if len(results) == top_k:
                break
        return {"results": results}

    def get(self, memory_id: str, *, user_id: Any = None, agent_id: Any = None, run_id: Any = None) -> dict[str, Any] | None:
        """One memory, or ``None`` when there is none with that id under the scope (as for a missing id)."""
        try:
            scope = self._by_id_scope("get", memory_id, user_id, agent_id, run_id)
            return memory_item(self.memory.get(memory_id, scope=scope), with_score=True)
        except RecordNotFoundError:
            return None

    def get_all(self, *, filters: Mapping[str, Any] | None = None, top_k: int = 20, limit: int | None = None,
                user_id: Any = None, agent_id: Any = None, run_id: Any = None, show_expired: bool = False) -> dict[str, Any]:
        """Up to ``top_k`` memories under the scope (``limit`` is the older name) that match the metadata filters."""
        top_k = _count("top_k", top_k if limit is None else limit)
        scope, conditions = self._read_scope("get_all", filters, user_id=user_id, agent_id=agent_id, run_id=run_id)
        where = mem0_where(conditions, expired_before=None if show_expired else utcnow().date())
        if top_k == 0:
            return {"results": []}
        page = self.memory.page(scope=scope, filters=where, limit=top_k)  # the store's filtered keyset page
        return {"results": [memory_item(r) for r in page.items]}

    def history(self, memory_id: str, *, user_id: Any = None, agent_id: Any = None, run_id: Any = None) -> list[dict[str, Any]]:
        """mem0's history rows of one memory (ADD, UPDATE, DELETE), oldest first; ``[]`` when there is none
        under the scope (a missing id and another user's read the same)."""
        try:
            scope = self._by_id_scope("history", memory_id, user_id, agent_id, run_id)
            return history_rows(self.memory.history(memory_id, scope=scope))
        except RecordNotFoundError:
            return []


@_with_awaitable_methods(Memory)
class AsyncMemory(_AsyncFacade):
    """mem0's ``AsyncMemory``: :class:`Memory`'s methods, awaitable (same arguments, results and errors),
    over :class:`memdesk.AsyncMemory`'s loop-safe parts."""

    def __init__(self, config: Mapping[str, Any] | Any = None, *, memory: _CoreMemory | None = None,
                 scope: Scope | Mapping[str, Any] | None = None) -> None:
        self._view = owner = Memory(config, memory=memory, scope=scope)
        self._sync = Memory(memory=_CoreAsyncMemory(owner.memory)._sync, scope=owner.scope)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any], *, scope: Scope | Mapping[str, Any] | None = None) -> "AsyncMemory":
        return cls(config_dict, scope=scope)

    async def close(self) -> None:
        await aio.run(self._view.close)


def _ids(**ids: Any) -> dict[str, str]:
    """The scope ids a call names, as mem0 takes them: numbers become strings, surrounding blanks go."""
    out = {}
    for key, value in ids.items():
        if value is None:
            continue
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise InvalidScopeError(f"{key} must be a string, not {type(value).__name__}")
        value = str(value).strip()
        if not value or value == "*":
            raise InvalidScopeError(f"{key} {value!r}: name one {key.split('_')[0]} (empty ids and '*' are refused)")
        out[key] = value
    return out


def _strip_identity(metadata: Mapping[str, Any] | None, existing: Mapping[str, Any], context: str) -> dict[str, Any]:
    """Caller metadata without the identity keys (a memory's scope comes from the scope arguments only)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{context}: metadata must be a dict")
    clean = {}
    for key, value in metadata.items():
        if key not in _IDENTITY:
            clean[str(key)] = value
        elif value != existing.get(key):
            log.warning("%s: ignoring metadata[%r] - identity fields cannot be set through metadata", context, key)
    return clean


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{name} must be a non-negative integer, got {value!r}")
    return value
