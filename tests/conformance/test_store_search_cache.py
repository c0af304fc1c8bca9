"""The search cache: cheap when warm, and never stale after anyone else's write.

Every backend runs the staleness tests; the statement counts apply where searches are answered
from an in-process cache (``Backend.caches``). PostgreSQL's ``search="memory"`` mode runs here too.
"""

from __future__ import annotations

import pytest

from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store.base import Store

from .conftest import CACHE_BACKENDS, INFO, Backend
from .helpers import native_for, unit

U = Scope(user_id="u")


@pytest.fixture(params=[pytest.param(b, id=b.name, marks=b.marks) for b in CACHE_BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    return request.param


def test_a_warm_search_runs_only_the_change_check(store: Store, backend: Backend, rng) -> None:
    if not backend.caches:
        pytest.skip("this backend keeps no search cache: every search is one query in the database")
    native = native_for(store)
    scopes = [Scope(user_id="u", agent_id=f"a{i}") for i in range(3)]
    for s in scopes:
        store.write([SemanticRecord(scope=s, fact=f"{s} {i}") for i in range(50)], unit(rng, 50))
    q = unit(rng, 1)[0]
    store.search(q, U, MemoryType.SEMANTIC, 5)  # cold: resolves the partial scope (one index range), loads
    store.search(q, scopes[1], MemoryType.SEMANTIC, 5)
    with native.trace(store) as statements:
        for _ in range(3):
            assert len(store.search(q, U, MemoryType.SEMANTIC, 5)) == 5
            assert len(store.search(q, scopes[1], MemoryType.SEMANTIC, 5)) == 5
        assert statements == [native.change_check] * 6
        # this store's own writes keep the cache warm: no reload afterwards
        store.write([SemanticRecord(scope=scopes[0], fact="new")], q[None, :])
        statements.clear()
        assert store.search(q, U, MemoryType.SEMANTIC, 1)[0].record.fact == "new"
        assert statements == [native.change_check]


def test_an_own_write_after_another_connections_write_still_drops_the_stale_cache(two_stores: tuple[Store, Store], rng) -> None:
    a, b = two_stores
    v = unit(rng, 3)
    a.write([SemanticRecord(scope=U, fact="a0")], v[:1])
    assert len(a.search(v[0], U, MemoryType.SEMANTIC, 5)) == 1  # a's cache is warm
    b.write([SemanticRecord(scope=U, fact="from b")], v[1:2])
    a.write([SemanticRecord(scope=U, fact="a1")], v[2:3])  # a's commit follows b's
    assert a.search(v[1], U, MemoryType.SEMANTIC, 1)[0].record.fact == "from b"
    assert len(a.search(v[1], U, MemoryType.SEMANTIC, 5)) == 3


def test_plain_sql_writes_outside_memdesk_drop_the_cache(store: Store, backend: Backend, rng) -> None:
    if not backend.shared:
        pytest.skip("no other connection can reach this backend's database")
    native = native_for(store)
    recs = [SemanticRecord(scope=U, fact=f"f{i}") for i in range(20)]
    v = unit(rng, 20)
    store.write(recs, v)
    assert store.search(v[0], U, MemoryType.SEMANTIC, 1)[0].record.id == recs[0].id  # warm
    native.delete_rows(store, "semantic_memory", [recs[0].id])
    with native.trace(store) as statements:
        hits = store.search(v[0], U, MemoryType.SEMANTIC, 3)
    assert recs[0].id not in [h.record.id for h in hits]
    assert len(statements) > 1  # it reloaded (or, without a cache, searched in the database)
    # several statements in one outside transaction count once; a memdesk write after them still works
    native.delete_rows(store, "semantic_memory", [recs[1].id, recs[2].id])
    store.write([SemanticRecord(scope=U, fact="after")], v[1:2])
    assert [h.record.fact for h in store.search(v[1], U, MemoryType.SEMANTIC, 1)] == ["after"]
    assert {recs[1].id, recs[2].id}.isdisjoint(h.record.id for h in store.search(v[1], U, MemoryType.SEMANTIC, 20))
    assert store.count() == 18


def test_another_connections_commit_reloads_only_the_scopes_it_touched(
    two_stores: tuple[Store, Store], backend: Backend, rng
) -> None:
    a, b = two_stores
    mine, theirs, new = Scope(user_id="mine"), Scope(user_id="theirs"), Scope(user_id="theirs", agent_id="new")
    v = unit(rng, 6)
    a.write([SemanticRecord(scope=mine, fact=f"m{i}") for i in range(3)], v[:3])
    a.write([SemanticRecord(scope=theirs, fact="t0")], v[3:4])
    for s in (mine, theirs):
        assert a.search(v[0], s, MemoryType.SEMANTIC, 5)  # warm
    b.write([SemanticRecord(scope=theirs, fact="t1")], v[4:5])  # another connection writes one scope
    b.write([SemanticRecord(scope=new, fact="under theirs")], v[5:6])  # and creates one under the other's user
    native = native_for(a)
    with native.trace(a) as statements:
        assert len(a.search(v[0], mine, MemoryType.SEMANTIC, 5)) == 3
    if backend.caches:
        assert not any("semantic_memory" in sql for sql in statements), statements  # mine was not reloaded
    assert {h.record.fact for h in a.search(v[4], theirs, MemoryType.SEMANTIC, 5)} == {"t0", "t1", "under theirs"}
    with native.trace(a) as statements:
        assert len(a.search(v[0], mine, MemoryType.SEMANTIC, 5)) == 3
    if backend.caches:
        assert statements == [native.change_check]
