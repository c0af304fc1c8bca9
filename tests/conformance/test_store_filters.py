"""Filtered reads on every backend: search, scan and pages under a RecordFilter agree with its reference meaning.

The records carry metadata, event times, roles, sources and validity (some superseded, some valid only from
a later time); every read is compared with brute force over all records through ``RecordFilter.matches``,
and the SQL the filter compiles to (:mod:`memdesk.store.sql_filter`) must keep every record it keeps:
among them ``contains`` / ``icontains`` over text whose case rules differ between Python and SQL
(``İ``, ``ß``, ``Σ``, combining marks, emoji, the Kelvin sign) and ISO-time ranges over times written
every way Python's ``fromisoformat`` reads (and some it does not).
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
from memdesk.store.schema import TABLES, scope_where
from memdesk.store.sql_filter import filter_sql

from .conftest import CACHE_BACKENDS, Backend
from .helpers import unit


@pytest.fixture(params=[pytest.param(b, id=b.name, marks=b.marks) for b in CACHE_BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Every backend, and PostgreSQL's ``search="memory"`` too (its filtered search masks the cache as SQLite's does)."""
    return request.param

S = Scope(user_id="ana", agent_id="bot", run_id="r1")
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
N = 40
ODD_KEYS = ['a.b', 'q"uote', "x'); DROP TABLE episodic_memory;--", "[0]", "$.app", "w\\x"]
"""Metadata keys a JSON path or SQL could misread: each is matched as the plain key it is."""
WORDS = [
    "İstanbul", "istanbul", "ISTANBUL", "ıi", "straße", "STRASSE", "ẞ", "Σίσυφος", "ΟΔΟΣ", "σς", "e\u0301cole",
    "\u00e9cole", "\u212a kelvin", "ﬁne", "😀 smile", "ǅ", "ǰ", "Hello World", "", "a\x00b", "% _ \\",
]
"""Text values whose lowering, normalization or bytes differ between Python, SQLite and PostgreSQL."""
NEEDLES = [
    "i", "I", "İ", "ı", "i\u0307", "ss", "SS", "ß", "ẞ", "σ", "Σ", "ς", "e\u0301", "é", "k", "K", "\u212a", "fi",
    "ﬁ", "😀", "ǆ", "J\u030c", "", "a\x00b", "b", "hello", "O W", "%", "_", "\\",
]
TIMES = [
    "2024-03-01T10:00:00+00:00", "2024-03-01T10:00:00Z", "2024-03-01T10:00:00.5Z", "2024-03-01T10:00:00.123456+00:00",
    "2024-03-01T10:00:00", "2024-03-01 10:00:00", "2024-03-01t10:00:00", "2024-03-01T12:00:00+02:00",
    "2024-03-01T05:00:00-05:00", "2024-03-01", "20240301T100000Z", 20240301, "2024-03-01T10:00:00.000000+00:00",
    "2024-03-01T10:00:00+00:00:00", "2024-03-01T09:59:59.999999Z", "2024-03-01T10:00:01Z", "not a time", True,
    None, "2024-03-01T10:00:00-00:00", "2024-03-01T10:00:00,5", "2024-03-01T10:00", "0001-01-01T00:00:00Z",
]
"""Time values written many ways (and some that are not times): Python's ``fromisoformat`` is the judge."""
BOUNDS = [
    "2024-03-01T10:00:00Z", "2024-03-01T10:00:00.5+00:00", "2024-03-01", "2024-03-01T11:00:00+01:00",
    "2024-03-01T10:00:00.25", datetime(2024, 3, 1, 10, tzinfo=timezone.utc), "20240301T100000", "someday",
]


def _records(rng: np.random.Generator) -> tuple[list, np.ndarray]:
    recs = []
    for i in range(N):
        common = dict(
            scope=S,
            speaker=["Ana", "Ben"][i % 2],
            role=["user", "assistant"][i % 5 == 0],
            source=["chat", "email", None][i % 3],
            event_time=None if i % 7 == 0 else T0 + timedelta(days=10 * i),
            metadata={
                "app": ["web", "ios", "cli"][i % 3], "n": i, "at": (T0 + timedelta(days=i)).isoformat(),
                "score": [0.5, 1.0, 2.25, True, "1"][i % 5], "none": None if i % 2 else "set",
                "word": WORDS[i % len(WORDS)], "when": TIMES[i % len(TIMES)],
                **({ODD_KEYS[i % len(ODD_KEYS)]: ["x", 1, None][i % 3]} if i % 3 else {}),
            },
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
    RecordFilter(metadata={"score": 1}, include_superseded=True),
    RecordFilter(metadata={"score": {"gt": 0.5, "lte": 2.25}}),
    RecordFilter(metadata={"none": None}),
    RecordFilter(metadata={"none": {"ne": None}, "app": {"ne": "ios"}}),
    RecordFilter(metadata={"n": {"in": [1, 3, 5.0, "7"]}, "AND": [{"app": {"in": ["ios", "web"]}}]}),
    RecordFilter(metadata={"NOT": [{"app": "web"}, {"none": {"exists": True}}]}, sources=["chat", "email"]),
    RecordFilter(metadata={"NOT": [{"n": {"gt": 10}}]}),
    RecordFilter(metadata={"OR": [{"n": {"lt": 5}}, {"app": {"contains": "li"}}]}, roles=["assistant"]),
    *[RecordFilter(metadata={key: "x"}) for key in ODD_KEYS],
    *[RecordFilter(metadata={key: {"exists": False}}, include_superseded=True) for key in ODD_KEYS],
    RecordFilter(metadata={"NOT": [{ODD_KEYS[1]: None}], ODD_KEYS[2]: {"gte": 1}}),
    RecordFilter(since=T0 + timedelta(days=50), metadata={"app": "cli"}),
    RecordFilter(until=T0 + timedelta(days=200), as_of=T0 + timedelta(days=150)),
    RecordFilter(metadata={"word": {"contains": "ß"}}, include_superseded=True),
    RecordFilter(metadata={"word": {"icontains": "İ"}}),
    RecordFilter(metadata={"word": {"icontains": "ss"}, "app": {"ne": "ios"}}),
    RecordFilter(metadata={"NOT": [{"word": {"contains": "o"}}], "when": {"gte": "2024-03-01T10:00:00Z"}}),
    RecordFilter(metadata={"when": {"gt": "2024-03-01T09:00:00+00:00", "lt": "2024-03-01T10:00:00.5Z"}}),
    RecordFilter(metadata={"OR": [{"word": {"icontains": "σ"}}, {"when": {"lte": "2024-03-01"}}]}, include_superseded=True),
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


def _sql_kept(store: Store, scope: Scope, where: RecordFilter) -> set[str] | None:
    """The ids the compiled SQL alone keeps under ``scope`` (no Python check), or None if nothing compiles."""
    compiled = filter_sql(where, store.db.dialect)  # type: ignore[attr-defined]
    if compiled is None:
        return None
    cond, params = compiled.sql, compiled.params
    scope_cond, scope_params = scope_where(scope, store.db.dialect.param)  # type: ignore[attr-defined]
    kept: set[str] = set()
    with store.db.read("test") as conn:  # type: ignore[attr-defined]
        for table in TABLES.values():
            rows = conn.execute(f"SELECT id FROM {table} WHERE {scope_cond} AND ({cond})", [*scope_params, *params])
            kept |= {r[0] for r in rows.fetchall()}
    return kept


PUSHED = [f for f in FILTERS if f.model_copy(update={"types": None, "speaker": None}) != RecordFilter(include_superseded=True)]


@pytest.mark.parametrize("where", PUSHED, ids=[f.model_dump_json(exclude_defaults=True) for f in PUSHED])
def test_the_sql_narrows_and_never_drops_a_kept_record(filled, where: RecordFilter) -> None:
    store, recs, _ = filled
    kept = _sql_kept(store, S, where)
    expected = {r.id for r in recs if where.matches(r)}
    if kept is None:  # nothing SQL can say: only keys SQLite's JSON path cannot quote, or contains
        assert where.metadata is not None
        return
    assert expected <= kept


def test_selective_filters_are_said_exactly_in_sql(filled) -> None:
    store, recs, _ = filled
    for where in (
        RecordFilter(metadata={"word": {"contains": "ß"}}, include_superseded=True),
        RecordFilter(metadata={"NOT": [{"word": {"contains": "o"}}], "app": {"contains": ""}}, include_superseded=True),
        RecordFilter(metadata={"app": "web"}, roles=["user"]),
        RecordFilter(metadata={"app": {"nin": ["web", "ios"]}, "none": None}, include_superseded=True),
        RecordFilter(metadata={"NOT": [{"app": "cli"}], "a.b": {"exists": True}}, sources=["chat"]),
        RecordFilter(since=T0 + timedelta(days=100), until=T0 + timedelta(days=300)),
    ):
        kept = _sql_kept(store, S, where)
        nul = _with_nul(recs)
        assert kept is not None and kept - nul == {r.id for r in recs if where.matches(r)} - nul, where


def _with_nul(recs: list) -> set[str]:
    """Ids of records whose JSON holds ``\\u0000``: every compiled filter keeps them (the backends' JSON guard)."""
    return {r.id for r in recs if "\\u0000" in r.model_dump_json()}


def _kept_by(store: Store, recs: list, where: RecordFilter) -> tuple[set[str], set[str] | None]:
    return {r.id for r in recs if where.matches(r)}, _sql_kept(store, S, where)


def test_contains_and_icontains_over_odd_unicode_never_drop_a_kept_record(filled) -> None:
    store, recs, _ = filled
    compiled = 0
    for needle in NEEDLES:
        for op in ("contains", "icontains"):
            where = RecordFilter(metadata={"word": {op: needle}}, include_superseded=True)
            expected, kept = _kept_by(store, recs, where)
            assert kept is None or expected <= kept, (op, needle)
            compiled += kept is not None
            if op == "contains" and kept is not None:
                assert kept - _with_nul(recs) == expected - _with_nul(recs), needle  # exact but for the JSON guard
            assert {r.id for r in scan_where(store, S, where)} == expected, (op, needle)
    assert compiled >= 2 * len(NEEDLES) - 4  # all but the NUL needle, twice


def test_iso_time_ranges_written_every_way_never_drop_a_kept_record(filled) -> None:
    store, recs, _ = filled
    assert any(RecordFilter(metadata={"when": {"gte": b}}).matches(r) for b in BOUNDS[:-1] for r in recs)
    for bound in BOUNDS:
        for op in ("gt", "gte", "lt", "lte"):
            where = RecordFilter(metadata={"when": {op: bound}}, include_superseded=True)
            expected, kept = _kept_by(store, recs, where)
            assert (kept is None) == (bound == "someday")
            assert kept is None or expected <= kept, (op, bound)
            assert {r.id for r in scan_where(store, S, where)} == expected, (op, bound)


_texts = st.sampled_from(["a", "b", "A b", "ß", 'q"', "1", "İ", "ıI", "STRASSE", "Σσς", "e\u0301", "\u212a", "😀a", ""])
_times = st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.5+00:00", "2024-01-01", "2024-01-01T01:00:00+01:00"])
_values = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, -1.0, 2.0]) | _texts | _times
_keys = st.sampled_from(["k", "m", "a.b", 'q"x', "[0]"])
_ops = st.sampled_from(["eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains", "exists"])


@st.composite
def _condition(draw: st.DrawFn) -> object:
    kind = draw(st.sampled_from(["value", "list", "ops"]))
    if kind == "value":
        return draw(_values)
    if kind == "list":
        return draw(st.lists(_values, min_size=1, max_size=3))
    ops: dict[str, object] = {}
    for op in draw(st.lists(_ops, min_size=1, max_size=2, unique=True)):
        if op in ("in", "nin"):
            ops[op] = draw(st.lists(_values, min_size=1, max_size=3))
        elif op == "exists":
            ops[op] = draw(st.booleans())
        elif op in ("contains", "icontains"):
            ops[op] = draw(st.sampled_from(["a", "B", "q", "i", "İ", "ss", "ß", "σ", "Σ", "k", "e\u0301", "😀", ""]))
        else:
            ops[op] = draw(_values)
    return ops


_conditions = st.recursive(
    st.dictionaries(_keys, _condition(), min_size=1, max_size=2),
    lambda inner: st.dictionaries(st.sampled_from(["AND", "OR", "NOT"]), st.lists(inner, min_size=1, max_size=2), min_size=1, max_size=2),
    max_leaves=4,
)
_runs = iter(range(10**9))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    metas=st.lists(st.dictionaries(_keys, _values, max_size=3), min_size=1, max_size=8),
    conditions=_conditions,
    superseded=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_random_filters_over_random_metadata_agree_with_matches(store: Store, rng: np.random.Generator, metas, conditions, superseded) -> None:
    scope = Scope(user_id="prop", agent_id="bot", run_id=f"r{next(_runs)}")
    recs = [
        SemanticRecord(scope=scope, fact=f"f{i}", metadata=m, superseded_by="x" if superseded[i] else None)
        for i, m in enumerate(metas)
    ]
    vecs = unit(rng, len(recs))
    store.write(recs, vecs)
    where = RecordFilter(metadata=conditions)
    expected = [r.id for r in recs if where.matches(r)]
    query = vecs[0]
    best = sorted((r for r in recs if where.matches(r)), key=lambda r: (-float(vecs[recs.index(r)] @ query), r.id))
    got = [s.record.id for s in search_where(store, query, scope, MemoryType.SEMANTIC, 3, where)]
    assert got == [r.id for r in best[:3]]
    assert [r.id for r in scan_where(store, scope, where)] == expected
    assert [r.id for r in page_where(store, scope, where, limit=len(recs)).items] == expected
    kept = _sql_kept(store, scope, where)
    assert kept is None or set(expected) <= kept


def test_a_memory_closed_from_a_later_date_stays_current_until_then(store: Store, rng: np.random.Generator) -> None:
    """A change said ahead of its date ("we move to Hull on 1 March", said in January) closes the old memory from
    that date: every read of every backend (scan, pages, search, the SQL it compiles) keeps it until then."""
    said = datetime.now(timezone.utc)
    later = [said + timedelta(days=40), said + timedelta(hours=1), said - timedelta(hours=1), said - timedelta(days=3)]
    recs = [
        SemanticRecord(scope=S, fact=f"lived in town {i}", valid_to=until, superseded_by=f"moved-{i}", metadata={"app": "web"})
        for i, until in enumerate(later)
    ] + [SemanticRecord(scope=S, fact="plays chess", metadata={"app": "web"})]
    recs[1] = recs[1].model_copy(update={"valid_to": recs[1].valid_to.astimezone(timezone(timedelta(hours=-11)))})  # any offset
    store.write(recs, unit(rng, len(recs)))
    ids = [r.id for r in recs]
    for where, expected in (
        (RecordFilter(), {ids[0], ids[1], ids[4]}),
        (RecordFilter(metadata={"app": "web"}), {ids[0], ids[1], ids[4]}),
        (RecordFilter(now=said + timedelta(days=2)), {ids[0], ids[4]}),
        (RecordFilter(now=said - timedelta(days=2)), {ids[0], ids[1], ids[2], ids[4]}),
        (RecordFilter(as_of=said + timedelta(days=41)), {ids[4]}),
        (RecordFilter(as_of=said), {ids[0], ids[1], ids[4]}),
    ):
        assert {r.id for r in scan_where(store, S, where)} == expected, where
        assert {r.id for r in page_where(store, S, where, limit=10).items} == expected, where
        found = search_where(store, unit(rng, 1)[0], S, MemoryType.SEMANTIC, 10, where)
        assert {s.record.id for s in found} == expected, where
        kept = _sql_kept(store, S, where)
        assert kept is None or expected <= kept, where
