"""Retriever merge/de-dup/truncation and the serializer, over a real SQLite store with chosen vectors."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.errors import InvalidInputError, UnknownScopeError
from memdesk.filters import RecordFilter
from memdesk.records import EpisodicRecord, MemoryType, ProceduralRecord, Scope, SemanticRecord
from memdesk.retrieval.retrieve import Retriever, Serializer, dedupe
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")
T = datetime(2023, 5, 7, tzinfo=timezone.utc)


def test_typed_keeps_k_per_type_and_orders_by_score(store):
    # 5 semantic records very close to the query, 1 episodic a bit further away
    for i in range(5):
        put(store, SemanticRecord(scope=S, fact=f"fact {i}", provenance=[f"s{i}"]), [1, 0.01 * i, 0])
    put(store, EpisodicRecord(scope=S, title="t", summary="event", provenance=["e"]), [1, 0.5, 0])
    r = Retriever(store, k=2, K=10)
    hits = r.retrieve(unit([1, 0, 0]), S)
    assert [h.memory_type for h in hits].count(MemoryType.SEMANTIC) == 2  # k=2 per type
    assert MemoryType.EPISODIC in [h.memory_type for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    untyped = r.retrieve(unit([1, 0, 0]), S, K=3, mode="untyped")
    assert [h.memory_type for h in untyped] == [MemoryType.SEMANTIC] * 3  # one global ranking


def test_round_robin_represents_every_type(store):
    for i in range(4):
        put(store, SemanticRecord(scope=S, fact=f"fact {i}", provenance=[f"s{i}"]), [1, 0.01 * i, 0])
    put(store, ProceduralRecord(scope=S, title="p", content="do it", provenance=["p"]), [0, 1, 0])
    hits = Retriever(store, k=4, K=2, merge="round_robin").retrieve(unit([1, 0, 0]), S)
    assert {h.memory_type for h in hits} == {MemoryType.SEMANTIC, MemoryType.PROCEDURAL}
    by_score = Retriever(store, k=4, K=2).retrieve(unit([1, 0, 0]), S)
    assert {h.memory_type for h in by_score} == {MemoryType.SEMANTIC}


def test_dedupe_by_provenance_and_normalized_text(store):
    put(store, SemanticRecord(scope=S, fact="Ana likes tea.", provenance=["m1"]), [1, 0, 0])
    put(store, EpisodicRecord(scope=S, title="", summary="ana LIKES tea", provenance=["m2"]), [1, 0.1, 0])
    put(store, ProceduralRecord(scope=S, title="x", content="brew tea", provenance=["m1"]), [1, 0.2, 0])
    put(store, SemanticRecord(scope=S, fact="Ben likes coffee.", provenance=["m3"]), [0.5, 1, 0])
    hits = Retriever(store).retrieve(unit([1, 0, 0]), S)
    assert [h.record.provenance for h in hits] == [["m1"], ["m3"]]
    assert dedupe(hits) == hits


def test_bad_arguments(store):
    with pytest.raises(InvalidInputError):
        Retriever(store, k=0)
    with pytest.raises(InvalidInputError):
        Retriever(store).retrieve(unit([1, 0, 0]), S, mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(UnknownScopeError):
        Retriever(store).check_scope(Scope(user_id="nobody"))


def test_serializer_lines_carry_anchor_speaker_and_type(store):
    put(store, EpisodicRecord(scope=S, speaker="Ana", title="Support group", summary="Ana went to a support group",
                              temporal_anchor="2023-05-07", event_time=T, provenance=["D1:3"]), [1, 0, 0])
    put(store, SemanticRecord(scope=S, fact="Ana is a counselor", event_time=T, provenance=["D1:4"]), [0.9, 0.1, 0])
    ev = Serializer().serialize(Retriever(store).retrieve(unit([1, 0, 0]), S))
    put(store, SemanticRecord(scope=S, speaker="Ben", fact="likes chess", temporal_anchor="May 2023",
                              provenance=["D1:5"]), [0.8, 0.2, 0])
    assert ev.text.splitlines() == [
        "Events (episodic):",
        "- [2023-05-07] Support group: Ana went to a support group",
        "Facts (semantic):",
        "- [2023-05-07] Ana is a counselor",
    ]
    assert ev.tokens == Serializer().token_counter.count(ev.text) and 15 < ev.tokens < 60
    ev = Serializer().serialize(Retriever(store).retrieve(unit([1, 0, 0]), S))
    assert ev.text.splitlines()[-1] == "- [May 2023] Ben: likes chess"
    assert Serializer().serialize([]).tokens == 0


def test_serializer_says_who_said_what_the_user_did_not(store):
    rows = [
        SemanticRecord(scope=S, speaker="assistant", role="assistant", fact="Ana's bank is in Porto", temporal_anchor="2025-03-10", provenance=["a"]),
        SemanticRecord(scope=S, speaker="Ana", source="image_caption", fact="Ana shared an image: a sign", temporal_anchor="2025-03-10", provenance=["b"]),
        SemanticRecord(scope=S, role="tool", source="tool:web_search", fact="Lisbon 17C", temporal_anchor="2025-03-10", provenance=["c"]),
        SemanticRecord(scope=S, speaker="Ana", source="chat", fact="Ana likes tea", temporal_anchor="2025-03-10", provenance=["d"]),
    ]
    for i, r in enumerate(rows):
        put(store, r, [1, 0.1 * i, 0])
    lines = Serializer().serialize(Retriever(store).retrieve(unit([1, 0, 0]), S)).text.splitlines()[1:]
    assert lines == [
        "- [2025-03-10] (by assistant) Ana's bank is in Porto",
        "- [2025-03-10] (via image_caption) Ana shared an image: a sign",
        "- [2025-03-10] (by tool, via tool:web_search) Lisbon 17C",
        "- [2025-03-10] Ana likes tea",
    ]


def test_hybrid_fuses_a_bm25_ranking_and_follows_writes(store):
    # the dense ranking prefers the generic records; the rare word is only in a record far from the query vector
    for i in range(6):
        put(store, SemanticRecord(scope=S, fact=f"Ann likes generic thing {i}", provenance=[f"s{i}"]), [1, 0.01 * i, 0])
    put(store, SemanticRecord(scope=S, fact="Ann went to a pottery workshop", provenance=["e"]), [0, 0, 1])
    q = unit([1, 0, 0])
    r = Retriever(store, k=3, K=4)
    assert "e" not in {p for h in r.retrieve(q, S) for p in h.record.provenance}
    hits = r.retrieve(q, S, query_text="Where did Ann do pottery?", hybrid=True)
    assert len(hits) == 4 and "e" in {p for h in hits for p in h.record.provenance}
    fused = next(h for h in hits if h.record.provenance == ["e"])
    assert "bm25 top-1" in fused.why and fused.memory_type is MemoryType.SEMANTIC
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # a record written after the index was built is found: the index follows the store's revision
    put(store, SemanticRecord(scope=S, fact="Ann sells pottery online", provenance=["new"]), [0, 1, 0])
    hits = Retriever(store, k=3, K=4, hybrid=True).retrieve(q, S, query_text="pottery")
    assert "new" in {p for h in hits for p in h.record.provenance}
    again = r.retrieve(q, S, query_text="pottery", hybrid=True)
    assert "new" in {p for h in again for p in h.record.provenance}
    with pytest.raises(InvalidInputError):
        r.retrieve(q, S, hybrid=True)  # no query text


def test_hybrid_index_cache_is_bounded(store):
    for u in ("a", "b", "c"):
        put(store, SemanticRecord(scope=Scope(user_id=u), fact=f"{u} fact", provenance=[u]), [1, 0, 0])
    r = Retriever(store, hybrid=True, lexical_cache=2)
    for u in ("a", "b", "c"):
        assert r.retrieve(unit([1, 0, 0]), Scope(user_id=u), query_text="fact")
    assert len(r.indexes) == 2


def test_hybrid_keeps_one_index_per_scope_whatever_the_time_asked(store):
    # the ENGRAM hybrid's BM25 side reads what held at the time asked from one index, not one built per moment
    new = SemanticRecord(scope=S, fact="Ann plays the harp now", provenance=["new"])
    until = datetime(2024, 1, 1, tzinfo=timezone.utc)
    put(store, SemanticRecord(scope=S, fact="Ann plays the cello", provenance=["old"], superseded_by=new.id, valid_to=until), [1, 0, 0])
    put(store, new, [1, 0.1, 0])
    r = Retriever(store, k=3, K=4, hybrid=True)
    before = r.lexical_hits("cello", S, where=RecordFilter(now=datetime(2023, 6, 1, tzinfo=timezone.utc)))
    after = r.lexical_hits("cello", S, where=RecordFilter(now=datetime(2025, 6, 1, tzinfo=timezone.utc)))
    assert [h.record.provenance for h in before] == [["old"]] and after == []
    for day in (1, 2, 3):
        r.retrieve(unit([0, 0, 1]), S, query_text="cello", asked_at=datetime(2025, 6, day, tzinfo=timezone.utc))
    assert len(r.indexes) == 1
