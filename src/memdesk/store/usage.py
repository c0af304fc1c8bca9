"""What a scope holds in the database: its current records and the bytes of text and metadata it stores.

:func:`storage_usage` is one statement on SQLite and PostgreSQL alike. The bytes are the UTF-8 lengths of every
row that holds the scope's content: the current records' JSON, every history version's, the raw messages'
content and metadata, and the shared metadata rows (:mod:`.shared_metadata`); vectors and indexes are not
counted (their size follows the record count). Storage quotas (:mod:`memdesk.conversation.quota`) read it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ..records import Scope
from .codec import check_scope
from .database import Database
from .schema import TABLES, scope_where


class StorageUsage(BaseModel):
    """What a scope (every exact scope under it) stores."""

    model_config = ConfigDict(frozen=True)

    records: int = 0
    """Current records."""
    bytes: int = 0
    """UTF-8 bytes of its records and their versions, messages and shared metadata."""


def storage_usage(db: Database, scope: Scope) -> StorageUsage:
    """The :class:`StorageUsage` of ``scope`` (wildcards allowed)."""
    check_scope(scope)
    d = db.dialect
    octets = d.text_functions.octets
    where, params = scope_where(scope, d.param)
    keys = f"scope_key IN (SELECT scope_key FROM scopes WHERE {where})"
    parts: list[tuple[str, str]] = []  # (count, bytes) expressions, each under the scope's keys
    for table in TABLES.values():
        parts.append((f"(SELECT COUNT(*) FROM {table} WHERE {keys})", f"(SELECT SUM({octets.format('record')}) FROM {table} WHERE {keys})"))
    extra = [
        f"(SELECT SUM({octets.format('record')}) FROM history WHERE {keys})",
        f"(SELECT SUM({octets.format('content')} + {octets.format('metadata')}) FROM messages WHERE {keys})",
        f"(SELECT SUM({octets.format('body')}) FROM record_metadata WHERE {keys})",
    ]
    count = " + ".join(c for c, _ in parts)
    size = " + ".join(f"COALESCE({b}, 0)" for b in [*(b for _, b in parts), *extra])
    args: list[Any] = params * (len(parts) * 2 + len(extra))
    with db.read("storage_usage") as conn:
        row = conn.execute(f"SELECT {count}, {size}", args).fetchone()
    return StorageUsage(records=int(row[0] or 0), bytes=int(row[1] or 0))


__all__ = ["StorageUsage", "storage_usage"]
