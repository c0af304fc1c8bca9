"""Classes of date expression a person resolves one way and the rules once read another: "last" as an adjective,
a deadline at the end of a period, what an arrangement verb sets, weekdays that are no date, a day of a named month,
a month in a year named by its place. Sentences of our own, several phrasings each."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.timeexpr.resolve import resolve
from tests.timeexpr.said import dates as _dates
from tests.timeexpr.said import main_date as _main




@pytest.mark.parametrize(
    "text, said, expected",
    [
        # "last" before a noun that is no time word is an adjective: the clause's own tense decides
        ("Her last shift at the bakery is 14 March.", "2025-11-02", "2026-03-14"),
        ("My last exam is on 9 January, then I'm free.", "2025-12-01", "2026-01-09"),
        ("The last ferry of the season leaves on 2 October.", "2025-11-20", "2026-10-02"),
        ("Tomasz's last day at the warehouse is 30 April.", "2026-02-10", "2026-04-30"),
        # "last" as a time word still narrates
        ("We last spoke on 3 June.", "2025-09-01", "2025-06-03"),
    ],
)
def test_last_is_a_time_word_only_before_one(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


def test_last_week_narrates_its_own_clause_only() -> None:
    dates = _dates("I saw the orthodontist last week, and my brace is off on 2 May.", "2025-05-20")
    assert dates[1] == ("2026-05-02", "2026-05-03")


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("Send the forms back by the end of May.", "2025-03-01", "2025-05-31"),
        ("The flat is ours until the end of the year.", "2025-03-01", "2025-12-31"),
        ("I'm paying for the gym till end of September.", "2025-03-01", "2025-09-30"),
        ("She needs the draft by the end of next month.", "2025-01-15", "2025-02-28"),
    ],
)
def test_the_end_of_a_period_as_a_bound_is_its_last_day(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[0][0] == expected


def test_the_end_of_a_period_as_a_time_is_its_last_days() -> None:
    assert _dates("We're moving at the end of August.", "2025-05-01") == [("2025-08-22", "2025-09-01")]
    assert _dates("Do it by the end of the week.", "2025-05-07")[0][1] == "2025-05-12"  # a week: Friday to Sunday


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # what a verb of arranging sets, moves, approves or cancels is ahead, whatever its own tense
        ("They agreed to push the launch back to 4 February.", "2025-10-20", "2026-02-04"),
        ("We decided to move the party to 9 March, after the exams.", "2026-04-02", "2027-03-09"),
        ("The council confirmed my parking permit from 1 January.", "2025-11-11", "2026-01-01"),
        ("Second album slated for 21 February.", "2025-06-30", "2026-02-21"),
        ("Photo shoot pencilled in for 2 May.", "2025-06-30", "2026-05-02"),
        ("We booked a barge on the canal near Oxford, with a crew of four, 3 to 10 August.", "2025-09-01", "2026-08-03"),
        # narrated: the day the thing was done
        ("We moved into the new flat on 3 May.", "2025-09-01", "2025-05-03"),
        ("I booked the tickets on 12 August.", "2025-09-01", "2025-08-12"),
    ],
)
def test_what_an_arrangement_sets_is_ahead(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[0][0] == expected


def test_a_cancelled_month_is_the_coming_one_a_narrated_month_the_last() -> None:
    assert _dates("We cancelled the ski trip in April, the snow is too thin.", "2025-02-10") == [("2025-04-01", "2025-05-01")]
    assert _dates("I moved to York in June.", "2025-09-10") == [("2025-06-01", "2025-07-01")]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a clause that opens with an "-ing" verb has dropped "I'm": an arrangement (said on a Monday)
        ("Collecting the keys on Friday.", "2025-10-13", "2025-10-17"),
        ("Driving up to see Gran on Sunday.", "2025-10-13", "2025-10-19"),
        ("Also meeting the accountant on Thursday, finally.", "2025-10-13", "2025-10-16"),
        # a weekday with a bare ordinal is that day
        ("The essay is due Wednesday 22nd.", "2025-10-13", "2025-10-22"),
        ("Book club moved to Friday 31st.", "2025-10-13", "2025-10-31"),
    ],
)
def test_weekdays_that_are_dates(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The only Sunday they had open was in May.",
        "A free Saturday would be nice for once.",
        "Tuesday classes are cancelled for the term.",
        "Noted: Friday deliveries from now on.",
    ],
)
def test_weekdays_that_are_no_date(text: str) -> None:
    ref = datetime.fromisoformat("2025-03-12T10:00:00+00:00")
    assert not [m for m in resolve(text, ref, prefer="auto") if m.granularity == "day"]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("The check-up is on the 4th of next month.", "2025-10-27", [("2025-11-04", "2025-11-05")]),
        ("Rent went out on the 1st of this month.", "2025-10-27", [("2025-10-01", "2025-10-02")]),
        ("Let's say Monday the 29th, since the 30th is a holiday.", "2025-09-10", [("2025-09-29", "2025-09-30")]),
    ],
)
def test_a_day_of_a_month_named_by_its_place(text: str, said: str, expected: list[tuple[str, str]]) -> None:
    assert _dates(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("The viva is pencilled for March next year.", "2025-10-08", "2026-03-01"),
        ("Maybe next year in August, if the money is there.", "2025-10-08", "2026-08-01"),
        ("Next year, on 14 June, we renew our vows.", "2025-10-08", "2026-06-14"),
        ("We first met in Lisbon, 2 July last year.", "2025-10-08", "2024-07-02"),
    ],
)
def test_a_month_in_a_year_named_by_its_place(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


def test_a_month_with_no_tense_is_the_month_just_past_or_the_coming_one() -> None:
    assert _dates("Holiday in January.", "2025-03-20") == [("2026-01-01", "2026-02-01")]
    assert _dates("Two flat tyres in January.", "2025-02-14") == [("2025-01-01", "2025-02-01")]
    assert _dates("Only one migraine in November, with no coffee.", "2025-12-03") == [("2025-11-01", "2025-12-01")]
    assert _dates("Budget review in March.", "2025-02-14") == [("2025-03-01", "2025-04-01")]


def test_a_month_in_a_verbless_note_is_the_month_just_past() -> None:
    assert _dates("Sleep diary: after cutting coffee, just two bad nights in November.", "2025-12-03") == [
        ("2025-11-01", "2025-12-01")
    ]


@pytest.mark.parametrize(
    "text, dated",
    [
        ("That leaves the last three days for packing.", False),
        ("Keep the last two weeks of the course free.", False),
        ("I've slept badly the last two nights and the last three days.", True),
        ("It snowed the last four days.", True),
        ("Prices rose in the last two months.", True),
    ],
)
def test_the_last_n_days_are_before_now_only_as_an_adverbial(text: str, dated: bool) -> None:
    assert bool(_dates(text, "2025-03-12")) is dated


@pytest.mark.parametrize(
    "text, dated",
    [
        ("Two mid-week sessions of an hour each.", False),
        ("The mid-month report goes to finance.", False),
        ("Let's catch up mid-week.", True),
        ("Payday is mid-month, so after that.", True),
    ],
)
def test_a_part_of_a_period_before_a_noun_is_a_kind_not_a_date(text: str, dated: bool) -> None:
    assert bool(_dates(text, "2025-03-12")) is dated


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a plan runs forward: a later day read as past moves to the year after the day ahead of it
        ("Course starts 20 November, ten weeks, so ends around 29 January.", "2025-11-01",
         [("2025-11-20", "2025-11-21"), ("2026-01-29", "2026-01-30")]),
        ("Fittings on 9 December and 16 December, and the wedding on 10 January.", "2025-11-20",
         [("2025-12-09", "2025-12-10"), ("2025-12-16", "2025-12-17"), ("2026-01-10", "2026-01-11")]),
        # a later clause that narrates keeps its past
        ("We fly out on 3 June; we were there on 2 May as well.", "2025-05-20",
         [("2025-06-03", "2025-06-04"), ("2025-05-02", "2025-05-03")]),
    ],
)
def test_days_in_a_plan_run_forward(text: str, said: str, expected: list[tuple[str, str]]) -> None:
    assert _dates(text, said) == expected


def test_a_weekday_a_date_is_said_to_be_picks_its_year() -> None:
    # 20 September is a Saturday in 2025, a Friday in 2024
    assert _dates("The only Saturday the hall had free was 20 September.", "2025-01-15") == [("2025-09-20", "2025-09-21")]
    assert _dates("The only Friday the hall had free was 20 September.", "2025-01-15") == [("2024-09-20", "2024-09-21")]


def test_a_verbless_clause_takes_its_sentences_tense() -> None:
    # said in January: the sentence plans, so its October is the coming one, not the nearest
    assert _dates("Priya wants a trip to Peru, ten days in October.", "2025-01-12") == [("2025-10-01", "2025-11-01")]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("Next week I'm doing hill repeats on Tuesday and Thursday.", "2025-04-28", "2025-05-06"),  # said on a Monday
        ("Last week was mad, the boiler broke on Tuesday.", "2025-05-01", "2025-04-22"),  # said on a Thursday
        ("Next week: the plumber Monday, then quiet.", "2025-05-01", "2025-05-05"),
    ],
)
def test_a_weekday_in_a_named_week_is_that_weeks_day(text: str, said: str, expected: str) -> None:
    ref = datetime.fromisoformat(said + "T10:00:00+00:00")
    days = [m for m in resolve(text, ref, prefer="auto") if m.granularity == "day"]
    assert days and days[0].start.date().isoformat() == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        # said on Monday 2025-11-24: a tenseless list whose days are ahead is a list of plans
        ("Suit fitting on Thursday, last shift on 12 December, new route from 5 January.", "2025-11-27"),
        ("Noted: vet on Friday and the kennel from 20 December.", "2025-11-28"),
    ],
)
def test_a_weekday_in_a_list_of_plans_is_ahead(text: str, expected: str) -> None:
    ref = datetime.fromisoformat("2025-11-24T10:00:00+00:00")
    days = [m for m in resolve(text, ref, prefer="auto") if m.granularity == "day"]
    assert days and days[0].start.date().isoformat() == expected


def test_a_weekday_in_a_narrated_list_stays_past() -> None:
    ref = datetime.fromisoformat("2025-11-24T10:00:00+00:00")
    days = [m for m in resolve("The suit came on Thursday, and the shift is on 12 December.", ref, prefer="auto")
            if m.granularity == "day"]
    assert days[0].start.date().isoformat() == "2025-11-20"


def test_an_ing_noun_as_subject_is_no_dropped_progressive() -> None:
    assert _dates("Shearing finished early, on 4 March.", "2025-03-10") == [("2025-03-04", "2025-03-05")]
    assert _dates("Painting was done by 2 March.", "2025-03-10") == [("2025-03-02", "2025-03-03")]
