"""A message's long metadata is stored once, however many records and versions carry it (memdesk.store.shared_metadata).

Every read (get, page, scan, search, history, history_page) returns the records as written; metadata filters
pushed into SQL see the shared keys as the record's own; an update of the metadata alone is copy-on-write; a
delete releases what no row references any more. The copies are counted in every value of every row of the
database (:meth:`Native.rows_text`), so the check holds whatever table would hold them.
"""

from __future__ import annotations

from datetime import datetime, timezone

from memdesk.filters import RecordFilter
from memdesk.records import MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store.base import Store
from memdesk.store.shared_metadata import SHARED_MIN_CHARS

from .helpers import native_for, unit

SCOPE = Scope(user_id="ana", agent_id="bot")
BLOB = "zqattachmentzq" * (SHARED_MIN_CHARS // 7)  # the long part: twice the threshold


def _message(mid: str = "m0") -> RawMessage:
    return RawMessage(id=mid, scope=SCOPE, speaker="Ana", role="user", content="the scan is attached",
                      timestamp=None, ingest_time=datetime.now(timezone.utc),
                      metadata={"team": "red", "scan": BLOB, "n": 1.0, "flag": None})  # fmt: skip


def _records(message: RawMessage, n: int) -> list[SemanticRecord]:
    """What an extractor makes: the message's metadata and each record's own keys (one overrides a message key)."""
    out = [
        SemanticRecord(scope=SCOPE, fact=f"fact {i}", provenance=[message.id], metadata={**message.metadata, "i": i, "own": [i]})
        for i in range(n)
    ]  # fmt: skip
    out[-1] = out[-1].model_copy(update={"metadata": {**out[-1].metadata, "team": "blue"}})
    return out


def _copies(store: Store) -> int:
    return native_for(store).rows_text(store).count(BLOB)


def test_records_of_one_message_share_one_copy_and_read_back_as_written(store: Store, rng) -> None:
    message = _message()
    recs = _records(message, 6)
    vectors = unit(rng, len(recs))
    store.write(recs, vectors, messages=[message], owners=[message.id] * len(recs))
    # the message's, one row its records share, and the whole metadata of the record that changed a message
    # key (its keys keep their order): not one per record and version
    assert _copies(store) == 3
    for r in recs:
        got = store.get(r.id)
        assert got == r and got.model_dump_json() == r.model_dump_json()  # equal, in the same key order
        assert [e.record for e in store.history(r.id)] == [r]
    assert sorted(store.scan(SCOPE), key=lambda r: r.fact) == recs
    assert {e.record.id: e.record for e in store.history_page(SCOPE).items} == {r.id: r for r in recs}
    hits = store.search(vectors[2], SCOPE, MemoryType.SEMANTIC, 3)
    assert hits[0].record == recs[2]


def test_filters_read_shared_keys_as_the_records_own(store: Store, rng) -> None:
    message = _message()
    recs = _records(message, 5)
    vectors = unit(rng, len(recs))
    store.write(recs, vectors, messages=[message])  # no owners: the base is found by provenance
    facts = lambda where: sorted(r.fact for r in store.page(SCOPE, where=RecordFilter(metadata=where)).items)  # noqa: E731
    assert facts({"team": "red"}) == ["fact 0", "fact 1", "fact 2", "fact 3"]
    assert facts({"team": "blue"}) == ["fact 4"]  # its own key wins over the message's
    assert facts({"team": {"ne": "red"}, "i": {"gte": 1}}) == ["fact 4"]
    assert facts({"scan": {"contains": "attachment"}, "i": {"lt": 2}}) == ["fact 0", "fact 1"]
    assert facts({"flag": None, "n": 1}) == [f"fact {i}" for i in range(5)]
    assert facts({"scan": {"exists": True}, "missing": {"exists": False}}) == [f"fact {i}" for i in range(5)]
    assert facts({"OR": [{"team": "blue"}, {"i": 0}]}) == ["fact 0", "fact 4"]
    hits = store.search(vectors[0], SCOPE, MemoryType.SEMANTIC, 5, where=RecordFilter(metadata={"team": "red"}))
    assert sorted(h.record.fact for h in hits) == ["fact 0", "fact 1", "fact 2", "fact 3"]


def test_an_update_of_the_metadata_is_copy_on_write_and_a_delete_releases_it(store: Store, rng) -> None:
    message = _message()
    recs = _records(message, 3)
    store.write(recs, unit(rng, 3), messages=[message], owners=[message.id] * 3)
    text_only = recs[0].model_copy(update={"fact": "fact 0, reworded"})
    store.replace(text_only, unit(rng, 1)[0])
    assert _copies(store) == 3  # the message's, the shared one, recs[2]'s whole; the new version references the same
    changed = recs[1].model_copy(update={"metadata": {**recs[1].metadata, "scan": BLOB + "!", "i": 10}})
    store.replace(changed, unit(rng, 1)[0])
    assert _copies(store) == 4  # its own copy; the earlier version keeps the old one
    assert store.get(recs[1].id) == changed
    assert [e.record for e in store.history(recs[1].id)] == [recs[1], changed]
    assert [e.record for e in store.history(recs[0].id)] == [recs[0], text_only]
    assert store.get(recs[2].id) == recs[2]
    assert sorted(r.fact for r in store.page(SCOPE, where=RecordFilter(metadata={"i": 10})).items) == ["fact 1"]
    store.delete(recs[1].id)  # its versions go: the copy only they referenced goes too
    assert _copies(store) == 3
    store.delete(recs[0].id)  # the last versions referencing the shared copy
    assert _copies(store) == 2
    store.delete(recs[2].id)
    assert _copies(store) == 1  # the message's own
    assert store.forget(SCOPE).messages == 1 and _copies(store) == 0


def test_equal_metadata_without_a_message_is_one_copy_per_scope(store: Store, rng) -> None:
    other = Scope(user_id="ben")
    recs = [SemanticRecord(scope=s, fact=f"{s.user_id} {i}", metadata={"scan": BLOB}) for s in (SCOPE, other) for i in range(3)]
    store.write(recs, unit(rng, len(recs)))
    assert _copies(store) == 2  # one per scope: a forget of one leaves the other's
    assert store.forget(other).records == 3 and _copies(store) == 1
    assert [r.metadata for r in store.scan(SCOPE)] == [{"scan": BLOB}] * 3


def test_metadata_holding_nul_stays_in_each_record_and_filters_still_read_it(store: Store, rng) -> None:
    """SQL filters leave rows whose JSON holds ``\\u0000`` to the Python check (json_guard): such metadata is not shared."""
    recs = [SemanticRecord(scope=SCOPE, fact=f"nul {i}", metadata={"scan": BLOB + "\x00", "i": i}) for i in range(2)]
    store.write(recs, unit(rng, 2))
    assert _copies(store) == 4  # in each record and its version, as before 0009
    assert [r.fact for r in store.page(SCOPE, where=RecordFilter(metadata={"i": 1})).items] == ["nul 1"]
    assert sorted(store.scan(SCOPE), key=lambda r: r.fact) == recs
