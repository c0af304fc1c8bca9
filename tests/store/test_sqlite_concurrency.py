"""Locks, transactions and concurrent writers on one SQLite file."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from memdesk.errors import StoreError, StoreLockedError
from memdesk.records import MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, SQLiteStore

DIM = 16
INFO = EmbeddingInfo(model_id="conc-model", dim=DIM)


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _writer(path: str, worker: int, n: int, barrier) -> None:
    """One process: open the (possibly brand-new) file with the others, then put ``n`` records one by one."""
    barrier.wait()
    store = SQLiteStore(path, busy_timeout_ms=30_000)
    store.set_embedding_info(INFO)
    rng = np.random.default_rng(worker)
    scope = Scope(user_id=f"u{worker % 2}", agent_id=f"w{worker}")
    for i in range(n):
        rec = SemanticRecord(id=f"w{worker}-{i}", scope=scope, fact=f"worker {worker} fact {i}")
        vector = unit(rng, 1)
        store.put([rec], vector)
        if i % 25 == 0:  # this process's cache must also follow the other processes' commits
            top = store.search(vector[0], Scope(user_id=f"u{worker % 2}"), MemoryType.SEMANTIC, 1)
            assert top[0].record.id == rec.id, (top, rec.id)
    store.close()


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_writer, args=(path, w, 200, barrier)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    with SQLiteStore(path) as store:
        assert store.count() == 800
        ids = {r.id for r in store.scan(Scope(user_id="u0"))} | {r.id for r in store.scan(Scope(user_id="u1"))}
        assert ids == {f"w{w}-{i}" for w in range(4) for i in range(200)}
        assert [n for n, _ in store.migrations_applied()] == ["0001_initial_schema"]
        assert len(store.search(unit(np.random.default_rng(9), 1)[0], Scope(user_id="u1"), MemoryType.SEMANTIC, 1000)) == 400


def test_a_locked_database_raises_store_locked_error_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "locked.db"
    rng = np.random.default_rng(0)
    store = SQLiteStore(db, busy_timeout_ms=100)
    store.set_embedding_info(INFO)
    scope = Scope(user_id="u")
    before = [SemanticRecord(scope=scope, fact="before")]
    store.put(before, unit(rng, 1))
    blocker = sqlite3.connect(db, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        recs = [SemanticRecord(scope=scope, fact=f"f{i}") for i in range(10)]
        started = time.monotonic()
        with pytest.raises(StoreLockedError):
            store.put(recs, unit(rng, 10))
        assert time.monotonic() - started < 3
        with pytest.raises(StoreLockedError):
            store.delete(before[0].id)
        with pytest.raises(StoreLockedError):
            store.log_messages([RawMessage(id="m", scope=scope, speaker=None, role="user", content="x",
                                           timestamp=None, ingest_time=time.time())])  # fmt: skip
        # readers are not blocked by a writer (WAL), and a second store can still open the file
        assert store.count() == 1
        assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 5)) == 1
        with SQLiteStore(db, busy_timeout_ms=100) as other:
            assert other.count() == 1
        blocker.execute("ROLLBACK")
        store.put(recs, unit(rng, 10))
        assert store.count() == 11 and store.messages(scope) == []
    finally:
        blocker.close()
        store.close()


@pytest.mark.parametrize("table", ["semantic_memory", "history"])
def test_a_failure_in_the_middle_of_a_put_leaves_nothing(tmp_path: Path, table: str) -> None:
    db = tmp_path / "atomic.db"
    rng = np.random.default_rng(1)
    store = SQLiteStore(db)
    store.set_embedding_info(INFO)
    scope = Scope(user_id="u", agent_id="a")
    existing = [SemanticRecord(scope=scope, fact="existing")]
    store.put(existing, unit(rng, 1))
    assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 10)) == 1  # warm cache
    column = "id" if table == "semantic_memory" else "record_id"
    with sqlite3.connect(db) as conn:  # fail on the 58th row, after 57 rows were inserted
        conn.execute(f"CREATE TRIGGER boom BEFORE INSERT ON {table} WHEN NEW.{column} = 'r-57' "
                     "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")  # fmt: skip
    recs = [SemanticRecord(id=f"r-{i}", scope=Scope(user_id="u", agent_id="b"), fact=f"f{i}") for i in range(100)]
    vectors = unit(rng, 100)
    with pytest.raises(StoreError, match="injected failure") as err:
        store.put(recs, vectors)
    assert not isinstance(err.value, StoreLockedError)
    assert store.count() == 1
    assert store.get("r-0") is None and store.history("r-0") == []
    assert store.scopes() == [scope]
    assert [h.record.id for h in store.search(vectors[0], Scope(user_id="u"), MemoryType.SEMANTIC, 10)] == [existing[0].id]
    store.put(recs[:50], vectors[:50])  # the store is still usable
    assert store.count() == 51
    store.close()


def test_threads_can_share_one_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "threads.db")
    store.set_embedding_info(INFO)
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def work(t: int) -> None:
        rng = np.random.default_rng(100 + t)
        scope = Scope(user_id="u", agent_id=f"t{t}")
        start.wait()
        try:
            for i in range(40):
                rec = SemanticRecord(id=f"t{t}-{i}", scope=scope, fact=f"{t}/{i}")
                v = unit(rng, 1)
                store.put([rec], v)
                assert store.search(v[0], scope, MemoryType.SEMANTIC, 1)[0].record.id == rec.id
                assert store.get(rec.id) == rec
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(work, range(6)))
    assert errors == []
    assert store.count() == 240
    assert len(store.search(unit(np.random.default_rng(5), 1)[0], Scope(user_id="u"), MemoryType.SEMANTIC, 500)) == 240
    store.close()


def test_a_file_that_is_not_a_database_raises_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"definitely not sqlite " * 200)
    with pytest.raises(StoreError) as err:
        SQLiteStore(bad)
    assert not isinstance(err.value, StoreLockedError)
