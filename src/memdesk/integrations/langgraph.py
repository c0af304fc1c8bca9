"""LangGraph's long-term memory store on memdesk: :class:`MemdeskStore`, a ``langgraph.store.base.BaseStore``.

``pip install 'memdesk[langgraph]'``. ``MemdeskStore()`` runs on memdesk's default settings (``Memory.open()``);
``MemdeskStore(memory)`` uses a Memory you built. Pass it to ``graph.compile(store=...)`` and the graph's nodes
(``get_store()``, ``InjectedStore``) read and write memdesk.

How items map onto memdesk:

* an item ``(namespace, key)`` lives in the scope ``user_id="<labels joined by '.'>", agent_id="langgraph",
  run_id="<key>"`` (LangGraph labels cannot contain ``.``; ``%`` and control characters are %-escaped), so
  ``("memories", "ana")`` is ``user_id="memories.ana"`` for memdesk's other faces too;
* ``put`` logs the value as a message of that scope (the value itself in the message's metadata, so ``get``
  returns it exactly) and, unless ``index=False``, runs its text through memdesk's pipeline: routed into typed
  episodic / semantic / procedural records, embedded, stored. The text is the value's ``index`` fields
  (``get_text_at_path`` paths), else ``text`` / ``content`` / ``memory`` / ``data`` when one is a string, else the
  value as JSON. A second ``put`` of the same key supersedes the first: its records are deleted;
* ``search(prefix, query=...)`` is memdesk retrieval (typed top-k, merged) in each namespace under the prefix,
  max-pooled per item (an item's score is its best record's), then LangGraph's ``filter`` on the values; without a
  query, the items newest first. ``delete`` deletes the scope. TTLs are not supported.

``abatch`` runs the same code through :func:`memdesk.runtime.aio.run` (blocking parts in worker threads).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from ..runtime import aio
from ..runtime.closing import ClosesOnExit
from ..conversation.memory import Memory
from ..records import RawMessage, Scope, new_id, utcnow

AGENT = "langgraph"
TEXT_FIELDS = ("text", "content", "memory", "data")
_META = "langgraph"


def _escape(label: str) -> str:
    """A label or key as a scope id: ``%`` and control characters %-escaped (UTF-8), a blank one escaped whole."""
    if not label:
        return "%"  # no escape yields a lone "%"
    out = "".join(quote(c, safe="") if c == "%" or ord(c) < 32 or ord(c) == 127 else c for c in label)
    return out if out.strip() else quote(label, safe="")


def _unescape(text: str) -> str:
    return "" if text == "%" else unquote(text)


def namespace_scope(namespace: tuple[str, ...]) -> Scope:
    """The memdesk scope holding every item of ``namespace`` (a read scope: any run, i.e. any key)."""
    return Scope(user_id=".".join(_escape(label) for label in namespace), agent_id=AGENT)


def item_scope(namespace: tuple[str, ...], key: str) -> Scope:
    return Scope(user_id=namespace_scope(namespace).user_id, agent_id=AGENT, run_id=_escape(str(key)))


def namespace_of(scope: Scope) -> tuple[str, ...]:
    return tuple(_unescape(label) for label in (scope.user_id or "").split("."))


def item_text(value: Mapping[str, Any], fields: list[str] | None) -> str:
    """The text memdesk remembers for a value (see the module docstring)."""
    if fields:
        parts = [t for f in fields for t in get_text_at_path(value, f) if t]
        if parts:
            return "\n".join(parts)
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _at(value: dict[str, Any], key: str) -> Any:
    """``value[key]``, or the nested field a dotted key names (``"user.name"``)."""
    if key in value:
        return value[key]
    node: Any = value
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def matches_filter(value: Any, condition: Any) -> bool:
    """LangGraph's filter semantics: equality, nested objects or dotted keys, and ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(condition, dict):
        if any(k.startswith("$") for k in condition):
            return all(_compare(value, op, operand) for op, operand in condition.items())
        return isinstance(value, dict) and all(matches_filter(_at(value, k), v) for k, v in condition.items())
    if isinstance(condition, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(condition)
            and all(matches_filter(a, b) for a, b in zip(value, condition))
        )
    return value == condition


_ORDER = {"$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return value == operand
    if op == "$ne":
        return value != operand
    if op not in _ORDER:
        raise ValueError(f"unsupported filter operator {op!r}")
    try:
        return _ORDER[op](float(value), float(operand))
    except (TypeError, ValueError):
        return False


def _matches_namespace(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path) if condition.match_type == "prefix" else zip(reversed(namespace), reversed(path))
    return all(p == "*" or n == p for n, p in pairs)


class _Ops:
    """The four LangGraph operations over one Memory (the plain one, or AsyncMemory's loop-safe twin)."""

    def __init__(self, memory: Memory, fields: list[str] | None, search_k: int) -> None:
        self.memory = memory
        self.fields = fields
        self.search_k = search_k

    def run(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self.get(tuple(op.namespace), op.key))
            elif isinstance(op, PutOp):
                out.append(self.put(op))
            elif isinstance(op, SearchOp):
                out.append(self.search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self.list_namespaces(op))
            else:
                raise ValueError(f"unknown store operation {op!r}")
        return out

    # -- items ---------------------------------------------------------------------------------------
    def get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        items = self._items(namespace, key=str(key))
        return items.get(str(key))

    def _items(self, namespace: tuple[str, ...], key: str | None = None) -> dict[str, Item]:
        """The current item of each key of ``namespace`` (its newest value message)."""
        scope = item_scope(namespace, key) if key is not None else namespace_scope(namespace)
        out: dict[str, Item] = {}
        for m in self.memory.messages(scope=scope):
            meta = m.metadata.get(_META)
            if not isinstance(meta, dict) or m.scope.run_id is None:
                continue
            k = _unescape(m.scope.run_id)
            out[k] = Item(
                namespace=namespace, key=k, value=meta["value"], created_at=datetime.fromisoformat(meta["created_at"]),
                updated_at=m.ingest_time,
            )
        return out

    def put(self, op: PutOp) -> None:
        namespace, key = tuple(op.namespace), str(op.key)
        scope = item_scope(namespace, key)
        if op.value is None:
            self.memory.delete_all(scope=scope)
            return None
        old = self.get(namespace, key)
        now = utcnow()
        value = dict(op.value)
        created = old.created_at if old is not None else now
        meta = {_META: {"value": value, "created_at": created.isoformat()}}
        text = item_text(value, op.index or self.fields)
        message_id = new_id()
        if op.index is False:
            raw = RawMessage(
                id=message_id, scope=scope, speaker=None, role="user", content=text, timestamp=now, ingest_time=now,
                metadata=meta,
            )
            self.memory.store.write(messages=[raw])
        else:
            self.memory.add({"id": message_id, "content": text, "timestamp": now, "metadata": meta}, scope=scope)
        # the new value supersedes the old one: its records go (the raw log keeps what was put)
        for record in self.memory.get_all(scope=scope):
            if message_id not in record.provenance:
                self.memory.delete(record.id, scope=scope)
        return None

    # -- reads ---------------------------------------------------------------------------------------
    def _namespaces(self) -> list[tuple[str, ...]]:
        found = {namespace_of(s) for s in self.memory.store.scopes(Scope(agent_id=AGENT)) if s.run_id is not None}
        return sorted(found)

    def search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        namespaces = [ns for ns in self._namespaces() if ns[: len(prefix)] == prefix]
        items: list[Item] = []
        scores: dict[tuple[tuple[str, ...], str], float] = {}
        want = op.offset + op.limit
        for ns in namespaces:
            current = self._items(ns)
            items.extend(v for v in current.values() if not op.filter or matches_filter(v.value, op.filter))
            if op.query:
                k = max(self.search_k, 4 * want)
                for hit in self.memory.search(op.query, scope=namespace_scope(ns), k=k, K=k):
                    run = hit.record.scope.run_id
                    if run is None or _unescape(run) not in current:
                        continue
                    key = (ns, _unescape(run))
                    scores[key] = max(scores.get(key, float("-inf")), hit.score)
        if op.query:
            items.sort(key=lambda it: (-(scores.get((it.namespace, it.key), float("-inf"))), it.namespace, it.key))
        else:
            items.sort(key=lambda it: it.updated_at, reverse=True)
        page = items[op.offset : op.offset + op.limit]
        return [
            SearchItem(
                namespace=it.namespace, key=it.key, value=it.value, created_at=it.created_at, updated_at=it.updated_at,
                score=scores.get((it.namespace, it.key)) if op.query else None,
            )
            for it in page
        ]

    def list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = self._namespaces()
        if op.match_conditions:
            namespaces = [ns for ns in namespaces if all(_matches_namespace(ns, c) for c in op.match_conditions)]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        return namespaces[op.offset : op.offset + op.limit]


class MemdeskStore(ClosesOnExit, BaseStore):
    """A LangGraph ``BaseStore`` whose items are memdesk memories (see the module docstring).

    Args:
        memory: the Memory to use; by default one from memdesk's settings (``Memory.open()``), closed by :meth:`close`.
        index_fields: default ``get_text_at_path`` paths of the text to remember (a ``put``'s ``index`` wins).
        search_k: records retrieved per memory type and kept after merging, at least, for a query search.
    """

    supports_ttl = False

    def __init__(self, memory: Memory | None = None, *, index_fields: list[str] | None = None, search_k: int = 25) -> None:
        self._owns = memory is None
        self.memory = memory if memory is not None else Memory.open()
        self.index_fields = index_fields
        self.search_k = search_k
        self._async_twin: Memory | None = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return _Ops(self.memory, self.index_fields, self.search_k).run(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self._async_twin is None:
            from ..client.async_api import AsyncMemory

            self._async_twin = AsyncMemory(self.memory)._sync
        return await aio.run(_Ops(self._async_twin, self.index_fields, self.search_k).run, list(ops))

    def setup(self) -> None:
        """Nothing to do: memdesk migrates its database when it opens it (LangGraph's SQL stores need this call)."""

    def close(self) -> None:
        """Close the Memory if this store opened it."""
        if self._owns:
            self.memory.close()
