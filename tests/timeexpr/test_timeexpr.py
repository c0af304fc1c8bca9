"""Relative-time resolution: a table of exact cases against a Monday reference, plus properties."""

from __future__ import annotations

import itertools
from datetime import date, datetime, timezone

import pytest
from pydantic import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.timeexpr.resolve import TimeMention, format_anchor, main_anchor, resolve, sentence_tense

REF = datetime(2023, 5, 8, 13, 56)  # a Monday
D = date

# text, label, granularity, start, end (exclusive), approximate
CASES: list[tuple[str, str, str, date, date, bool]] = [
    ("I went yesterday", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("today was long", "2023-05-08", "day", D(2023, 5, 8), D(2023, 5, 9), False),
    ("we're out tonight", "2023-05-08", "day", D(2023, 5, 8), D(2023, 5, 9), False),
    ("see you tomorrow", "2023-05-09", "day", D(2023, 5, 9), D(2023, 5, 10), False),
    ("the day before yesterday", "2023-05-06", "day", D(2023, 5, 6), D(2023, 5, 7), False),
    ("the day after tomorrow", "2023-05-10", "day", D(2023, 5, 10), D(2023, 5, 11), False),
    ("last night was fun", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("last week", "week of 2023-05-01", "week", D(2023, 5, 1), D(2023, 5, 8), False),
    ("this week", "week of 2023-05-08", "week", D(2023, 5, 8), D(2023, 5, 15), False),
    ("next week", "week of 2023-05-15", "week", D(2023, 5, 15), D(2023, 5, 22), False),
    ("the week before last", "week of 2023-04-24", "week", D(2023, 4, 24), D(2023, 5, 1), False),
    ("last weekend", "weekend of 2023-05-06", "weekend", D(2023, 5, 6), D(2023, 5, 8), False),
    ("this past weekend", "weekend of 2023-05-06", "weekend", D(2023, 5, 6), D(2023, 5, 8), False),
    ("over the weekend", "weekend of 2023-05-06", "weekend", D(2023, 5, 6), D(2023, 5, 8), False),
    ("this weekend", "weekend of 2023-05-13", "weekend", D(2023, 5, 13), D(2023, 5, 15), False),
    ("next weekend", "weekend of 2023-05-13", "weekend", D(2023, 5, 13), D(2023, 5, 15), False),  # said on a Monday
    ("last month", "April 2023", "month", D(2023, 4, 1), D(2023, 5, 1), False),
    ("this month", "May 2023", "month", D(2023, 5, 1), D(2023, 6, 1), False),
    ("next month", "June 2023", "month", D(2023, 6, 1), D(2023, 7, 1), False),
    ("last year", "2022", "year", D(2022, 1, 1), D(2023, 1, 1), False),
    ("this year", "2023", "year", D(2023, 1, 1), D(2024, 1, 1), False),
    ("next year", "2024", "year", D(2024, 1, 1), D(2025, 1, 1), False),
    ("3 days ago", "2023-05-05", "day", D(2023, 5, 5), D(2023, 5, 6), False),
    ("two weeks ago", "week of 2023-04-24", "week", D(2023, 4, 24), D(2023, 5, 1), False),
    ("a couple of days ago", "about 2023-05-06", "day", D(2023, 5, 6), D(2023, 5, 7), True),
    ("a few weeks ago", "about week of 2023-04-17", "week", D(2023, 4, 17), D(2023, 4, 24), True),
    ("six months ago", "November 2022", "month", D(2022, 11, 1), D(2022, 12, 1), False),
    ("a year ago", "2022", "year", D(2022, 1, 1), D(2023, 1, 1), False),
    ("several years ago", "about 2020", "year", D(2020, 1, 1), D(2021, 1, 1), True),
    ("last Friday", "2023-05-05", "day", D(2023, 5, 5), D(2023, 5, 6), False),
    ("last Monday", "2023-05-01", "day", D(2023, 5, 1), D(2023, 5, 2), False),
    ("this Saturday", "2023-05-13", "day", D(2023, 5, 13), D(2023, 5, 14), False),
    ("next Monday", "2023-05-15", "day", D(2023, 5, 15), D(2023, 5, 16), False),
    ("next Friday", "2023-05-19", "day", D(2023, 5, 19), D(2023, 5, 20), False),
    ("on Sunday", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("I joined last Tues.", "2023-05-02", "day", D(2023, 5, 2), D(2023, 5, 3), False),
    ("next Fri", "2023-05-19", "day", D(2023, 5, 19), D(2023, 5, 20), False),
    ("in 3 days", "2023-05-11", "day", D(2023, 5, 11), D(2023, 5, 12), False),
    ("in two weeks", "2023-05-22", "day", D(2023, 5, 22), D(2023, 5, 23), False),
    ("in a month", "June 2023", "month", D(2023, 6, 1), D(2023, 7, 1), False),
    ("last summer", "summer 2022", "season", D(2022, 6, 1), D(2022, 9, 1), False),
    ("this summer", "summer 2023", "season", D(2023, 6, 1), D(2023, 9, 1), False),
    ("next summer", "summer 2023", "season", D(2023, 6, 1), D(2023, 9, 1), False),
    ("last winter", "winter 2022/23", "season", D(2022, 12, 1), D(2023, 3, 1), False),
    ("last fall", "autumn 2022", "season", D(2022, 9, 1), D(2022, 12, 1), False),
    ("on May 7, 2023", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("on 7 May 2023", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("on 7 May, 2023", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("on May 7th", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("on 2023-05-07", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("on 5/7/2023", "2023-05-07", "day", D(2023, 5, 7), D(2023, 5, 8), False),
    ("back in June 2022", "June 2022", "month", D(2022, 6, 1), D(2022, 7, 1), False),
    ("summer 2021", "summer 2021", "season", D(2021, 6, 1), D(2021, 9, 1), False),
    ("I moved in 2019", "2019", "year", D(2019, 1, 1), D(2020, 1, 1), False),
    ("last May", "May 2022", "month", D(2022, 5, 1), D(2022, 6, 1), False),
    ("next March", "March 2024", "month", D(2024, 3, 1), D(2024, 4, 1), False),
    ("recently", "shortly before 2023-05-08", "approx", D(2023, 4, 8), D(2023, 5, 9), True),
    ("the other day", "a few days before 2023-05-08", "approx", D(2023, 5, 1), D(2023, 5, 9), True),
    ("for the past 3 years", "the past 3 years up to 2023-05-08", "approx", D(2020, 5, 8), D(2023, 5, 9), True),
]


@pytest.mark.parametrize("text,label,gran,start,end,approx", CASES, ids=[c[0] for c in CASES])
def test_resolution_table(text: str, label: str, gran: str, start: date, end: date, approx: bool) -> None:
    found = resolve(text, REF)
    assert len(found) == 1, found
    m = found[0]
    assert (m.label, m.granularity, m.start.date(), m.end.date() if m.end else None, m.approximate) == (
        label,
        gran,
        start,
        end,
        approx,
    )
    assert text[m.span[0] : m.span[1]] == m.text


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 30


def test_bare_weekday_can_prefer_the_future() -> None:
    (m,) = resolve("on Sunday", REF, prefer="future")
    assert m.label == "2023-05-14"


@pytest.mark.parametrize(
    "ref,text,label",
    [
        (datetime(2023, 5, 14, 9), "last weekend", "weekend of 2023-05-06"),  # a Sunday
        (datetime(2023, 5, 14, 9), "over the weekend", "weekend of 2023-05-13"),
        (datetime(2023, 5, 13, 9), "this Saturday", "2023-05-13"),  # a Saturday: today
        (datetime(2023, 5, 13, 9), "last Saturday", "2023-05-06"),
        (datetime(2023, 1, 15), "last month", "December 2022"),
        (datetime(2023, 1, 15), "three months ago", "October 2022"),
        (datetime(2023, 1, 15), "this winter", "winter 2022/23"),
        (datetime(2023, 10, 2), "last summer", "summer 2023"),
        (datetime(2023, 7, 2), "last summer", "summer 2022"),
        (datetime(2023, 12, 30), "in 3 days", "2024-01-02"),
        (datetime(2024, 3, 1), "yesterday", "2024-02-29"),
    ],
)
def test_other_references(ref: datetime, text: str, label: str) -> None:
    (m,) = resolve(text, ref)
    assert m.label == label


def test_several_mentions_in_text_order() -> None:
    found = resolve("I went last Friday and I'll go again next Monday, like I did in 2019.", REF)
    assert [m.label for m in found] == ["2023-05-05", "2023-05-15", "2019"]
    assert [m.text for m in found] == ["last Friday", "next Monday", "in 2019"]


def test_longer_forms_win_overlaps() -> None:
    assert [m.text for m in resolve("the day before yesterday", REF)] == ["the day before yesterday"]
    assert [m.text for m in resolve("On May 7, 2023 we met", REF)] == ["May 7, 2023"]


@pytest.mark.parametrize(
    "text", ["I may go", "I have 2019 reasons", "one day I will", "Maybe later", "February 30, 2023", "the year 3000", "this sun is hot", "c'mon"]
)
def test_no_false_mentions(text: str) -> None:
    assert resolve(text, REF) == []


def test_timezone_of_reference_is_kept() -> None:
    ref = REF.replace(tzinfo=timezone.utc)
    (m,) = resolve("yesterday", ref)
    assert m.start == datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert m.end == datetime(2023, 5, 8, tzinfo=timezone.utc)


def test_main_anchor_prefers_exact_mentions() -> None:
    found = resolve("Recently, well, last Friday actually", REF)
    assert [m.granularity for m in found] == ["approx", "day"]
    main = main_anchor(found)
    assert main is not None and main.label == "2023-05-05"
    assert main_anchor([]) is None
    assert main_anchor(resolve("the other day", REF)).granularity == "approx"  # type: ignore[union-attr]


def test_format_anchor_falls_back_to_reference_day() -> None:
    assert format_anchor(None, REF) == "2023-05-08"
    assert format_anchor(resolve("last year", REF)[0], REF) == "2022"


def test_mentions_are_frozen() -> None:
    m = resolve("yesterday", REF)[0]
    assert isinstance(m, TimeMention)
    with pytest.raises(ValidationError):
        m.label = "x"  # type: ignore[misc]


_WORDS = st.sampled_from(
    "I went last next this week weekend month year ago in a few couple of two 3 days Friday May 7 2023 , "
    "yesterday today the day before after tomorrow summer recently other 2019 on over past".split()
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, max_size=12).map(" ".join), st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)))
def test_properties_on_random_phrases(text: str, ref: datetime) -> None:
    found = resolve(text, ref)
    assert found == resolve(text, ref)  # deterministic
    spans = [m.span for m in found]
    assert spans == sorted(spans)
    for (_a, b), (c, _d) in itertools.pairwise(spans):
        assert b <= c  # no overlaps
    for m in found:
        assert text[m.span[0] : m.span[1]] == m.text
        assert m.end is not None and m.start < m.end
        assert m.label


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    for m in resolve(text, REF):
        assert text[m.span[0] : m.span[1]] == m.text


# --- the forms issue 12 fixed ----------------------------------------------------------------------

SUN = datetime(2024, 4, 21, 20, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text,label",
    [("the fair on Saturday 13 July", "2024-07-13"), ("on Friday, 16 February", "2024-02-16"), ("Mon 15 April", "2024-04-15"),
     ("Saturday, July 13", "2024-07-13"), ("Monday the 15th of April", "2024-04-15")],
)  # fmt: skip
def test_a_weekday_written_with_a_date_is_one_mention(text: str, label: str) -> None:
    (m,) = resolve(text, SUN)
    assert m.label == label


def test_a_full_month_name_leaves_the_sentence_period() -> None:
    (m,) = resolve("The interview is on 28 March.", SUN)
    assert m.text == "28 March"
    (w,) = resolve("It was last Sunday.", SUN)
    assert w.text == "last Sunday"


@pytest.mark.parametrize(
    "text,label",
    [("I'll arrive on Friday.", "2024-04-26"), ("I arrived on Friday.", "2024-04-19"), ("I'm moving in January.", "January 2025"),
     ("I moved in January.", "January 2024"), ("I went there on 5 December.", "2023-12-05"), ("I'll go on 5 December.", "2024-12-05"),
     ("In May.", "May 2024"), ("I'm leaving in two weeks.", "2024-05-05")],
)  # fmt: skip
def test_auto_reads_ambiguous_forms_in_the_direction_of_the_tense(text: str, label: str) -> None:
    (m,) = resolve(text, SUN, prefer="auto")
    assert m.label == label


@pytest.mark.parametrize(
    "text,said,label",
    [
        # an arrangement made in the past sets a date ahead, however many words stand between
        ("I booked my driving test for 21 June at the centre in town.", "2025-05-12", "2025-06-21"),
        ("We've moved the camping trip to 4 August because my brother couldn't get the week off.", "2025-07-07", "2025-08-04"),
        ("They pushed the final back to 3 May.", "2025-04-20", "2025-05-03"),
        # a present-tense clause: the occurrence still to come, or one just begun
        ("My gran turns 90 on 14 August.", "2025-02-10", "2025-08-14"),
        ("I've resigned; from 1 October I'm working for a bakery.", "2025-09-08", "2025-10-01"),
        ("From 1 September I'm working for a bakery.", "2025-09-08", "2025-09-01"),
        ("My exam is in June.", "2025-02-10", "June 2025"),
        # narrated past stays past, even next to a present clause
        ("I met my cousin on 20 December.", "2025-03-18", "2024-12-20"),
        ("We moved to the coast on 3 May.", "2025-05-10", "2025-05-03"),
    ],
)
def test_a_date_takes_the_year_a_person_infers_from_its_clause(text: str, said: str, label: str) -> None:
    ref = datetime.fromisoformat(f"{said}T12:00:00+00:00")
    (m,) = resolve(text, ref, prefer="auto")
    assert m.label == label


def test_a_duration_after_a_past_verb_is_not_a_date() -> None:
    assert resolve("I finished it in two weeks.", SUN, prefer="auto") == []
    assert sentence_tense("I finished it.") == "past" and sentence_tense("I'll finish it.") == "future"
    assert sentence_tense("I'm so excited about it.") is None


def test_resolution_reads_at_most_max_mentions_so_its_work_is_linear():
    """100 kB of time expressions (19.6 s before the cap, as a question_time) resolves to MAX_MENTIONS mentions."""
    from datetime import datetime, timezone

    from memdesk.retrieval.question_time import ASKED_AT_CHARS, parse_asked_at
    from memdesk.timeexpr.resolve import MAX_MENTIONS, resolve

    ref = datetime(2024, 5, 1, tzinfo=timezone.utc)
    found = resolve("yesterday " * 10_000, ref, prefer="auto")
    assert len(found) == MAX_MENTIONS and found[0].span == (0, 9)
    assert parse_asked_at("30 May 2023 " + "yesterday " * 10_000) == datetime(2023, 5, 30, tzinfo=timezone.utc)
    assert parse_asked_at("x" * ASKED_AT_CHARS + " 30 May 2023") is None  # past what is read
