"""An update closes by the structure of its values where the words do not say what the value is of (issue 28, eleventh
session: :meth:`memdesk.conversation.supersede.Supersession._measured`): the value it names as replaced is the memory's,
or a value measured alike (an amount per the same thing, a quantity in the same unit); an amount per the same period
said of another thing it names stays apart."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.restated import measured_per_unit
from memdesk.conversation.updates import update_of
from memdesk.records import Scope

S = Scope(user_id="wren")
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def said(user_lines):
    """``said(mem, *lines)``: each of Wren's lines a day apart; the current memories' texts."""
    return lambda mem, *lines: user_lines(mem, S, "Wren", T0, *lines)


def test_an_amount_is_per_the_word_after_an_article_not_a_letter_of_it() -> None:
    assert measured_per_unit("a raise, £10 an hour now", "shelving at the bookshop, £9.20 an hour")
    assert not measured_per_unit("evening classes are €15 an evening now", "I earn €12 an hour at the depot")


def test_a_wage_per_the_same_unit_closes_the_old_one_and_the_workplace_stays(mem: Memory, said: Callable[..., list[str]]) -> None:
    now = said(
        mem,
        "Weekends I'm at Fennick's bookshop in Corram, shelving and tills, £9.20 an hour, and my flatmate Oona bakes for the café next door.",
        "Good news, the manager gave me a raise, £10 an hour now",
    )
    assert not any("9.20" in t for t in now)
    assert any("Fennick" in t for t in now)


def test_a_quantity_in_the_same_unit_said_alone_closes_the_last_one(mem: Memory, said: Callable[..., list[str]]) -> None:
    now = said(mem, "I'm down to 93 kg after the winter, from 97", "91 kg now")
    assert not any("93 kg" in t for t in now)


def test_a_value_per_the_same_period_of_another_thing_named_stays(mem: Memory, said: Callable[..., list[str]]) -> None:
    now = said(mem, "The allotment costs me £14 a month.", "Netball subs went up to £20 a month.")
    assert any("£14" in t for t in now)


def test_a_scheduled_move_and_a_new_amount_are_words_of_change() -> None:
    assert update_of("the quiz night moves to 12 March") is not None
    assert update_of("rent goes to £640 a month") is not None


def test_a_named_person_living_somewhere_is_their_home_and_a_move_without_a_place_ends_the_speakers() -> None:
    from memdesk.conversation.facts import claims_of

    home = [c for c in claims_of("Tamsin lives in Kettering, she's a midwife.") if c.attribute == "residence"]
    assert [(c.slot, c.value, c.op) for c in home] == [("tamsin", "Kettering", "set")]
    assert not [c for c in claims_of("She lives in Kettering now.") if c.attribute == "residence"]
    moved = [c for c in claims_of("We moved on Friday, the boxes are everywhere") if c.attribute == "residence"]
    assert [(c.value, c.op) for c in moved] == [(None, "end")]
    assert not [c for c in claims_of("I moved the dentist to Friday.") if c.attribute == "residence"]


def test_a_named_person_moving_closes_where_they_lived(mem: Memory, said: Callable[..., list[str]]) -> None:
    now = said(mem, "My cousin's fine. Tamsin lives in Kettering, she's a midwife.", "Tamsin is moving to Aberdeen in June, a job at the infirmary.")
    assert not any("Kettering" in t for t in now)


def test_a_move_with_no_place_named_closes_the_old_home(mem: Memory, said: Callable[..., list[str]]) -> None:
    now = said(mem, "I live in Harrowgate with two flatmates, 410 pounds a month", "moved on Saturday, 380 pounds now")
    assert not any("Harrowgate" in t for t in now)
