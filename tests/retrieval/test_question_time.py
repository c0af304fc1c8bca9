"""When a question asks about: its time expressions resolved against the time it is asked."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.retrieval.question_time import SLACK, parse_asked_at, question_windows

UTC = timezone.utc


def day(y, m, d):
    return datetime(y, m, d, tzinfo=UTC)


def test_two_weeks_ago_is_the_monday_to_sunday_week_widened_by_a_day():
    # asked Saturday 2024-08-17: two weeks back is Saturday 2024-08-03, in the week of Monday 2024-07-29
    (w,) = question_windows("What did I bake two weeks ago?", datetime(2024, 8, 17, 10, 0))
    assert w.label == "week of 2024-07-29" and w.text == "two weeks ago"
    assert w.start == (day(2024, 7, 29) - SLACK).timestamp()
    assert w.end == (day(2024, 8, 5) + SLACK).timestamp()
    assert w.contains(day(2024, 7, 28)) and w.contains(datetime(2024, 8, 5, 23, 59))  # the slack on each side
    assert not w.contains(day(2024, 7, 27)) and not w.contains(day(2024, 8, 6))


def test_an_explicit_date_and_a_weekday():
    (w,) = question_windows("Which park did Noor visit on 3 March 2024?", day(2024, 9, 1))
    assert (w.start, w.end) == ((day(2024, 3, 2)).timestamp(), day(2024, 3, 5).timestamp())
    # asked Wednesday 2024-09-04: "last Friday" is 2024-08-30
    (w,) = question_windows("Where did I eat last Friday?", day(2024, 9, 4))
    assert w.label == "2024-08-30"


def test_several_windows_in_text_order_and_none_without_a_time():
    ws = question_windows("Did I swim more in June 2024 or in August 2024?", day(2024, 12, 1))
    assert [w.label for w in ws] == ["June 2024", "August 2024"]
    assert question_windows("What did I bake two weeks ago?", None) == []
    assert question_windows("What does Noor like to bake?", day(2024, 1, 1)) == []
    assert question_windows("", day(2024, 1, 1)) == []


def test_a_naive_time_is_read_as_utc():
    naive = question_windows("What did I do yesterday?", datetime(2024, 5, 2, 12))
    aware = question_windows("What did I do yesterday?", datetime(2024, 5, 2, 12, tzinfo=UTC))
    assert naive == aware and naive[0].label == "2024-05-01"
    other = question_windows("What did I do yesterday?", datetime(2024, 5, 2, 12, tzinfo=timezone(timedelta(hours=9))))
    assert other[0].start == aware[0].start - 9 * 3600  # the day starts nine hours earlier in UTC+9


@pytest.mark.parametrize(
    "text, when",
    [
        ("2024-05-30T15:31:00Z", datetime(2024, 5, 30, 15, 31, tzinfo=UTC)),
        ("2024-05-30T15:31:00+02:00", datetime(2024, 5, 30, 13, 31, tzinfo=UTC)),
        ("2024-05-30", day(2024, 5, 30)),
        ("2024/05/30 15:31", datetime(2024, 5, 30, 15, 31, tzinfo=UTC)),
        ("2024/05/30 (Thu) 15:31", datetime(2024, 5, 30, 15, 31, tzinfo=UTC)),
        ("30 May 2024", day(2024, 5, 30)),
        ("Thu, May 30, 2024 15:31", day(2024, 5, 30)),
        ("not given", None),
        ("yesterday", None),  # relative: no date of its own
        ("June 2024", None),  # a month is not the day it is asked
        ("", None),
    ],
)
def test_parse_asked_at(text, when):
    assert parse_asked_at(text) == when


def test_a_question_in_the_past_tense_asks_about_the_last_month_it_names():
    # asked in April: "were ... in February" is the February just past, "did ... in November" the last November
    (w,) = question_windows("How many volunteers were signed up in February?", day(2031, 4, 10))
    assert w.contains(day(2031, 2, 14)) and not w.contains(day(2032, 2, 14))
    (w,) = question_windows("Which day did Ilka swim in November?", day(2031, 4, 10))
    assert w.contains(day(2030, 11, 5)) and w.label == "November 2030"
    (w,) = question_windows("On which day is the market in November?", day(2031, 4, 10))  # present tense: the coming one
    assert w.contains(day(2031, 11, 5))
    (w,) = question_windows("Where did Ilka live in November 2032?", day(2031, 4, 10))  # a year said is kept
    assert w.contains(day(2032, 11, 5))
