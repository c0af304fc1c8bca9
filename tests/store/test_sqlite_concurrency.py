"""SQLite-only failure modes of opening a file (locks, transactions and concurrent writers: tests/conformance/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.errors import StoreError, StoreLockedError
from memdesk.store import SQLiteStore


def test_a_file_that_is_not_a_database_raises_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"definitely not sqlite " * 200)
    with pytest.raises(StoreError) as err:
        SQLiteStore(bad)
    assert not isinstance(err.value, StoreLockedError)
