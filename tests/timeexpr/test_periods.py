"""The classes of date issue 28's fourth round read: durations, parts of periods, holidays, days of an unsaid month,
runs of days, a verbless note after a narrated clause, and the anchor a text gets. Sentences of our own."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from memdesk.timeexpr.holidays import easter, holiday
from memdesk.timeexpr.resolve import main_anchor, resolve


def at(day: str) -> datetime:
    return datetime.fromisoformat(f"{day}T12:00:00+00:00")


def labels(text: str, said: str) -> list[str]:
    return [m.label for m in resolve(text, at(said), prefer="auto")]


def first_day(text: str, said: str) -> str:
    main = main_anchor(resolve(text, at(said), prefer="auto"))
    assert main is not None, text
    return main.start.date().isoformat()


# --- "in N units": a point ahead, or how long something takes ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We want to set off on 3 June and walk the whole route in 9 days.",
        "Can you finish the draft in two weeks?",
        "She learned the entire piece in three days.",
        "I think we can do it in 5 days if the weather holds.",
    ],
)
def test_in_n_units_after_getting_something_done_is_a_duration(text: str) -> None:
    assert not [m for m in resolve(text, at("2025-03-10"), prefer="auto") if m.text.lower().startswith("in ")]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("My sister's scan is in two weeks.", "2025-03-10", "2025-03-24"),
        ("I'm doing my driving test in 10 days.", "2025-03-10", "2025-03-20"),
        ("The new sofa arrives in 3 days.", "2025-03-10", "2025-03-13"),
    ],
)
def test_in_n_days_or_weeks_ahead_is_that_day(text: str, said: str, expected: str) -> None:
    assert first_day(text, said) == expected


# --- parts of a period ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, said, start, end",
    [
        ("The launch slipped to the end of next month.", "2025-03-10", "2025-04-21", "2025-05-01"),
        ("Grandad's surgery is in early June.", "2025-03-10", "2025-06-01", "2025-06-11"),
        ("They plan to open mid-September.", "2025-03-10", "2025-09-11", "2025-09-21"),
        ("I'll be travelling late next month.", "2025-03-10", "2025-04-21", "2025-05-01"),
        ("The report is due at the beginning of next week.", "2025-03-12", "2025-03-17", "2025-03-19"),
        ("My cousin's wedding was at the end of January.", "2025-03-10", "2025-01-22", "2025-02-01"),
    ],
)
def test_a_part_of_a_period_is_its_days(text: str, said: str, start: str, end: str) -> None:
    (m,) = resolve(text, at(said), prefer="auto")
    assert (m.start.date().isoformat(), m.end.date().isoformat()) == (start, end), m.label  # type: ignore[union-attr]
    assert m.granularity == "part"


# --- holidays ------------------------------------------------------------------------------------------------------


def test_easter_is_computed() -> None:
    assert [easter(y) for y in (2024, 2025, 2026, 2027)] == [date(2024, 3, 31), date(2025, 4, 20), date(2026, 4, 5), date(2027, 3, 28)]
    assert holiday("Good Friday", 2025)[:2] == (date(2025, 4, 18), date(2025, 4, 19))


@pytest.mark.parametrize(
    "text, said, start",
    [
        ("My in-laws visit in April, after Easter.", "2026-01-20", "2026-04-06"),
        ("We're repainting the kitchen after Easter.", "2025-02-01", "2025-04-21"),
        ("The kids are with their dad over Easter.", "2025-02-01", "2025-04-18"),
        ("I'm hosting dinner for Christmas this year.", "2025-11-02", "2025-12-25"),
        ("We got engaged last Christmas.", "2025-03-02", "2024-12-25"),
        ("The contract ends before Easter.", "2025-02-01", "2025-04-04"),
        ("She's throwing a party on New Year's Eve.", "2025-12-02", "2025-12-31"),
    ],
)
def test_a_holiday_and_the_weeks_around_it(text: str, said: str, start: str) -> None:
    assert first_day(text, said) == start


def test_the_weeks_around_a_holiday_are_said_in_words_not_dates() -> None:
    (m,) = resolve("We're repainting the kitchen after Easter.", at("2025-02-01"), prefer="auto")
    assert m.label == "after Easter 2025" and m.end.date() == date(2025, 5, 12)  # type: ignore[union-attr]
    (m,) = resolve("We're off to the coast over Easter.", at("2025-02-01"), prefer="auto")
    assert m.label == "Easter 2025" and (m.start.date(), m.end.date()) == (date(2025, 4, 18), date(2025, 4, 22))  # type: ignore[union-attr]


def test_a_holiday_word_that_dates_nothing_is_not_a_mention() -> None:
    assert resolve("We bought a Christmas tree and some Easter eggs.", at("2025-03-02"), prefer="auto") == []


# --- a day of the month with its month unsaid ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("The plumber comes on the 3rd.", "2025-11-26", "2025-12-03"),  # ahead: next month
        ("We finally got the keys on the 21st.", "2025-07-25", "2025-07-21"),  # narrated: this month
        ("They pushed my appointment to the 30th.", "2025-11-02", "2025-11-30"),
        ("Dinner with the team is on Friday the 13th.", "2025-06-02", "2025-06-13"),
        ("Mum arrives Sunday the 5th.", "2025-09-20", "2025-10-05"),
        ("The August retreat moves to the 9th.", "2025-06-20", "2025-08-09"),  # the month the sentence names
        ("I've been in the new flat since Wednesday the 2nd.", "2025-04-14", "2025-04-02"),
    ],
)
def test_a_day_of_an_unsaid_month(text: str, said: str, expected: str) -> None:
    assert first_day(text, said) == expected


def test_a_lone_day_is_in_a_month_near_the_reference_whatever_months_the_talk_named_before() -> None:
    # the turns before are not read: which of the months they name a lone day belongs to is not in its words
    assert first_day("The farrier comes on the 27th.", "2025-02-16") == "2025-02-27"
    assert first_day("We got back on the 11th, tired but happy.", "2025-03-14") == "2025-03-11"
    # the day something was wanted for, said in the past, leaves its month open: no date rather than a guess
    assert resolve("The campsite was full for the 14th, so we slept in the van.", at("2025-03-04"), prefer="auto") == []
    assert first_day("I booked the restaurant for the 14th.", "2025-03-04") == "2025-03-14"


@pytest.mark.parametrize(
    "text",
    [
        "Our flat is on the 3rd floor.",
        "It's her 2nd time at the festival.",
        "He pays rent by the 5th of each month.",
        "Latency at the 95th percentile is fine.",
        "Music of the 19th century.",
    ],
)
def test_an_ordinal_of_something_else_is_no_date(text: str) -> None:
    assert resolve(text, at("2025-03-10"), prefer="auto") == []


# --- runs of days --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, said, start, last",
    [
        ("My workshop got accepted for the summit in Oslo, 3 to 6 June!", "2026-02-01", "2026-06-03", "2026-06-06"),
        ("We're in Crete from the 10th to the 17th of August.", "2025-05-01", "2025-08-10", "2025-08-17"),
        ("The festival runs September 12-14.", "2025-05-01", "2025-09-12", "2025-09-14"),
        ("I'll be at my parents' from the 22nd to the 28th.", "2025-12-10", "2025-12-22", "2025-12-28"),
        ("We're skiing from 28 December to 3 January.", "2025-11-10", "2025-12-28", "2026-01-03"),
        ("The conference is from the 24th to the 26th, in Dundee.", "2025-03-14", "2025-03-24", "2025-03-26"),
    ],
)
def test_a_run_of_days(text: str, said: str, start: str, last: str) -> None:
    runs = [m for m in resolve(text, at(said), prefer="auto") if m.granularity == "range"]
    assert runs and runs[0].start.date().isoformat() == start and runs[0].label.endswith(last), [m.label for m in runs]


# --- the year of a date: its own clause, not another clause's verb ---------------------------------------------------


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("The agency rang, viewing on the 4th of March, 10am.", "2025-02-20", "2025-03-04"),
        ("Got an email from the clinic, follow-up on 2 December.", "2025-11-20", "2025-12-02"),
        ("We qualified for the regional final on 14 June.", "2025-06-01", "2025-06-14"),
        ("Our band got into the Riverside Festival on 9 August!", "2025-07-28", "2025-08-09"),
        # a clause that carries on a narrated one keeps its past
        ("We flew to Lisbon on 1 May, then Porto on 3 May.", "2025-06-02", "2025-05-03"),
        ("I had my interview yesterday, the 1st of June.", "2025-06-02", "2025-06-01"),
        ("We got into a silly argument on Saturday.", "2025-04-14", "2025-04-12"),
    ],
)
def test_a_date_takes_its_own_clause_s_tense(text: str, said: str, expected: str) -> None:
    days = [m.start.date().isoformat() for m in resolve(text, at(said), prefer="auto")]
    assert days[-1] == expected, days


# --- a bare weekday, "this week" on a Sunday, and the anchor ------------------------------------------------------


def test_a_bare_weekday_is_read_and_every_weekday_is_not() -> None:
    assert labels("The invoice is due Friday.", "2025-03-10") == ["2025-03-14"]
    assert labels("Busy week: yoga Tuesday, the dentist Thursday.", "2025-03-09") == ["2025-03-11", "2025-03-13"]  # no cue: ahead
    assert labels("We went climbing Saturday and it poured.", "2025-03-10") == ["2025-03-08"]
    assert labels("My knee has been sore since Sunday.", "2025-03-12") == ["2025-03-09"]
    assert labels("I swim every Friday.", "2025-03-10") == []
    assert labels("The new baker works Wednesday to Friday.", "2025-03-10") == []  # a schedule
    assert labels("Exams are that week, and the viva is on the Thursday.", "2025-03-10") == []  # a day of another week
    assert labels("We'll eat out on the Sunday after.", "2025-03-10") == []
    assert labels("My day off is Sunday now.", "2025-03-10") == []  # a routine as often as a day: no guess
    assert labels("My day off is on Sunday this week.", "2025-03-10")[0] == "2025-03-16"


def test_this_week_said_on_a_sunday_of_what_is_ahead_is_the_coming_one() -> None:
    assert labels("This week I have three deadlines.", "2025-03-09") == ["week of 2025-03-10"]
    assert labels("This week was exhausting.", "2025-03-09") == ["week of 2025-03-03"]


def test_the_anchor_is_the_first_exact_mention_narrowed_by_one_within_it() -> None:
    main = main_anchor(resolve("Help me plan this week: the essay is due Thursday.", at("2025-03-09"), prefer="auto"))
    assert main is not None and main.label == "2025-03-13"
    main = main_anchor(resolve("I signed up for a kiln course last week, starting on 2 May.", at("2025-03-19"), prefer="auto"))
    assert main is not None and main.label == "week of 2025-03-10"  # two times apart: the first dates the text
    main = main_anchor(resolve("Recently, well, last Friday actually", at("2025-03-10")))
    assert main is not None and main.label == "2025-03-07"


@pytest.mark.parametrize(
    "said, expected",
    [("2025-03-04T08:00:00+13:00", "2025-03-05"), ("2025-03-04T23:30:00-03:00", "2025-03-05"), ("2025-03-04T00:15:00+05:30", "2025-03-05")],
)
def test_a_date_is_read_in_the_message_s_own_time_zone_not_utc(said: str, expected: str) -> None:
    """08:00 in Auckland is the evening before in UTC; 23:30 in São Paulo the small hours after: "tomorrow" is the
    local one, and the interval keeps the message's offset."""
    ref = datetime.fromisoformat(said)
    (m,) = resolve("The plumber comes tomorrow.", ref, prefer="auto")
    assert m.start.date().isoformat() == expected and m.start.utcoffset() == ref.utcoffset()
