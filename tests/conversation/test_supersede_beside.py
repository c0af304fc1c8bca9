"""A new value and what it is of, said in two statements (issue 28, sixth session).

"The driving test got moved! They changed it to 19 May.": the value is in one statement, what it is of in the one
before it. Both ways: the update borrows the words of the statements beside it that give no value (it closes
"My driving test is on 12 May"), and a memory borrows only those of its own message (the words of a statement
that gives a value of its own are that value's: "The dentist is on 4 March" beside "Tomas gets married on 20
June" does not make the wedding a dentist appointment)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.updates import update_of, updated_by, valueless
from memdesk.records import Scope

S = Scope(user_id="odile")
T0 = datetime(2025, 2, 3, 18, 0, tzinfo=timezone.utc)


def test_statements_giving_a_value_say_nothing_of_another_value() -> None:
    said = ["The viva got moved!", "My viva is on 2 June.", "Rent is 900 a month.", "Annoying."]
    assert valueless(said) == "The viva got moved! Annoying."


@pytest.mark.parametrize(
    "beside,new,old,word",
    [
        ("The driving test got moved!", "They changed it to 19 May.", "My driving test is on 12 May.", "drive"),
        ("Bad news about the viva.", "The examiners pushed it back to 9 June.", "My viva is on 2 June.", "viva"),
        ("Our landlord emailed about the rent.", "It goes up to 1,150 a month from April.", "We pay 1,050 a month in rent.", "rent"),
        ("Swimming lessons changed.", "They are on Thursdays now.", "The kids have swimming lessons on Tuesdays.", "swim"),
    ],
)
def test_an_update_borrows_what_it_is_of_from_the_statement_before_it(beside: str, new: str, old: str, word: str) -> None:
    claim = update_of(new)
    assert claim is not None
    assert word in updated_by(claim, old, frozenset(), said_with=valueless([beside]))
    assert word not in updated_by(claim, old, frozenset())  # the value's sentence alone does not say it



def said(mem: Memory, *lines: str) -> list[str]:
    """Add each line as Odile's message, a day apart; the current memories' texts."""
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Odile", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


@pytest.mark.parametrize(
    "first,change,gone,kept",
    [
        (
            "Two dates for you. The dentist is on Tuesday 4 March at 10:00. My brother Tomas gets married on 20 June in Porto.",
            "The dentist called, my appointment is moved to 11 March, same time.",
            "4 March", "Tomas",
        ),
        (
            "My MOT is booked for 14 April. And the allotment open day is on 26 April, I'm running the jam stall.",
            "The garage rang and the MOT got pushed back to 22 April.",
            "14 April", "jam stall",
        ),
    ],
)
def test_a_new_date_closes_its_statement_not_the_one_beside_it(mem: Memory, first: str, change: str, gone: str, kept: str) -> None:
    now = said(mem, first, change)
    assert not any(gone in t for t in now)
    assert any(kept in t for t in now)


@pytest.mark.parametrize(
    "first,change,gone",
    [
        ("My driving test is on 12 May at the Hendon centre.", "The driving test got moved! The centre changed it to 19 May.", "12 May"),
        ("My flight to Lisbon is on 3 October.", "The flight changed. The airline moved it to 5 October, same route.", "3 October"),
    ],
)
def test_a_new_value_closes_what_the_statement_before_it_names(mem: Memory, first: str, change: str, gone: str) -> None:
    now = said(mem, first, change)
    assert not any(gone in t for t in now)


@pytest.mark.parametrize(
    "first,change,gone,new",
    [
        ("We have 3,100 dollars in pledges for the roof appeal.", "The roof appeal pledges climbed to 4,300 dollars!", "3,100", "4,300"),
        ("The waiting list for the allotments has 25 names.", "The allotment waiting list hit 40 names this week.", "25 names", "40 names"),
        ("My savings for the van are at £2,000.", "Van savings topped £3,500 after the bonus.", "2,000", "3,500"),
        ("Choir membership is 60 singers.", "Choir membership dipped to 48 singers over the summer.", "60 singers", "48"),
    ],
)
def test_a_value_moving_along_its_scale_is_a_new_value(mem: Memory, first: str, change: str, gone: str, new: str) -> None:
    """Verbs that move a value along its scale ("climbed to", "hit", "topped", "dipped to") say a new value."""
    now = said(mem, first, change)
    assert not any(gone in t for t in now)
    assert any(new in t for t in now)
