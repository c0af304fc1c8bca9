"""Dates by structure (issue 28): "(have) got to" is a modal, a bare "got" narrates only loosely, a holiday just
gone, a day said alone beside a coming date said just before, irregular pasts. Sentences written here."""

from __future__ import annotations

from datetime import date, datetime, timezone

from memdesk.timeexpr.resolve import resolve


def _day(text: str, ref: date, earlier: str = "") -> date:
    found = resolve(text, datetime(ref.year, ref.month, ref.day, 12, tzinfo=timezone.utc), prefer="auto", earlier=earlier)
    assert found, text
    return found[0].start.date()


def test_got_to_before_a_verb_is_what_one_must_do() -> None:
    assert _day("i got to see the dentist on the 24th for my crown", date(2025, 3, 10)) == date(2025, 3, 24)


def test_a_bare_got_reads_a_yearless_date_nearest() -> None:
    assert _day("i got a driving test on may 9 and i'm nervous", date(2025, 4, 28)) == date(2025, 5, 9)
    assert _day("We went to Lyon on 9 May.", date(2025, 4, 28)) == date(2024, 5, 9)  # a narrating past is the May before


def test_a_holiday_just_gone_with_no_tense() -> None:
    assert _day("Can you draft a thank-you note to the volunteers for Christmas?", date(2025, 12, 29)).year == 2025
    assert _day("Can you draft a thank-you note to the volunteers for Christmas?", date(2025, 2, 10)).year == 2025
    assert _day("I will sing at Christmas.", date(2025, 12, 29)).year == 2026


def test_a_day_said_alone_beside_a_coming_date_said_just_before() -> None:
    earlier = "The builders now start on 3 March."
    assert _day("The scaffold goes up the day before, on the 2nd.", date(2025, 1, 20), earlier) == date(2025, 3, 2)
    assert _day("I pay the rent on the 28th.", date(2025, 1, 20), earlier) == date(2025, 1, 28)


def test_an_irregular_past_narrates() -> None:
    assert _day("We wove three baskets on Saturday.", date(2025, 6, 4)) == date(2025, 5, 31)


def test_a_date_something_is_extended_to_is_ahead_of_the_extending() -> None:
    assert _day("and my contract got extended to 20 april", date(2025, 2, 11)) == date(2025, 4, 20)


def test_got_to_a_place_still_narrates() -> None:
    assert _day("We got to Lisbon on 3 May.", date(2025, 4, 28)) == date(2024, 5, 3)


def test_a_day_put_far_by_the_month_said_before_is_read_alone_once() -> None:
    """A day of the month said just before that the tense puts most of a year away is read as a day alone, once: the
    second reading does not take the month from the earlier turns again (it did, and recursed without end)."""
    earlier = "The builders start on 3 January."
    assert _day("The scaffold will go up on the 2nd.", date(2025, 1, 10), earlier) == date(2025, 2, 2)
