"""A bare weekday ("on Saturday") read by the tense of its clause (issue 28): a simple present after a personal
subject is a timetable (the coming day), an irregular past form narrates (the last one). Sentences written for
these tests; said on Friday 21 March 2025."""

from datetime import datetime, timezone

import pytest

from memdesk.timeexpr.resolve import resolve
from memdesk.timeexpr.words import IRREGULAR_PAST, simple_present

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


def test_irregular_past_forms_are_not_present_forms():
    assert {"ate", "flew", "sold", "wrote"} <= IRREGULAR_PAST
    assert not {"read", "put", "cut", "set"} & IRREGULAR_PAST
