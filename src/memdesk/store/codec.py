"""Serialization between typed records and storage rows, shared by every backend.

Vectors are stored as little-endian float32 contiguous blobs (``dim * 4`` bytes), so a vector read
back is bit-identical to the float32 vector written. Records are stored as their pydantic JSON;
the columns beside it (scope, speaker, times, provenance) exist for querying and are never the
source of truth.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Sequence

import numpy as np
from pydantic_core import PydanticSerializationError, to_json

from ..errors import InvalidInputError, InvalidScopeError, StoreError
from ..text.textcheck import list_of, member_of
from ..records import (
    RECORD_CLASSES,
    EpisodicRecord,
    MemoryRecord,
    MemoryType,
    ProceduralRecord,
    RawMessage,
    Scope,
    SemanticRecord,
    _aware as aware_utc,
)

FLOAT32 = np.dtype("<f4")
RECORD_TYPES: tuple[type, ...] = (EpisodicRecord, SemanticRecord, ProceduralRecord)

ScopeTuple = tuple[str | None, str | None, str | None]


# --- arguments -------------------------------------------------------------------------------
def check_memory_type(value: Any) -> MemoryType:
    return member_of(MemoryType, value, "memory type")


def check_scope(scope: Any) -> Scope:
    if not isinstance(scope, Scope):
        raise InvalidScopeError(f"expected a Scope, got {type(scope).__name__}")
    return scope


def check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise InvalidInputError(f"k must be a non-negative integer, got {k!r}")
    return int(k)


def check_limit(limit: Any) -> int:
    """A page size: a positive integer."""
    limit = check_k(limit)
    if limit == 0:
        raise InvalidInputError("limit must be a positive integer")
    return limit


def position_cursor(cursor: Any, prefix: str) -> int:
    """The position a cursor ``f"{prefix}{n}"`` names (0 for None); InvalidInputError for anything else."""
    if cursor is None:
        return 0
    if not isinstance(cursor, str) or not cursor.startswith(prefix) or not cursor[len(prefix) :].isdigit():
        raise InvalidInputError(f"invalid cursor {cursor!r}: pass back a next_cursor unchanged")
    return int(cursor[len(prefix) :])


def check_ids(ids: Any, what: str = "ids") -> list[str]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InvalidInputError(f"{what} must be a sequence of strings")
    out = list(ids)
    for i in out:
        if not isinstance(i, str) or not i:
            raise InvalidInputError(f"every id must be a non-empty string, got {i!r}")
    return out


def check_unique(ids: Sequence[str], what: str) -> None:
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dups = sorted({i for i in ids if i in seen or seen.add(i)})  # type: ignore[func-returns-value]
        raise InvalidInputError(f"duplicate {what} in one call: {dups[:5]}")


def check_speaker(speaker: Any) -> str | None:
    if speaker is not None and not isinstance(speaker, str):
        raise InvalidInputError(f"speaker must be a string, got {type(speaker).__name__}")
    return speaker


def check_record_id(record_id: Any) -> str:
    if not isinstance(record_id, str):
        raise InvalidInputError(f"record id must be a string, got {type(record_id).__name__}")
    return record_id


# --- scopes ----------------------------------------------------------------------------------
def scope_tuple(scope: Scope) -> ScopeTuple:
    return (scope.user_id, scope.agent_id, scope.run_id)


def scope_key(scope: Scope | ScopeTuple) -> str:
    """An unambiguous storage key for an exact scope.

    JSON of the three ids, so ids containing any character (even the separator ``Scope.key``
    uses) can never collide.
    """
    return _key_of(scope_tuple(scope) if isinstance(scope, Scope) else tuple(scope))


@lru_cache(maxsize=65_536)
def _key_of(parts: ScopeTuple) -> str:
    return json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))


def scope_from_tuple(parts: ScopeTuple) -> Scope:
    return Scope(user_id=parts[0], agent_id=parts[1], run_id=parts[2])


def scope_matches(pattern: Scope, parts: ScopeTuple) -> bool:
    """True if the exact scope ``parts`` falls under the (possibly wildcard) ``pattern``."""
    return (
        (pattern.user_id is None or pattern.user_id == parts[0])
        and (pattern.agent_id is None or pattern.agent_id == parts[1])
        and (pattern.run_id is None or pattern.run_id == parts[2])
    )


# --- times -----------------------------------------------------------------------------------
def iso_utc(value: datetime | None) -> str | None:
    """A sortable UTC ISO-8601 string for query columns (naive times are taken as UTC)."""
    if value is None:
        return None
    value = aware_utc(value)
    try:
        return value.astimezone(timezone.utc).isoformat()
    except OverflowError:  # within a day of year 1 or 9999: clamp the query column (the JSON keeps the value)
        edge = datetime.min if value.year == 1 else datetime.max
        return edge.replace(tzinfo=timezone.utc).isoformat()


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


# --- records ---------------------------------------------------------------------------------
def sequence_of(items: Any, kind: type | tuple[type, ...], name: str, what: str, one: str) -> list[Any]:
    """``items`` (``name``) as a list; InvalidInputError unless it is a sequence (not a string) of
    ``kind`` (``what`` in the message; ``one``: how one item is named)."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InvalidInputError(f"{name} must be a sequence of {what}, got {type(items).__name__}")
    return list_of(items, kind, f"not {one}: {{}}")


def check_records(records: Sequence[Any]) -> list[MemoryRecord]:
    """The records as a list; InvalidInputError for anything that is not a memory record."""
    return sequence_of(records, RECORD_TYPES, "records", "memory records", "a memory record")


def record_json(record: MemoryRecord) -> str:
    return record.model_dump_json()


def record_from_json(memory_type: MemoryType | str, data: str | bytes) -> MemoryRecord:
    return RECORD_CLASSES[MemoryType(memory_type)].model_validate_json(data)  # type: ignore[return-value]


def provenance_json(record: MemoryRecord) -> str:
    return json.dumps(record.provenance, ensure_ascii=False)


# --- raw messages ----------------------------------------------------------------------------
def check_messages(messages: Sequence[Any]) -> list[RawMessage]:
    out: list[RawMessage] = sequence_of(messages, RawMessage, "messages", "RawMessage", "a RawMessage")
    for m in out:
        if not isinstance(m.id, str) or not m.id:
            raise InvalidInputError("a raw message needs a non-empty id")
    return out


MESSAGE_COLUMNS = (
    'scope_key, user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata, '
    "source, pending"
)
"""The ``messages`` columns :func:`message_rows` fills, in order (``seq`` is the database's)."""


def message_rows(messages: Sequence[RawMessage]) -> list[tuple[Any, ...]]:
    """One :data:`MESSAGE_COLUMNS` row per message; InvalidInputError for metadata that is not JSON."""
    rows = []
    for m in messages:
        try:
            metadata = to_json(m.metadata).decode()
        except PydanticSerializationError as e:
            raise InvalidInputError(f"message {m.id!r} has metadata that is not JSON-serializable: {e}") from e
        s = m.scope
        rows.append((
            scope_key(s), s.user_id, s.agent_id, s.run_id, m.id, m.speaker, m.role, m.content,
            time_json(m.timestamp), time_json(m.ingest_time), m.route_mask, metadata, m.source, int(m.pending),
        ))  # fmt: skip
    return rows


def message_from_row(row: Sequence[Any]) -> RawMessage:
    """A message from (user_id, agent_id, run_id, id, speaker, role, content, timestamp, ingest_time,
    route_mask, metadata, seq, source, pending)."""
    u, a, r, item_id, speaker, role, content, ts, ingest, mask, meta, seq, source, pending = row
    return RawMessage.model_validate(
        {
            "scope": scope_from_tuple((u, a, r)),
            "id": item_id,
            "speaker": speaker,
            "role": role,
            "content": content,
            "timestamp": ts,
            "ingest_time": ingest,
            "route_mask": mask,
            "metadata": json.loads(meta),
            "seq": seq,
            "source": source,
            "pending": bool(pending),
        }
    )


def message_metadata_json(message: RawMessage) -> str:
    return json.dumps(message.metadata, ensure_ascii=False)


def time_json(value: datetime | None) -> str | None:
    """ISO-8601 keeping the original offset (round-trips exactly)."""
    if value is None:
        return None
    return aware_utc(value).isoformat()


# --- vectors ---------------------------------------------------------------------------------
def _as_float32(vectors: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(vectors)
    except (TypeError, ValueError) as e:  # ragged input
        raise InvalidInputError(f"{what} is not a numeric array: {e}") from e
    if arr.dtype.kind not in "fiu":
        raise InvalidInputError(f"{what} must be numeric, got dtype {arr.dtype}")
    with np.errstate(over="ignore"):
        out = arr.astype(FLOAT32, copy=False)
    if out.size and not np.isfinite(out).all():
        raise InvalidInputError(f"{what} contains NaN or infinite values (or values beyond float32 range)")
    return out


def check_matrix(vectors: Any, rows: int) -> np.ndarray:
    """A C-contiguous float32 ``(rows, d)`` matrix; InvalidInputError for a wrong shape or non-finite values."""
    arr = _as_float32(vectors, "vectors")
    if arr.ndim == 1 and rows == 1 and arr.shape[0] > 0:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise InvalidInputError(f"vectors must be a 2-D (n, dim) array, got shape {arr.shape}")
    if arr.shape[0] != rows:
        raise InvalidInputError(f"got {arr.shape[0]} vectors for {rows} items")
    if rows and arr.shape[1] == 0:
        raise InvalidInputError("vectors have dimension 0")
    return np.ascontiguousarray(arr)


def check_vector(vector: Any) -> np.ndarray:
    """One float32 vector of shape ``(d,)`` (a ``(1, d)`` row is accepted)."""
    arr = _as_float32(vector, "vector")
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise InvalidInputError(f"a vector must be 1-D and non-empty, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def encode_vector(vector: np.ndarray) -> bytes:
    """The float32 little-endian bytes of one vector."""
    return np.ascontiguousarray(vector, dtype=FLOAT32).tobytes()


def decode_vector(blob: bytes, dim: int) -> np.ndarray:
    if len(blob) != dim * 4:
        raise StoreError(f"a stored vector has {len(blob)} bytes, but the recorded dimension {dim} needs {dim * 4}")
    return np.frombuffer(blob, dtype=FLOAT32).astype(np.float32)


def decode_matrix(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """Stack blobs into a fresh, writable ``(n, dim)`` float32 matrix."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    for b in blobs:
        if len(b) != dim * 4:
            raise StoreError(f"a stored vector has {len(b)} bytes, but the recorded dimension {dim} needs {dim * 4}")
    return np.frombuffer(b"".join(blobs), dtype=FLOAT32).reshape(len(blobs), dim).astype(np.float32)


def check_json(payload: Any, what: str = "payload") -> str:
    if not isinstance(payload, str):
        raise InvalidInputError(f"{what} must be a JSON string, got {type(payload).__name__}")
    try:
        json.loads(payload)
    except ValueError as e:
        raise InvalidInputError(f"{what} is not valid JSON: {e}") from e
    return payload


def check_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value or len(value) > 256:
        raise InvalidInputError(f"invalid {what} {value!r}: must be a non-empty string without NUL, at most 256 chars")
    return value
