"""The SQLite store's search speed at 20k records (cache behaviour on every backend: tests/conformance/)."""

from __future__ import annotations

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
