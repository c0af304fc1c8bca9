"""The SQLite store's in-memory search cache: no SQL when warm, incremental updates, speed."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, SQLiteStore

DIM = 384
INFO = EmbeddingInfo(model_id="cache-model", dim=DIM)


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path: Path):
    with SQLiteStore(tmp_path / "cache.db") as s:
        s.set_embedding_info(INFO)
        yield s


def traced(store: SQLiteStore) -> list[str]:
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)  # white-box: count the SQL a call runs
    return statements


def test_a_warm_search_runs_only_the_data_version_check(store: SQLiteStore) -> None:
    rng = np.random.default_rng(0)
    scopes = [Scope(user_id="u", agent_id=f"a{i}") for i in range(3)]
    for s in scopes:
        store.put([SemanticRecord(scope=s, fact=f"{s} {i}") for i in range(50)], unit(rng, 50))
    q = unit(rng, 1)[0]
    store.search(q, Scope(user_id="u"), MemoryType.SEMANTIC, 5)  # cold: loads
    statements = traced(store)
    for _ in range(3):
        assert len(store.search(q, Scope(user_id="u"), MemoryType.SEMANTIC, 5)) == 5
        assert len(store.search(q, scopes[1], MemoryType.SEMANTIC, 5)) == 5
    assert statements == ["PRAGMA data_version"] * 6
    # this store's own writes keep the cache warm: no reload afterwards
    store.put([SemanticRecord(scope=scopes[0], fact="new")], q[None, :])
    statements.clear()
    assert store.search(q, Scope(user_id="u"), MemoryType.SEMANTIC, 1)[0].record.fact == "new"
    assert statements == ["PRAGMA data_version"]


def test_another_connections_commit_drops_the_cache(store: SQLiteStore) -> None:
    rng = np.random.default_rng(1)
    recs = [SemanticRecord(scope=Scope(user_id="u"), fact=f"f{i}") for i in range(20)]
    v = unit(rng, 20)
    store.put(recs, v)
    store.search(v[0], Scope(user_id="u"), MemoryType.SEMANTIC, 3)
    with sqlite3.connect(store.path) as other:  # a raw write by someone else
        other.execute("DELETE FROM semantic_memory WHERE id = ?", (recs[0].id,))
    statements = traced(store)
    hits = store.search(v[0], Scope(user_id="u"), MemoryType.SEMANTIC, 3)
    assert recs[0].id not in [h.record.id for h in hits]
    assert len(statements) > 1  # it reloaded


@pytest.mark.slow
def test_search_over_20k_records_is_fast(store: SQLiteStore) -> None:
    rng = np.random.default_rng(2)
    scope = Scope(user_id="big")
    n = 20_000
    v = unit(rng, n)
    started = time.perf_counter()
    for start in range(0, n, 1000):
        store.put([SemanticRecord(scope=scope, fact=f"fact {start + i}") for i in range(1000)], v[start : start + 1000])
    put_per_1000 = (time.perf_counter() - started) / (n / 1000)
    queries = unit(rng, 30)
    store.search(queries[0], scope, MemoryType.SEMANTIC, 20)
    times = []
    for q in queries:
        t0 = time.perf_counter()
        hits = store.search(q, scope, MemoryType.SEMANTIC, 20)
        times.append(time.perf_counter() - t0)
        assert len(hits) == 20
    median_ms = 1000 * float(np.median(times))
    # generous bounds for a shared 2-core machine; measured ~3-5 ms and ~0.2 s here
    assert median_ms < 40, median_ms
    assert put_per_1000 < 3.0, put_per_1000
