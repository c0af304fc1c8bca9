"""Grammar of time expressions a person resolves one way and the rules once read another (issue 28, helper 28dt2):
which words narrate (a participle used as an adjective does not; a present or modal verb after a past one takes the
date), days counted from another day, a weekday that names the month of an ordinal, a state from a day, a note with
no verb, "next <month>". Sentences of our own, several phrasings each."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.timeexpr.resolve import resolve
from tests.timeexpr.said import dates as _dates
from tests.timeexpr.said import main_date as _main




@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a participle after a determiner, a number or a preposition is an adjective: it narrates nothing
        ("Studio in a converted barn from 1 May, rent on request.", "2026-03-02", "2026-05-01"),
        ("Plant three potted lemons out in mid-May.", "2025-04-01", "2025-05-11"),
        ("Fence posts of treated pine arrive on 12 June.", "2025-05-20", "2025-06-12"),
        # a heading before a colon is a label, not a narrated clause
        ("Revised plan: the draft by 3 March, the final copy by 20 March.", "2026-02-10", "2026-03-03"),
        # a finite past verb still narrates
        ("We painted the shed on 3 May.", "2025-09-01", "2025-05-03"),
        ("My sister moved to Leeds on 3 May.", "2025-09-01", "2025-05-03"),
    ],
)
def test_a_participle_as_an_adjective_narrates_nothing(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # "last" before a count is a time word only when a unit follows
        ("Check the last 5 invoices by 2 April.", "2026-03-10", "2026-04-02"),
        ("The last three chapters are due on 2 April.", "2026-03-10", "2026-04-02"),
    ],
)
def test_last_before_a_count_is_a_time_word_only_with_a_unit(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


def test_the_last_n_units_still_narrate() -> None:
    assert _main("The last 3 weeks I trained on 2 April and after.", "2026-05-10") == "2026-04-02"


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # reported speech: the verb of the reported clause takes the date
        ("The council told us they collect the bins fortnightly from 1 March.", "2026-02-09", "2026-03-01"),
        ("My boss asked if I can cover the desk in August.", "2026-06-30", "2026-08-01"),
        ("Priya said she is moving out on 4 January.", "2025-12-01", "2026-01-04"),
        # a present verb after a past-looking word: "fixed" is part of the subject, "ends" the verb
        ("Our car loan fixed term ends in April.", "2025-10-20", "2026-04-01"),
        # a past verb last before the date still narrates
        ("Tom says we met on 4 January.", "2025-12-01", "2025-01-04"),
    ],
)
def test_a_present_or_modal_verb_after_a_past_one_takes_the_date(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("To get the quilt washed and pressed we have to drop it off by 19 December.", "2024-12-15", "2024-12-19"),
        ("The agent told us it goes up to 1,250 from 1 March.", "2026-02-09", "2026-03-01"),
        # "!" inside a turn ends a clause: a verbless note after it is not narrated by the clause before
        ("I got an interview!! video call on 4 May, 6pm", "2026-04-20", "2026-05-04"),
    ],
)
def test_clauses_break_where_a_person_reads_them(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[-1][0] == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("The fence won't be ready on Thursday.", "2025-05-12", "2025-05-15"),
        ("The dentist visit won't happen on the 20th.", "2025-05-12", "2025-05-20"),
    ],
)
def test_wont_looks_ahead(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("Test booked at the centre in town for Friday the 27th", "2026-02-09", "2026-02-27"),
        ("We moved the call with the bank to Thursday.", "2025-05-12", "2025-05-15"),
    ],
)
def test_an_arrangement_may_name_its_day_by_its_weekday(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # said on Monday 10 November 2025: the 22nd that is a Saturday is November's, whatever month the sentence names
        ("The school fair is on Saturday the 22nd and the concert on December 4.", "2025-11-10", "2025-11-22"),
        ("Two markets: Sunday the 16th, then the big one on December 14.", "2025-11-03", "2025-11-16"),
    ],
)
def test_a_weekday_with_an_ordinal_picks_a_month_where_it_fits(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[0][0] == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a state from a day of the month: the nearest such day ahead or just begun, not the one a month back
        ("Viewings every Saturday from the 18th, 10 to 12.", "2025-10-10", "2025-10-18"),
        ("The pool is closed from the 20th for repairs.", "2025-06-12", "2025-06-20"),
        # "since" is past whatever the clause's tense
        ("Beans in the ground since the 26th, all three rows.", "2025-05-12", "2025-04-26"),
        ("I've been at the new desk since the 2nd.", "2026-02-27", "2026-02-02"),
    ],
)
def test_a_day_that_starts_a_state(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("This month the market runs the 7th-8th and the 21st-22nd.", "2026-03-03", ("2026-03-07", "2026-03-09")),
        ("Next course dates: the 12th\u201314th.", "2026-03-03", ("2026-03-12", "2026-03-15")),
    ],
)
def test_a_run_of_ordinals_with_the_month_unsaid(text: str, said: str, expected: tuple[str, str]) -> None:
    assert expected in _dates(text, said)


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("Fitting on 16 March, Monday, from eight.", "2026-02-20", "2026-03-16"),
        ("Boiler service on 3 June, Wednesday.", "2026-05-20", "2026-06-03"),
    ],
)
def test_a_weekday_after_a_date_is_that_date(text: str, said: str, expected: str) -> None:
    assert _dates(text, said) == [(expected, expected[:8] + f"{int(expected[8:]) + 1:02d}")]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # said on Tuesday 20 May 2025
        ("The reports are due a week from Friday.", "2025-05-20", "2025-05-30"),
        ("Her review is two weeks from Monday.", "2025-05-20", "2025-06-09"),
        ("The parcel comes a week on Thursday.", "2025-05-20", "2025-05-29"),
        ("Collection is Wednesday week.", "2025-05-20", "2025-05-28"),
        ("We sign three days from tomorrow.", "2025-05-20", "2025-05-24"),
        ("The lease ends two weeks from today.", "2025-05-20", "2025-06-03"),
    ],
)
def test_a_day_counted_from_another(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


def test_for_a_count_from_a_day_is_those_days() -> None:
    assert _dates("Marek is off for two weeks from tomorrow.", "2025-02-05") == [("2025-02-06", "2025-02-20")]


def test_every_weekday_week_is_no_day() -> None:
    assert _dates("The bins go out every Monday week.", "2025-05-20") == []


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("New target: 20 km by next June.", "2025-03-20", "2026-06-01"),
        ("We could go to Porto next May.", "2025-02-01", "2026-05-01"),
        ("The contract ends next January.", "2025-11-01", "2026-01-01"),
    ],
)
def test_next_month_name_is_next_years(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a verbless note with no subject: a plan written down, its weekday ahead (said on Monday 24 March 2025)
        ("Dentist on Wednesday at 9:15 with Dr Amin.", "2025-03-24", "2025-03-26"),
        ("Choir practice on Thursday, church hall.", "2025-03-24", "2025-03-27"),
        # a subject with a verb of open tense: the narrated past, as before
        ("We hit our target on Thursday.", "2025-03-24", "2025-03-20"),
    ],
)
def test_a_verbless_notes_weekday_is_ahead(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, earlier, expected",
    [
        # said on Monday 8 September 2025: the month said just before with one of the sentence's lone days
        ("We fly home on the 14th and land on the 15th.", "Our trip is 30 September to 14 October.", ["2025-10-14", "2025-10-15"]),
        ("The painter starts on the 3rd.", "Can the painter come on November 3rd?", ["2025-11-03"]),
        # a day not said before keeps the rules of a day alone
        ("The painter starts on the 20th.", "Can the painter come on November 3rd?", ["2025-09-20"]),
    ],
)
def test_a_lone_day_takes_the_month_said_with_it_just_before(text: str, earlier: str, expected: list[str]) -> None:
    ref = datetime.fromisoformat("2025-09-08T10:00:00+00:00")
    assert [m.start.date().isoformat() for m in resolve(text, ref, prefer="auto", earlier=earlier)] == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a number that is part of a name ("v2.1") is no count before a participle: "shipped" narrates
        ("v2.1 shipped on Friday!", "2024-06-03", "2024-05-31"),
        # "-ied" verbs narrate like other "-ed" ones
        ("The freezer died on Saturday in the night.", "2025-03-17", "2025-03-15"),
        # a clause with an article is no note: its weekday keeps the narrated reading
        ("But the boiler broke on Saturday during lunch.", "2025-03-17", "2025-03-15"),
    ],
)
def test_narrated_days_stay_past(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a clause with no subject after an arrangement: its past-looking first word is an adjective
        ("Hip surgery is booked, left hip replacement at the county hospital on 8 July.", "2025-06-16", "2025-07-08"),
        ("The repair is scheduled, used parts only, on 2 June.", "2025-05-20", "2025-06-02"),
        # a clause with a subject of its own narrates
        ("The flight is booked, and I paid the deposit on 2 June.", "2025-06-16", "2025-06-02"),
        # after a narrated arrangement the subjectless clause narrates too
        ("The van was delayed and came on 18 September instead.", "2025-09-22", "2025-09-18"),
    ],
)
def test_a_subjectless_clause_after_an_arrangement_is_not_narrated(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[-1][0] == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # the month named for another date would put the lone day most of a year away: it is the nearby day
        ("To have the cake iced before the 2nd we must order by 21 December.", "2024-12-16", "2025-01-02"),
        # a month named for the day itself, months ahead, still holds it
        ("The June fete moves to the 14th.", "2025-01-10", "2025-06-14"),
    ],
)
def test_a_lone_day_is_not_put_a_year_away_by_another_dates_month(text: str, said: str, expected: str) -> None:
    assert _dates(text, said)[0][0] == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # the last item of a list of objects: its participle belongs to the object; the sentence's verb dates it
        ("We need six tables, a tent, and the chairs stacked by the 28th.", "2025-05-06", "2025-05-28"),
        # a narrated sentence keeps its past
        ("We bought bread, milk, and the kids painted eggs on Sunday.", "2025-05-06", "2025-05-04"),
    ],
)
def test_a_participle_in_a_list_of_objects_is_not_narrated(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected
