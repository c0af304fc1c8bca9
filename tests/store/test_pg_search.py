"""PostgreSQL search in SQL (pgvector): dimensioned columns, the plans, HNSW for large scopes.

What every backend must do is in tests/conformance/ (PostgreSQL runs it with ``search="sql"``);
this file checks what only PostgreSQL has: ``vector(n)`` columns and their migration, the plan a
search gets (the scope's b-tree, or its own partial HNSW index), and that HNSW answers agree with
exact search, with and without a speaker filter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
import pytest

from memdesk.errors import ConfigError
from memdesk.filters import RecordFilter
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store import open_store
from memdesk.store.pg_schema import PG_MIGRATIONS
from memdesk.store.pg_search import index_name
from memdesk.store.postgres import PostgresStore
from memdesk.store.codec import scope_key
from memdesk.store.filtered import search_where

from .conftest import DIM, INFO

pytestmark = pytest.mark.postgres

BIG, SMALL = Scope(user_id="big"), Scope(user_id="small")


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def column_types(url: str) -> set[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'memdesk' AND a.attname = 'vector' "
            "AND c.relkind = 'r'"
        ).fetchall()
    return {r[0] for r in rows}


def exact(vectors: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    return list(np.argsort(-(vectors @ q), kind="stable")[:k])


def test_vector_columns_get_the_recorded_dimension(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as s:
        assert column_types(postgres_url) == {"vector"}  # nothing recorded yet: any dimension
        s.set_embedding_info(INFO)
        assert column_types(postgres_url) == {f"vector({DIM})"}


def test_migration_0005_dimensions_the_columns_of_an_existing_store(postgres_url: str) -> None:
    rng = np.random.default_rng(3)
    with PostgresStore(postgres_url, migrations=PG_MIGRATIONS[:4]) as old:
        old.set_embedding_info(INFO)
        assert column_types(postgres_url) == {f"vector({DIM})"}  # the dialect hook runs without 0005 too
    with PostgresStore(postgres_url) as current:  # today's writes (they need the later migrations' columns)
        current.write([SemanticRecord(scope=SMALL, fact=f"f{i}") for i in range(5)], unit(rng, 5))
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # as a store written before 0005 was
        for table in ("episodic_memory", "semantic_memory", "procedural_memory", "collection_items"):
            conn.execute(f"ALTER TABLE memdesk.{table} ALTER COLUMN vector TYPE vector")
        conn.execute("DELETE FROM memdesk.migrations WHERE name = '0005_dimensioned_vectors'")
    assert column_types(postgres_url) == {"vector"}
    with PostgresStore(postgres_url) as new:
        assert column_types(postgres_url) == {f"vector({DIM})"}
        assert len(new.search(unit(rng, 1)[0], SMALL, MemoryType.SEMANTIC, 10)) == 5


def _fill(store: PostgresStore, rng: np.random.Generator, n_big: int = 1500) -> tuple[list[SemanticRecord], np.ndarray]:
    big = [SemanticRecord(scope=BIG, fact=f"b{i}", speaker="ann" if i % 3 == 0 else "bob") for i in range(n_big)]
    vectors = unit(rng, n_big)
    store.write(big, vectors)
    store.write([SemanticRecord(scope=SMALL, fact=f"s{i}") for i in range(10)], unit(rng, 10))
    return big, vectors


def test_a_large_scope_gets_its_own_hnsw_index_and_the_plans_use_it(store: PostgresStore) -> None:
    rng = np.random.default_rng(4)
    big, vectors = _fill(store, rng)
    q = unit(rng, 1)[0]
    before = store.explain_search(q, BIG, MemoryType.SEMANTIC, 10)
    assert "hnsw" not in before and "ix_semantic_memory_scope" in before  # exact under the scope's b-tree
    created = store.index_large_scopes(min_rows=1000)
    assert created == [index_name("semantic_memory", scope_key(BIG))]
    assert store.index_large_scopes(min_rows=1000) == []  # already there
    plan = store.explain_search(q, BIG, MemoryType.SEMANTIC, 10)
    assert created[0] in plan  # the partial index of that scope, for a partial Scope(user_id=...) of one key
    assert created[0] not in store.explain_search(q, SMALL, MemoryType.SEMANTIC, 10)
    hits = store.search(q, BIG, MemoryType.SEMANTIC, 10)
    want = {big[i].id for i in exact(vectors, q, 10)}
    assert len(hits) == 10 and len(want & {h.record.id for h in hits}) >= 9  # approximate, ef_search 200
    np.testing.assert_allclose([h.score for h in hits], sorted((float(vectors[i] @ q) for i in exact(vectors, q, 10)), reverse=True)[: len(hits)], atol=0.05)


def test_a_speaker_filter_on_an_hnsw_scope_still_returns_k_exact_rows(store: PostgresStore) -> None:
    rng = np.random.default_rng(5)
    big, vectors = _fill(store, rng)
    store.index_large_scopes(min_rows=1000)
    q = unit(rng, 1)[0]
    ann = [i for i, r in enumerate(big) if r.speaker == "ann"]
    hits = store.search(q, BIG, MemoryType.SEMANTIC, 12, speaker="ann")
    want = [big[ann[j]].id for j in exact(vectors[ann], q, 12)]
    assert [h.record.id for h in hits] == want


def test_a_record_filter_is_in_the_pgvector_query_and_an_hnsw_scope_still_returns_k_exact_rows(store: PostgresStore) -> None:
    rng = np.random.default_rng(9)
    words = ["Straße", "Ölweg", "road"]
    big = [
        SemanticRecord(scope=BIG, fact=f"b{i}", metadata={"team": "rare" if i % 50 == 7 else "common", "word": words[i % 3]})
        for i in range(1500)
    ]
    vectors = unit(rng, len(big))
    store.write(big, vectors)
    q = unit(rng, 1)[0]
    rare = RecordFilter(metadata={"team": "rare"})  # exact in SQL: one query of k rows
    street = RecordFilter(metadata={"word": {"icontains": "STRAß"}})  # a superset (every non-ASCII word): asks more

    def check() -> None:
        for where in (rare, street):
            kept = [i for i, r in enumerate(big) if where.matches(r)]
            hits = search_where(store, q, BIG, MemoryType.SEMANTIC, 12, where)
            assert [h.record.id for h in hits] == [big[kept[j]].id for j in exact(vectors[kept], q, 12)]

    plan = store.explain_search(q, BIG, MemoryType.SEMANTIC, 12, where=rare)
    assert "ix_semantic_memory_scope" in plan and "'team'" in plan  # the filter under the scope's b-tree
    check()
    store.index_large_scopes(min_rows=1000)
    plan = store.explain_search(q, BIG, MemoryType.SEMANTIC, 12, where=rare)
    if store.pgvector_version < (0, 8, 0):  # no iterative scans: the filtered rows first, ranked exactly
        assert "CTE Scan on candidates" in plan and "'team'" in plan
    check()


def test_a_partial_scope_over_several_exact_scopes_is_ranked_exactly(store: PostgresStore) -> None:
    rng = np.random.default_rng(6)
    scopes = [Scope(user_id="u", agent_id=f"a{i}") for i in range(3)] + [Scope(user_id="other")]
    recs = [SemanticRecord(scope=s, fact=f"{s.agent_id}-{j}") for s in scopes for j in range(15)]
    vectors = unit(rng, len(recs))
    store.write(recs, vectors)
    q = unit(rng, 1)[0]
    under_u = [i for i, r in enumerate(recs) if r.scope.user_id == "u"]
    hits = store.search(q, Scope(user_id="u"), MemoryType.SEMANTIC, 7)
    assert [h.record.id for h in hits] == [recs[under_u[j]].id for j in exact(vectors[under_u], q, 7)]
    assert store.search(q, Scope(user_id="nobody"), MemoryType.SEMANTIC, 7) == []


def test_sql_and_memory_search_agree(postgres_url: str) -> None:
    rng = np.random.default_rng(7)
    with open_store(postgres_url, search="sql") as sql, open_store(postgres_url, search="memory") as mem:
        sql.set_embedding_info(INFO)
        recs = [SemanticRecord(scope=Scope(user_id="u", run_id=f"r{i % 4}"), fact=f"f{i}") for i in range(80)]
        sql.write(recs, unit(rng, 80))
        for q in unit(rng, 5):
            for scope in (Scope(user_id="u"), Scope(user_id="u", run_id="r1")):
                a = sql.search(q, scope, MemoryType.SEMANTIC, 8)
                b = mem.search(q, scope, MemoryType.SEMANTIC, 8)
                assert [h.record.id for h in a] == [h.record.id for h in b]
                np.testing.assert_allclose([h.score for h in a], [h.score for h in b], atol=1e-5)


def test_search_modes_and_hnsw_need_the_right_configuration(postgres_url: str, tmp_path: Any) -> None:
    with pytest.raises(ConfigError):
        PostgresStore(postgres_url, search="faiss")
    with pytest.raises(ConfigError):
        open_store(f"sqlite:///{tmp_path / 'x.db'}", search="sql")
    with PostgresStore(postgres_url, search="memory") as mem:
        with pytest.raises(ConfigError):
            mem.index_large_scopes()
        assert mem.pgvector_version >= (0, 5, 0)  # the pgserver wheel ships 0.6.2


def test_a_large_collection_gets_an_hnsw_index_that_its_search_uses(postgres_url: str) -> None:
    rng = np.random.default_rng(8)
    with PostgresStore(postgres_url, hnsw_min_rows=150) as s:
        s.set_embedding_info(INFO)
        bank = s.collection("bank")
        vectors = unit(rng, 200)
        bank.put([f"i{n}" for n in range(100)], ['{"n": 1}'] * 100, vectors[:100])
        name = index_name("collection_items", "bank")
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            exists = "SELECT to_regclass(%s) IS NOT NULL"
            assert not conn.execute(exists, [f"memdesk.{name}"]).fetchone()[0]
            bank.put([f"i{n}" for n in range(100, 200)], ['{"n": 1}'] * 100, vectors[100:])
            assert conn.execute(exists, [f"memdesk.{name}"]).fetchone()[0]
        q = vectors[17]
        hits = bank.search(q, 5)
        assert hits[0][0] == "i17" and len(hits) == 5
        assert len({f"i{i}" for i in exact(vectors, q, 5)} & {h[0] for h in hits}) >= 4


def test_forgetting_a_scope_drops_its_hnsw_index(store: PostgresStore) -> None:
    rng = np.random.default_rng(9)
    _fill(store, rng)
    name = store.index_large_scopes(min_rows=1000)[0]
    store.forget(BIG)
    with psycopg.connect(store.dsn, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass(%s)", [f"memdesk.{name}"]).fetchone()[0] is None
        logged = conn.execute("SELECT scope_key FROM memdesk.change_log WHERE scope_key IS NOT NULL").fetchall()
    assert scope_key(BIG) not in {r[0] for r in logged}
    assert len(store.search(unit(rng, 1)[0], SMALL, MemoryType.SEMANTIC, 20)) == 10


def test_what_a_search_remembers_of_the_scopes_table_and_the_indexes_follows_other_processes(
    postgres_url: str,
) -> None:
    """A search reads a partial scope's exact keys and the scope's HNSW indexes once per change counter value
    (``SeenAt``), not once per memory type: another connection's new exact scope under ``Scope(user_id="u")``
    is found by the next search, and its HNSW index (made by another connection) is used after its next commit."""
    rng = np.random.default_rng(11)
    u = Scope(user_id="u")
    with PostgresStore(postgres_url) as mine, PostgresStore(postgres_url) as theirs:
        mine.set_embedding_info(INFO)
        first = [SemanticRecord(scope=u, fact=f"mine {j}") for j in range(1200)]
        vectors = unit(rng, len(first))
        mine.write(first, vectors)
        q = unit(rng, 1)[0]
        for _ in range(2):  # the keys and index facts are now remembered
            assert len(mine.search(q, u, MemoryType.SEMANTIC, 5)) == 5
        new = SemanticRecord(scope=Scope(user_id="u", run_id="r9"), fact="theirs, in a new run")
        theirs.write([new], q[None, :])  # a new exact scope under Scope(user_id="u"), committed elsewhere
        assert mine.search(q, u, MemoryType.SEMANTIC, 1)[0].record.id == new.id
        # their index of the one-key scope Scope(user_id="v"): this store's plans use it after the next commit
        v = Scope(user_id="v")
        theirs.write([SemanticRecord(scope=v, fact=f"v {j}") for j in range(1200)], vectors)
        assert "hnsw" not in mine.explain_search(q, v, MemoryType.SEMANTIC, 10)
        created = index_name("semantic_memory", scope_key(v))
        assert created in theirs.index_large_scopes(min_rows=1000)
        theirs.write([SemanticRecord(scope=Scope(user_id="w"), fact="a commit")], q[None, :])
        assert created in mine.explain_search(q, v, MemoryType.SEMANTIC, 10)
        # and an index dropped by a forget elsewhere: the next search is exact again, with the same answer
        theirs.forget(v)
        assert mine.search(q, v, MemoryType.SEMANTIC, 5) == []


def test_a_warm_search_of_every_type_is_one_statement(postgres_url: str, monkeypatch) -> None:
    """Memory's read path (``search_types``): the change counter and the three types' top k in one
    statement; another connection's commit is noticed by that statement, caught up, and searched again."""
    scope, rng = Scope(user_id="u"), np.random.default_rng(7)
    with open_store(postgres_url) as store, open_store(postgres_url) as other:
        store.set_embedding_info(INFO)
        recs = [SemanticRecord(scope=scope, fact=f"f{i}") for i in range(30)]
        v = unit(rng, 31)
        store.write(recs, v[:30])
        types = list(MemoryType)
        store.search_types(v[0], scope, types, 5)  # reads the embedding info, the scope's indexes
        statements: list[str] = []
        execute = psycopg.Connection.execute

        def traced(conn: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            if conn is store.db.conn:
                statements.append(str(query))
            return execute(conn, query, *args, **kwargs)

        monkeypatch.setattr(psycopg.Connection, "execute", traced)
        for i in range(3):
            assert [h.record.id for h in store.search_types(v[i], scope, types, 5)[MemoryType.SEMANTIC]][0] == recs[i].id
        assert len(statements) == 3 and all("UNION ALL" in s and "changes" in s for s in statements)
        fresh = SemanticRecord(scope=scope, fact="from the other store")
        other.write([fresh], v[30:])
        statements.clear()
        assert store.search_types(v[30], scope, types, 1)[MemoryType.SEMANTIC][0].record.id == fresh.id
        assert len(statements) > 2  # the stale answer was dropped: catch up (the change log), then search again
