"""Property tests: records, raw messages and vectors survive every backend unchanged."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memdesk.records import ALL_TYPES, EpisodicRecord, MemoryType, ProceduralRecord, RawMessage, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo
from memdesk.store.base import Store

DIM = 8  # small vectors keep the generated examples cheap
INFO = EmbeddingInfo(model_id="prop-model", dim=DIM)
# the store is shared by all examples of one test: each example looks at its own rows only
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# any text without surrogates or NUL (PostgreSQL text cannot hold NUL), plus emoji sequences drawn on purpose
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40) | st.sampled_from(
    ["👨‍👩‍👧‍👦 family", "🇫🇷 flag", "e\u0301 combining", "right-to-left \u05e9\u05dc\u05d5\u05dd", "\x1f\x1e ctrl", ""]
)
# scope ids: any text without surrogates or control characters (Scope refuses those)
scope_id = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda s: s.strip() != ""
)
scopes = st.builds(
    lambda u, a, r: Scope(user_id=u, agent_id=a, run_id=r),
    scope_id, st.none() | scope_id, st.none() | scope_id,
)  # fmt: skip
offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))
aware_times = st.datetimes(timezones=offsets)
times = st.none() | aware_times | st.datetimes()  # naive times are read as UTC by the records
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
metadata = st.dictionaries(text, json_values, max_size=4)
common = dict(
    scope=scopes, speaker=st.none() | text, event_time=times, temporal_anchor=st.none() | text,
    ingest_time=aware_times, provenance=st.lists(text, max_size=3), metadata=metadata,
)  # fmt: skip
records = st.one_of(
    st.builds(EpisodicRecord, title=text, summary=text, **common),
    st.builds(SemanticRecord, fact=text, **common),
    st.builds(ProceduralRecord, title=text, content=text, **common),
)
finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)  # includes ±3.4e38, subnormals, -0.0
vectors = arrays(np.float32, (DIM,), elements=finite32)
EDGE_TIMES = [
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))),  # before year 1 in UTC
    datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-5))),  # after year 9999 in UTC
]


@pytest.fixture
def small_store(empty_store: Store) -> Store:
    """A fresh store of the backend under test for ``DIM``-sized vectors."""
    empty_store.set_embedding_info(INFO)
    return empty_store


@SETTINGS
@given(batch=st.lists(st.tuples(records, vectors), min_size=1, max_size=5))
@example(
    batch=[
        (SemanticRecord(scope=Scope(user_id="u"), fact="early", event_time=EDGE_TIMES[0], ingest_time=EDGE_TIMES[1]),
         np.array([3.4028235e38, -3.4028235e38, 1e-45, -0.0, 0, 1, -1, 1.17549435e-38], np.float32)),
    ]
)  # fmt: skip
def test_generated_records_and_vectors_round_trip_exactly(small_store: Store, batch) -> None:
    store = small_store
    recs = [r for r, _ in batch]
    matrix = np.stack([v for _, v in batch])
    store.write(recs, matrix)
    for i, r in enumerate(recs):
        got = store.get(r.id)
        assert got == r
        assert got.model_dump_json() == r.model_dump_json()
        stored = store.get_vectors(MemoryType(r.type), [r.id])
        assert stored.dtype == np.float32
        assert stored.tobytes() == matrix[i].tobytes()  # bit-exact, -0.0 and subnormals included
    ours = {r.id for r in recs}
    by_scope: dict[Scope, list] = {r.scope: [] for r in recs}
    for r in recs:
        by_scope[r.scope].append(r)
    for scope, expected in by_scope.items():
        by_type = sorted(expected, key=lambda r: ALL_TYPES.index(MemoryType(r.type)))  # stable: oldest first within a type
        assert [r for r in store.scan(scope) if r.id in ours and r.scope == scope] == by_type


@SETTINGS
@given(
    scope=scopes,
    msgs=st.lists(
        st.builds(
            RawMessage,
            id=text.filter(bool), scope=st.just(Scope(user_id="placeholder")), speaker=st.none() | text,
            role=st.sampled_from(["user", "assistant", "system", "tool"]), content=text, timestamp=st.none() | aware_times,
            ingest_time=aware_times, route_mask=st.none() | st.integers(0, 7), metadata=metadata,
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda m: m.id,
    ),
)  # fmt: skip
def test_generated_raw_messages_round_trip_exactly(small_store: Store, scope: Scope, msgs) -> None:
    store = small_store
    msgs = [m.model_copy(update={"scope": scope}) for m in msgs]
    store.delete_scope(scope)
    store.write(messages=msgs)
    got = [m for m in store.messages(scope) if m.scope == scope]
    assert [m.model_dump(exclude={"seq"}) for m in got] == [m.model_dump(exclude={"seq"}) for m in msgs]
    assert all(store.has_message(scope, m.id) for m in msgs)


@pytest.mark.parametrize(
    "a, b",
    [
        (Scope(user_id="x|", run_id="y"), Scope(user_id="x", run_id="|y")),  # alike under a joining separator
        (Scope(user_id='x","y'), Scope(user_id="x", agent_id="y")),  # alike under naive quoting with commas
    ],
    ids=["separator", "quotes-and-commas"],
)
def test_scope_ids_that_encode_alike_do_not_collide(small_store: Store, a: Scope, b: Scope) -> None:
    store = small_store
    ra, rb = SemanticRecord(scope=a, fact="a"), SemanticRecord(scope=b, fact="b")
    v = np.eye(DIM, dtype=np.float32)[:2]
    store.write([ra, rb], v)
    assert list(store.scan(a)) == [ra] and list(store.scan(b)) == [rb]
    assert [h.record.id for h in store.search(v[0], a, MemoryType.SEMANTIC, 5)] == [ra.id]
    assert store.has_scope(a) and store.has_scope(b)
    assert store.count(a) == 1 and store.count(b) == 1
