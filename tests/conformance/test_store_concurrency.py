"""Locks, transactions, threads and concurrent writer processes: every backend must behave alike."""

from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdesk.errors import StoreError, StoreLockedError
from memdesk.records import MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import open_store
from memdesk.store.base import Store

from .conftest import INFO, Backend
from .helpers import native_for, unit

WORKERS = 4
PUTS_PER_WORKER = 100


@pytest.fixture
def shared_url(backend: Backend, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh database that several connections and processes share."""
    if not backend.shared:
        pytest.skip("each open of this backend is a separate database")
    return backend.url(request, tmp_path)


def _writer(url: str, worker: int, n: int, barrier: Any) -> None:
    """One process: open the brand-new database with the others, then put ``n`` records one by one."""
    barrier.wait()
    store = open_store(url, busy_timeout_ms=30_000)
    store.set_embedding_info(INFO)
    rng = np.random.default_rng(worker)
    scope = Scope(user_id=f"u{worker % 2}", agent_id=f"w{worker}")
    for i in range(n):
        rec = SemanticRecord(id=f"w{worker}-{i}", scope=scope, fact=f"worker {worker} fact {i}")
        vector = unit(rng, 1)
        store.write([rec], vector)
        if i % 10 == 0:  # this process's cache must also follow the other processes' commits
            top = store.search(vector[0], Scope(user_id=f"u{worker % 2}"), MemoryType.SEMANTIC, 1)
            assert top[0].record.id == rec.id, (top, rec.id)
    store.close()


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(
    shared_url: str, backend: Backend, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # spawned children unpickle _writer by the module name pytest gave this file ("conformance.…"): let them import it
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS)
    procs = [ctx.Process(target=_writer, args=(shared_url, w, PUTS_PER_WORKER, barrier)) for w in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * WORKERS
    with closing(open_store(backend.url(request, tmp_path / "reference"))) as reference:  # opened by one process
        once = [name for name, _ in reference.migrations_applied()]  # type: ignore[attr-defined]  # a backend extra
    with closing(open_store(shared_url)) as store:
        assert store.count() == WORKERS * PUTS_PER_WORKER
        ids = {r.id for r in store.scan(Scope(user_id="u0"))} | {r.id for r in store.scan(Scope(user_id="u1"))}
        assert ids == {f"w{w}-{i}" for w in range(WORKERS) for i in range(PUTS_PER_WORKER)}
        assert [name for name, _ in store.migrations_applied()] == once  # type: ignore[attr-defined]  # applied once
        hits = store.search(unit(np.random.default_rng(9), 1)[0], Scope(user_id="u1"), MemoryType.SEMANTIC, 1000)
        assert len(hits) == WORKERS * PUTS_PER_WORKER // 2
        assert {h.version for r in store.scan(Scope(user_id="u0")) for h in store.history(r.id)} == {1}


def test_a_locked_database_raises_store_locked_error_and_writes_nothing(shared_url: str) -> None:
    rng = np.random.default_rng(0)
    with closing(open_store(shared_url, busy_timeout_ms=100)) as store:
        native = native_for(store)
        store.set_embedding_info(INFO)
        scope = Scope(user_id="u")
        before = [SemanticRecord(scope=scope, fact="before")]
        store.write(before, unit(rng, 1))
        recs = [SemanticRecord(scope=scope, fact=f"f{i}") for i in range(10)]
        with native.hold_write_lock(store):
            with pytest.raises(StoreLockedError):
                store.write(recs, unit(rng, 10))
            with pytest.raises(StoreLockedError):
                store.delete(before[0].id)
            with pytest.raises(StoreLockedError):
                store.write(messages=[RawMessage(id="m", scope=scope, speaker=None, role="user", content="x",
                                               timestamp=None, ingest_time=time.time())])  # fmt: skip
            # readers are not blocked by a writer, and a second store can still open the database
            assert store.count() == 1
            assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 5)) == 1
            with closing(open_store(shared_url, busy_timeout_ms=100)) as other:
                assert other.count() == 1
        store.write(recs, unit(rng, 10))
        assert store.count() == 11 and store.messages(scope) == []


@pytest.mark.parametrize("table, column", [("semantic_memory", "id"), ("history", "record_id")])
def test_a_failure_in_the_middle_of_a_put_leaves_nothing(store: Store, rng, table: str, column: str) -> None:
    native = native_for(store)
    scope = Scope(user_id="u", agent_id="a")
    existing = [SemanticRecord(scope=scope, fact="existing")]
    store.write(existing, unit(rng, 1))
    assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 10)) == 1  # warm cache
    native.fail_inserts(store, table, column, "r-57")  # fails on the 58th row, after 57 rows were inserted
    recs = [SemanticRecord(id=f"r-{i}", scope=Scope(user_id="u", agent_id="b"), fact=f"f{i}") for i in range(100)]
    vectors = unit(rng, 100)
    with pytest.raises(StoreError, match="injected failure") as err:
        store.write(recs, vectors)
    assert not isinstance(err.value, StoreLockedError)
    assert store.count() == 1
    assert store.get("r-0") is None and store.history("r-0") == []
    assert store.has_scope(scope) and not store.has_scope(Scope(user_id="u", agent_id="b"))
    assert [h.record.id for h in store.search(vectors[0], Scope(user_id="u"), MemoryType.SEMANTIC, 10)] == [existing[0].id]
    store.write(recs[:50], vectors[:50])  # the store is still usable
    assert store.count() == 51


def test_threads_can_share_one_store(store: Store) -> None:
    threads, puts = 6, 30
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work(t: int) -> None:
        rng = np.random.default_rng(100 + t)
        scope = Scope(user_id="u", agent_id=f"t{t}")
        start.wait()
        try:
            for i in range(puts):
                rec = SemanticRecord(id=f"t{t}-{i}", scope=scope, fact=f"{t}/{i}")
                v = unit(rng, 1)
                store.write([rec], v)
                assert store.search(v[0], scope, MemoryType.SEMANTIC, 1)[0].record.id == rec.id
                assert store.get(rec.id) == rec
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(threads)))
    assert errors == []
    assert store.count() == threads * puts
    hits = store.search(unit(np.random.default_rng(5), 1)[0], Scope(user_id="u"), MemoryType.SEMANTIC, 500)
    assert len(hits) == threads * puts
