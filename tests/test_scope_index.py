"""The fused read path's per-scope index: it follows its own scope's revision, holds only what the
filter keeps (dense and lexical candidates alike), and demotes superseded memories."""

from __future__ import annotations

from datetime import datetime, timezone

from memdesk.filters import RecordFilter
from memdesk.records import ALL_TYPES, Scope, SemanticRecord
from memdesk.retrieve import Retriever
from memdesk.scope_index import ScopeIndexCache
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

A, B = Scope(user_id="a"), Scope(user_id="b")
EVERYTHING = RecordFilter()


def test_a_write_to_another_scope_leaves_this_scopes_index_warm(store):
    put(store, SemanticRecord(scope=A, fact="a likes tea", provenance=["a1"]), [1, 0, 0])
    put(store, SemanticRecord(scope=B, fact="b likes coffee", provenance=["b1"]), [1, 0, 0])
    cache = ScopeIndexCache(store)
    first = cache.get(A, ALL_TYPES, EVERYTHING)
    put(store, SemanticRecord(scope=B, fact="b likes juice", provenance=["b2"]), [0, 1, 0])
    assert cache.get(A, ALL_TYPES, EVERYTHING) is first  # B's write did not touch A: no rebuild
    put(store, SemanticRecord(scope=A, fact="a likes water", provenance=["a2"]), [0, 1, 0])
    again = cache.get(A, ALL_TYPES, EVERYTHING)
    assert again is not first and sorted(r.fact for r in again.records) == ["a likes tea", "a likes water"]


def test_a_partial_scope_follows_writes_under_it(store):
    put(store, SemanticRecord(scope=Scope(user_id="a", agent_id="x"), fact="a x fact", provenance=["x1"]), [1, 0, 0])
    cache = ScopeIndexCache(store)
    first = cache.get(A, ALL_TYPES, EVERYTHING)  # user a, any agent
    put(store, SemanticRecord(scope=Scope(user_id="a", agent_id="y"), fact="a y fact", provenance=["y1"]), [0, 1, 0])
    again = cache.get(A, ALL_TYPES, EVERYTHING)
    assert again is not first and len(again.records) == 2


def test_each_filter_gets_its_own_index_of_only_what_it_keeps(store):
    put(store, SemanticRecord(scope=A, fact="a web fact", metadata={"app": "web"}, provenance=["w"]), [1, 0, 0])
    put(store, SemanticRecord(scope=A, fact="a phone fact", metadata={"app": "ios"}, provenance=["i"]), [1, 0, 0])
    cache = ScopeIndexCache(store)
    web = cache.get(A, ALL_TYPES, RecordFilter(metadata={"app": "web"}))
    assert [r.fact for r in web.records] == ["a web fact"]
    assert sorted(r.fact for r in cache.get(A, ALL_TYPES, EVERYTHING).records) == ["a phone fact", "a web fact"]


def test_a_filtered_fused_search_never_returns_a_lexical_candidate_the_filter_drops(store):
    put(store, SemanticRecord(scope=A, fact="Ana kayaks on weekends", metadata={"app": "ios"}, provenance=["i"]), [0, 0, 1])
    for n in range(3):
        put(store, SemanticRecord(scope=A, fact=f"Ana note {n}", metadata={"app": "web"}, provenance=[f"w{n}"]), [1, 0, 0])
    r = Retriever.fused(store, k=5, K=10)
    q = unit([1, 0, 0])
    everything = r.retrieve(q, A, query_text="kayak")
    assert "i" in {p for h in everything for p in h.record.provenance}  # found by BM25 alone
    web = r.retrieve(q, A, query_text="kayak", where=RecordFilter(metadata={"app": "web"}))
    assert web and all(h.record.metadata["app"] == "web" for h in web)


def superseded_pair(store):
    then, now = datetime(2024, 1, 1, tzinfo=timezone.utc), datetime(2024, 6, 1, tzinfo=timezone.utc)
    new = SemanticRecord(scope=A, fact="Priya lives in Bath", event_time=now, provenance=["new"])
    old = SemanticRecord(
        scope=A, fact="Priya lives in Bristol", event_time=then, valid_to=now, superseded_by=new.id, provenance=["old"]
    )
    put(store, old, [1, 0, 0])  # the old fact sits right on the query
    put(store, new, [0.8, 0.6, 0])
    for n in range(4):
        put(store, SemanticRecord(scope=A, fact=f"Priya detail {n}", provenance=[f"d{n}"]), [0, 1, 0.1 * n])
    return old, new


def test_a_superseded_memory_ranks_below_the_one_that_replaced_it(store):
    old, new = superseded_pair(store)
    q = unit([1, 0, 0])
    hits = Retriever.fused(store, k=10, K=10).retrieve(q, A, query_text="Where does Priya live?")
    ids = [h.record.id for h in hits]
    assert ids.index(new.id) < ids.index(old.id)  # demoted below the current fact, still findable
    assert "superseded, x0.5" in hits[ids.index(old.id)].why
    undemoted = Retriever.fused(store, k=10, K=10, superseded_weight=1.0).retrieve(q, A, query_text="Where does Priya live?")
    assert undemoted[0].record.id == old.id  # the weight, not chance, put it lower
    dropped = Retriever.fused(store, k=10, K=10, superseded_weight=None).retrieve(q, A, query_text="Where does Priya live?")
    assert old.id not in {h.record.id for h in dropped}


def test_as_of_reads_what_held_then(store):
    old, new = superseded_pair(store)
    then = datetime(2024, 3, 1, tzinfo=timezone.utc)
    hits = Retriever.fused(store, k=10, K=10).retrieve(
        unit([1, 0, 0]), A, query_text="Where does Priya live?", where=RecordFilter(as_of=then)
    )
    ids = {h.record.id for h in hits}
    assert old.id in ids and new.id not in ids
