"""Updates read by structure (issue 28, thirteenth session): the one earlier statement holding a value of the kind a
change gives closes even where the two are not close in meaning (:func:`memdesk.conversation.update_terms.sole_holder`);
values written with a currency's letter or as bare hours (:mod:`memdesk.conversation.typed_values`); a schedule's days cut
together, and a detail of the thing kept when only its time went (:mod:`memdesk.conversation.remainder`); a change said
as a negation decided by the negation (:mod:`memdesk.conversation.supersede`)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.claims import Claim
from memdesk.conversation.remainder import remainder
from memdesk.conversation.typed_values import values_of
from memdesk.conversation.update_terms import UpdateGates, sole_holder
from memdesk.conversation.updates import update_of
from memdesk.records import Scope, SemanticRecord

S = Scope(user_id="ilse")
T0 = datetime(2025, 4, 1, 9, 0, tzinfo=timezone.utc)


def fact(text: str) -> SemanticRecord:
    return SemanticRecord(scope=S, fact=text, speaker="Ilse", provenance=["m1"])


def update(text: str) -> Claim:
    claim = update_of(text)
    assert claim is not None
    return claim


def test_the_one_statement_with_a_value_of_that_kind_and_a_word_of_it_is_the_one_changed() -> None:
    claim = update("the welding course got moved, now 30 June")
    held = [
        (1, "the firm is sending Ilse on a welding course for the new trams, starts 16 June", "m1", 0.42, ""),
        (2, "Ilse's daughter has a swimming gala on the 7th", "m2", 0.45, ""),
        (3, "Ilse likes the canteen at the depot", "m3", 0.40, ""),
    ]
    names = frozenset({"ilse"})
    assert set(sole_holder(claim, held, names, "", UpdateGates())) == {1}
    # two statements of two messages hold a dated course: which one moved is not said, none closes
    two = held + [(4, "a first-aid course starts 2 July", "m4", 0.41, "")]
    assert sole_holder(claim, two, names, "", UpdateGates()) == {}
    # too far in meaning, or one more beside it rather than a new value
    assert sole_holder(claim, [(1, held[0][1], "m1", 0.2, "")], names, "", UpdateGates()) == {}
    assert sole_holder(update("got a second welding course now, 30 June as well"), held, names, "", UpdateGates()) == {}


def test_the_change_closes_the_old_date_in_memory(mem, user_lines) -> None:
    current = user_lines(
        mem, S, "Ilse", T0,
        "The firm is sending me on a welding course for the new trams, starts 16 June, four days in Derby.",
        "My daughter has a swimming gala on the 7th.",
        "Welding thing got moved, now 30 June, same place",
    )  # fmt: skip
    assert not any("16 June" in t for t in current)
    assert any("Derby" in t for t in current)  # what the course is stays: only its time went


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("she signs off anything over R1,000", {"money": {"r1000"}}),
        ("the deli pays R95 a jar", {"money": {"r95"}}),
        ("Rs 450 a month for the tiffin", {"money": {"rs 450"}}),
        ("earlies, 6 till 2", {"clock": {"6 2"}}),
        ("take the R34 out of town", {}),  # a road, not an amount
        ("6 till 2 weeks", {"duration": {"2 weeks"}, "count": {"6"}}),  # a count of weeks, not hours
    ],
)
def test_values_written_with_a_currency_letter_or_as_bare_hours(text: str, kinds: dict[str, set[str]]) -> None:
    assert {k: v for k, v in values_of(text).items() if k in ("money", "clock", "duration", "count")} == kinds


def test_a_schedule_s_days_are_cut_together() -> None:
    old = fact("Ilse is training for a 10k, so Ilse swims every Monday and Friday morning before work.")
    said = "Ilse swims on Wednesday mornings now instead of Mondays"
    assert remainder(old, said, [update(said)]) == ("Ilse is training for a 10k, so Ilse swims before work.", "every Monday and Friday morning")


def test_what_details_the_thing_stays_when_only_its_time_went() -> None:
    old = fact("the firm is sending Ilse on a welding course for the new trams, starts 16 June, four days in Derby")
    said = "the welding course got moved, now 30 June, same place"
    kept, went = remainder(old, said, [update(said)]) or ("", "")
    assert "four days in Derby" in kept and went == "starts 16 June"


def test_a_change_said_as_a_negation_is_decided_by_what_it_negates(mem, user_lines) -> None:
    current = user_lines(
        mem, S, "Ilse", T0,
        "I can do 3 evenings a week, not Thursdays, that's my long shift at the bakery.",
        "and I don't do the Sunday long walk anymore, the park is closed Sundays til March",
    )  # fmt: skip
    assert any("long shift" in t for t in current)  # "long" alone is not the walk


def test_a_part_pointing_back_goes_with_what_it_points_to() -> None:
    old = fact("Ilse can do 3 evenings a week, not Thursdays, that's Ilse's long shift at the bakery. Ilse's 5k best is 21:40")
    said = "the bakery cut the long shift"
    kept, went = remainder(old, said, [Claim(attribute="change", value=said, op="end")]) or ("", "")
    assert went == "not Thursdays, that's Ilse's long shift at the bakery."  # never "that's ... shift" alone
    assert kept == "Ilse can do 3 evenings a week, Ilse's 5k best is 21:40"
