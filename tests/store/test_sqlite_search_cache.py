"""The SQLite store's cached search at 20k records is exact (its speed is measured in bench/bench_store.py;
cache behaviour on every backend: tests/conformance/)."""

from __future__ import annotations

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
def test_search_over_20k_records_matches_brute_force(store: SQLiteStore, tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    scope = Scope(user_id="big")
    n = 20_000
    v = unit(rng, n)
    recs = [SemanticRecord(scope=scope, fact=f"fact {i}") for i in range(n)]
    for start in range(0, n, 1000):
        store.write(recs[start : start + 1000], v[start : start + 1000])
    queries = unit(rng, 10)
    with SQLiteStore(tmp_path / "cache.db") as cold:  # loads the 20k vectors from the file
        for q in queries:
            want = np.argsort(-(v.astype(np.float64) @ q.astype(np.float64)), kind="stable")[:20]
            for s in (store, cold):
                hits = s.search(q, scope, MemoryType.SEMANTIC, 20)
                assert [h.record.id for h in hits] == [recs[i].id for i in want]
