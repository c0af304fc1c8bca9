"""The fused read path's per-scope index: it follows its own scope's revision, takes new records in
without a rebuild, holds only what the filter keeps (dense and lexical candidates alike), and demotes
superseded memories."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.filters import RecordFilter
from memdesk.retrieval.question_time import question_windows
from memdesk.records import ALL_TYPES, EpisodicRecord, Scope, SemanticRecord
from memdesk.retrieval.retrieve import SUPERSEDED_WEIGHT, Retriever
from memdesk.retrieval.scope_cache import ScopeIndexCache
from memdesk.retrieval.scope_index import ScopeIndex
from memdesk.retrieval.stemming import StemmingTokenizer
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
    assert f"superseded, x{SUPERSEDED_WEIGHT}" in hits[ids.index(old.id)].why
    undemoted = Retriever.fused(store, k=10, K=10, superseded_weight=1.0).retrieve(q, A, query_text="Where does Priya live?")
    assert undemoted[0].record.id == old.id  # the weight, not chance, put it lower
    dropped = Retriever.fused(store, k=10, K=10, superseded_weight=None).retrieve(q, A, query_text="Where does Priya live?")
    assert old.id not in {h.record.id for h in dropped}


def test_a_memory_closed_from_a_later_date_is_current_for_a_question_asked_before_it(store):
    old, new = superseded_pair(store)  # Bristol closed on 1 June 2024, when Priya moves to Bath
    q, asked = unit([1, 0, 0]), "Where does Priya live?"
    for retriever in (Retriever.fused(store, k=10, K=10), Retriever(store, k=10, K=10)):
        before = retriever.retrieve(q, A, query_text=asked, asked_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
        assert before[0].record.id == old.id and "superseded" not in before[0].why  # still where she lives in May
        after = retriever.retrieve(q, A, query_text=asked, asked_at=datetime(2024, 6, 2, tzinfo=timezone.utc))
        ids = [h.record.id for h in after]
        assert ids.index(new.id) < ids.index(old.id) and "superseded" in after[ids.index(old.id)].why
    dropping = Retriever.fused(store, k=10, K=10, superseded_weight=None)
    may = dropping.retrieve(q, A, query_text=asked, asked_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    june = dropping.retrieve(q, A, query_text=asked, asked_at=datetime(2024, 6, 2, tzinfo=timezone.utc))
    assert old.id in {h.record.id for h in may} and old.id not in {h.record.id for h in june}


def test_the_default_demotion_leaves_a_closed_record_that_matches_far_better_than_any_current_one_first(store):
    # the write side closed the cat with the move ("We moved to Ely" closing "I live in Leeds with my cat, Biscuit");
    # asked the cat's name, the closed record still matches far better than anything current
    now = datetime(2024, 6, 1, tzinfo=timezone.utc)
    moved = SemanticRecord(scope=A, fact="Tomas moved to Ely with the family", event_time=now, provenance=["new"])
    cat = SemanticRecord(
        scope=A, fact="Tomas lives in Leeds with his cat Biscuit", valid_to=now, superseded_by=moved.id, provenance=["old"]
    )
    put(store, cat, [1, 0, 0])
    put(store, moved, [0.65, 0.76, 0])
    for n in range(4):
        put(store, SemanticRecord(scope=A, fact=f"Tomas note {n}", provenance=[f"d{n}"]), [0, 0.3 * n, 1])
    q, asked = unit([1, 0, 0]), "What is the name of the cat Tomas has?"
    assert Retriever.fused(store, k=10, K=10).retrieve(q, A, query_text=asked)[0].record.id == cat.id
    halved = Retriever.fused(store, k=10, K=10, superseded_weight=0.5).retrieve(q, A, query_text=asked)
    assert halved[0].record.id == moved.id  # the demotion ENGRAM's path keeps would bury it


def test_as_of_reads_what_held_then(store):
    old, new = superseded_pair(store)
    then = datetime(2024, 3, 1, tzinfo=timezone.utc)
    hits = Retriever.fused(store, k=10, K=10).retrieve(
        unit([1, 0, 0]), A, query_text="Where does Priya live?", where=RecordFilter(as_of=then)
    )
    ids = {h.record.id for h in hits}
    assert old.id in ids and new.id not in ids


WORDS = "tea coffee kayak river bread oven garden rose train ticket piano lesson".split()


def random_records(rng, n, start=0):
    types = (SemanticRecord, EpisodicRecord)
    out = []
    for i in range(start, start + n):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 6))))
        kind = types[int(rng.integers(0, 2))]
        extra = {"event_time": datetime(2024, 1, 1 + int(rng.integers(0, 20)), tzinfo=timezone.utc)} if rng.random() < 0.5 else {}
        role = "user" if rng.random() < 0.7 else "assistant"
        if kind is SemanticRecord:
            out.append(SemanticRecord(scope=A, fact=text, provenance=[f"t{i}"], role=role, **extra))
        else:
            out.append(EpisodicRecord(scope=A, title="", summary=text, provenance=[f"t{i}"], role=role, **extra))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_an_extended_index_ranks_as_one_built_over_every_record(seed):
    rng = np.random.default_rng(seed)
    first, more = random_records(rng, 30), random_records(rng, int(rng.integers(1, 12)), start=30)
    vectors = rng.normal(size=(len(first) + len(more), 3))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    tokenizer = StemmingTokenizer()
    whole = ScopeIndex(first + more, vectors, tokenizer)
    grown = ScopeIndex(first, vectors[: len(first)], tokenizer).extended(more, vectors[len(first) :])
    query = unit(rng.normal(size=3))
    windows = question_windows("What did I do on 5 January 2024?", datetime(2024, 2, 1, tzinfo=timezone.utc))
    for typed in (True, False):
        args = dict(k=10, lexical_k=10, lexical_weight=0.3, typed=typed, role_boost={"user": 0.5}, time_windows=windows, time_weight=1.0)
        a = {whole.records[i].id: z for i, z, _ in whole.rank(query, "tea river piano", **args)}
        b = {grown.records[i].id: z for i, z, _ in grown.rank(query, "tea river piano", **args)}
        assert a.keys() == b.keys()
        np.testing.assert_allclose([b[k] for k in a], list(a.values()), rtol=1e-9, atol=1e-9)


def test_a_write_of_new_records_extends_the_cached_index_and_anything_else_rebuilds_it(store, monkeypatch):
    for i in range(8):
        put(store, SemanticRecord(scope=A, fact=f"a fact {i} about tea", provenance=[f"a{i}"]), [1, 0.1 * i, 0])
    cache = ScopeIndexCache(store, tokenizer=StemmingTokenizer())
    first = cache.get(A, ALL_TYPES, EVERYTHING)
    builds = []
    real_init = ScopeIndex.__init__
    monkeypatch.setattr(ScopeIndex, "__init__", lambda self, *a, **kw: (builds.append(1), real_init(self, *a, **kw))[1])
    new = SemanticRecord(scope=A, fact="a likes kayaking on the river", provenance=["new"])
    put(store, new, [0, 1, 0])
    put(store, EpisodicRecord(scope=A, title="", summary="a crossed the river by kayak", provenance=["ep"]), [0, 1, 1])
    grown = cache.get(A, ALL_TYPES, EVERYTHING)
    assert builds == [] and grown is not first and len(grown.records) == 10  # extended in place of a rebuild
    assert len(first.records) == 8  # a search still holding the old index is not disturbed
    fresh = ScopeIndexCache(store, tokenizer=StemmingTokenizer()).get(A, ALL_TYPES, EVERYTHING)
    q = unit([0.2, 1, 0.3])
    args = dict(k=20, lexical_k=20, lexical_weight=0.3, typed=True)
    got = [(grown.records[i].id, z) for i, z, _ in grown.rank(q, "kayak river", **args)]
    want = [(fresh.records[i].id, z) for i, z, _ in fresh.rank(q, "kayak river", **args)]
    assert [i for i, _ in got] == [i for i, _ in want]  # the same order; scores equal to float32 rounding
    np.testing.assert_allclose([z for _, z in got], [z for _, z in want], atol=1e-5)
    only_web = cache.get(A, ALL_TYPES, RecordFilter(metadata={"app": "web"}))
    builds.clear()  # the fresh cache's index and this one were built: count from here
    put(store, SemanticRecord(scope=A, fact="a web note", metadata={"app": "web"}, provenance=["w"]), [1, 0, 0])
    put(store, SemanticRecord(scope=A, fact="a phone note", metadata={"app": "ios"}, provenance=["p"]), [1, 0, 0])
    assert [r.fact for r in cache.get(A, ALL_TYPES, RecordFilter(metadata={"app": "web"})).records] == ["a web note"]
    assert only_web.records == [] and builds == []  # the filter holds for what an index takes in, too
    store.replace(new.model_copy(update={"fact": "a sold the kayak"}), unit([0, 1, 0]))  # not an addition
    rebuilt = cache.get(A, ALL_TYPES, EVERYTHING)
    assert builds == [1] and "a sold the kayak" in [getattr(r, "fact", None) for r in rebuilt.records]
    assert len(rebuilt.records) == 12
