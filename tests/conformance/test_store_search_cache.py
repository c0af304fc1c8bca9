"""The in-process search cache: cheap when warm, and never stale after anyone else's write."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store.base import Store

from .conftest import INFO, Backend
from .helpers import native_for, unit

U = Scope(user_id="u")


def test_a_warm_search_runs_only_the_change_check(store: Store, rng) -> None:
    native = native_for(store)
    scopes = [Scope(user_id="u", agent_id=f"a{i}") for i in range(3)]
    for s in scopes:
        store.write([SemanticRecord(scope=s, fact=f"{s} {i}") for i in range(50)], unit(rng, 50))
    q = unit(rng, 1)[0]
    store.search(q, U, MemoryType.SEMANTIC, 5)  # cold: loads
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


def test_an_own_write_after_another_connections_write_still_drops_the_stale_cache(
    open_backend: Callable[[], Store], backend: Backend, rng
) -> None:
    if not backend.shared:
        pytest.skip("each open of this backend is a separate database")
    a, b = open_backend(), open_backend()
    a.set_embedding_info(INFO)
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
    assert len(statements) > 1  # it reloaded
    # several statements in one outside transaction count once; a memdesk write after them still works
    native.delete_rows(store, "semantic_memory", [recs[1].id, recs[2].id])
    store.write([SemanticRecord(scope=U, fact="after")], v[1:2])
    assert [h.record.fact for h in store.search(v[1], U, MemoryType.SEMANTIC, 1)] == ["after"]
    assert {recs[1].id, recs[2].id}.isdisjoint(h.record.id for h in store.search(v[1], U, MemoryType.SEMANTIC, 20))
    assert store.count() == 18
