"""What the PostgreSQL store tests share: the session's test server (tests/pg_server.py) and a store on a
fresh database of it, its embedding pinned to ``INFO``."""

from __future__ import annotations

from typing import Iterator

import pytest

from memdesk.store import EmbeddingInfo
from memdesk.store.postgres import PostgresStore
from tests.pg_server import postgres_server, postgres_url  # noqa: F401 - fixtures

DIM = 16
INFO = EmbeddingInfo(model_id="pg-model", dim=DIM)


@pytest.fixture
def store(postgres_url: str) -> Iterator[PostgresStore]:
    """A PostgresStore on a new, empty database, its embedding info set to ``INFO`` (the PostgreSQL
    modules' ``store``; a SQLite module defines its own)."""
    with PostgresStore(postgres_url) as s:
        s.set_embedding_info(INFO)
        yield s
