"""A bare weekday ("on Saturday") read by the tense of its clause (issue 28): a simple present after a personal
subject is a timetable (the coming day), an irregular past form narrates (the last one). Sentences written for
these tests; said on Friday 21 March 2025."""

from datetime import datetime, timezone

import pytest

from memdesk.timeexpr.resolve import resolve
from memdesk.timeexpr.tense import sentence_tense, simple_present

FRIDAY = datetime(2025, 3, 21, 18, 0, tzinfo=timezone.utc)


def _day(text: str) -> str:
    mentions = resolve(text, FRIDAY, prefer="auto")
    assert mentions, text
    return mentions[0].start.date().isoformat()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("We fly to Lisbon on Saturday.", "2025-03-22"),
        ("She flies back on Monday.", "2025-03-24"),
        ("They stay with us on Tuesday, then head north.", "2025-03-25"),
        ("I collect the keys on Wednesday.", "2025-03-26"),
        # narrated: an irregular past form or an -ed form
        ("We ate at the new ramen bar on Saturday.", "2025-03-15"),
        ("We drove to the coast on Sunday.", "2025-03-16"),
        ("I sold the old bike on Monday.", "2025-03-17"),
        ("I finished the quilt on Tuesday.", "2025-03-18"),
        # a form that is also the present cues nothing: the weekday keeps its default reading (the last one)
        ("I read it on Saturday.", "2025-03-15"),
    ],
)
def test_bare_weekday_by_the_clause_tense(text, expected):
    assert _day(text) == expected


@pytest.mark.parametrize(
    "clause, expected",
    [("we fly out early", True), ("she flies back", True), ("we flew back", False), ("I could go", False),
     ("they visited", False), ("I read the menu", False), ("we are going", False), ("the train leaves", False)],
)
def test_simple_present(clause, expected):
    assert simple_present(clause) is expected


@pytest.mark.parametrize("verb", ["ate", "flew", "sold", "wrote"])
def test_an_irregular_past_form_narrates(verb):
    assert sentence_tense(f"We {verb} it there") == "past"


@pytest.mark.parametrize("verb", ["read", "put", "cut", "set"])
def test_a_past_form_that_is_also_the_present_cues_nothing(verb):
    assert sentence_tense(f"We {verb} it there") is None


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a weekday written with a day-month names the year in which that day falls on it
        ("The clinic moved my check-up to Thursday 12 March, same time.", datetime(2026, 2, 20, tzinfo=timezone.utc), "2026-03-12"),
        ("We went out for dinner on Wednesday 12 March.", datetime(2026, 4, 20, tzinfo=timezone.utc), "2025-03-12"),
        # a present clause with a noun subject: "X's on <day>" and "has/have ... on <day>" are arrangements
        ("The boiler service's on Thursday.", datetime(2025, 3, 4, tzinfo=timezone.utc), "2025-03-06"),
        ("Tomasz has a dentist appointment on Thursday.", datetime(2024, 6, 29, tzinfo=timezone.utc), "2024-07-04"),
        ("I've got a driving lesson on Monday.", FRIDAY, "2025-03-24"),
        # being accepted, invited or selected: the event is ahead, whatever the verb's tense
        ("Good news: my poster got accepted for the symposium, 9 to 11 June!", datetime(2026, 2, 10, tzinfo=timezone.utc), "2026-06-09"),
    ],
)
def test_dates_an_arrangement_or_a_dated_weekday_names(text, said, expected):
    mentions = resolve(text, said, prefer="auto")
    assert mentions and mentions[-1].start.date().isoformat() == expected, [m.label for m in mentions]


@pytest.mark.parametrize("text", ["It was our first proper holiday in three years.", "Best night out in months, honestly."])
def test_a_first_or_a_superlative_makes_in_n_units_a_duration(text):
    assert resolve(text, FRIDAY, prefer="auto") == []
    assert [m.label for m in resolve("We fly out in 3 weeks.", FRIDAY, prefer="auto")] == ["2025-04-11"]
