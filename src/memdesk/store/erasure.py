"""Forgetting a scope: every row that holds its text goes, and no tombstone stays behind.

:class:`ScopeEraser` implements :meth:`~memdesk.store.base.RecordStore.forget` for the SQL stores.
In ONE transaction it deletes, for the exact scope (or, with ``wildcard=True``, every exact scope
under a partial one):

- the current records (every memory type) and their vectors, and their shared metadata (:mod:`.shared_metadata`);
- every ``history`` entry of those records and of records deleted from the scope earlier (all
  versions, the ADD/UPDATE/DELETE payloads alike; no DELETE entry is written);
- the raw messages and the ``scopes`` rows;
- the tenant API keys bound to it: a key for ``Tenant(user_id, agent_id)`` reaches ``Scope(user_id, agent_id)``
  and every run under it, so it is revoked by an exact forget of that very scope, or by a wildcard forget
  whose pattern covers it (``Scope(user_id="ana")`` with ``wildcard=True`` revokes ana's keys and her agents');
- the change log's entries naming those scopes (see :meth:`~memdesk.store.database.Database.erase_changes`);
- the items of the named vector collections and document sets the caller says the scope owns (its reasoning
  banks: :mod:`memdesk.reasoning.ownership`).

After the commit the search cache drops the scopes' vectors (and, on SQLite, overwrites and unlinks the
HNSW graph files of their large scopes: :meth:`~memdesk.store.ann_scopes.LargeScopes.erase`) and the dialect removes what the
database keeps of deleted rows where it can (:meth:`~memdesk.store.dialect.Dialect.after_erase`:
SQLite checkpoints its WAL; with ``secure_delete`` on, freed pages were already zeroed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..records import MemoryType, Scope
from .base import Forgotten
from .codec import ScopeTuple, check_name, check_scope, scope_key, scope_matches
from .database import Database
from .schema import TABLES, scope_where
from .collection_tables import CollectionSearch
from .search_cache import RecordIndex
from .shared_metadata import SharedMetadata


def _parts(key: str) -> ScopeTuple:
    u, a, r = json.loads(key)
    return (u, a, r)


class ScopeEraser:
    """Forgets scopes of one database."""

    def __init__(self, db: Database, search: RecordIndex, collections: CollectionSearch | None = None) -> None:
        self.db = db
        self.search = search
        self.collections = collections
        self.shared = SharedMetadata(db.dialect)

    def _scope_keys(self, conn: Any, scope: Scope, wildcard: bool) -> list[str]:
        """The exact scope keys to forget: the scope itself, or every one under it that any table names."""
        if not wildcard:
            return [scope_key(scope)]
        where, params = scope_where(scope, self.db.dialect.param)
        keys: set[str] = set()
        for table in (*TABLES.values(), "messages", "scopes"):
            keys.update(r[0] for r in conn.execute(f"SELECT DISTINCT scope_key FROM {table} WHERE {where}", params))
        # history has no id columns: a deleted record's entries are found by their key
        for (key,) in conn.execute("SELECT DISTINCT scope_key FROM history").fetchall():
            if key not in keys and scope_matches(scope, _parts(key)):
                keys.add(key)
        return sorted(keys)

    def forget(self, scope: Scope, *, wildcard: bool = False, collections: Sequence[str] = ()) -> Forgotten:
        """Erase the exact ``scope`` (every exact scope under it with ``wildcard``) and the items of
        ``collections``; see the module docstring."""
        check_scope(scope)
        names = sorted({check_name(c, "collection name") for c in collections})
        d = self.db.dialect
        records = messages = history = scopes = items = 0
        with self.db.lock:
            with self.db.tx("forget") as conn:
                keys = self._scope_keys(conn, scope, bool(wildcard))
                record_ids: set[str] = set()
                for cond, params in d.id_chunks("scope_key", keys):
                    record_ids.update(
                        r[0] for r in conn.execute(f"SELECT DISTINCT record_id FROM history WHERE {cond}", params)
                    )
                    for table in TABLES.values():
                        gone = d.delete_returning(conn, table, cond, params, "id")
                        records += len(gone)
                        record_ids.update(r[0] for r in gone)
                    messages += len(d.delete_returning(conn, "messages", cond, params, "seq"))
                    scopes += len(d.delete_returning(conn, "scopes", cond, params, "scope_key"))
                refs: list[str | None] = []
                for cond, params in d.id_chunks("record_id", sorted(record_ids)):
                    gone = d.delete_returning(conn, "history", cond, params, "hid, metadata_ref")
                    history += len(gone)
                    refs += [r[1] for r in gone]
                self.shared.forget(conn, keys)  # the scopes' shared metadata, then any other no row names now
                self.shared.release(conn, refs)
                for name in names:
                    for table in ("collection_items", "documents"):
                        items += conn.execute(f"DELETE FROM {table} WHERE collection = {d.param}", (name,)).rowcount
                revoked = self._revoke_keys(conn, scope, bool(wildcard))
                self.db.erase_changes(conn, keys, names)  # the change log named these scopes and collections too
            dropped = {_parts(k) for k in keys}
            for mt in MemoryType:
                self.search.dropped(mt, dropped)
            for name in names:
                if self.collections is not None:
                    self.collections.deleted(name, None)
            if records or messages or history or scopes or items or revoked:
                with self.db.read("forget") as conn:
                    d.after_erase(conn)
        return Forgotten(
            records=records, messages=messages, history=history, scopes=scopes, collection_items=items, keys=revoked
        )

    def _revoke_keys(self, conn: Any, scope: Scope, wildcard: bool) -> int:
        """Delete the API keys bound to the forgotten scope (see the module docstring); their number."""
        if conn.execute("SELECT 1 FROM migrations WHERE name = '0006_api_keys'").fetchone() is None:
            return 0  # a store opened with an older layout (tests of old databases) has no key table
        if scope.run_id is not None:
            return 0  # no key is bound to a run
        bound = (scope.user_id, scope.agent_id, None)
        rows = conn.execute("SELECT key_id, user_id, agent_id FROM api_keys").fetchall()
        ids = [k for k, u, a in rows if (scope_matches(scope, (u, a, None)) if wildcard else (u, a, None) == bound)]
        for cond, params in self.db.dialect.id_chunks("key_id", ids):
            conn.execute(f"DELETE FROM api_keys WHERE {cond}", params)
        return len(ids)

    def vacuum(self) -> None:
        """See :meth:`~memdesk.store.base.RecordStore.vacuum`."""
        with self.db.lock:
            with self.db.read("vacuum") as conn:
                self.db.dialect.vacuum(conn)


__all__ = ["ScopeEraser"]
