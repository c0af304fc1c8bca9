"""PostgreSQL store specifics against a real server: migrations, schemas, pgvector, NUL text, URLs.

Change detection and the search cache are tested on every backend in tests/conformance/."""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
import psycopg
import pytest

from memdesk.errors import ConfigError, InvalidInputError, MigrationError, StoreError
from memdesk.records import MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, Migration, open_store
from memdesk.store.pg_schema import PG_MIGRATIONS
from memdesk.store.postgres import PostgresStore, describe_dsn
from tests.pg_server import PgTestServer, database_url, session_server

from .conftest import DIM, INFO

pytestmark = pytest.mark.postgres



def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def rows(url: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run SQL on its own connection (plain SQL, default search_path): someone other than memdesk."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


# --- migrations ------------------------------------------------------------------------------------
def test_a_new_database_gets_every_table_in_its_schema_and_records_migrations(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        applied = store.migrations_applied()
    assert [name for name, _ in applied] == [m.name for m in PG_MIGRATIONS]
    assert all(at.tzinfo is not None for _, at in applied)
    tables = {r[0] for r in rows(postgres_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'memdesk'")}
    assert {
        "episodic_memory", "semantic_memory", "procedural_memory", "messages", "history", "scopes", "meta",
        "migrations", "collection_items", "changes",
    } <= tables  # fmt: skip
    assert rows(postgres_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == []
    columns = dict(rows(
        postgres_url,
        "SELECT column_name, udt_name FROM information_schema.columns "
        "WHERE table_schema = 'memdesk' AND table_name = 'semantic_memory'",
    ))  # fmt: skip
    assert columns["vector"] == "vector" and columns["event_time"] == "timestamptz"
    assert {"id", "user_id", "agent_id", "run_id", "speaker", "ingest_time", "provenance", "embedding_model",
            "record", "version", "seq", "scope_key"} <= set(columns)  # fmt: skip
    indexes = {r[0] for r in rows(postgres_url, "SELECT indexname FROM pg_indexes WHERE tablename = 'semantic_memory'")}
    assert {"ix_semantic_memory_user", "ix_semantic_memory_agent", "ix_semantic_memory_run"} <= indexes


def test_reopening_applies_nothing_and_only_new_migrations_run(postgres_url: str) -> None:
    calls: list[str] = []

    def add_notes(conn: psycopg.Connection) -> None:
        calls.append("0002")
        conn.execute("CREATE TABLE notes (id bigint PRIMARY KEY, body text)")

    with PostgresStore(postgres_url) as store:
        first = store.migrations_applied()
        store.set_embedding_info(INFO)
        store.write([SemanticRecord(scope=Scope(user_id="u"), fact="kept")], unit(np.random.default_rng(0), 1))
    upgraded = (*PG_MIGRATIONS, Migration("0002_notes", add_notes))
    with PostgresStore(postgres_url, migrations=upgraded) as store:
        assert [n for n, _ in store.migrations_applied()] == [m.name for m in upgraded]
        assert store.migrations_applied()[0] == first[0]
    with PostgresStore(postgres_url, migrations=upgraded) as store:
        assert store.count() == 1
    assert calls == ["0002"]
    assert rows(postgres_url, "SELECT to_regclass('memdesk.notes') IS NOT NULL") == [(True,)]
    with PostgresStore(postgres_url) as store:  # an older memdesk still opens a database migrated further
        assert store.count() == 1


def test_a_failing_first_migration_leaves_no_tables(postgres_url: str) -> None:
    def bad(conn: psycopg.Connection) -> None:
        conn.execute("CREATE TABLE first_try (x integer)")
        raise ValueError("nope")

    with pytest.raises(MigrationError):
        PostgresStore(postgres_url, migrations=(Migration("0001_bad", bad),))
    assert rows(postgres_url, "SELECT COUNT(*) FROM memdesk.migrations") == [(0,)]
    assert rows(postgres_url, "SELECT to_regclass('memdesk.first_try')") == [(None,)]


def test_stores_in_two_schemas_of_one_database_are_independent(postgres_url: str) -> None:
    rows(postgres_url, "CREATE TABLE public.messages (note text)")  # an application's own table of that name
    rng = np.random.default_rng(1)
    with PostgresStore(postgres_url, schema="team a") as a, PostgresStore(postgres_url, schema="team_b") as b:
        a.set_embedding_info(INFO)
        b.set_embedding_info(EmbeddingInfo(model_id="other", dim=8))
        a.write([SemanticRecord(scope=Scope(user_id="u"), fact="in a")], unit(rng, 1))
        b.write([SemanticRecord(scope=Scope(user_id="u"), fact="in b")], unit(rng, 1, 8))
        a.write(messages=[RawMessage(id="m", scope=Scope(user_id="u"), speaker=None, role="user", content="x",
                                   timestamp=None, ingest_time=time.time())])  # fmt: skip
        assert [r.fact for r in a.scan(Scope(user_id="u"))] == ["in a"]
        assert [r.fact for r in b.scan(Scope(user_id="u"))] == ["in b"]
        assert b.messages(Scope(user_id="u")) == []
    assert rows(postgres_url, "SELECT COUNT(*) FROM public.messages") == [(0,)]
    assert rows(postgres_url, 'SELECT COUNT(*) FROM "team a".messages') == [(1,)]


# --- pgvector storage and change detection ------------------------------------------------------------
def test_vectors_are_real_pgvector_values(store: PostgresStore) -> None:
    rng = np.random.default_rng(2)
    recs = [SemanticRecord(scope=Scope(user_id="u"), fact=f"f{i}") for i in range(20)]
    v = unit(rng, 20)
    store.write(recs, v)
    q = unit(rng, 1)[0]
    ours = store.search(q, Scope(user_id="u"), MemoryType.SEMANTIC, 5)
    literal = "[" + ",".join(repr(float(x)) for x in q) + "]"
    theirs = rows(
        store.dsn,
        "SELECT id, -(vector <#> %s::vector), vector_dims(vector) FROM memdesk.semantic_memory "
        "ORDER BY vector <#> %s::vector LIMIT 5",
        (literal, literal),
    )
    assert [h.record.id for h in ours] == [r[0] for r in theirs]
    np.testing.assert_allclose([h.score for h in ours], [r[1] for r in theirs], atol=1e-5)
    assert {r[2] for r in theirs} == {DIM}


def test_text_with_nul_characters_is_refused_and_nothing_is_written(store: PostgresStore) -> None:
    rng = np.random.default_rng(5)
    msg = RawMessage(id="m1", scope=Scope(user_id="u"), speaker=None, role="user", content="a\x00b",
                     timestamp=None, ingest_time=time.time())  # fmt: skip
    rec = SemanticRecord(scope=Scope(user_id="u"), fact="ok")
    with pytest.raises(InvalidInputError, match="NUL"):
        store.write([rec], unit(rng, 1), messages=[msg])
    assert store.count() == 0 and store.messages(Scope(user_id="u")) == [] and not store.has_scope(Scope(user_id="u"))
    # inside a record the NUL is JSON-escaped, so the record itself round-trips
    nul_fact = SemanticRecord(scope=Scope(user_id="u"), fact="a\x00b")
    store.write([nul_fact], unit(rng, 1))
    assert store.get(nul_fact.id) == nul_fact


# --- URLs and connection errors -------------------------------------------------------------------------
def test_open_store_dispatches_postgres_urls(postgres_url: str) -> None:
    import memdesk.store

    assert memdesk.store.PostgresStore is PostgresStore  # exported lazily
    alias = "postgres" + postgres_url[len("postgresql") :]
    driver = "postgresql+psycopg" + postgres_url[len("postgresql") :]
    for url in (postgres_url, alias, driver):
        store = open_store(url, busy_timeout_ms=1234)
        try:
            assert isinstance(store, PostgresStore) and store.busy_timeout_ms == 1234
            assert store.count() == 0
        finally:
            store.close()


def test_an_unreachable_server_raises_store_error_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot connect") as err:
        PostgresStore("postgresql://memdesk:s3cret@127.0.0.1:1/nowhere", connect_timeout_s=2)
    assert "s3cret" not in str(err.value)
    assert describe_dsn("postgresql://memdesk:s3cret@db.example:5433/mem") == "postgresql://memdesk@db.example:5433/mem"


@pytest.mark.parametrize("dsn", ["postgresql://host/db?nosuchparam=1", "not a=dsn=at all"])
def test_a_malformed_connection_string_is_a_config_error(dsn: str) -> None:
    with pytest.raises(ConfigError):
        PostgresStore(dsn)


def test_missing_psycopg_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "memdesk.store.postgres", raising=False)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # makes `import psycopg` raise ImportError
    with pytest.raises(ConfigError, match=r"pip install 'memdesk\[postgres\]'"):
        open_store("postgresql://localhost/memdesk")


def test_database_url_helper() -> None:
    assert database_url("postgresql://postgres:@/postgres?host=/tmp/x", "t1") == "postgresql://postgres:@/t1?host=/tmp/x"


def test_the_session_server_is_shared_and_has_pgvector(postgres_server: PgTestServer, request: pytest.FixtureRequest) -> None:
    assert session_server(request.config) is postgres_server  # one server per session, whoever asks
    assert postgres_server.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
