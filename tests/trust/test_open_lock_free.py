"""``Memory.open()`` on a database another process is writing to: nothing to change, so no write lock is taken
and the open succeeds at once (``busy_timeout_ms=0``: any wait for the lock would fail)."""

from __future__ import annotations

import sqlite3

import pytest

from memdesk.conversation.memory import Memory
from memdesk.errors import StoreLockedError
from memdesk.records import Scope


def test_memory_open_succeeds_while_another_connection_holds_the_write_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with Memory.open(database_url=url, embedder="hashing") as first:
        first.add("I keep bees.", scope=Scope(user_id="ana"))
    other = sqlite3.connect(tmp_path / "m.db", isolation_level=None)  # a second, real connection: another writer
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("DELETE FROM scopes WHERE user_id = 'nobody'")
        with Memory.open(database_url=url, embedder="hashing", busy_timeout_ms=0) as second:
            assert [r.body() for r in second.get_all(scope=Scope(user_id="ana"))] == ["I keep bees."]
            with pytest.raises(StoreLockedError):  # the lock is really held: a write cannot get it
                second.add("I keep wasps.", scope=Scope(user_id="ana"))
    finally:
        other.execute("ROLLBACK")
        other.close()
