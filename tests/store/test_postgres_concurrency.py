"""Locks, transactions and concurrent writers on one PostgreSQL database (a real server)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import psycopg
import pytest

from memdesk.errors import StoreError, StoreLockedError
from memdesk.records import MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo
from memdesk.store.pg_schema import PG_MIGRATIONS
from memdesk.store.postgres import PostgresStore
from tests.pg_server import postgres_server, postgres_url  # noqa: F401 - fixtures

pytestmark = pytest.mark.postgres

DIM = 16
INFO = EmbeddingInfo(model_id="conc-model", dim=DIM)


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _writer(url: str, worker: int, n: int, barrier) -> None:
    """One process: open the brand-new database with the others, then put ``n`` records one by one."""
    barrier.wait()
    store = PostgresStore(url, busy_timeout_ms=30_000)
    store.set_embedding_info(INFO)
    rng = np.random.default_rng(worker)
    scope = Scope(user_id=f"u{worker % 2}", agent_id=f"w{worker}")
    for i in range(n):
        rec = SemanticRecord(id=f"w{worker}-{i}", scope=scope, fact=f"worker {worker} fact {i}")
        vector = unit(rng, 1)
        store.put([rec], vector)
        if i % 10 == 0:  # this process's cache must also follow the other processes' commits
            top = store.search(vector[0], Scope(user_id=f"u{worker % 2}"), MemoryType.SEMANTIC, 1)
            assert top[0].record.id == rec.id, (top, rec.id)
    store.close()


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(postgres_url: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_writer, args=(postgres_url, w, 60, barrier)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    with PostgresStore(postgres_url) as store:
        assert store.count() == 240
        ids = {r.id for r in store.scan(Scope(user_id="u0"))} | {r.id for r in store.scan(Scope(user_id="u1"))}
        assert ids == {f"w{w}-{i}" for w in range(4) for i in range(60)}
        assert [n for n, _ in store.migrations_applied()] == [m.name for m in PG_MIGRATIONS]  # applied once
        assert len(store.search(unit(np.random.default_rng(9), 1)[0], Scope(user_id="u1"), MemoryType.SEMANTIC, 1000)) == 120
        assert len({h.version for r in store.scan(Scope(user_id="u0")) for h in store.history(r.id)}) == 1


def test_a_locked_database_raises_store_locked_error_and_writes_nothing(postgres_url: str) -> None:
    rng = np.random.default_rng(0)
    store = PostgresStore(postgres_url, busy_timeout_ms=100)
    store.set_embedding_info(INFO)
    scope = Scope(user_id="u")
    before = [SemanticRecord(scope=scope, fact="before")]
    store.put(before, unit(rng, 1))
    blocker = psycopg.connect(postgres_url)  # a plain-SQL writer holding its transaction open
    try:
        blocker.execute("INSERT INTO memdesk.meta (key, value) VALUES ('note', 'x')")
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
        # readers are not blocked by a writer, and a second store can still open the database
        assert store.count() == 1
        assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 5)) == 1
        with PostgresStore(postgres_url, busy_timeout_ms=100) as other:
            assert other.count() == 1
        blocker.rollback()
        store.put(recs, unit(rng, 10))
        assert store.count() == 11 and store.messages(scope) == []
    finally:
        blocker.close()
        store.close()


@pytest.mark.parametrize("table, column", [("semantic_memory", "id"), ("history", "record_id")])
def test_a_failure_in_the_middle_of_a_put_leaves_nothing(postgres_url: str, table: str, column: str) -> None:
    rng = np.random.default_rng(1)
    store = PostgresStore(postgres_url)
    store.set_embedding_info(INFO)
    scope = Scope(user_id="u", agent_id="a")
    existing = [SemanticRecord(scope=scope, fact="existing")]
    store.put(existing, unit(rng, 1))
    assert len(store.search(unit(rng, 1)[0], scope, MemoryType.SEMANTIC, 10)) == 1  # warm cache
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # fail on the 58th row, after 57 were inserted
        conn.execute(
            "CREATE FUNCTION memdesk.boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.{column} = 'r-57' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$"
        )
        conn.execute(f"CREATE TRIGGER boom BEFORE INSERT ON memdesk.{table} FOR EACH ROW EXECUTE FUNCTION memdesk.boom()")
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


def test_a_write_that_follows_someone_elses_drops_the_stale_cache(postgres_url: str) -> None:
    rng = np.random.default_rng(2)
    a, b = PostgresStore(postgres_url), PostgresStore(postgres_url)
    try:
        a.set_embedding_info(INFO)
        v = unit(rng, 3)
        a.put([SemanticRecord(scope=Scope(user_id="u"), fact="a0")], v[:1])
        assert len(a.search(v[0], Scope(user_id="u"), MemoryType.SEMANTIC, 5)) == 1  # a's cache is warm
        b.put([SemanticRecord(scope=Scope(user_id="u"), fact="from b")], v[1:2])
        a.put([SemanticRecord(scope=Scope(user_id="u"), fact="a1")], v[2:3])  # a's commit follows b's
        assert a.search(v[1], Scope(user_id="u"), MemoryType.SEMANTIC, 1)[0].record.fact == "from b"
        assert len(a.search(v[1], Scope(user_id="u"), MemoryType.SEMANTIC, 5)) == 3
    finally:
        a.close()
        b.close()


def test_threads_can_share_one_store(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    store.set_embedding_info(INFO)
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(t: int) -> None:
        rng = np.random.default_rng(100 + t)
        scope = Scope(user_id="u", agent_id=f"t{t}")
        start.wait()
        try:
            for i in range(25):
                rec = SemanticRecord(id=f"t{t}-{i}", scope=scope, fact=f"{t}/{i}")
                v = unit(rng, 1)
                store.put([rec], v)
                assert store.search(v[0], scope, MemoryType.SEMANTIC, 1)[0].record.id == rec.id
                assert store.get(rec.id) == rec
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    assert errors == []
    assert store.count() == 100
    assert len(store.search(unit(np.random.default_rng(5), 1)[0], Scope(user_id="u"), MemoryType.SEMANTIC, 500)) == 100
    store.close()
