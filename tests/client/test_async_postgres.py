"""AsyncMemory on PostgreSQL: the store's queries go through psycopg's async API on the event loop.

The concurrency test makes PostgreSQL itself hold every query: another connection takes an exclusive
lock on the record tables, so each ``get`` waits server-side. The test goes on only once pg_stat_activity
shows all of them waiting at once, on connections of their own, while the process has no more threads
than before and no call was sent to a worker thread: the waits are on the loop.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

import psycopg
import pytest

from memdesk import AsyncMemory, Memory, Scope
from memdesk.runtime import aio
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import RecordNotFoundError, StoreError, StoreLockedError
from memdesk.store import open_store
from memdesk.store.postgres import PostgresStore
from memdesk.store.schema import TABLES
from tests.pg_server import session_server

pytestmark = pytest.mark.postgres

ANA = Scope(user_id="ana")
BEA = Scope(user_id="bea")
N = 12  # concurrent operations: more than asyncio's default worker threads on a small machine
NOTES = ["I moved to Lisbon last month.", "My sister Ines lives in Porto.", "I work as a nurse.", "I keep bees."]


@pytest.fixture
def pg_url(request):
    return session_server(request.config).fresh_database()


def memory(url: str, **store_options) -> Memory:
    store = PostgresStore(url, **store_options) if "async_pool_size" in store_options else open_store(url, **store_options)
    return Memory(store, HashingEmbedder(64), RawTurnProcessor())


def summary(mem_results) -> list:
    return [(h.record.embed_text(), round(h.score, 5), h.record.memory_type.value) for h in mem_results]


def test_the_postgres_store_is_called_on_the_loop_and_sqlite_stays_offloaded(pg_url, tmp_path):
    pg = AsyncMemory(memory(pg_url))
    lite = AsyncMemory(memory(f"sqlite:///{tmp_path}/a.db"))
    assert pg._sync.store is pg.memory.store  # loop-safe: no worker thread per call
    assert isinstance(lite._sync.store, aio.Offloaded)
    assert isinstance(pg._sync.embedder, aio.Offloaded)  # CPU work stays off the loop
    cached = AsyncMemory(memory(pg_url, search="memory"))
    assert isinstance(cached._sync.store, aio.Offloaded)  # numpy over cached matrices: CPU
    for m in (pg, lite, cached):
        asyncio.run(m.close())


def test_async_memory_on_postgres_gives_the_sync_results(request, monkeypatch):
    server = session_server(request.config)
    sync, amem = memory(server.fresh_database()), AsyncMemory(memory(server.fresh_database()))
    lent: list[int] = []
    pool = amem.memory.store.db.sessions.connections
    real_lend = pool.lend
    monkeypatch.setattr(pool, "lend", lambda: lent.append(1) or real_lend())

    for note in NOTES:
        sync.add(note, scope=ANA)
    sync.add("I live in Berlin.", scope=BEA)

    async def main():
        for note in NOTES:
            await amem.add(note, scope=ANA)
        await amem.add("I live in Berlin.", scope=BEA)
        hits = await amem.search("Where does the sister live?", scope=ANA)
        rid = hits[0].id
        got = await amem.get(rid, scope=ANA)
        with pytest.raises(RecordNotFoundError):  # tenancy: ana's record is not bea's
            await amem.get(rid, scope=BEA)
        await amem.delete(rid, scope=ANA)
        with pytest.raises(RecordNotFoundError):
            await amem.get(rid, scope=ANA)
        left = await amem.get_all(scope=ANA)
        forgotten = await amem.forget(BEA)
        return hits, got, left, forgotten, await amem.get_all(scope=BEA), await amem.messages(scope=ANA)

    hits, got, left, forgotten, bea_left, messages = asyncio.run(main())
    want = sync.search("Where does the sister live?", scope=ANA)
    assert summary(hits) == summary(want)
    assert got.embed_text() == want[0].record.embed_text()
    sync.delete(want[0].id, scope=ANA)
    assert sorted(r.embed_text() for r in left) == sorted(r.embed_text() for r in sync.get_all(scope=ANA))
    assert forgotten.records == sync.forget(BEA).records > 0 and bea_left == []
    assert [m.content for m in messages] == NOTES
    assert lent  # the store's queries went through the loop's async connections
    sync.close()
    asyncio.run(amem.close())


@pytest.fixture
def admin(request):
    server = session_server(request.config)
    url = server.fresh_database()
    with psycopg.connect(url, autocommit=True) as conn, psycopg.connect(url, autocommit=True) as watcher:
        yield url, conn, watcher  # (pg_stat_activity is read outside the locking transaction: it is a snapshot there)


def memdesk_connections(admin_conn, waiting: bool = False) -> int:
    sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'memdesk'"
    if waiting:
        sql += " AND wait_event_type = 'Lock'"
    return admin_conn.execute(sql).fetchone()[0]


def lock_record_tables(admin_conn) -> None:
    """Inside the admin's transaction: every record table locked, so each read of one waits inside PostgreSQL."""
    for table in TABLES.values():
        admin_conn.execute(f"LOCK TABLE memdesk.{table} IN ACCESS EXCLUSIVE MODE")


async def until_waiting(watcher, n: int) -> int:
    """memdesk's connections waiting on a lock, once there are ``n`` (or after 120 s: a bound, not a timing assertion)."""
    for _ in range(2400):
        waiting = memdesk_connections(watcher, waiting=True)
        if waiting >= n:
            return waiting
        await asyncio.sleep(0.05)
    return memdesk_connections(watcher, waiting=True)


def connections_left(watcher) -> int:
    """memdesk's connections to the database once the server ended the closed ones (it does so a moment later)."""
    for _ in range(200):
        left = memdesk_connections(watcher)
        if left == 0:
            break
        time.sleep(0.05)
    return left


def test_concurrent_calls_wait_in_postgresql_at_once_from_one_thread(admin, monkeypatch):
    """``get``: the store's work only, so no thread at all."""
    url, admin_conn, watcher = admin
    mem = memory(url, busy_timeout_ms=120_000, async_pool_size=N)
    ids = [mem.add(f"note {i} about bees", scope=ANA).records[0].id for i in range(N)]
    offloaded: list[str] = []
    real_to_thread = asyncio.to_thread
    monkeypatch.setattr(asyncio, "to_thread", lambda fn, *a, **k: offloaded.append(repr(fn)) or real_to_thread(fn, *a, **k))

    async def main():
        amem = AsyncMemory(mem)
        threads = threading.active_count()
        with admin_conn.transaction():  # every record table locked: each get waits inside PostgreSQL
            lock_record_tables(admin_conn)
            calls = [asyncio.ensure_future(amem.get(rid, scope=ANA)) for rid in ids]
            waiting = await until_waiting(watcher, N)
            during = threading.active_count()
            assert not any(c.done() for c in calls)
        records = await asyncio.gather(*calls)
        open_before_close = memdesk_connections(watcher)
        await amem.close()
        return waiting, threads, during, records, open_before_close

    waiting, threads, during, records, open_before_close = asyncio.run(main())
    assert waiting == N  # N queries in flight in PostgreSQL at once...
    assert during == threads and offloaded == []  # ...from this one thread, none sent to a worker thread
    assert [r.id for r in records] == ids
    assert open_before_close == N + 1  # the pool's N and the store's own synchronous connection
    assert connections_left(watcher) == 0  # AsyncMemory.close() closed them all, on their loop


def test_concurrent_searches_wait_in_postgresql_at_once_their_cpu_work_in_threads(admin, monkeypatch):
    """``search``: the embedder and the retriever's ranking go to worker threads, its store reads stay on the loop."""
    url, admin_conn, watcher = admin
    mem = memory(url, busy_timeout_ms=120_000, async_pool_size=N)
    for i in range(5):
        mem.add(f"note {i} about bees", scope=ANA)
    workers = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default worker threads: fewer than N here
    assert N > workers or pytest.skip("a machine with as many worker threads as calls cannot tell them apart")

    async def main():
        amem = AsyncMemory(mem)
        assert amem._sync.retriever is mem.retriever  # loop-safe with a loop-safe store
        with admin_conn.transaction():
            lock_record_tables(admin_conn)
            calls = [asyncio.ensure_future(amem.search(f"bees {i}", scope=ANA)) for i in range(N)]
            waiting = await until_waiting(watcher, N)
        results = await asyncio.gather(*calls)
        await amem.close()
        return waiting, results

    waiting, results = asyncio.run(main())
    assert waiting == N  # more searches in PostgreSQL at once than there are worker threads
    assert all("bees" in r[0].record.embed_text() for r in results)


def test_a_call_cancelled_while_postgresql_holds_it_leaves_a_pool_that_works(admin):
    url, admin_conn, watcher = admin
    mem = memory(url, busy_timeout_ms=120_000, async_pool_size=1)  # one connection: the next call must reuse it or a new one
    rid = mem.add("I keep bees.", scope=ANA).records[0].id

    async def main():
        amem = AsyncMemory(mem)
        with admin_conn.transaction():
            lock_record_tables(admin_conn)
            call = asyncio.ensure_future(amem.get(rid, scope=ANA))
            await until_waiting(watcher, 1)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        record = await amem.get(rid, scope=ANA)  # the cancelled call's connection was not lent again mid-query
        await amem.close()
        return record

    assert asyncio.run(main()).id == rid
    assert connections_left(watcher) == 0


def test_an_error_inside_a_transaction_on_the_loop_rolls_back_and_leaves_nothing(pg_url):
    mem = memory(pg_url)
    db = mem.store.db

    def failing_write():
        with db.lock:
            with db.tx("test") as conn:
                conn.execute("INSERT INTO meta (key, value) VALUES ('half', 'written')")
                conn.execute("SELECT 1 / 0")

    async def main():
        amem = AsyncMemory(mem)
        with pytest.raises(StoreError, match="division by zero"):  # the driver's error, as memdesk's
            await aio.run(failing_write)
        await amem.add("I keep bees.", scope=ANA)  # the connection went back clean: the next call works
        return await amem.get_all(scope=ANA)

    assert [r.embed_text() for r in asyncio.run(main())] == ["I keep bees."]
    with db.read("check") as conn:
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'half'").fetchone()[0] == 0
    mem.close()


def test_a_writer_locked_out_on_the_loop_gets_store_locked_and_writes_nothing(admin):
    url, admin_conn, _ = admin
    mem = memory(url, busy_timeout_ms=200)

    async def main():
        amem = AsyncMemory(mem)
        with admin_conn.transaction():  # another writer holds the row every write transaction queues on
            admin_conn.execute("UPDATE memdesk.changes SET counter = counter")
            with pytest.raises(StoreLockedError):
                await amem.add("I keep bees.", scope=ANA)
        assert await amem.get_all(scope=ANA) == []
        await amem.add("I keep wasps.", scope=ANA)
        return await amem.get_all(scope=ANA)

    assert [r.embed_text() for r in asyncio.run(main())] == ["I keep wasps."]
    mem.close()


def test_sync_use_beside_and_after_async_use_of_the_same_store(pg_url):
    mem = memory(pg_url)

    def sync_writer():
        for i in range(10):
            mem.add(f"sync note {i}", scope=ANA)

    async def main():
        amem = AsyncMemory(mem)
        thread = threading.Thread(target=sync_writer)
        thread.start()  # the same store, from another thread, on its synchronous connection
        await asyncio.gather(*(amem.add(f"async note {i}", scope=ANA) for i in range(10)))
        await asyncio.to_thread(thread.join)
        seen = await amem.get_all(scope=ANA)
        await amem.close()
        return seen

    seen = asyncio.run(main())
    assert len(seen) == 20
    with pytest.raises(StoreError, match="closed"):  # AsyncMemory.close() closed the Memory it wraps
        mem.get_all(scope=ANA)
    again = memory(pg_url)
    assert sorted(r.embed_text() for r in again.get_all(scope=ANA)) == sorted(r.embed_text() for r in seen)
    assert again.search("sync note 3", scope=ANA)[0].record.embed_text() == "sync note 3"
    again.close()
