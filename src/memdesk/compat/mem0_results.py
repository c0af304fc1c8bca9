"""mem0's result shapes and metadata filters over memdesk records.

A memory is a dict as mem0's ``MemoryItem`` dumps it (``id``, ``memory``, ``hash``, ``metadata``,
``created_at``, ``updated_at``, ``score`` from a search) with the ids of its scope, ``actor_id`` (the
speaker) and ``role`` promoted, plus memdesk's ``memory_type`` and ``temporal_anchor``. Metadata filters
use mem0's operators (``eq ne in nin gt gte lt lte contains icontains``, ``"*"``, ``AND``/``OR``/``NOT``),
translated into memdesk's one :class:`~memdesk.filters.RecordFilter` (:func:`mem0_where`), so they are
applied by the store's filtered reads before ranking, as on every other face.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Any, Mapping, Sequence

from ..errors import InvalidInputError
from ..filters import RecordFilter
from ..metadata_conditions import LOGIC
from ..records import HistoryEntry, MemoryRecord

__all__ = ["ENTITY_KEYS", "EXPIRES", "UPDATED_AT", "expiration", "history_rows", "memory_item", "mem0_where"]

ENTITY_KEYS = ("user_id", "agent_id", "run_id")
#: the metadata key the facade stamps on an updated record (shown as ``updated_at``, not in ``metadata``)
UPDATED_AT = "mem0_updated_at"
#: the metadata key of mem0's ``expiration_date`` (``YYYY-MM-DD``; shown at the top level of a memory, as mem0 does)
EXPIRES = "expiration_date"


def expiration(value: Any) -> str | None:
    """mem0's ``expiration_date`` (a date, a datetime or a ``YYYY-MM-DD`` string) as ``YYYY-MM-DD``."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise InvalidInputError(f"expiration_date must be a date in YYYY-MM-DD format, got {value!r}")


def memory_item(record: MemoryRecord, *, score: float | None = None, with_score: bool = False) -> dict[str, Any]:
    """One memory as mem0 returns it from ``get`` (``with_score`` with ``score=None``), ``get_all`` or ``search``."""
    text = record.text()  # what the memory says, as on every face (memdesk.hits)
    metadata = {k: v for k, v in record.metadata.items() if k not in (UPDATED_AT, EXPIRES)}
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
    if record.metadata.get(EXPIRES) is not None:
        item[EXPIRES] = record.metadata[EXPIRES]
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
        text = e.record.text() if e.record is not None else None
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


_PROMOTED = {"role": "roles", "memory_type": "types", "source": "sources"}


def mem0_where(conditions: Mapping[str, Any], *, expired_before: date | None = None) -> RecordFilter:
    """mem0 filter conditions (entity ids already taken out) as a :class:`~memdesk.filters.RecordFilter`:
    ``role``, ``memory_type``, ``source`` and ``actor_id`` (the speaker) become the filter's own fields (an equality, or a list / ``{"in": [...]}`` for the first three), mem0's ``"*"`` becomes
    ``{"exists": true}``, the rest is metadata conditions in the one language both share
    (:mod:`memdesk.metadata_conditions`). Bad operators are an :class:`InvalidInputError` now (the filter
    validates its conditions once, when it is made). ``expired_before``: leave out the memories whose
    ``expiration_date`` is earlier (mem0's reads without ``show_expired``)."""
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in conditions.items():
        if key in _PROMOTED or key == "actor_id":
            fields.update(_promoted(key, value))
        else:
            rest[key] = value
    metadata = _metadata(rest) if rest else {}
    if expired_before is not None:
        current = {"OR": [{EXPIRES: None}, {EXPIRES: {"gte": expired_before.isoformat()}}]}  # None: unset or cleared
        metadata = {"AND": [metadata, current]} if metadata else current
    if metadata:
        fields["metadata"] = metadata
    return RecordFilter(**fields)


def _promoted(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping) and set(value) == {"in"} and isinstance(value["in"], (list, tuple)):
        value = list(value["in"])
    elif isinstance(value, Mapping) and set(value) == {"eq"}:
        value = value["eq"]
    if key == "actor_id":
        if not isinstance(value, str):
            raise InvalidInputError("filters actor_id takes one speaker's name (a string)")
        return {"speaker": value}
    if isinstance(value, (str, list, tuple)) and value:
        return {_PROMOTED[key]: value}
    raise InvalidInputError(f"filters {key} takes a value, a list of values or {{'in': [...]}}")


def _metadata(conditions: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in conditions.items():
        if key in LOGIC:
            if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
                raise InvalidInputError(f"filters {key} takes a list of filter dicts")
            if any(k in ENTITY_KEYS or k in _PROMOTED or k == "actor_id" for v in value for k in v):
                raise InvalidInputError(f"filters: name ids, role, memory_type, source and actor_id at the top level of filters, not inside {key}")
            out[key] = [_metadata(v) for v in value]
        elif key in ENTITY_KEYS:
            raise InvalidInputError(f"filters: name {key} at the top level of filters, not inside AND/OR/NOT")
        else:
            out[key] = {"exists": True} if value == "*" else value
    return out
