"""Opening a store whose schema and embedding info are already in place writes nothing: it succeeds while
another connection holds a write transaction, and does not wait for it (on every shared backend)."""

from __future__ import annotations

from typing import Callable

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.store.base import Store

from .conftest import INFO, Backend
from .helpers import unit


def test_opening_takes_no_write_lock_when_the_embedding_info_matches(
    open_backend: Callable[[], Store], backend: Backend, rng
) -> None:
    if not backend.shared:
        pytest.skip("each open of this backend is a separate database")
    writer = open_backend()
    writer.set_embedding_info(INFO)
    writer.write([SemanticRecord(scope=Scope(user_id="u"), fact="kept")], unit(rng, 1))
    with writer.db.tx("a long write") as conn:  # white-box: hold the write lock (BEGIN IMMEDIATE / the row lock)
        conn.execute("DELETE FROM scopes WHERE user_id = 'nobody'")
        reader = open_backend()  # migrations up to date: read only
        reader.set_embedding_info(INFO)  # what Memory() does on open: already recorded, so a read only
        assert reader.embedding_info() == INFO and reader.count() == 1
