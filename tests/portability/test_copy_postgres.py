"""``memdesk copy`` onto PostgreSQL: rows go in with ``COPY``, the vector indexes are built after the load, and an
interrupted copy run again ends with every row, the indexes and an equal verification."""

from __future__ import annotations

from datetime import datetime, timezone
from importlib import import_module

import numpy as np
import pytest

from memdesk.errors import StoreError
from memdesk.portability.copy import copy_store, vector_indexes
from memdesk.records import HistoryEvent, MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, open_store
from memdesk.store.codec import scope_key
from memdesk.store.pg_search import index_name
from memdesk.store.postgres import PostgresStore
from tests.pg_server import postgres_server, postgres_url  # noqa: F401 - fixtures

pytestmark = pytest.mark.postgres

ANA, BEN = Scope(user_id="ana", agent_id="desk"), Scope(user_id="ben")
T0 = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)


class Interrupted:
    """A destination whose third restore fails (the process was stopped mid-copy)."""

    def __init__(self, store):
        self._store = store
        self.calls = 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def restore(self, *args, **kw):
        self.calls += 1
        if self.calls == 3:
            raise StoreError("the copy was stopped")
        return self._store.restore(*args, **kw)


def _source(path, rng):
    src = open_store(f"sqlite:///{path}")
    src.set_embedding_info(EmbeddingInfo(model_id="test-random", dim=8))
    records = [
        SemanticRecord(id=f"a{i:02d}", scope=ANA if i < 26 else BEN, speaker="Ana", fact=f"note {i}: the kettle {i}",
                       ingest_time=T0, event_time=None if i % 3 else T0, provenance=[f"m{i}"])
        for i in range(30)
    ]  # fmt: skip
    vectors = rng.standard_normal((30, 8)).astype(np.float32)
    vectors[0, 0] = -0.0
    vectors[1, 1] = np.float32(1e-42)  # a subnormal: the binary COPY keeps it bit for bit
    messages = [RawMessage(id=f"m{i}", scope=ANA, speaker="Ana", role="user", content=f"note {i}", timestamp=T0,
                           ingest_time=T0, route_mask=2, pending=i == 4) for i in range(6)]  # fmt: skip
    src.write(records, vectors, messages=messages)
    src.replace(records[2].model_copy(update={"fact": "note 2: the kettle was descaled"}), vectors[2])
    src.delete("a03")
    return src


def test_an_interrupted_copy_resumes_and_ends_with_the_vector_index_and_an_equal_verification(postgres_url, tmp_path, monkeypatch):
    monkeypatch.setattr(import_module("memdesk.portability.checksums"), "BATCH", 10)  # pages of ten records
    src = _source(tmp_path / "src.db", np.random.default_rng(3))
    dst = PostgresStore(postgres_url, hnsw_min_rows=20)
    try:
        with pytest.raises(StoreError):
            copy_store(src, Interrupted(dst), index=vector_indexes(dst))
        assert dst.count() == 20  # two batches of ten went in; no index yet
        with dst.db.read("test") as conn:
            assert conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'hnsw_%'").fetchone()[0] == 0
        done = copy_store(src, dst, index=vector_indexes(dst))
        assert done.written["records"] == 9 and done.skipped == 20
        assert done.indexes == [index_name("semantic_memory", scope_key(ANA))]  # ana's 25 records, not ben's 4
        assert done.source == done.destination
        assert done.destination.counts == {"records": 29, "history": 31, "messages": 6}
        assert [e.event for e in dst.history("a02")] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
        assert [e.event for e in dst.history("a03")] == [HistoryEvent.DELETE]
        assert [m.pending for m in dst.messages(ANA)] == [False] * 4 + [True, False]
        for rid in ("a00", "a01"):
            got = dst.get_vectors(MemoryType.SEMANTIC, [rid])[0]
            assert got.tobytes() == src.get_vectors(MemoryType.SEMANTIC, [rid])[0].tobytes()
        assert dst.get("a00").event_time == T0 and dst.get("a01").event_time is None
        again = copy_store(src, dst, index=vector_indexes(dst))  # a finished copy run again: nothing to do
        assert sum(again.written.values()) == 0 and again.indexes == [] and again.source == again.destination
    finally:
        src.close()
        dst.close()


def test_only_a_postgresql_store_searching_in_sql_builds_indexes_after_a_copy(postgres_url, tmp_path):
    sqlite = open_store(f"sqlite:///{tmp_path}/s.db")
    memory_search = PostgresStore(postgres_url, search="memory")
    try:
        assert vector_indexes(sqlite) is None and vector_indexes(memory_search) is None
    finally:
        sqlite.close()
        memory_search.close()
