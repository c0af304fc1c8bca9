"""Portability: a scope's history read in write order, and a verbatim restore with its conflict rules."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.errors import ImportConflictError, InvalidInputError
from memdesk.records import HistoryEvent, RawMessage, Scope, SemanticRecord
from memdesk.store.base import Store

from .helpers import unit

ANA = Scope(user_id="ana", agent_id="a", run_id="r")
BEN = Scope(user_id="ben", agent_id="a", run_id="r")
T0 = datetime(2025, 3, 10, 19, 0, tzinfo=timezone.utc)


def _fact(rid: str, scope: Scope = ANA, text: str = "") -> SemanticRecord:
    return SemanticRecord(id=rid, scope=scope, fact=text or f"fact {rid}", ingest_time=T0, provenance=[f"m-{rid}"])


def _msg(mid: str, scope: Scope = ANA, pending: bool = False) -> RawMessage:
    return RawMessage(id=mid, scope=scope, speaker="Ana", role="user", content=f"said {mid}", timestamp=T0,
                      ingest_time=T0, route_mask=None if pending else 2, pending=pending)  # fmt: skip


def _written(store: Store, rng: np.random.Generator) -> None:
    """ana: f1 updated once, f2 deleted, f3 current; ben: g1."""
    store.write([_fact("f1"), _fact("f2"), _fact("f3"), _fact("g1", BEN)], unit(rng, 4), messages=[_msg("m1")])
    store.replace(_fact("f1", text="fact f1, revised"), unit(rng, 1)[0])
    store.delete("f2")


def test_history_page_reads_a_scopes_entries_in_write_order_with_tombstones(store: Store, rng) -> None:
    _written(store, rng)
    entries, cursor = [], None
    while True:  # pages of 2 by keyset
        page = store.history_page(Scope(user_id="ana"), limit=2, cursor=cursor)
        entries += page.items
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    got = [(e.record_id, e.version, e.event) for e in entries]
    assert got == [("f1", 1, HistoryEvent.ADD), ("f3", 1, HistoryEvent.ADD), ("f1", 2, HistoryEvent.UPDATE),
                   ("f2", 2, HistoryEvent.DELETE)]  # fmt: skip
    assert entries[2].record is not None and entries[2].record.text() == "fact f1, revised"
    assert entries[3].record is None
    assert [e.record_id for e in store.history_page(BEN).items] == ["g1"]
    assert store.history_page(Scope(user_id="cy")).items == []
    assert {e.record_id for e in store.history_page(None).items} == {"f1", "f2", "f3", "g1"}
    tombstones = store.history_page(None, event=HistoryEvent.DELETE).items
    assert [(e.record_id, e.version, e.record) for e in tombstones] == [("f2", 2, None)]
    assert [e.version for e in store.history_page(ANA, event=HistoryEvent.UPDATE).items] == [2]
    assert store.history_of(["f1", "f2", "nope"]) == {"f1": store.history("f1"), "f2": store.history("f2")}
    with pytest.raises(InvalidInputError):
        store.history_page(ANA, cursor="x1")


def test_restore_keeps_ids_versions_times_and_messages(store: Store, rng) -> None:
    _written(store, rng)
    recs = list(store.scan(ANA))
    vectors = np.vstack([store.get_vectors(r.memory_type, [r.id]) for r in recs])
    history = store.history_page(ANA).items
    messages = store.messages(ANA)
    other = store  # the same database, the scope forgotten first
    other.forget(ANA)
    assert other.get("f1") is None and other.history("f1") == []
    done = other.restore(recs, vectors, history=history, messages=messages)
    assert (done.records, done.history, done.messages, done.conflicts) == (2, 4, 1, [])
    assert other.get("f1") == recs[0] and other.history("f1") == store.history("f1")
    assert [(e.version, e.event, e.changed_at) for e in other.history("f1")] == [
        (e.version, e.event, e.changed_at) for e in history if e.record_id == "f1"
    ]
    assert other.history("f2")[0].event == HistoryEvent.DELETE
    assert [(m.id, m.ingest_time, m.route_mask, m.pending) for m in other.messages(ANA)] == [("m1", T0, 2, False)]
    np.testing.assert_array_equal(other.get_vectors(recs[0].memory_type, [r.id for r in recs]), vectors)
    hits = other.search(vectors[1], ANA, recs[1].memory_type, 1)
    assert hits[0].record.id == recs[1].id


def test_restore_refuses_skips_or_replaces_a_clash(store: Store, rng) -> None:
    _written(store, rng)
    incoming = _fact("f3", text="fact f3 from elsewhere")
    vec = unit(rng, 1)
    assert store.restore([incoming], None, check_only=True).conflicts == ["record:f3"]
    with pytest.raises(ImportConflictError) as err:
        store.restore([incoming], vec, messages=[_msg("m1"), _msg("m9")])
    assert "record:f3" in err.value.items
    assert store.get("f3").text() == "fact f3" and len(store.messages(ANA)) == 1  # nothing written
    skipped = store.restore([incoming], vec, messages=[_msg("m1", pending=True), _msg("m9", pending=True)], on_conflict="skip")
    assert skipped.skipped_records == ["f3"] and skipped.messages == 1 and store.get("f3").text() == "fact f3"
    assert [m.id for m in store.pending_messages(ANA)] == ["m9"]
    replaced = store.restore([incoming], vec, on_conflict="replace")
    assert replaced.replaced == 1 and store.get("f3").text() == "fact f3 from elsewhere"
    assert [e.event for e in store.history("f3")] == []  # no history given: the stored one went with it
    assert store.search(vec[0], ANA, incoming.memory_type, 1)[0].record.id == "f3"
    with pytest.raises(InvalidInputError):
        store.restore([incoming], vec, on_conflict="merge")  # type: ignore[arg-type]


def test_a_restore_the_database_cannot_hold_is_refused_whole_with_a_typed_error(store: Store, rng) -> None:
    """PostgreSQL text cannot hold NUL (its bulk COPY says so in its own words): the whole restore is refused with
    InvalidInputError and nothing is written; SQLite keeps the text as it is."""
    nul = _msg("m2").model_copy(update={"content": "a\x00b"})
    try:
        done = store.restore([_fact("n1")], unit(rng, 1), history=[], messages=[_msg("m1"), nul])
    except InvalidInputError:
        assert store.get("n1") is None and store.messages(ANA) == [] and store.history("n1") == []
    else:
        assert (done.records, done.messages) == (1, 2) and store.messages(ANA)[1].content == "a\x00b"
