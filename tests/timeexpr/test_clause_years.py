"""The year (and week) a person gives a date said without one, read from the clause that holds it (issue 28, helper
28dt3): a clause ends at a full stop and not inside "14,500"; "and" before words with no verb joins phrases of one
clause; a past lent by another clause, or a headline's participle, puts the date nearest the message; a lone day takes
the month of its own clause; a forward cue of a later clause does not date an earlier one; a second weekday follows
the first; "this <weekday>" narrated is this week's; asking for days off arranges them. Sentences of our own."""

from __future__ import annotations

import pytest

from tests.timeexpr.said import dates as _dates
from tests.timeexpr.said import main_date as _main


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # the comma of a thousands figure ends no list item: "was" narrates its own clause
        ("The bus pass costs 1,200 now, it was 950 in February", "2025-06-10", "2025-02-01"),
        ("Rent is 14,500 a month, it went up in January", "2025-09-03", "2025-01-01"),
        # a full stop ends a clause even before a lower-case word
        ("The flat has two rooms. we moved in on Saturday", "2025-07-01", "2025-06-28"),
        ("it rained all week. the roof leaked on Sunday", "2026-03-12", "2026-03-08"),
        # "and" before a phrase with no verb joins it to the clause before
        ("I flew to Oslo with my brother and his two dogs in September.", "2025-11-20", "2025-09-01"),
        ("We planted the apple tree and a row of currants in April", "2025-06-02", "2025-04-01"),
    ],
)
def test_where_a_clause_ends(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a verbless clause borrows the past of another: the occurrence nearest the message
        ("I had knee surgery, two weeks off, back at the desk on 9 March", "2026-02-27", "2026-03-09"),
        ("Loft insulation sorted, grant paid, inspection on 4 April", "2025-03-30", "2025-04-04"),
        ("We had a week in Porto, home again on 2 August", "2025-10-05", "2025-08-02"),
        # a headline's participle after a bare noun: a state on the date, ahead or behind
        ("Notice: office closed from 23 to 27 March, back on the 30th", "2026-03-10", "2026-03-23"),
        ("Checklist: kitchen done 14 November, then the bathroom.", "2025-11-10", "2025-11-14"),
        ("site cleared 2 June, skip collected the day after", "2025-06-20", "2025-06-02"),
        # a finite past after a subject still narrates: the most recent past occurrence (a family word is a name)
        ("mum passed away on 3 May, still miss her", "2026-04-20", "2025-05-03"),
        ("The office closed on 23 March for a deep clean.", "2026-03-10", "2025-03-23"),
        ("We finished the kitchen on 14 November.", "2025-11-10", "2024-11-14"),
        # a verbless clause that goes on with the story keeps its past
        ("We went to Rome, then Florence on 3 May", "2026-02-10", "2025-05-03"),
        # what is got from a date or for one is had then: ahead
        ("we got a two-room flat near the park from 1 March.", "2026-02-02", "2026-03-01"),
        ("I got tickets for 9 May, front row!", "2026-04-20", "2026-05-09"),
        ("We got back from Lisbon on 2 April", "2026-04-20", "2026-04-02"),
        # a clause that is only the date is narrated by the clause after it: not a lent past
        ("On 3 May, we went to Paris", "2026-02-10", "2025-05-03"),
        ("In August, I flew to Oslo", "2026-02-10", "2025-08-01"),
        # asking for days is arranging them: they are ahead
        ("I asked for 27 to 30 December off and my manager agreed", "2025-11-24", "2025-12-27"),
        ("She requested 3 to 7 August as leave", "2026-06-15", "2026-08-03"),
    ],
)
def test_a_loose_past_takes_the_nearest_year(text: str, said: str, expected: str) -> None:
    assert _main(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a lone day takes the month said in its own clause, not another clause's
        ("The fair moved to Saturday 3 October, frost forecast for the 25th", "2025-09-22", "2025-09-25"),
        ("I'm off work until November, I'm walking the coast path with Jo from the 14th", "2026-09-08", "2026-09-14"),
        ("The March meeting moves to the 11th", "2026-02-02", "2026-03-11"),
    ],
)
def test_a_lone_day_takes_its_own_clauses_month(text: str, said: str, expected: str) -> None:
    days = [d for d, _ in _dates(text, said)]
    assert expected in days


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a forward cue of a later clause of its own does not date an earlier clause
        ("twisted my ankle on the stairs on Tuesday, physio says no running till Saturday", "2025-04-17", ["2025-04-15", "2025-04-19"]),
        # a plan of a later clause does not date an earlier one whose verb reads past as well as present
        ("But our driver Tomasz quit on Tuesday, he's moving to Gdansk", "2025-03-13", ["2025-03-11"]),
        ("Nadia comes back from Lyon on Tuesday, she'll stay a week", "2025-03-13", ["2025-03-18"]),
        # a second weekday, in a clause with no tense of its own, is the first such day after the weekday before it
        ("engine fixed on Thursday, van back on the road Friday", "2026-05-04", ["2026-04-30", "2026-05-01"]),
        ("flu hit me on Monday, off work till Wednesday", "2026-05-07", ["2026-05-04", "2026-05-06"]),
        # a lone day after a narrated clause keeps its clause's direction: a month either way is what tense tells apart
        ("Exam done on Friday, results on the 28th", "2026-03-09", ["2026-03-06", "2026-03-28"]),
        # a weekday written with its date is no anchor for another weekday
        ("The fete moved to Sunday 17 May, storms due Saturday", "2026-04-28", ["2026-05-17", "2026-05-02"]),
        # a second weekday with a tense of its own keeps it
        ("I was at the dentist on Tuesday and I'm seeing the GP on Friday", "2026-05-07", ["2026-05-05", "2026-05-08"]),
        # "this <weekday>" in a narrated clause is this week's, before the message
        ("I missed choir this Monday.", "2025-10-16", ["2025-10-13"]),
        ("We finally tidied the garage this Wednesday", "2025-10-16", ["2025-10-15"]),
        ("I'm at the dentist this Monday", "2025-10-16", ["2025-10-20"]),
    ],
)
def test_weekdays_of_one_sentence(text: str, said: str, expected: list[str]) -> None:
    assert [d for d, _ in _dates(text, said)] == expected
