"""The fused read path (memdesk's default): score fusion, per-type calibration, token budget."""

from __future__ import annotations

import pytest

from memdesk.filters import RecordFilter
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.retrieve import Retriever, Serializer
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


def crowded(store):
    """Sixty facts all about as close to the query (cosine ~0.89), forty events far from it and one event
    that stands out among the events (cosine ~0.71); stores large enough that each type's own spread
    outweighs the scope-wide prior mixed into it."""
    for i in range(60):
        put(store, SemanticRecord(scope=S, fact=f"Ana fact {i}", provenance=[f"s{i}"]), [2, 1, 0.01 * i])
    for i in range(40):
        put(store, EpisodicRecord(scope=S, title="", summary=f"Ana event {i}", provenance=[f"e{i}"]), [0, 1, 0.01 * i])
    put(store, EpisodicRecord(scope=S, title="", summary="Ana standout event", provenance=["hit"]), [1, 1, 0])


def test_typed_calibration_lifts_what_stands_out_in_its_own_store(store):
    crowded(store)
    r = Retriever.fused(store, k=100, K=3)
    q = unit([1, 0, 0])
    typed = r.retrieve(q, S, query_text="unrelated words", mode="typed")
    assert typed[0].record.provenance == ["hit"]  # z ~ 1.8 among events beats z ~ 0.3 among facts
    untyped = r.retrieve(q, S, query_text="unrelated words", mode="untyped")
    assert [h.memory_type for h in untyped] == [MemoryType.SEMANTIC] * 3  # one pooled scale: raw order
    assert "z " in typed[0].why


def test_lexical_candidate_joins_with_its_cosine_and_bm25(store):
    for i in range(5):
        put(store, SemanticRecord(scope=S, fact=f"Ann likes generic thing {i}", provenance=[f"s{i}"]), [1, 0.01 * i, 0])
    put(store, SemanticRecord(scope=S, fact="Ann went camping by the lake", provenance=["camp"]), [0, 0, 1])
    r = Retriever.fused(store, k=2, K=3)
    q = unit([1, 0, 0])
    dense_only = r.retrieve(q, S, query_text="Where has Ann camped?", hybrid=False)
    assert "camp" not in {p for h in dense_only for p in h.record.provenance}
    hits = r.retrieve(q, S, query_text="Where has Ann camped?")
    camp = next(h for h in hits if h.record.provenance == ["camp"])  # "camped" meets "camping" by its stem
    assert "bm25 top-1" in camp.why
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_budget_bounds_the_block_and_the_index_follows_writes(store):
    for i in range(30):
        put(store, SemanticRecord(scope=S, fact=f"Ana remembers detail number {i} of the trip", provenance=[f"m{i}"]),
            [1, 0.02 * i, 0])
    ser = Serializer(group_by_anchor=True)
    r = Retriever.fused(store, k=40, K=100, token_budget=60, serializer=ser)
    hits = r.retrieve(unit([1, 0, 0]), S, query_text="trip detail")
    block = ser.serialize(hits)
    assert 0 < block.tokens <= 60 and 3 <= len(hits) < 30
    new = SemanticRecord(scope=S, fact="Ana bought a kayak", provenance=["new"])
    put(store, new, [0, 0, 1])
    index = r.indexes.get(S, (MemoryType.EPISODIC, MemoryType.SEMANTIC, MemoryType.PROCEDURAL), RecordFilter())
    assert index.lexical("kayak", 1)[1][0][0] == index.position[new.id]  # the index was rebuilt after the write
    hits = r.retrieve(unit([0.2, 0, 1]), S, query_text="kayak")
    assert hits[0].record.provenance == ["new"] and "bm25 top-1" not in hits[0].why  # dense found it too
