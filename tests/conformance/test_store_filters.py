"""Filtered reads on every backend: search, scan and pages under a RecordFilter agree with its reference meaning.

The records carry metadata, event times, roles, sources and validity (some superseded, some valid only from
a later time); every read is compared with brute force over all records through ``RecordFilter.matches``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.filters import RecordFilter
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.store.base import Store
from memdesk.store.filtered import page_where, scan_where, search_where

from .helpers import unit

S = Scope(user_id="ana", agent_id="bot", run_id="r1")
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
N = 40


def _records(rng: np.random.Generator) -> tuple[list, np.ndarray]:
    recs = []
    for i in range(N):
        common = dict(
            scope=S,
            speaker=["Ana", "Ben"][i % 2],
            role=["user", "assistant"][i % 5 == 0],
            source=["chat", "email", None][i % 3],
            event_time=None if i % 7 == 0 else T0 + timedelta(days=10 * i),
            metadata={"app": ["web", "ios", "cli"][i % 3], "n": i, "at": (T0 + timedelta(days=i)).isoformat()},
        )
        if i % 4 == 0:  # closed by a later record: valid until 5 days after it happened
            common["valid_to"] = T0 + timedelta(days=10 * i + 5)
            common["superseded_by"] = f"later-{i}"
        recs.append(SemanticRecord(fact=f"fact {i}", **common) if i % 2 else EpisodicRecord(title="t", summary=f"event {i}", **common))
    return recs, unit(rng, N)


@pytest.fixture
def filled(store: Store, rng: np.random.Generator) -> tuple[Store, list, np.ndarray]:
    recs, vecs = _records(rng)
    store.write(recs, vecs)
    return store, recs, vecs


FILTERS = [
    RecordFilter(),
    RecordFilter(include_superseded=True),
    RecordFilter(as_of=T0 + timedelta(days=125)),
    RecordFilter(metadata={"app": "web"}),
    RecordFilter(metadata={"app": ["ios", "cli"], "n": {"gte": 10, "lt": 30}}),
    RecordFilter(metadata={"at": {"gt": (T0 + timedelta(days=20)).isoformat()}}),
    RecordFilter(since=T0 + timedelta(days=100), until=T0 + timedelta(days=300), include_superseded=True),
    RecordFilter(speaker="Ben", roles=["user"], sources=["email"]),
    RecordFilter(types=["semantic"], metadata={"missing": 1}),
    RecordFilter(metadata={"OR": [{"app": "web"}, {"n": {"gt": 30}}], "NOT": [{"app": {"icontains": "CL"}}]}),
    RecordFilter(metadata={"app": {"nin": ["web"], "exists": True}, "missing": {"exists": False}}),
]


@pytest.mark.parametrize("where", FILTERS, ids=[f.model_dump_json(exclude_defaults=True) for f in FILTERS])
def test_search_scan_and_pages_agree_with_the_filter(filled, where: RecordFilter, rng: np.random.Generator) -> None:
    store, recs, vecs = filled
    query = unit(rng, 1)[0]
    for memory_type in MemoryType:
        expected = [
            r.id for r, v in sorted(zip(recs, vecs), key=lambda rv: (-float(rv[1] @ query), rv[0].id))
            if r.memory_type is memory_type and where.matches(r)
        ]
        got = [s.record.id for s in search_where(store, query, S, memory_type, 5, where)]
        assert got == expected[:5], (memory_type, where)
    scanned = [r.id for r in scan_where(store, Scope(user_id="ana"), where)]
    assert sorted(scanned) == sorted(r.id for r in recs if where.matches(r))
    paged, cursor = [], None
    while True:
        page = page_where(store, S, where, limit=3, cursor=cursor)
        assert len(page.items) <= 3
        paged += [r.id for r in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert paged == scanned


def test_the_default_drops_superseded_and_as_of_reads_the_past(filled) -> None:
    store, recs, _ = filled
    current = {r.id for r in scan_where(store, S, RecordFilter())}
    assert current == {r.id for r in recs if r.superseded_by is None}
    then = T0 + timedelta(days=45)
    held = {r.id for r in scan_where(store, S, RecordFilter(as_of=then))}
    # record 4 (happened day 40, closed day 45) no longer holds; record 3 (day 30, open) does; 5 (day 50) not yet
    ids = [r.id for r in recs]
    assert ids[3] in held and ids[4] not in held and ids[5] not in held  # 3 held then, 4 was closed on day 45, 5 came later
    assert ids[1] in held and ids[0] not in held  # no event time: held until closed (0 was closed on day 5)
    assert all(recs[i].valid_at(then) == (ids[i] in held) for i in range(N))


def test_a_closed_record_round_trips_its_validity(filled) -> None:
    store, recs, _ = filled
    got = store.get(recs[4].id)
    assert got is not None and got.superseded_by == "later-4" and got.valid_to == T0 + timedelta(days=45)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    app=st.none() | st.sampled_from(["web", "ios", ["web", "cli"]]),
    n=st.none() | st.fixed_dictionaries({"gte": st.integers(0, N)}),
    days=st.none() | st.integers(0, 10 * N),
    k=st.integers(1, 12),
)
def test_search_is_the_exact_top_k_after_filtering(filled, app, n, days, k: int) -> None:
    store, recs, vecs = filled
    meta = {key: v for key, v in (("app", app), ("n", n)) if v is not None}
    where = RecordFilter(metadata=meta or None, as_of=None if days is None else T0 + timedelta(days=days))
    query = vecs[k % N]
    for memory_type in (MemoryType.EPISODIC, MemoryType.SEMANTIC):
        pool = [(float(v @ query), r.id) for r, v in zip(recs, vecs) if r.memory_type is memory_type and where.matches(r)]
        want = [i for _, i in sorted(pool, key=lambda p: (-p[0], p[1]))[:k]]
        assert [s.record.id for s in search_where(store, query, S, memory_type, k, where)] == want
