"""How people use time words (issue 28, wrong dates to 0): a start said with "from", a wish, an infinitive after a verb
of asking, an arrangement's participle, a participle after "not", "used", a weekday's place in a month or a week, a day
said alone after another date, a state's participle as a headline, an old value's time, a day moved to weeks ago.
Sentences written here."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from memdesk.timeexpr.resolve import resolve

MON = date(2025, 3, 10)  # a Monday


def _found(text: str, ref: date, earlier: str = "") -> list[tuple[str, date, date]]:
    ms = resolve(text, datetime(ref.year, ref.month, ref.day, 12, tzinfo=timezone.utc), prefer="auto", earlier=earlier)
    return [(m.text, m.start.date(), (m.end or m.start).date()) for m in ms]


def _day(text: str, ref: date, earlier: str = "") -> date:
    found = _found(text, ref, earlier)
    assert found, text
    return found[-1][1]


@pytest.mark.parametrize(
    ("text", "ref", "expected"),
    [
        # a state from a weekday starts ahead, unless its own clause narrates it
        ("Lena's back at the pool from Monday, the physio signed her off", date(2025, 3, 8), date(2025, 3, 10)),
        ("Tariq raised the fees so a lesson goes to 30 an hour from Monday.", date(2025, 3, 8), date(2025, 3, 10)),
        ("The café serves breakfast from Monday", MON, date(2025, 3, 17)),  # said on a Monday: next week's
        ("I was off work from Monday", date(2025, 3, 13), date(2025, 3, 10)),
        # a past week named elsewhere does not take a weekday said ahead in a clause of its own
        ("The snow melted last week, so we're renting out the sledges from Friday", MON, date(2025, 3, 14)),
    ],
)
def test_a_start_said_with_from_is_ahead(text: str, ref: date, expected: date) -> None:
    assert _day(text, ref) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The school asked me to run a workshop on 12 June", date(2025, 6, 12)),
        ("My brother offered to drive me to the airport on Thursday", date(2025, 3, 13)),
        ("I tried to call her on Thursday", date(2025, 3, 6)),  # what was tried was done then
    ],
)
def test_the_date_of_an_infinitive_after_asking_or_offering_is_ahead(text: str, expected: date) -> None:
    assert _day(text, MON) == expected


def test_an_arrangement_participle_after_a_present_clause_is_ahead() -> None:
    assert _day("my old cat (rescued from a farm) needs her booster, booked on the 19th at 10am", MON) == date(2025, 3, 19)
    assert _day("I went to the clinic, booked on the 3rd", MON) == date(2025, 3, 3)  # a narrated clause before it


def test_used_narrates_and_a_participle_after_not_does_not() -> None:
    assert _found("I used the last of the firewood in January", MON)[0][1] == date(2025, 1, 1)
    assert _found("I'm used to cold starts in January", MON)[0][1] == date(2026, 1, 1)
    assert _found("Not allowed to lift anything until the end of April", MON)[0][2] == date(2025, 5, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Good luck with the audition on Friday", date(2025, 3, 14)),
        ("Fingers crossed for sunshine on 2 March", date(2026, 3, 2)),
        ("Fingers crossed for sunshine on 2 April", date(2025, 4, 2)),
        ("It sounds fine, but check with the nurse on Friday.", date(2025, 3, 14)),  # an instruction
    ],
)
def test_wishes_and_instructions_look_ahead(text: str, expected: date) -> None:
    assert _day(text, MON) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The craft fair is on the last Sunday of May", date(2025, 5, 25)),
        ("We met on the first Friday in February", date(2025, 2, 7)),
        ("The rent is due on the second Monday of next month", date(2025, 4, 14)),
        ("The plumber comes Wednesday next week", date(2025, 3, 19)),
        ("I saw her Friday last week", date(2025, 3, 7)),
        ("I saw her last Saturday", date(2025, 3, 8)),
    ],
)
def test_a_weekday_by_its_place_in_a_month_or_week(text: str, expected: date) -> None:
    assert _day(text, MON) == expected


def test_a_weekday_of_every_month_is_no_date() -> None:
    assert _found("The club meets every first Monday of the month", MON) == []


def test_a_lone_day_takes_an_earlier_month_only_when_it_takes_that_date_up() -> None:
    earlier = "We play at the harvest fair on October 12."
    assert _day("My driving theory test is on the 15th.", date(2025, 9, 7), earlier) == date(2025, 9, 15)
    assert _day("We rehearse the day before, on the 11th.", date(2025, 9, 7), earlier) == date(2025, 10, 11)
    assert _day("The harvest band can't play till the 14th now.", date(2025, 9, 7), earlier) == date(2025, 10, 14)


def test_a_state_participle_heads_a_note() -> None:
    assert _day("Closed 27 to 29 December.", date(2025, 11, 20)) == date(2025, 12, 27)
    assert _day("Kitchen done 14 December, then the bathroom.", date(2025, 12, 1)) == date(2025, 12, 14)
    assert _day("Viewings for Unit B on Saturday.", date(2026, 6, 2)) == date(2026, 6, 6)


def test_counted_from_yesterday() -> None:
    assert _found("Two weeks from yesterday is the deadline", MON)[0][1] == date(2025, 3, 23)


def test_the_time_of_an_old_value_is_past() -> None:
    assert _found("We're up to 40 members, from 25 in January", MON)[0][1] == date(2025, 1, 1)
    assert _found("Cabin from 21 June till end of August", date(2025, 6, 8))[-1][1].year == 2025  # a day is no old value


def test_a_day_moved_to_weeks_ago_in_a_narrated_sentence() -> None:
    assert _day("the vet moved the check to 3 March, the dog had her jabs", MON) == date(2025, 3, 3)
    assert _day("We decided to move the party to 9 March, after the exams.", MON) == date(2026, 3, 9)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My cousin got a place on the course, starts in three weeks.", date(2025, 3, 31)),
        ("I sent off the form, the answer comes in two weeks", date(2025, 3, 24)),
        ("The audition was tough, results in 2 weeks", date(2025, 3, 24)),
    ],
)
def test_a_count_ahead_in_a_clause_of_its_own_after_a_narrated_one(text: str, expected: date) -> None:
    assert _day(text, MON) == expected


def test_a_count_in_a_narrated_clause_is_how_long_it_took() -> None:
    assert _found("We painted the whole house in three weeks.", MON) == []
    assert _found("We moved in, and it was all unpacked in two weeks", MON) == []


def test_a_dated_weekday_before_cause() -> None:
    assert _day("party moving to Sunday 16th cause the hall is booked", date(2027, 4, 26)) == date(2027, 5, 16)


def test_a_weekday_after_a_past_copula_is_that_day() -> None:
    assert _day("The school concert was Sunday.", MON) == date(2025, 3, 9)
    assert _found("My day off is Sunday", MON) == []  # a routine
    assert _found("My day off was always Sunday", MON) == []


@pytest.mark.parametrize(
    ("text", "ref", "start", "end"),
    [
        # "the past week / month / year": the stretch up to the day it is said, not the calendar week before
        ("Priyanka has been sleeping badly in the past week", date(2025, 3, 16), date(2025, 3, 9), date(2025, 3, 17)),
        ("Over the past month the bakery sold out twice", date(2025, 3, 31), date(2025, 2, 28), date(2025, 4, 1)),
        ("The past year was a long one for the choir", date(2024, 2, 29), date(2023, 2, 28), date(2024, 3, 1)),
    ],
)
def test_the_past_period_runs_up_to_now(text: str, ref: date, start: date, end: date) -> None:
    ms = resolve(text, datetime(ref.year, ref.month, ref.day, 12, tzinfo=timezone.utc), prefer="auto")
    assert [(m.start.date(), m.end.date()) for m in ms] == [(start, end)]


@pytest.mark.parametrize(
    ("text", "dated"),
    [
        ("Ten years married - feels like just yesterday we said our vows", False),
        ("It seems like only yesterday Noor started school", False),
        ("I feel like yesterday was wasted on paperwork", True),  # yesterday is the subject: the day itself
        ("Noor started the new school yesterday", True),
    ],
)
def test_a_day_word_in_a_simile_is_no_date(text: str, dated: bool) -> None:
    assert bool(_found(text, MON)) is dated


@pytest.mark.parametrize(
    ("text", "ref", "expected"),
    [
        # a holiday whose name says its own day is that day, with or without a preposition; its weekday is not read alone
        ("The shop is shut on Easter Saturday", date(2026, 3, 10), date(2026, 4, 4)),
        ("Easter Monday we drive to my aunt's", date(2026, 3, 10), date(2026, 4, 6)),
        ("party moved (Holy Saturday) because of the service", date(2027, 3, 1), date(2027, 3, 27)),
        ("Boxing Day we always walk the coast path", date(2025, 11, 2), date(2025, 12, 26)),
    ],
)
def test_a_named_holiday_day_is_that_day(text: str, ref: date, expected: date) -> None:
    assert _day(text, ref) == expected


@pytest.mark.parametrize(
    ("text", "ref", "expected"),
    [
        # "a day" after a rate is how often, not a count of days: the day is the one named after "from"
        ("The vet put Biscuit on drops twice a day from today", date(2025, 1, 6), date(2025, 1, 6)),
        ("Tablets are 20mg a day from tomorrow", date(2025, 1, 6), date(2025, 1, 7)),
        ("A week from Friday we fly to Lagos", date(2025, 1, 6), date(2025, 1, 17)),  # a count still counts
    ],
)
def test_a_rate_is_no_count_of_days(text: str, ref: date, expected: date) -> None:
    assert _day(text, ref) == expected
