"""RecordFilter: the reference meaning of a read filter, and how keyword shortcuts fold into it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.filters import RecordFilter, as_filter
from memdesk.records import ROLES, EpisodicRecord, MemoryType, ProceduralRecord, Scope, SemanticRecord

S = Scope(user_id="ana")


def rec(kind: str, role: str = "user", source: str | None = None, speaker: str | None = "Ana"):
    common = dict(scope=S, role=role, source=source, speaker=speaker)
    if kind == "semantic":
        return SemanticRecord(fact="f", **common)
    if kind == "episodic":
        return EpisodicRecord(title="t", summary="s", **common)
    return ProceduralRecord(title="t", content="c", **common)


def test_an_empty_filter_matches_everything() -> None:
    f = RecordFilter()
    assert f.is_empty and f.matches(rec("semantic", "tool", "tool:x", None))
    assert f.type_list() == list(MemoryType)


def test_each_field_narrows() -> None:
    assert RecordFilter(roles=["user"]).matches(rec("semantic")) and not RecordFilter(roles=["user"]).matches(rec("semantic", "assistant"))
    assert RecordFilter(sources=["email"]).matches(rec("episodic", source="email"))
    assert not RecordFilter(sources=["email"]).matches(rec("episodic"))  # no source is not "email"
    assert RecordFilter(types=["procedural"]).matches(rec("procedural")) and not RecordFilter(types=["procedural"]).matches(rec("semantic"))
    assert not RecordFilter(speaker="Ben").matches(rec("semantic"))


@given(
    roles=st.none() | st.lists(st.sampled_from(ROLES), min_size=1, unique=True),
    sources=st.none() | st.lists(st.sampled_from(["chat", "email", "tool:web_search"]), min_size=1, unique=True),
    kind=st.sampled_from(["episodic", "semantic", "procedural"]),
    role=st.sampled_from(ROLES),
    source=st.sampled_from([None, "chat", "email", "tool:web_search"]),
)
def test_matches_is_the_conjunction_of_its_fields(roles, sources, kind, role, source) -> None:
    f = RecordFilter(roles=roles, sources=sources)
    expected = (roles is None or role in roles) and (sources is None or source in sources)
    assert f.matches(rec(kind, role, source)) is expected


def test_shortcuts_fold_into_one_filter_and_clashes_are_errors() -> None:
    f = as_filter(RecordFilter(roles=["user"]), types="semantic", sources=("chat",))
    assert f == RecordFilter(roles=("user",), types=(MemoryType.SEMANTIC,), sources=("chat",))
    assert as_filter({"speaker": "Ana"}) == RecordFilter(speaker="Ana")
    with pytest.raises(InvalidInputError, match="speaker"):
        as_filter(RecordFilter(speaker="Ana"), speaker="Ben")


@pytest.mark.parametrize("bad", [{"roles": ["owner"]}, {"types": ["fact"]}, {"roles": []}, {"colour": "red"}])
def test_bad_filters_are_typed_errors(bad) -> None:
    with pytest.raises(InvalidInputError):
        RecordFilter(**bad)
    with pytest.raises(InvalidInputError):
        as_filter(bad)


# --- metadata, event time and validity (issue 12) ---------------------------------------------------


def test_metadata_conditions() -> None:
    from datetime import datetime, timezone

    r = SemanticRecord(scope=S, fact="f", metadata={"app": "web", "n": 4, "at": "2024-03-01T00:00:00+00:00"})
    assert RecordFilter(metadata={"app": "web"}).matches(r) and not RecordFilter(metadata={"app": "ios"}).matches(r)
    assert RecordFilter(metadata={"app": ["ios", "web"]}).matches(r)
    assert RecordFilter(metadata={"n": {"gte": 4, "lt": 5}}).matches(r) and not RecordFilter(metadata={"n": {"gt": 4}}).matches(r)
    assert RecordFilter(metadata={"at": {"gt": datetime(2024, 2, 1, tzinfo=timezone.utc)}}).matches(r)
    assert not RecordFilter(metadata={"app": {"gt": 3}}).matches(r)  # a string does not compare with a number
    assert not RecordFilter(metadata={"missing": None}).matches(SemanticRecord(scope=S, fact="f", metadata={"missing": 1}))
    for bad in ({"n": {"about": 1}}, {"n": {}}, {"n": []}):
        with pytest.raises(InvalidInputError):
            RecordFilter(metadata=bad)


def test_the_one_condition_language_operators_and_logic() -> None:
    r = SemanticRecord(scope=S, fact="f", metadata={"kind": "sport", "place": "Lido beach", "n": 30})
    holds = lambda m: RecordFilter(metadata=m).matches(r)  # noqa: E731
    assert holds({"kind": {"eq": "sport"}}) and not holds({"kind": {"ne": "sport"}})
    assert holds({"kind": {"in": ["food", "sport"]}}) and not holds({"kind": {"nin": ["sport"]}})
    assert holds({"place": {"contains": "Lido"}}) and not holds({"place": {"contains": "lido"}})
    assert holds({"place": {"icontains": "LIDO"}}) and not holds({"n": {"icontains": "3"}})  # only strings contain
    assert holds({"place": {"exists": True}}) and holds({"cost": {"exists": False}}) and not holds({"cost": {"exists": True}})
    assert holds({"cost": {"ne": 5}}) and holds({"cost": {"nin": [5]}}) and not holds({"cost": {"gte": 0}})  # missing: None
    assert holds({"OR": [{"kind": "food"}, {"n": {"lt": 40}}]}) and not holds({"OR": [{"kind": "food"}, {"n": {"gt": 40}}]})
    assert holds({"AND": [{"kind": "sport"}, {"n": 30}]}) and not holds({"NOT": [{"n": 30}]})
    assert holds({"kind": "sport", "NOT": [{"OR": [{"place": {"icontains": "pool"}}, {"n": {"gt": 31}}]}]})
    for bad in ({"kind": {"like": "x"}}, {"kind": {"in": "sport"}}, {"OR": {"kind": "food"}}, {"OR": []},
                {"NOT": ["kind"]}, {"kind": {"exists": "yes"}}, {"OR": [{"kind": {"about": 1}}]}):
        with pytest.raises(InvalidInputError):
            RecordFilter(metadata=bad)


def test_validity_and_event_time() -> None:
    from datetime import datetime, timedelta, timezone

    t = datetime(2024, 1, 1, tzinfo=timezone.utc)
    closed = SemanticRecord(scope=S, fact="f", event_time=t, valid_to=t + timedelta(days=30), superseded_by="x")
    open_ = SemanticRecord(scope=S, fact="g", event_time=t + timedelta(days=30))
    assert not RecordFilter().matches(closed) and RecordFilter(include_superseded=True).matches(closed)
    assert RecordFilter(as_of=t + timedelta(days=10)).matches(closed) and not RecordFilter(as_of=t + timedelta(days=10)).matches(open_)
    assert RecordFilter(as_of=t + timedelta(days=30)).matches(open_) and not RecordFilter(as_of=t + timedelta(days=30)).matches(closed)
    assert RecordFilter(since=t + timedelta(days=1), include_superseded=True).matches(open_)
    assert not RecordFilter(until=t + timedelta(days=1)).matches(open_)
    assert RecordFilter(as_of="2024-01-05T00:00:00").as_of == datetime(2024, 1, 5, tzinfo=timezone.utc)  # naive is UTC
    with pytest.raises(InvalidInputError):
        as_filter({"as_of": "2024-01-05T00:00:00"}, as_of=t)
    with pytest.raises(InvalidInputError):
        RecordFilter(as_of="last tuesday")


def test_a_change_said_ahead_of_its_date_closes_the_old_memory_only_from_then() -> None:
    from datetime import datetime, timedelta, timezone

    said = datetime(2025, 1, 10, tzinfo=timezone.utc)
    moves = said + timedelta(days=50)  # "we move to Hull on 1 March", said in January
    leeds = SemanticRecord(scope=S, fact="We live in Leeds", event_time=said - timedelta(days=300), valid_to=moves, superseded_by="hull")
    assert leeds.closed_at(moves) and leeds.closed_at(moves + timedelta(days=1)) and not leeds.closed_at(said)
    assert RecordFilter(now=said).matches(leeds) and RecordFilter(now=moves - timedelta(seconds=1)).matches(leeds)
    assert not RecordFilter(now=moves).matches(leeds)
    assert not RecordFilter().matches(leeds)  # the default's now is the moment of the read: long after 1 March 2025
    assert RecordFilter(now=datetime(2999, 1, 1, tzinfo=timezone.utc), as_of=said).matches(leeds)  # as_of wins
    assert RecordFilter(as_of=said).matches(leeds) and not RecordFilter(as_of=moves).matches(leeds)
    gone = leeds.model_copy(update={"valid_to": None})  # superseded with no end time: closed whenever
    assert gone.closed_at(said - timedelta(days=999)) and not RecordFilter(now=said).matches(gone)
    assert as_filter(now=said).now == said and RecordFilter(now="2025-01-10T00:00:00").now == said  # naive is UTC
