"""Tenant API keys in the database (table ``api_keys``): stored hashed, looked up by digest.

:class:`KeyTable` implements :class:`~memdesk.store.base.KeyStore` (and so
:class:`~memdesk.tenants.TenantKeys`, what ``memdesk serve`` checks keys against) for the SQL stores.
A row holds the key's public id, the SHA-256 digest of the key (never the key), its tenant, an
optional name and its created / last-used times. ``last_used_at`` is written at most once a minute
per key, so checking keys does not turn every request into a write transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from ..errors import InvalidInputError
from ..tenants import ApiKeyInfo, NewApiKey, Tenant, hash_key, new_key
from ..text.textcheck import check_text
from .codec import iso_utc
from .database import Database
from .schema import marks

COLUMNS = "key_id, user_id, agent_id, name, created_at, last_used_at"
TOUCH_EVERY = timedelta(minutes=1)
"""How stale ``last_used_at`` may get before a lookup writes it again."""


class KeyTable:
    """The ``api_keys`` table of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _info(self, row: Any) -> ApiKeyInfo:
        key_id, user_id, agent_id, name, created, used = row
        t = self.db.dialect.time_from_db
        return ApiKeyInfo(
            key_id=key_id, name=name, tenant=Tenant(user_id=user_id, agent_id=agent_id),
            created_at=t(created), last_used_at=None if used is None else t(used),
        )  # fmt: skip

    def create_key(self, tenant: Tenant, name: str | None = None) -> NewApiKey:
        """A new key for ``tenant``: the key itself is in the result only; the table keeps its digest."""
        if not isinstance(tenant, Tenant):
            raise InvalidInputError(f"expected a Tenant, got {type(tenant).__name__}")
        if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 200):
            raise InvalidInputError("a key name is a non-empty string of at most 200 characters")
        check_text(name, "name")
        key, key_id = new_key()
        p = self.db.dialect.param
        with self.db.lock:
            with self.db.tx("create_key") as conn:
                now = self.db.dialect.now()
                conn.execute(
                    f"INSERT INTO api_keys (key_hash, {COLUMNS}) VALUES ({marks(p, 7)})",
                    (hash_key(key), key_id, tenant.user_id, tenant.agent_id, name, now, None),
                )
                row = conn.execute(f"SELECT {COLUMNS} FROM api_keys WHERE key_id = {p}", (key_id,)).fetchone()
        return NewApiKey(key=key, info=self._info(row))

    def find_key(self, key_hash: str) -> ApiKeyInfo | None:
        """The key whose digest is ``key_hash`` (its last use noted), or None."""
        if not isinstance(key_hash, str):
            return None
        p = self.db.dialect.param
        with self.db.read("find_key") as conn:
            row = conn.execute(f"SELECT {COLUMNS} FROM api_keys WHERE key_hash = {p}", (key_hash,)).fetchone()
        if row is None:
            return None
        info = self._info(row)
        now = datetime.now(timezone.utc)
        if info.last_used_at is None or now - info.last_used_at > TOUCH_EVERY:
            with self.db.lock:
                with self.db.tx("find_key") as conn:
                    conn.execute(
                        f"UPDATE api_keys SET last_used_at = {self.db.dialect.time_mark} WHERE key_id = {p}",
                        (iso_utc(now), info.key_id),
                    )
            info = info.model_copy(update={"last_used_at": now})
        return info

    def keys(self, user_id: str | None = None) -> list[ApiKeyInfo]:
        """Every key (of ``user_id`` if given), oldest first."""
        check_text(user_id, "user_id")
        p = self.db.dialect.param
        where, params = ("WHERE user_id = " + p, [user_id]) if user_id is not None else ("", [])
        with self.db.read("keys") as conn:
            rows = conn.execute(f"SELECT {COLUMNS} FROM api_keys {where} ORDER BY created_at, key_id", params).fetchall()
        return [self._info(r) for r in rows]

    def revoke_key(self, key_id: str) -> bool:
        """Delete the key ``key_id``; False if there is none."""
        if not isinstance(key_id, str):
            raise InvalidInputError("a key id is a string")
        check_text(key_id, "key id")
        with self.db.lock:
            with self.db.tx("revoke_key") as conn:
                gone = self.db.dialect.delete_returning(conn, "api_keys", f"key_id = {self.db.dialect.param}", [key_id], "key_id")
        return bool(gone)

    def has_keys(self) -> bool:
        with self.db.read("has_keys") as conn:
            return conn.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone() is not None


__all__ = ["KeyTable"]
