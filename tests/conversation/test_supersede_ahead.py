"""A change said ahead of its date closes the old memory from that date, not when said; a change of a date, or a
narrated one, closes it when said (issue 28: validity is time-aware)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memdesk.conversation.memory import Memory
from memdesk.records import MemoryRecord, Scope

S = Scope(user_id="odile")
T0 = datetime(2025, 1, 14, 9, 0, tzinfo=timezone.utc)


def said(mem: Memory, *lines: str) -> datetime:
    """Add each line a day apart; when the last was said."""
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Odile", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return T0 + timedelta(days=len(lines) - 1)


def closed(mem: Memory, word: str) -> MemoryRecord:
    found = [r for r in mem.get_all(scope=S, filters={"include_superseded": True}) if word in r.text() and r.superseded_by]
    assert found, [(r.text(), r.superseded_by) for r in mem.get_all(scope=S, filters={"include_superseded": True})]
    return found[0]


def current(mem: Memory, when: datetime) -> list[str]:
    return [r.text() for r in mem.get_all(scope=S, filters={"now": when})]


def test_a_move_said_ahead_of_its_date_leaves_the_old_home_current_until_then(mem: Memory) -> None:
    at = said(mem, "I live in Leeds with my partner.", "We're moving to Hull on 1 March.")
    leeds = closed(mem, "Leeds")
    assert leeds.valid_to is not None and leeds.valid_to > at and leeds.valid_to.date().isoformat() == "2025-03-01"
    assert any("Leeds" in t for t in current(mem, at + timedelta(days=3)))  # still at home in Leeds in January
    assert not any("Leeds" in t for t in current(mem, datetime(2025, 3, 2, tzinfo=timezone.utc)))
    assert not any("Leeds" in t for t in [r.text() for r in mem.get_all(scope=S)])  # read today: long after March


def test_a_changed_date_closes_the_old_date_when_said(mem: Memory) -> None:
    at = said(mem, "My dental check-up is on 2 March.", "The dentist moved my check-up to 9 March.")
    old = closed(mem, "2 March")
    assert old.valid_to is not None and old.valid_to <= at  # the date is the value that changed: changed now


def test_a_value_that_holds_now_beside_a_dated_clause_closes_the_old_value_when_said(mem: Memory) -> None:
    at = said(mem, "The ferry to Skarv leaves at 8.10.", "The ferry now leaves at 7.55, and the harbour office shuts on 20 January.")
    old = closed(mem, "8.10")
    assert old.valid_to is not None and old.valid_to <= at


def test_a_time_ahead_in_a_clause_that_changes_nothing_does_not_date_the_change(mem: Memory) -> None:
    at = said(mem, "Pip takes two tablets a day.", "home from the vet. she put Pip up to three tablets a day. we go back in six weeks")
    old = closed(mem, "two tablets")
    assert old.valid_to is not None and old.valid_to <= at
