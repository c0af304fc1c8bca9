"""mem0's result shapes and metadata filters over memdesk records.

A memory is a dict as mem0's ``MemoryItem`` dumps it (``id``, ``memory``, ``hash``, ``metadata``,
``created_at``, ``updated_at``, ``score`` from a search) with the ids of its scope, ``actor_id`` (the
speaker) and ``role`` promoted, plus memdesk's ``memory_type`` and ``temporal_anchor``. Metadata filters
use mem0's operators (``eq ne in nin gt gte lt lte contains icontains``, ``"*"``, ``AND``/``OR``/``NOT``)
over the record's metadata and its promoted fields.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from ..errors import InvalidInputError
from ..records import HistoryEntry, MemoryRecord

__all__ = ["ENTITY_KEYS", "UPDATED_AT", "history_rows", "memory_item", "metadata_matcher"]

ENTITY_KEYS = ("user_id", "agent_id", "run_id")
#: the metadata key the facade stamps on an updated record (shown as ``updated_at``, not in ``metadata``)
UPDATED_AT = "mem0_updated_at"


def memory_item(record: MemoryRecord, *, score: float | None = None, with_score: bool = False) -> dict[str, Any]:
    """One memory as mem0 returns it from ``get`` (``with_score`` with ``score=None``), ``get_all`` or ``search``."""
    text = record.body()
    metadata = {k: v for k, v in record.metadata.items() if k != UPDATED_AT}
    created = record.ingest_time.isoformat()
    item: dict[str, Any] = {
        "id": record.id,
        "memory": text,
        "hash": hashlib.md5(text.encode("utf-8")).hexdigest(),
        "metadata": metadata or None,
        "created_at": created,
        "updated_at": record.metadata.get(UPDATED_AT, created),
    }
    if with_score or score is not None:
        item["score"] = score
    for key in ENTITY_KEYS:
        value = getattr(record.scope, key)
        if value is not None:
            item[key] = value
    if record.speaker is not None:
        item["actor_id"] = record.speaker
    item["role"] = record.role
    item["memory_type"] = record.type
    if record.temporal_anchor is not None:
        item["temporal_anchor"] = record.temporal_anchor
    return item


def history_rows(entries: Sequence[HistoryEntry]) -> list[dict[str, Any]]:
    """A record's versions as rows of mem0's history table, oldest first. A deleted memory's history is
    memdesk's tombstone alone (no content kept): one DELETE row with no old or new memory."""
    rows = []
    previous: str | None = None
    created = next((e.record.ingest_time.isoformat() for e in entries if e.record is not None), None)
    for e in entries:
        text = e.record.body() if e.record is not None else None
        deleted = e.event.value == "DELETE"
        rows.append(
            {
                "id": f"{e.record_id}:{e.version}",
                "memory_id": e.record_id,
                "old_memory": previous,
                "new_memory": None if deleted else text,
                "event": e.event.value,
                "created_at": created,
                "updated_at": e.changed_at.isoformat(),
                "is_deleted": deleted,
                "actor_id": e.record.speaker if e.record is not None else None,
                "role": e.record.role if e.record is not None else None,
            }
        )
        previous = text
    return rows


_OPERATORS = {
    "eq": lambda v, x: v == x,
    "ne": lambda v, x: v != x,
    "in": lambda v, x: v in x,
    "nin": lambda v, x: v not in x,
    "gt": lambda v, x: v is not None and v > x,
    "gte": lambda v, x: v is not None and v >= x,
    "lt": lambda v, x: v is not None and v < x,
    "lte": lambda v, x: v is not None and v <= x,
    "contains": lambda v, x: isinstance(v, str) and str(x) in v,
    "icontains": lambda v, x: isinstance(v, str) and str(x).lower() in v.lower(),
}
_MISSING = object()


def metadata_matcher(conditions: Mapping[str, Any]) -> Any:
    """A predicate ``record -> bool`` for mem0 filter conditions (entity ids already taken out); ``None`` when
    there are none. Bad operators raise :class:`InvalidInputError` now, not at the first record."""
    if not conditions:
        return None
    check = _compile(conditions)

    def matches(record: MemoryRecord) -> bool:
        payload = {**record.metadata, "role": record.role, "memory_type": record.type}
        if record.speaker is not None:
            payload["actor_id"] = record.speaker
        if record.source is not None:
            payload["source"] = record.source
        return check(payload)

    return matches


def _compile(conditions: Mapping[str, Any]) -> Any:
    checks = [_compile_one(key, value) for key, value in conditions.items()]
    return lambda payload: all(c(payload) for c in checks)


def _compile_one(key: str, value: Any) -> Any:
    if key in ("AND", "OR", "NOT"):
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise InvalidInputError(f"filters {key} takes a list of filter dicts")
        parts = [_compile(v) for v in value]
        if key == "AND":
            return lambda p: all(c(p) for c in parts)
        if key == "OR":
            return lambda p: any(c(p) for c in parts)
        return lambda p: not any(c(p) for c in parts)
    if key in ENTITY_KEYS:
        raise InvalidInputError(f"filters: name {key} at the top level of filters, not inside AND/OR/NOT")
    if value == "*":
        return lambda p: p.get(key, _MISSING) is not _MISSING
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(_OPERATORS))
        if unknown or not value:
            raise InvalidInputError(f"filters {key}: unknown operators {unknown}; use {sorted(_OPERATORS)}")
        for op in ("in", "nin"):
            if op in value and not isinstance(value[op], (list, tuple, set)):
                raise InvalidInputError(f"filters {key}.{op} takes a list")
        ops = [(_OPERATORS[op], operand) for op, operand in value.items()]

        def check(p: dict[str, Any]) -> bool:
            v = p.get(key)
            try:
                return all(fn(v, operand) for fn, operand in ops)
            except TypeError:  # a comparison between kinds that do not order (3 > "a"): no match
                return False

        return check
    return lambda p: p.get(key, _MISSING) == value
