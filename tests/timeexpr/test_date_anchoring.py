"""Dates a sentence anchors by its own structure: "since" is behind the message, a state from a date is near it, a
weekday the text dates elsewhere is that date, "next in N weeks" counts from the last one, a holiday names the month
of a day said alone, "until" after a narrated past bounds it, "Monday after next", "has got", reported "would"."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.timeexpr.resolve import resolve

UTC = timezone.utc


def _labels(text: str, said: datetime, earlier: str = "") -> list[str]:
    return [m.label for m in resolve(text, said, prefer="auto", earlier=earlier)]


@pytest.mark.parametrize(
    ("text", "said", "label"),
    [
        # "since" opens a state begun before the message, whatever else the clause says
        ("The dog has barked at night since new year.", datetime(2031, 1, 12, 9, tzinfo=UTC), "2031-01-01"),
        ("no flare-ups since June 3", datetime(2031, 9, 2, 9, tzinfo=UTC), "2031-06-03"),
        # a state from a date, after a past verb that narrates the change: the date near the message
        ("HR transferred me to the Leeds office from 1 May", datetime(2031, 4, 26, 9, tzinfo=UTC), "2031-05-01"),
        ("the gym raised fees to 40 from 1st October", datetime(2031, 9, 20, 9, tzinfo=UTC), "2031-10-01"),
        # "until" after a past verb of its clause bounds what it narrates
        ("The baby slept badly till Tuesday, then settled.", datetime(2031, 5, 9, 9, tzinfo=UTC), "2031-05-06"),
        # "<weekday> after next": the week after next week
        ("The plasterer comes Wednesday after next.", datetime(2031, 5, 5, 9, tzinfo=UTC), "2031-05-21"),
        # "has got", contracted after a name: a present, not a narrated past
        ("Noor's got her driving test on the 25th.", datetime(2031, 5, 12, 9, tzinfo=UTC), "2031-05-25"),
        # a reported "would" keeps its own time: ahead
        ("The garage said they'd call in November.", datetime(2031, 10, 28, 9, tzinfo=UTC), "November 2031"),
        # a participle after a heading announces a state, not a narrated event
        ("Agreed: closed Mondays in January.", datetime(2031, 12, 3, 9, tzinfo=UTC), "January 2032"),
        # "next weekend" said early in the week: the coming one
        ("We're off to the lakes next weekend.", datetime(2031, 5, 5, 9, tzinfo=UTC), "weekend of 2031-05-10"),
        ("We're off to the lakes next weekend.", datetime(2031, 5, 9, 9, tzinfo=UTC), "weekend of 2031-05-17"),
    ],
)
def test_the_date_a_person_reads(text: str, said: datetime, label: str) -> None:
    assert label in _labels(text, said)


def test_a_weekday_the_text_dates_elsewhere_is_that_date() -> None:
    said = datetime(2031, 3, 3, 9, tzinfo=UTC)  # a Monday
    labels = _labels("Plan: stock up on Friday and Saturday, then open the stall on Friday 14 March.", said)
    assert labels[0] == "2031-03-14"


def test_next_in_weeks_counts_from_the_last_one() -> None:
    said = datetime(2031, 8, 20, 9, tzinfo=UTC)
    assert _labels("The vaccine was given on the 6th, next in 4 weeks", said) == ["2031-08-06", "2031-09-03"]
    assert _labels("The vaccine is due in 4 weeks", said) == ["2031-09-17"]


def test_a_holiday_names_the_month_of_a_day_said_alone() -> None:
    said = datetime(2031, 12, 2, 9, tzinfo=UTC)
    earlier = "Her exam moved to 14 January."
    assert _labels("My brother flies in on the 18th for Christmas.", said, earlier)[0] == "2031-12-18"


def test_until_given_to_someone_is_ahead() -> None:
    said = datetime(2031, 10, 20, 9, tzinfo=UTC)
    assert _labels("My editor gave me until 14 January to finish it.", said) == ["2032-01-14"]
