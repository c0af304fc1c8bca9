"""The Store conformance suite: every backend must pass all of it (backends: see conftest.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable

import numpy as np
import pytest

from memdesk.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    InvalidScopeError,
    RecordNotFoundError,
    ReembedError,
    StoreError,
)
from memdesk.records import (
    EpisodicRecord,
    HistoryEvent,
    MemoryType,
    ProceduralRecord,
    RawMessage,
    Scope,
    SemanticRecord,
)
from memdesk.store import EmbeddingInfo, VectorTable
from memdesk.store.base import Store
from memdesk.store.conveniences import StoreConveniences

from .conftest import DIM, INFO, Backend
from .helpers import native_for

U1 = Scope(user_id="u1")
U1A1 = Scope(user_id="u1", agent_id="a1")
U1A2 = Scope(user_id="u1", agent_id="a2")
U2A1 = Scope(user_id="u2", agent_id="a1")
U1A1R1 = Scope(user_id="u1", agent_id="a1", run_id="r1")


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def semantic(scope: Scope, n: int, speaker: str | None = None, prefix: str = "fact") -> list[SemanticRecord]:
    return [SemanticRecord(scope=scope, fact=f"{prefix} {i}", speaker=speaker) for i in range(n)]


def brute_force(matrix: np.ndarray, ids: list[str], query: np.ndarray, k: int) -> tuple[list[str], np.ndarray]:
    scores = matrix.astype(np.float64) @ query.astype(np.float64)
    order = np.argsort(-scores, kind="stable")[:k]
    return [ids[i] for i in order], scores[order]


def ids_of(hits) -> list[str]:
    return [h.record.id for h in hits]


# --- embedding info -------------------------------------------------------------------------------------
def test_embedding_info_is_recorded_and_guarded(empty_store: Store, rng) -> None:
    assert empty_store.embedding_info() is None
    with pytest.raises(InvalidInputError):  # no model recorded yet
        empty_store.write(semantic(U1, 1), unit(rng, 1))
    empty_store.set_embedding_info(EmbeddingInfo(model_id="other", dim=8))
    empty_store.set_embedding_info(INFO)  # no vectors yet: switching is allowed
    assert empty_store.embedding_info() == INFO
    empty_store.write(semantic(U1, 1), unit(rng, 1))
    empty_store.set_embedding_info(INFO)  # the same again is a no-op
    with pytest.raises(EmbeddingMismatchError):
        empty_store.set_embedding_info(EmbeddingInfo(model_id="other", dim=DIM))
    with pytest.raises(EmbeddingMismatchError):
        empty_store.set_embedding_info(EmbeddingInfo(model_id=INFO.model_id, dim=DIM * 2))
    assert empty_store.embedding_info() == INFO


def test_collection_vectors_also_pin_the_embedding_info(empty_store: Store, rng) -> None:
    empty_store.set_embedding_info(INFO)
    empty_store.collection("bank").put(["x"], ["{}"], unit(rng, 1))
    with pytest.raises(EmbeddingMismatchError):
        empty_store.set_embedding_info(EmbeddingInfo(model_id="other", dim=DIM))


def test_wrong_dimension_or_model_is_refused(store: Store, rng) -> None:
    with pytest.raises(EmbeddingMismatchError):
        store.write(semantic(U1, 2), unit(rng, 2, DIM + 1))
    rec = SemanticRecord(scope=U1, fact="x", embedding_model="another-model")
    with pytest.raises(EmbeddingMismatchError):
        store.write([rec], unit(rng, 1))
    with pytest.raises(EmbeddingMismatchError):
        store.search(unit(rng, 1, DIM + 1)[0], U1, MemoryType.SEMANTIC, 3)
    assert store.count() == 0


# --- put / get / replace / delete / history ---------------------------------------------------------
def test_put_and_get_round_trip_every_type(store: Store, rng) -> None:
    t = datetime(2023, 5, 7, 13, 56, 12, 345678, tzinfo=timezone(timedelta(hours=-7)))
    records = [
        EpisodicRecord(
            scope=U1A1R1, title="Trip", summary="Went to Paris 🗼", speaker="Priya", event_time=t,
            temporal_anchor="7 May 2023", provenance=["D1:3", "D1:4"], metadata={"a": [1, 2.5, None]},
        ),
        SemanticRecord(scope=U1A1R1, fact="Likes tea", speaker="Tomas", embedding_model=INFO.model_id),
        ProceduralRecord(scope=U1A1R1, title="Deploy", content="1. build 2. ship"),
    ]  # fmt: skip
    vectors = unit(rng, 3)
    store.write(records, vectors)
    for r in records:
        assert store.get(r.id) == r
    assert store.get("no-such-id") is None
    assert store.count() == 3


def test_put_rejects_existing_and_repeated_ids(store: Store, rng) -> None:
    first = semantic(U1, 3)
    store.write(first, unit(rng, 3))
    with pytest.raises(InvalidInputError):
        store.write([*semantic(U1, 5, prefix="new"), first[1]], unit(rng, 6))
    clash = EpisodicRecord(id=first[0].id, scope=U2A1, title="t", summary="other type, same id")
    with pytest.raises(InvalidInputError):
        store.write([clash], unit(rng, 1))
    twin = semantic(U2A1, 1)[0]
    with pytest.raises(InvalidInputError):
        store.write([twin, twin], unit(rng, 2))
    assert store.count() == 3
    assert store.has_scope(U1) and not store.has_scope(U2A1)


@pytest.mark.parametrize("defect", ["nan", "inf", "shape", "rows", "not-a-record", "huge"])
def test_a_bad_batch_writes_nothing(store: Store, rng, defect: str) -> None:
    records: list = semantic(U1A1, 100)
    vectors = unit(rng, 100)
    if defect == "nan":
        vectors[57, 3] = np.nan
    elif defect == "inf":
        vectors[99, 0] = np.inf
    elif defect == "shape":
        vectors = vectors[:, :-1]
    elif defect == "rows":
        vectors = vectors[:99]
    elif defect == "not-a-record":
        records[50] = {"fact": "a dict, not a record"}
    elif defect == "huge":
        vectors = vectors.astype(np.float64)
        vectors[10, 0] = 1e300  # beyond float32
    with pytest.raises((InvalidInputError, EmbeddingMismatchError)):
        store.write(records, vectors)
    assert store.count() == 0
    assert not store.has_scope(U1)
    assert store.history(records[0].id) == []
    assert store.search(unit(rng, 1)[0], U1, MemoryType.SEMANTIC, 5) == []


def test_replace_keeps_old_versions_in_history(store: Store, rng) -> None:
    rec = SemanticRecord(scope=U1A1, fact="lives in Boston")
    v1, v2, v3 = unit(rng, 3)
    store.write([rec], v1[None])
    moved = rec.model_copy(update={"fact": "lives in Denver"})
    store.replace(moved, v2)
    again = rec.model_copy(update={"fact": "lives in Austin"})
    store.replace(again, v3)
    assert store.get(rec.id) == again
    assert store.count() == 1
    np.testing.assert_array_equal(store.get_vectors(MemoryType.SEMANTIC, [rec.id])[0], v3)
    hist = store.history(rec.id)
    assert [(h.version, h.event) for h in hist] == [(1, HistoryEvent.ADD), (2, HistoryEvent.UPDATE), (3, HistoryEvent.UPDATE)]
    assert [h.record.fact for h in hist] == ["lives in Boston", "lives in Denver", "lives in Austin"]
    assert all(h.record_id == rec.id for h in hist)
    assert hist[0].changed_at <= hist[1].changed_at <= hist[2].changed_at
    hits = store.search(v3, U1, MemoryType.SEMANTIC, 5)
    assert ids_of(hits) == [rec.id] and hits[0].record.fact == "lives in Austin"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_replace_unknown_record_raises(store: Store, rng) -> None:
    with pytest.raises(RecordNotFoundError):
        store.replace(SemanticRecord(scope=U1, fact="x"), unit(rng, 1)[0])
    assert store.count() == 0


def test_replace_can_move_a_record_to_another_scope_and_type(store: Store, rng) -> None:
    rec = SemanticRecord(scope=U1A1, fact="stand-up at nine")
    v = unit(rng, 2)
    store.write([rec], v[:1])
    proc = ProceduralRecord(id=rec.id, scope=U2A1, title="Stand-up", content="every day at nine")
    store.replace(proc, v[1])
    assert store.get(rec.id) == proc
    assert store.count(memory_type=MemoryType.SEMANTIC) == 0
    assert store.search(v[1], U1, MemoryType.SEMANTIC, 3) == []
    assert ids_of(store.search(v[1], U2A1, MemoryType.PROCEDURAL, 3)) == [rec.id]
    assert [h.record.type for h in store.history(rec.id)] == ["semantic", "procedural"]


def test_delete_leaves_a_tombstone_and_leaves_search(store: Store, rng) -> None:
    recs = semantic(U1, 3)
    recs[1] = recs[1].model_copy(update={"fact": "my locker code is 4417-quince"})
    v = unit(rng, 3)
    store.write(recs, v)
    assert ids_of(store.search(v[1], U1, MemoryType.SEMANTIC, 1)) == [recs[1].id]
    assert store.delete(recs[1].id) is True
    assert store.delete(recs[1].id) is False
    assert store.delete("never-existed") is False
    assert store.get(recs[1].id) is None
    assert recs[1].id not in ids_of(store.search(v[1], U1, MemoryType.SEMANTIC, 3))
    # a tombstone alone: id, type, scope and time, never the content (nor the earlier versions')
    [tomb] = store.history(recs[1].id)
    assert (tomb.version, tomb.event, tomb.record) == (2, HistoryEvent.DELETE, None)
    assert (tomb.memory_type, tomb.scope) == (MemoryType.SEMANTIC, U1)
    assert recs[1].fact not in native_for(store).rows_text(store)
    assert store.history("never-existed") == []
    assert store.count() == 2


def test_an_id_can_be_put_again_after_delete_and_history_continues(store: Store, rng) -> None:
    rec = SemanticRecord(scope=U1, fact="first life")
    store.write([rec], unit(rng, 1))
    store.delete(rec.id)
    reborn = rec.model_copy(update={"fact": "second life"})
    store.write([reborn], unit(rng, 1))
    assert store.get(rec.id) == reborn
    assert [(h.version, h.event) for h in store.history(rec.id)] == [(2, HistoryEvent.DELETE), (3, HistoryEvent.ADD)]
    assert [h.record for h in store.history(rec.id)] == [None, reborn]  # the first life's text is gone


def test_get_vectors_is_bit_exact_and_ordered(store: Store, rng) -> None:
    recs = semantic(U1, 4)
    v = unit(rng, 4)
    v[0, :4] = [np.float32(3.4e38), np.float32(-3.4e38), np.float32(1e-45), np.float32(-0.0)]
    store.write(recs, v)
    got = store.get_vectors(MemoryType.SEMANTIC, [recs[2].id, recs[0].id, recs[3].id])
    assert got.dtype == np.float32 and got.shape == (3, DIM)
    assert got.tobytes() == v[[2, 0, 3]].tobytes()
    assert store.get_vectors(MemoryType.SEMANTIC, []).shape == (0, DIM)
    with pytest.raises(RecordNotFoundError):
        store.get_vectors(MemoryType.SEMANTIC, [recs[0].id, "missing"])
    with pytest.raises(RecordNotFoundError):  # right id, wrong type
        store.get_vectors(MemoryType.EPISODIC, [recs[0].id])


# --- scan / page / count / has_scope ------------------------------------------------------------------
def test_scan_is_by_type_then_insertion_order_with_filters(store: Store, rng) -> None:
    a = SemanticRecord(scope=U1A1, fact="a", speaker="Ann")
    b = EpisodicRecord(scope=U1A2, title="b", summary="b", speaker="Bob")
    c = ProceduralRecord(scope=U2A1, title="c", content="c", speaker="Ann")
    d = SemanticRecord(scope=U1A1R1, fact="d", speaker="Bob")
    store.write([a, b], unit(rng, 2))
    store.write([c], unit(rng, 1))
    store.write([d], unit(rng, 1))
    assert list(store.scan(U1)) == [b, a, d]  # episodic, semantic, procedural; oldest first within each
    assert list(store.scan(Scope(agent_id="a1"))) == [a, d, c]
    assert list(store.scan(U1A1)) == [a, d]
    assert list(store.scan(U1A1R1)) == [d]
    assert list(store.scan(U1, memory_type=MemoryType.SEMANTIC)) == [a, d]
    assert list(store.scan(U1, speaker="Bob")) == [b, d]
    assert list(store.scan(Scope(user_id="nobody"))) == []
    assert store.count() == 4
    assert store.count(U1) == 3
    assert store.count(U1, MemoryType.EPISODIC) == 1
    assert store.count(memory_type=MemoryType.PROCEDURAL) == 1
    assert store.count(Scope(run_id="r1")) == 1


def test_scan_pages_through_many_records(store: Store, rng) -> None:
    recs = semantic(U1, 1203)
    store.write(recs, unit(rng, 1203))
    assert [r.id for r in store.scan(U1)] == [r.id for r in recs]
    with pytest.raises(InvalidScopeError):  # checked at the call, not at the first next()
        store.scan("u1")  # type: ignore[arg-type]


def _read_pages(store: Store, scope: Scope, limit: int, **kw) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        page = store.page(scope, limit=limit, cursor=cursor, **kw)
        pages.append([r.id for r in page.items])
        if page.next_cursor is None:
            return pages
        assert len(page.items) == limit
        cursor = page.next_cursor


def test_page_is_keyset_pagination_by_type_then_age(store: Store, rng) -> None:
    epi = [EpisodicRecord(scope=U1A1, title="t", summary=f"e{i}", speaker="Ann" if i % 2 else None) for i in range(4)]
    sem = semantic(U1A1, 5, speaker="Ann")
    proc = [ProceduralRecord(scope=U1A2, title="p", content=f"p{i}") for i in range(3)]
    store.write([sem[0], epi[0], proc[0]], unit(rng, 3))
    store.write([*sem[1:], *epi[1:], *proc[1:]], unit(rng, 9))
    everything = [r.id for r in [*epi, *sem, *proc]]
    assert [r.id for r in store.scan(U1)] == everything
    for limit in (1, 2, 3, 4, 5, 11, 12, 13, 100):
        pages = _read_pages(store, U1, limit)
        assert [i for page in pages for i in page] == everything, limit
    assert _read_pages(store, U1, 5, types=[MemoryType.PROCEDURAL, MemoryType.EPISODIC]) == [
        [r.id for r in proc] + [epi[0].id, epi[1].id], [epi[2].id, epi[3].id]
    ]
    assert [i for page in _read_pages(store, U1A1, 2, speaker="Ann") for i in page] == [
        epi[1].id, epi[3].id, *(r.id for r in sem)
    ]  # fmt: skip
    assert store.page(Scope(user_id="nobody")).items == [] and store.page(Scope(user_id="nobody")).next_cursor is None


def test_a_cursor_survives_writes_and_deletes(store: Store, rng) -> None:
    recs = semantic(U1, 6)
    store.write(recs, unit(rng, 6))
    first = store.page(U1, limit=3)
    assert [r.id for r in first.items] == [r.id for r in recs[:3]]
    store.delete(recs[1].id)  # behind the cursor
    store.delete(recs[4].id)  # ahead of it
    late = semantic(U1, 1, prefix="late")
    store.write(late, unit(rng, 1))
    rest = store.page(U1, limit=10, cursor=first.next_cursor)
    assert [r.id for r in rest.items] == [recs[3].id, recs[5].id, late[0].id] and rest.next_cursor is None


def test_page_arguments_are_checked(store: Store, rng) -> None:
    store.write(semantic(U1, 3), unit(rng, 3))
    cursor = store.page(U1, limit=1).next_cursor
    for bad in ("nonsense", "semantic:x", 7, "episodic;3", "m3"):
        with pytest.raises(InvalidInputError):
            store.page(U1, cursor=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):  # a cursor of one type listing, used for another
        store.page(U1, types=[MemoryType.EPISODIC], cursor=cursor)
    for bad_limit in (0, -1, "3", True):
        with pytest.raises(InvalidInputError):
            store.page(U1, limit=bad_limit)  # type: ignore[arg-type]
    with pytest.raises(InvalidScopeError):
        store.page("u1")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.page(U1, types=["factual"])  # type: ignore[list-item]


def test_scopes_lists_exact_scopes_written(store: Store, rng) -> None:
    store.write(semantic(U1A1, 2), unit(rng, 2))
    store.write(semantic(U1A2, 1), unit(rng, 1))
    store.write(messages=[RawMessage(id="m1", scope=U2A1, speaker="x", role="user", content="hi", timestamp=None, ingest_time=datetime.now(timezone.utc))])
    store.write(semantic(U1A1, 1), unit(rng, 1))
    for written in (U1A1, U1A2, U2A1, U1, Scope(agent_id="a1"), Scope(user_id="u2", run_id=None)):
        assert store.has_scope(written), written
    for never in (U1A1R1, Scope(user_id="u2", agent_id="a2"), Scope(run_id="r1"), Scope(agent_id="a9")):
        assert not store.has_scope(never), never
    assert store.scopes() == [U1A1, U1A2, U2A1]  # in the order first written
    assert store.scopes(Scope(agent_id="a1")) == [U1A1, U2A1] and store.scopes(Scope(run_id="r1")) == []
    first = store.scope_page(limit=2)
    assert first.items == [U1A1, U1A2] and first.next_cursor is not None
    last = store.scope_page(limit=2, cursor=first.next_cursor)
    assert last.items == [U2A1] and last.next_cursor is None
    with pytest.raises(InvalidInputError):
        store.scope_page(cursor="m1")


# --- search --------------------------------------------------------------------------------------------
def test_search_is_exact_against_brute_force(store: Store, rng) -> None:
    recs = semantic(U1A1, 400)
    v = unit(rng, 400)
    store.write(recs, v)
    ids = [r.id for r in recs]
    for query in unit(rng, 5):
        hits = store.search(query, U1A1, MemoryType.SEMANTIC, 10)
        want_ids, want_scores = brute_force(v, ids, query, 10)
        assert ids_of(hits) == want_ids
        np.testing.assert_allclose([h.score for h in hits], want_scores, atol=1e-5)
        assert all(h.record == recs[ids.index(h.record.id)] for h in hits)


def test_search_k_edges(store: Store, rng) -> None:
    recs = semantic(U1, 5)
    v = unit(rng, 5)
    store.write(recs, v)
    q = unit(rng, 1)[0]
    hits = store.search(q, U1, MemoryType.SEMANTIC, 50)
    assert ids_of(hits) == brute_force(v, [r.id for r in recs], q, 5)[0]
    assert store.search(q, U1, MemoryType.SEMANTIC, 0) == []
    assert store.search(q, U1, MemoryType.EPISODIC, 5) == []
    assert store.search(q, Scope(user_id="nobody"), MemoryType.SEMANTIC, 5) == []
    with pytest.raises(InvalidInputError):
        store.search(q, U1, MemoryType.SEMANTIC, -1)


@pytest.mark.parametrize(
    "query_scope",
    [U1, Scope(agent_id="a1"), U1A1, U1A1R1, Scope(run_id="r1"), Scope(user_id="u2", run_id="r1")],
    ids=str,
)
def test_wildcard_search_unions_the_matching_exact_scopes(store: Store, rng, query_scope: Scope) -> None:
    scopes = [U1, U1A1, U1A2, U2A1, U1A1R1, Scope(user_id="u2", agent_id="a1", run_id="r1")]
    all_recs, all_vecs = [], []
    for s in scopes:
        recs = semantic(s, 30, prefix=str(s))
        vecs = unit(rng, 30)
        store.write(recs, vecs)
        all_recs += recs
        all_vecs.append(vecs)
    matrix = np.concatenate(all_vecs)
    keep = [i for i, r in enumerate(all_recs) if query_scope.matches(r.scope)]
    for q in unit(rng, 3):
        hits = store.search(q, query_scope, MemoryType.SEMANTIC, 12)
        want, scores = brute_force(matrix[keep], [all_recs[i].id for i in keep], q, 12)
        assert ids_of(hits) == want
        np.testing.assert_allclose([h.score for h in hits], scores, atol=1e-5)


@pytest.mark.parametrize(
    "query_scope", [U1A1, U1, Scope(agent_id="a1"), Scope(user_id="nobody")], ids=str
)
def test_search_types_is_one_search_per_type(store: Store, rng, query_scope: Scope) -> None:
    """``search_types`` answers what ``search`` answers for each type: the same hits, order and scores,
    with a speaker too; types it is not asked for are absent, each type asked for is present."""
    for s in (U1A1, U1A2, U2A1):
        recs = [
            *[SemanticRecord(scope=s, fact=f"{s} fact {i}", speaker=["Ann", None][i % 2]) for i in range(12)],
            *[EpisodicRecord(scope=s, title=f"e{i}", summary=f"{s} event {i}", speaker="Ann") for i in range(7)],
            ProceduralRecord(scope=s, title="Deploy", content="1. build 2. ship"),
        ]
        store.write(recs, unit(rng, len(recs)))
    q = unit(rng, 1)[0]
    types = [MemoryType.PROCEDURAL, MemoryType.SEMANTIC, MemoryType.EPISODIC]
    for speaker in (None, "Ann"):
        for k in (1, 5, 30):
            got = store.search_types(q, query_scope, types, k, speaker=speaker)
            assert list(got) == types
            # the base's default (what a store built on StoreConveniences gets) answers the same
            plain = StoreConveniences.search_types(store, q, query_scope, [*types, types[0]], k, speaker=speaker)
            assert {mt: ids_of(h) for mt, h in plain.items()} == {mt: ids_of(h) for mt, h in got.items()}
            for mt in types:
                one = store.search(q, query_scope, mt, k, speaker=speaker)
                assert ids_of(got[mt]) == ids_of(one)
                np.testing.assert_allclose([h.score for h in got[mt]], [h.score for h in one], atol=1e-6)
                assert [h.record for h in got[mt]] == [h.record for h in one]
    assert list(store.search_types(q, U1A1, [MemoryType.SEMANTIC], 3)) == [MemoryType.SEMANTIC]
    assert store.search_types(q, U1A1, [], 3) == {}
    with pytest.raises(InvalidInputError):
        store.search_types(q, U1A1, "semantic", 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.search_types(q, U1A1, types, -1)


def test_speaker_bank_filter(store: Store, rng) -> None:
    recs = [SemanticRecord(scope=U1A1, fact=f"f{i}", speaker=["Ann", "Bob", None][i % 3]) for i in range(90)]
    v = unit(rng, 90)
    store.write(recs, v)
    other = semantic(U1A2, 10, speaker="Ann")
    v2 = unit(rng, 10)
    store.write(other, v2)
    q = unit(rng, 1)[0]
    ann = [i for i, r in enumerate(recs) if r.speaker == "Ann"]
    hits = store.search(q, U1A1, MemoryType.SEMANTIC, 7, speaker="Ann")
    assert ids_of(hits) == brute_force(v[ann], [recs[i].id for i in ann], q, 7)[0]
    both = np.concatenate([v[ann], v2])
    both_ids = [recs[i].id for i in ann] + [r.id for r in other]
    assert ids_of(store.search(q, U1, MemoryType.SEMANTIC, 40, speaker="Ann")) == brute_force(both, both_ids, q, 40)[0]
    assert store.search(q, U1, MemoryType.SEMANTIC, 5, speaker="Zed") == []


def assert_search_follows(writer: Store, reader: Store, rng) -> None:
    """``reader``'s search sees every change ``writer`` commits after ``reader`` searched (its cache, if it
    has one, warm): new records, a delete, a replace, a record in a new scope."""
    recs = semantic(U1, 20)
    v = unit(rng, 20)
    writer.write(recs[:10], v[:10])
    assert ids_of(reader.search(v[15], U1, MemoryType.SEMANTIC, 1)) != [recs[15].id]
    writer.write(recs[10:], v[10:])
    assert ids_of(reader.search(v[15], U1, MemoryType.SEMANTIC, 1)) == [recs[15].id]
    writer.delete(recs[15].id)
    assert recs[15].id not in ids_of(reader.search(v[15], U1, MemoryType.SEMANTIC, 20))
    writer.replace(recs[3], v[15])
    assert ids_of(reader.search(v[15], U1, MemoryType.SEMANTIC, 1)) == [recs[3].id]
    new_scope = semantic(U2A1, 1)
    writer.write(new_scope, v[15:16])
    assert set(ids_of(reader.search(v[15], Scope(agent_id="a1"), MemoryType.SEMANTIC, 5))) == {new_scope[0].id}


def test_search_follows_this_stores_writes(store: Store, rng) -> None:
    assert_search_follows(store, store, rng)


def test_revision_moves_with_every_record_change_and_only_then(store: Store, rng) -> None:
    recs = semantic(U1, 3)
    v = unit(rng, 3)
    seen = [store.revision()]
    assert store.revision() == seen[-1]  # reading changes nothing
    for change in (
        lambda: store.write(recs, v),
        lambda: store.replace(recs[0].model_copy(update={"fact": "changed"}), v[1]),
        lambda: store.delete(recs[1].id),
        lambda: store.delete_scope(U1),
    ):
        change()
        assert store.revision() not in seen
        seen.append(store.revision())
        store.search(v[0], U1, MemoryType.SEMANTIC, 3)
        list(store.scan(U1))
        assert store.revision() == seen[-1]


def test_search_rejects_bad_queries(store: Store, rng) -> None:
    store.write(semantic(U1, 3), unit(rng, 3))
    q = unit(rng, 1)[0]
    for bad in (np.full(DIM, np.nan, np.float32), unit(rng, 2), np.zeros((0,), np.float32), np.array(["a"] * DIM)):
        with pytest.raises(InvalidInputError):
            store.search(bad, U1, MemoryType.SEMANTIC, 3)
    with pytest.raises(InvalidInputError):
        store.search(q, U1, "factual", 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidScopeError):
        store.search(q, "u1", MemoryType.SEMANTIC, 3)  # type: ignore[arg-type]
    assert len(store.search(q[None, :], U1, "semantic", 3)) == 3  # type: ignore[arg-type]


def test_search_of_an_empty_store(empty_store: Store, rng) -> None:
    assert empty_store.search(unit(rng, 1)[0], U1, MemoryType.SEMANTIC, 5) == []


# --- delete_scope --------------------------------------------------------------------------------------
def test_delete_scope_removes_records_messages_and_cache_entries(store: Store, rng) -> None:
    keep = semantic(U2A1, 5)
    gone_a = semantic(U1A1, 5)
    gone_b = [EpisodicRecord(scope=U1A2, title="t", summary=f"s{i}") for i in range(4)]
    v = unit(rng, 14)
    store.write(keep, v[:5])
    store.write(gone_a, v[5:10])
    store.write(gone_b, v[10:])
    now = datetime.now(timezone.utc)
    store.write(messages=[
        RawMessage(id="m1", scope=U1A1, speaker=None, role="user", content="x", timestamp=None, ingest_time=now),
        RawMessage(id="m2", scope=U2A1, speaker=None, role="user", content="y", timestamp=None, ingest_time=now),
    ])  # fmt: skip
    assert len(store.search(v[7], U1, MemoryType.SEMANTIC, 10)) == 5  # warm the cache
    assert store.delete_scope(U1) == 9
    assert store.count() == 5 and store.count(U1) == 0
    assert store.search(v[7], U1, MemoryType.SEMANTIC, 10) == []
    assert store.search(v[10], U1A2, MemoryType.EPISODIC, 10) == []
    assert ids_of(store.search(v[0], Scope(agent_id="a1"), MemoryType.SEMANTIC, 10))[0] == keep[0].id
    assert store.messages(U1) == [] and not store.has_message(U1A1, "m1")
    assert [m.id for m in store.messages(U2A1)] == ["m2"]
    assert not store.has_scope(U1) and store.has_scope(U2A1)
    assert [(h.event, h.record) for h in store.history(gone_a[0].id)] == [(HistoryEvent.DELETE, None)]
    assert store.delete_scope(U1) == 0
    # the scope can be used again afterwards
    store.write(semantic(U1A1, 1), v[:1])
    assert store.count(U1) == 1


# --- raw message log -----------------------------------------------------------------------------------
def _msg(i: int, scope: Scope = U1A1, **kw) -> RawMessage:
    base = dict(
        id=f"D1:{i}", scope=scope, speaker="Ann" if i % 2 else "Bob", role="user", content=f"message {i} ☕",
        timestamp=datetime(2023, 5, 7, 10, i, tzinfo=timezone.utc), ingest_time=datetime.now(timezone.utc),
        route_mask=i % 8, metadata={"i": i},
    )  # fmt: skip
    base.update(kw)
    return RawMessage(**base)


def test_raw_log_is_ordered_and_idempotent(store: Store) -> None:
    msgs = [_msg(i) for i in range(6)]
    store.write(messages=msgs[:4])
    store.write(messages=msgs[2:])  # 2 and 3 again: no-ops
    store.write(messages=[_msg(1, content="changed")])  # re-logging never overwrites
    got = store.messages(U1A1)
    assert [m.id for m in got] == [m.id for m in msgs]
    assert [m.model_dump(exclude={"seq"}) for m in got] == [m.model_dump(exclude={"seq"}) for m in msgs]
    seqs = [m.seq for m in got]
    assert seqs == sorted(seqs) and len(set(seqs)) == 6
    assert [m.id for m in store.messages(U1A1, last=2)] == ["D1:4", "D1:5"]
    assert store.messages(U1A1, last=0) == []
    assert store.has_message(U1A1, "D1:3") and not store.has_message(U1, "D1:3")  # exact scope: what a write would skip
    assert not store.has_message(U1A2, "D1:3") and not store.has_message(U1A1, "D9:9")


def test_raw_log_pages_by_keyset(store: Store) -> None:
    store.write(messages=[_msg(i) for i in range(7)])
    store.write(messages=[_msg(i, scope=U1A2) for i in range(3)])
    pages, cursor = [], None
    while True:
        page = store.message_page(U1A1, limit=3, cursor=cursor)
        pages.append([m.id for m in page.items])
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert pages == [["D1:0", "D1:1", "D1:2"], ["D1:3", "D1:4", "D1:5"], ["D1:6"]]
    assert len(store.messages(U1)) == 10 and [m.id for m in store.recent_messages(U1A2, 2)] == ["D1:1", "D1:2"]
    for bad in ("x", "semantic:3", 5):
        with pytest.raises(InvalidInputError):
            store.message_page(U1A1, cursor=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.message_page(U1A1, limit=0)


def test_raw_log_ids_are_per_scope(store: Store) -> None:
    store.write(messages=[_msg(1, scope=U1A1), _msg(1, scope=U1A2, content="same id, other scope")])
    assert [m.content for m in store.messages(U1)] == ["message 1 ☕", "same id, other scope"]
    assert [m.content for m in store.messages(U1A2)] == ["same id, other scope"]


def test_write_logs_and_puts_in_one_transaction(store: Store, rng) -> None:
    msgs = [_msg(i) for i in range(3)]
    recs = semantic(U1A1, 3)
    bad = unit(rng, 3)
    bad[2, 0] = np.nan
    with pytest.raises(InvalidInputError):
        store.write(recs, bad, messages=msgs)
    assert store.messages(U1A1) == [] and store.count() == 0
    taken = semantic(U1A1, 1)
    store.write(taken, unit(rng, 1))
    with pytest.raises(InvalidInputError):  # an existing record id fails the whole write
        store.write([*recs, taken[0]], unit(rng, 4), messages=msgs)
    assert store.messages(U1A1) == [] and store.count() == 1
    store.write(recs, unit(rng, 3), messages=msgs)
    assert [m.id for m in store.messages(U1A1)] == [m.id for m in msgs]
    assert store.count() == 4
    store.write([], np.zeros((0, DIM), np.float32), messages=[_msg(9)])  # messages only
    assert store.has_message(U1A1, "D1:9")


def test_write_with_owners_skips_messages_another_writer_logged(store: Store, rng) -> None:
    # two ingests of the same messages raced past their has_message checks: the second stores nothing twice
    msgs = [_msg(i) for i in range(3)]
    first = semantic(U1A1, 3)
    assert store.write(first, unit(rng, 3), messages=msgs, owners=[m.id for m in msgs]) == []
    again = semantic(U1A1, 4)
    fresh = _msg(7)
    owners = [msgs[0].id, msgs[1].id, fresh.id, fresh.id]
    assert store.write(again, unit(rng, 4), messages=[*msgs, fresh], owners=owners) == [m.id for m in msgs]
    assert store.count() == 5  # 3 first + the 2 records of the new message
    assert {r.id for r in store.scan(U1A1)} == {r.id for r in first} | {again[2].id, again[3].id}
    assert [m.id for m in store.messages(U1A1)] == [*(m.id for m in msgs), fresh.id]
    with pytest.raises(InvalidInputError):
        store.write(semantic(U1A1, 1), unit(rng, 1), messages=[_msg(8)], owners=[])


def test_write_closes_what_the_new_records_supersede_in_the_same_transaction(store: Store, rng) -> None:
    """``closes`` replaces the superseded records with the new ones, all or nothing; a close whose superseding
    record is not written (its message skipped) is left alone, and one for a record gone meanwhile is ignored."""
    old = semantic(U1A1, 3)
    store.write(old, unit(rng, 3))
    when = datetime(2024, 5, 1, tzinfo=timezone.utc)
    new = semantic(U1A1, 1)
    gone = old[2].model_copy(update={"valid_to": when, "superseded_by": new[0].id})
    store.delete(old[2].id)
    close = old[0].model_copy(update={"valid_to": when, "superseded_by": new[0].id})
    bad = unit(rng, 1)
    bad[0, 0] = np.nan
    with pytest.raises(InvalidInputError):  # a bad new vector: neither the record nor the closing
        store.write(new, bad, closes=[(close, unit(rng, 1)[0])])
    assert store.get(old[0].id).superseded_by is None
    store.write(new, unit(rng, 1), messages=[_msg(1)], owners=["D1:1"], closes=[(close, unit(rng, 1)[0]), (gone, unit(rng, 1)[0])])
    assert store.get(old[0].id).superseded_by == new[0].id
    assert [e.event for e in store.history(old[0].id)][-1] == HistoryEvent.UPDATE
    # the same message again: skipped, and so is the closing its record would make
    later = semantic(U1A1, 1)
    keep = old[1].model_copy(update={"valid_to": when, "superseded_by": later[0].id})
    assert store.write(later, unit(rng, 1), messages=[_msg(1)], owners=["D1:1"], closes=[(keep, unit(rng, 1)[0])]) == ["D1:1"]
    assert store.get(old[1].id).superseded_by is None


def test_write_narrows_a_record_in_the_same_transaction(store: Store, rng) -> None:
    """A ``closes`` entry that is narrowed (``metadata["narrowed_by"]``: a new text of what still holds, still current)
    replaces the stored record with the new records, its old version kept in the history; none without the other."""
    old = semantic(U1A1, 1)
    store.write(old, unit(rng, 1))
    new = semantic(U1A1, 1)
    narrowed = old[0].model_copy(update={"fact": "what still holds", "metadata": {**old[0].metadata, "narrowed_by": new[0].id}})
    store.write(new, unit(rng, 1), messages=[_msg(2)], owners=["D1:2"], closes=[(narrowed, unit(rng, 1)[0])])
    got = store.get(old[0].id)
    assert got is not None and got.fact == "what still holds" and got.superseded_by is None and got.valid_to is None
    assert got.metadata["narrowed_by"] == new[0].id and store.get(new[0].id) is not None
    assert [e.event for e in store.history(old[0].id)][-1] == HistoryEvent.UPDATE


# --- collections -----------------------------------------------------------------------------------------
def test_collections_put_get_search_count(store: Store, rng) -> None:
    ids = [f"ex{i}" for i in range(50)]
    payloads = [f'{{"q": "question {i}", "n": {i}}}' for i in range(50)]
    v = unit(rng, 50)
    store.collection("bank").put(ids, payloads, v)
    store.collection("other").put(["o1"], ['{"q": "elsewhere"}'], unit(rng, 1))
    assert store.collection("bank").count() == 50 and store.collection("other").count() == 1
    assert store.collection("nothing").count() == 0
    assert store.collection("bank").get()[:2] == [("ex0", payloads[0]), ("ex1", payloads[1])]
    assert store.collection("bank").get(["ex7", "missing", "ex3"]) == [("ex7", payloads[7]), ("ex3", payloads[3])]
    q = unit(rng, 1)[0]
    hits = store.collection("bank").search(q, 5)
    want, scores = brute_force(v, ids, q, 5)
    assert [h[0] for h in hits] == want
    np.testing.assert_allclose([h[2] for h in hits], scores, atol=1e-5)
    assert hits[0][1] == payloads[ids.index(want[0])]
    assert store.collection("nothing").search(q, 5) == []
    # an existing id is replaced (payload and vector)
    store.collection("bank").put(["ex0"], ['{"q": "new"}'], q[None, :])
    assert store.collection("bank").count() == 50
    top = store.collection("bank").search(q, 1)[0]
    assert top[0] == "ex0" and top[1] == '{"q": "new"}' and top[2] == pytest.approx(1.0, abs=1e-5)


def test_collection_export_gives_ids_payloads_and_vectors_in_insertion_order(
    empty_store: Store, open_backend: Callable[[], Store], backend: Backend, rng
) -> None:
    none_ids, none_payloads, none_matrix = empty_store.collection("bank").export()  # no embedding info yet
    assert none_ids == [] and none_payloads == [] and none_matrix.shape[0] == 0
    empty_store.set_embedding_info(INFO)
    store = empty_store
    ids = [f"ex{i}" for i in (3, 1, 2, 0, 4)]  # insertion order, not sorted order
    payloads = [f'{{"n": {i}}}' for i in range(5)]
    v = unit(rng, 5)
    store.collection("bank").put(ids[:3], payloads[:3], v[:3])
    store.collection("bank").search(v[0], 2)  # warm the cache: the export must not depend on it
    store.collection("bank").put(ids[3:], payloads[3:], v[3:])
    store.collection("other").put(["o"], ["{}"], unit(rng, 1))
    new = unit(rng, 1)
    store.collection("bank").put(["ex1"], ['{"n": "new"}'], new)  # a replace keeps the item's place
    got_ids, got_payloads, matrix = store.collection("bank").export()
    assert got_ids == ids
    assert got_payloads == [payloads[0], '{"n": "new"}', *payloads[2:]]
    assert matrix.dtype == np.float32 and matrix.shape == (5, DIM) and matrix.flags.c_contiguous
    want = v.copy()
    want[1] = new[0]
    np.testing.assert_array_equal(matrix, want)  # float32 round-trips bit for bit
    empty_ids, empty_payloads, empty_matrix = store.collection("nothing").export()
    assert empty_ids == [] and empty_payloads == [] and empty_matrix.shape == (0, DIM)
    with pytest.raises(InvalidInputError):
        store.collection("").export()
    if backend.shared:  # another connection sees the same snapshot
        assert open_backend().collection("bank").export()[0] == ids


def test_collections_can_be_listed_pruned_and_emptied(store: Store, rng) -> None:
    v = unit(rng, 3)
    store.collection("b").put(["1", "2", "3"], ["{}", "[]", "null"], v)
    store.collection("a").put(["x"], ["{}"], unit(rng, 1))
    assert store.collections() == ["a", "b"]
    assert store.collection("b").search(v[1], 1)[0][0] == "2"  # warm the cache
    assert store.collection("b").delete(["2", "nope"]) == 1
    assert [i for i, _ in store.collection("b").get()] == ["1", "3"]
    assert "2" not in [h[0] for h in store.collection("b").search(v[1], 5)]
    assert store.collection("b").delete() == 2
    assert store.collection("b").count() == 0 and store.collection("b").search(v[0], 5) == []
    assert store.collections() == ["a"]


def test_collection_input_is_validated(store: Store, rng) -> None:
    with pytest.raises(InvalidInputError):
        store.collection("bank").put(["a", "b"], ["{}"], unit(rng, 2))
    with pytest.raises(InvalidInputError):
        store.collection("bank").put(["a"], ["not json"], unit(rng, 1))
    with pytest.raises(InvalidInputError):
        store.collection("bank").put(["a", "a"], ["{}", "{}"], unit(rng, 2))
    with pytest.raises(InvalidInputError):
        store.collection("")
    with pytest.raises(EmbeddingMismatchError):
        store.collection("bank").put(["a"], ["{}"], unit(rng, 1, DIM + 3))
    with pytest.raises(InvalidInputError):
        store.collection("bank").put(["a"], ["{}"], unit(rng, 1), texts=[1])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        store.collection("bank").put(["a", "b"], ["{}", "{}"], unit(rng, 2), texts=["only one"])
    assert store.collection("bank").count() == 0


def test_document_sets_hold_items_without_vectors(empty_store: Store) -> None:
    docs = empty_store.documents("bank::meta")  # no embedding info needed: nothing is embedded
    docs.put(["m", "n"], ['{"v": 1}', "[]"])
    docs.put(["m"], ['{"v": 2}'])  # an upsert keeps the item's place
    empty_store.documents("other").put(["m"], ["null"])
    assert docs.get() == [("m", '{"v": 2}'), ("n", "[]")] and docs.count() == 2
    assert docs.get(["n", "missing"]) == [("n", "[]")]
    assert empty_store.collections() == [] and empty_store.vector_tables() == []
    empty_store.set_embedding_info(INFO)
    empty_store.set_embedding_info(EmbeddingInfo(model_id="other", dim=8))  # documents do not pin the model
    assert docs.delete(["n", "nope"]) == 1 and docs.get() == [("m", '{"v": 2}')]
    assert docs.delete() == 1 and docs.count() == 0 and empty_store.documents("other").count() == 1
    with pytest.raises(InvalidInputError):
        docs.put(["a"], ["not json"])
    with pytest.raises(InvalidInputError):
        empty_store.documents("")


# --- re-embedding (VectorMaintenance) ------------------------------------------------------------------------
def test_reembedding_rewrites_every_table_then_switches(store: Store, rng) -> None:
    recs = [*semantic(U1, 3), EpisodicRecord(scope=U1, title="t", summary="s", embedding_model=INFO.model_id)]
    store.write(recs, unit(rng, 4))
    store.collection("bank").put(["b1", "b2"], ["{}", "[]"], unit(rng, 2), texts=["first text", "second text"])
    store.documents("bank::meta").put(["manifest"], ['{"v": 1}'])  # no vector: nothing to re-embed
    new = EmbeddingInfo(model_id="new-model", dim=16)
    sem_t, epi_t, bank_t = VectorTable("records", "semantic"), VectorTable("records", "episodic"), VectorTable("collection", "bank")
    assert store.vector_tables() == [epi_t, sem_t, bank_t]
    assert store.stale_vectors(new) == {epi_t: (1, 0), sem_t: (3, 0), bank_t: (2, 0)}
    assert store.stale_vectors(INFO) == {}
    page = store.stale_page(sem_t, new, limit=2)
    assert page.items == [(r.id, r.embed_text()) for r in recs[:2]] and page.next_cursor is not None
    assert store.stale_page(sem_t, new, limit=2, cursor=page.next_cursor).items == [(recs[2].id, recs[2].embed_text())]
    assert store.stale_page(bank_t, new).items == [("b1", "first text"), ("b2", "second text")]
    sem = unit(rng, 3, 16)
    store.rewrite_vectors(sem_t, [r.id for r in recs[:3]], sem, new)
    assert store.embedding_info() == INFO  # not switched until switch_embedding
    assert store.stale_vectors(new) == {epi_t: (1, 0), bank_t: (2, 0)}
    assert store.stale_page(sem_t, new).items == []  # resuming skips what is done
    with pytest.raises(EmbeddingMismatchError):  # mixed vectors: searching them fails loudly
        store.search(unit(rng, 1)[0], U1, MemoryType.SEMANTIC, 3)
    with pytest.raises(ReembedError) as err:
        store.switch_embedding(new)
    assert err.value.tables == [str(epi_t), str(bank_t)]
    store.rewrite_vectors(epi_t, [recs[3].id], unit(rng, 1, 16), new)
    store.rewrite_vectors(bank_t, ["b1", "b2"], unit(rng, 2, 16), new)
    store.switch_embedding(new)
    assert store.embedding_info() == new and store.stale_vectors(new) == {}
    assert ids_of(store.search(sem[1], U1, MemoryType.SEMANTIC, 1)) == [recs[1].id]
    assert store.get_vectors(MemoryType.SEMANTIC, [recs[2].id]).tobytes() == sem[2].tobytes()
    assert store.get(recs[3].id).embedding_model == "new-model"
    assert len(store.history(recs[0].id)) == 1  # content unchanged: no history entry
    assert store.documents("bank::meta").get() == [("manifest", '{"v": 1}')]
    with pytest.raises(RecordNotFoundError):
        store.rewrite_vectors(sem_t, ["missing"], unit(rng, 1, 16), new)
    with pytest.raises(InvalidInputError):
        store.rewrite_vectors(sem_t, [recs[0].id], unit(rng, 1, 8), new)  # dimension differs from the info


def test_items_stored_without_their_text_are_reported(store: Store, rng) -> None:
    store.collection("opaque").put(["x"], ["{}"], unit(rng, 1))  # no texts given
    new = EmbeddingInfo(model_id="new-model", dim=8)
    table = VectorTable("collection", "opaque")
    assert store.stale_vectors(new) == {table: (1, 1)}
    with pytest.raises(ReembedError):
        store.stale_page(table, new)


# --- several connections -------------------------------------------------------------------------------------
def test_a_second_store_on_the_same_database_is_seen(open_backend: Callable[[], Store], backend: Backend, rng) -> None:
    if not backend.shared:
        pytest.skip("each open of this backend is a separate database")
    a, b = open_backend(), open_backend()
    a.set_embedding_info(INFO)
    assert b.embedding_info() == INFO
    assert_search_follows(b, a, rng)  # another connection's writes, deletes and replaces, a's cache warm
    v = unit(rng, 4)
    a.collection("bank").put(["x"], ["{}"], v[:1])
    assert b.collection("bank").search(v[0], 1)[0][0] == "x"
    b.collection("bank").put(["y"], ["{}"], v[3:4])
    assert a.collection("bank").search(v[3], 1)[0][0] == "y"
    seen = a.revision()
    b.delete_scope(U1)
    assert a.revision() != seen  # another connection's commit moves this store's revision
    assert a.search(v[0], U1, MemoryType.SEMANTIC, 10) == []


def test_a_closed_store_raises_store_error(store: Store, rng) -> None:
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError):
        store.count()
    with pytest.raises(StoreError):
        store.write(semantic(U1, 1), unit(rng, 1))
