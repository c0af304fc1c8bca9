"""Pending raw messages: logged unprocessed, listed by ``pending_messages``, claimed by exactly one write."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from memdesk.records import RawMessage, Scope, SemanticRecord
from memdesk.store.base import Store

from .helpers import unit

ANA = Scope(user_id="ana")
T0 = datetime(2025, 3, 10, 19, 0, tzinfo=timezone.utc)


def _raw(mid: str, scope: Scope = ANA, **fields) -> RawMessage:
    return RawMessage(id=mid, scope=scope, speaker="Ana", role="tool", content=f"said {mid}", timestamp=T0,
                      ingest_time=T0, source="tool:web_search", pending=True, **fields)  # fmt: skip


def _fact(rid: str, mid: str) -> SemanticRecord:
    return SemanticRecord(id=rid, scope=ANA, fact=f"fact of {mid}", provenance=[mid])


def test_pending_messages_round_trip_in_log_order_under_wildcards(store: Store) -> None:
    run = Scope(user_id="ana", run_id="r1")
    store.write(messages=[_raw("m1"), _raw("m2", run), _raw("m3", route_mask=None)])
    store.write(messages=[_raw("m4").model_copy(update={"pending": False, "route_mask": 2})])
    got = store.pending_messages(ANA)
    assert [(m.id, m.scope, m.source, m.pending, m.status) for m in got] == [
        ("m1", ANA, "tool:web_search", True, "pending"),
        ("m2", run, "tool:web_search", True, "pending"),
        ("m3", ANA, "tool:web_search", True, "pending"),
    ]
    assert [m.id for m in store.pending_messages(run)] == ["m2"]
    assert {m.id: m.status for m in store.messages(ANA)}["m4"] == "processed"


def test_a_pending_message_is_claimed_by_one_write_and_its_records_stored_once(store: Store) -> None:
    store.write(messages=[_raw("m1")])
    done = _raw("m1").model_copy(update={"pending": False, "route_mask": 2})
    rng = np.random.default_rng(0)
    assert store.write([_fact("r1", "m1")], unit(rng, 1), messages=[done], owners=["m1"]) == []
    # a second writer that processed the same pending message finds it claimed: skipped with its records
    assert store.write([_fact("r2", "m1")], unit(rng, 1), messages=[done], owners=["m1"]) == ["m1"]
    assert [r.id for r in store.scan(ANA)] == ["r1"]
    assert store.pending_messages(ANA) == [] and [m.route_mask for m in store.messages(ANA)] == [2]
    # logging it pending again changes nothing
    store.write(messages=[_raw("m1")])
    assert store.pending_messages(ANA) == []


def test_forget_erases_pending_messages(store: Store) -> None:
    store.write(messages=[_raw("m1"), _raw("m2")])
    assert store.forget(ANA).messages == 2
    assert store.pending_messages(ANA) == [] and store.messages(ANA) == []


def test_pending_scopes_lists_every_scope_with_pending_messages_oldest_first(store: Store) -> None:
    bob, run = Scope(user_id="bob"), Scope(user_id="ana", run_id="r1")
    assert store.pending_scopes() == []
    store.write(messages=[_raw("m1", bob), _raw("m2", ANA), _raw("m3", run), _raw("m4", bob)])
    store.write(messages=[_raw("m5", Scope(user_id="cy")).model_copy(update={"pending": False, "route_mask": 2})])
    assert store.pending_scopes() == [bob, ANA, run]  # cy's message is processed: not listed
    done = _raw("m2").model_copy(update={"pending": False, "route_mask": 2})
    store.write([_fact("f2", "m2")], unit(np.random.default_rng(0), 1), messages=[done], owners=["m2"])
    assert store.pending_scopes() == [bob, run]
    store.forget(bob)
    assert store.pending_scopes() == [run]


def test_a_claiming_write_never_logs_a_message_forgotten_since_it_was_read_pending(store: Store) -> None:
    store.write(messages=[_raw("m1"), _raw("m2")])
    done = [_raw(m).model_copy(update={"pending": False, "route_mask": 2}) for m in ("m1", "m2")]
    store.forget(ANA)  # lands after a worker read m1 and m2 pending, before it writes their records
    rng = np.random.default_rng(0)
    got = store.write([_fact("r1", "m1"), _fact("r2", "m2")], unit(rng, 2), messages=done, owners=["m1", "m2"], claim=True)
    assert got == ["m1", "m2"] and list(store.scan(ANA)) == [] and store.messages(ANA) == []
    # while logged pending, a claiming write claims as any write does
    store.write(messages=[_raw("m3")])
    m3 = _raw("m3").model_copy(update={"pending": False, "route_mask": 2})
    assert store.write([_fact("r3", "m3")], unit(rng, 1), messages=[m3], owners=["m3"], claim=True) == []
    assert [r.id for r in store.scan(ANA)] == ["r3"] and store.pending_messages(ANA) == []
