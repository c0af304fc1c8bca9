"""The year a person infers for a day-month said without one (issue 28): past only when the clause narrates.

A past-looking word after a present finite verb is a participle (passive, perfect, an object's complement) and
does not make the date past; a present progressive with a date is an arrangement; no cue at all reads the
coming occurrence. Sentences written for these tests."""

from datetime import datetime, timezone

import pytest

from memdesk.timeexpr.resolve import resolve
from memdesk.timeexpr.tense import progressive, sentence_tense

SAID = datetime(2025, 6, 20, 12, 0, tzinfo=timezone.utc)


def _day(text: str) -> str:
    mentions = resolve(text, SAID, prefer="auto")
    assert mentions, text
    return mentions[0].start.date().isoformat()


@pytest.mark.parametrize(
    "text, expected",
    [
        # passive in the present: "is/are + participle"
        ("The boiler service is arranged for 3 March.", "2026-03-03"),
        ("Our tickets are sorted for 14 February.", "2026-02-14"),
        # present perfect: the arrangement is past, what it arranges is ahead
        ("We've reserved a table at the harbour bistro on 2 May.", "2026-05-02"),
        ("I have signed the lease from 1 April.", "2026-04-01"),
        ("They've got a recital in Harrogate on 11 January.", "2026-01-11"),
        # an object's complement after a present verb
        ("Priyesh wants the shed painted before 9 March.", "2026-03-09"),
        ("The dog needs his stitches checked on 5 March.", "2026-03-05"),
        # a present progressive with a date
        ("A plumber called Dai is fitting the new sink on 4 April.", "2026-04-04"),
        ("My cousins are visiting on 18 May.", "2026-05-18"),
        # no tense cue at all: the coming one
        ("The allotment open day, 12 April.", "2026-04-12"),
        # narrated past stays past
        ("We planted the apple trees on 12 April.", "2025-04-12"),
        ("I was in Lisbon on 2 May.", "2025-05-02"),
        ("The roof got fixed on 9 March, two weeks ago.", "2025-03-09"),
        ("I had the car serviced on 30 May.", "2025-05-30"),
    ],
)
def test_year_of_a_day_month(text: str, expected: str) -> None:
    assert _day(text) == expected


def test_a_date_just_begun_reads_as_current() -> None:
    # said on 20 June: "from 1 June" in the present began three weeks ago, it is not next June
    assert _day("My new rota is four days a week from 1 June.") == "2025-06-01"
    assert _day("Since 2 June I have been on the early shift.") == "2025-06-02"


def test_a_day_something_happens_on_is_the_coming_one() -> None:
    # said on 20 June: a day for an event in the present tense, eleven days gone, is next year's
    assert _day("We have the open day pencilled in for 9 June.") == "2026-06-09"


@pytest.mark.parametrize(
    "text, tense",
    [
        ("We are driving up to Inverness.", None),
        ("She's collecting the keys.", None),
        ("We'll drive up to Inverness.", "future"),
        ("That is amazing.", None),
        ("It's something else.", None),
        ("He's interesting to talk to.", None),
        ("I finished the quilt.", "past"),
        ("The quilt is finished.", None),
        ("I've finished the quilt.", None),
        ("It was finished two days ago.", "past"),
    ],
)
def test_sentence_tense_reads_the_finite_verb(text: str, tense: str | None) -> None:
    assert sentence_tense(text) == tense


def test_progressive_is_not_an_ing_adjective() -> None:
    assert progressive("They're repainting the hall.")
    assert not progressive("The view is stunning.")
    assert not progressive("This is everything.")


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # what was booked or rented is ahead, however the date is attached: an appositive, "from"
        ("We booked a cottage on the coast, 18 to 25 October.", "2025-09-15", "2025-10-18"),
        ("We rented a studio near the station from 1 December.", "2025-11-18", "2025-12-01"),
        ("I hired a van for the 9th of June.", "2025-05-02", "2025-06-09"),
        # an acknowledgement is no narrated past
        ("Dentist on 30 August, noted.", "2025-03-23", "2025-08-30"),
        ("Updated: 28 October at the clinic.", "2025-09-29", "2025-10-28"),
        # a narrated past keeps its year
        ("I rented a van on 12 February.", "2025-03-01", "2025-02-12"),
    ],
)
def test_what_an_arrangement_dates_is_ahead(text: str, said: str, expected: str) -> None:
    ref = datetime.fromisoformat(said + "T10:00:00+00:00")
    dated = [m for m in resolve(text, ref) if m.granularity in ("day", "range")]
    assert dated and dated[0].start.date().isoformat() == expected, [(m.text, m.start) for m in resolve(text, ref)]


def test_a_rebooking_sets_a_date_ahead() -> None:
    # said on 20 June: "rebooked" is a booking: what it sets is the coming 2 July, not last year's
    assert _day("They rebooked my scan for 2 July.") == "2025-07-02"


def test_a_holiday_with_no_tense_weeks_after_it_is_the_one_just_gone() -> None:
    # "quit" reads past and present alike: said three weeks after Christmas, "over Christmas" is the one just gone
    said = datetime(2026, 1, 15, 9, 0, tzinfo=timezone.utc)
    mentions = resolve("Mira quit sugar over Christmas, feels great", said, prefer="auto")
    assert mentions[0].start.date().isoformat() == "2025-12-25"


def test_a_date_heading_a_schedule_item_is_dated_by_its_item() -> None:
    # said on Friday 20 June: a plan's items are ahead, though another item's word reads past ("timed")
    plan = "Plan: - Tuesday: stretch for 10 min - Thursday: go over the glaze notes - Saturday: one mock firing, timed"
    assert [m.start.date().isoformat() for m in resolve(plan, SAID, prefer="auto")] == ["2025-06-24", "2025-06-26", "2025-06-28"]
    diary = "Diary: - Tuesday: went to the pool - Thursday: swam 2 km"
    assert resolve(diary, SAID, prefer="auto")[0].start.date().isoformat() == "2025-06-17"
