"""The words and patterns of time expressions, for :mod:`memdesk.timeexpr.resolve`: month, weekday, season and
number words and the regular-expression pieces its rules are built from; the tense cues that tell a narrated
sentence from a planned one are in :mod:`memdesk.timeexpr.tense`."""

from __future__ import annotations

import calendar
import re

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
#: A month's full name, capitalised (so the modal "may" is not May): a regular-expression alternation, and one
#: without May (which before a number may be the verb: "May 3 of us come?").
MONTH_NAME_RE = "(?:" + "|".join(calendar.month_name[1:]) + ")"
MONTH_NAME_NOT_MAY_RE = "(?:" + "|".join(m for m in calendar.month_name[1:] if m != "May") + ")"
MONTH_NAME = re.compile(rf"\b({MONTH_NAME_RE})\b")
#: A weekday's full name, capitalised ("Monday" ... "Sunday"): a regular-expression alternation.
WEEKDAY_NAME_RE = "(?:" + "|".join(calendar.day_name) + ")"
_WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
#: The weekdays' names and abbreviations, lower-cased.
WEEKDAY_WORDS = frozenset(_WEEKDAYS) | frozenset(d.lower() for d in calendar.day_abbr) | {"tues", "thurs", "thur"}


def weekday_index(word: str) -> int:
    """0 (Monday) .. 6 (Sunday) for a day name or its usual abbreviation ("Tues", "Thurs.")."""
    w = word.lower().rstrip(".")
    return next(i for name, i in _WEEKDAYS.items() if name.startswith(w[:3]))


_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
_APPROX_NUMBERS = {"a couple of", "a couple", "couple of", "a few", "few", "several"}
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

# a full name, or an abbreviation with an optional period (so "in April." leaves the sentence's period alone)
MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?)"
)
WEEKDAY_RE = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|(?:mon|tues|tue|wed|thurs|thur|thu|fri|sat)\.?)"
)  # "sun" is left out: "this sun" is rarely a Sunday
DATED_WEEKDAY = rf"(?:(?P<dwd>{WEEKDAY_RE}),?\s+(?:the\s+)?)?"  # "Thursday 12 March": the weekday names the year
NUM_RE = (
    r"(?:\d{1,3}|a couple of|a couple|couple of|a few|few|several|twenty|nineteen|eighteen|seventeen|"
    r"sixteen|fifteen|fourteen|thirteen|twelve|eleven|ten|nine|eight|seven|six|five|four|three|two|one|an|a)"
)
UNIT_RE = r"(?:day|week|month|year)s?"
SEASON_RE = r"(?:spring|summer|autumn|fall|winter)"
DAY_RE = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
YEAR_RE = r"(?:19|20)\d{2}"


def day_number(day: str) -> int:
    """The number of a day of the month as written ("16", "3rd")."""
    return int(re.sub(r"\D", "", day))


def count_word(word: str) -> tuple[int, bool]:
    """The number a count ("3", "two", "a few") stands for, and whether it is approximate."""
    w = " ".join(word.lower().split())
    if w.isdigit():
        return int(w), False
    return _NUMBERS[w], w in _APPROX_NUMBERS


#: What makes "in <n> <units>" a duration, not a date: a first or a superlative before it ("our first holiday in
#: three years", "the best night in months").
FIRST_IN = re.compile(r"\b(?:first|only|best|worst|longest|biggest|hardest|happiest)\b(?:\s+[\w'-]+){0,4}\s*$", re.IGNORECASE)
#: What makes "in <n> <units>" how long something takes: a verb of getting something done and its object just before
#: ("do it in 8 days", "finish the course in three weeks", "walked the whole route in five days"). A progressive is an
#: arrangement and dates it ("I'm doing my exam in two weeks"), so "-ing" forms are not here.
TAKES_TIME = re.compile(
    r"\b(?:do|did|done|finish|finished|complete|completed|cover|covered|walk|walked|hike|hiked|cycle|cycled|ride|rode|"
    r"ridden|read|write|wrote|written|build|built|make|made|learn|learned|learnt|fix|fixed|clean|cleaned|paint|painted|"
    r"solve|solved|cook|cooked|knit|knitted|sew|sewed|get through|got through|pay off|paid off|drive|drove|driven)\b"
    r"(?:\s+(?!(?:is|are|am|was|were|be|will|on|at)\b)[\w'-]+){1,4}\s+$",
    re.IGNORECASE,
)
