"""The handlers of :mod:`memdesk.timeexpr.resolve`: one per pattern, each turning a match into a calendar span
(:mod:`.spans`) against the reference day, in the direction a :class:`Ctx` gives (the tense around the mention)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from . import spans
from .words import FIRST_IN, MONTHS, TAKES_TIME, count_word, day_number, weekday_index


@dataclass(frozen=True)
class Ctx:
    """How to read an ambiguous form: ``prefer`` for a bare weekday; ``direction`` (from the
    sentence's tense, ``prefer="auto"``) for a day-month without a year and "in <Month>": the
    occurrence before, after, or nearest the reference; ``None`` keeps the reference's year. ``earlier``: the turns
    said just before, where "on the 16th" may have been said with its month ("back on 16 October")."""

    prefer: str = "past"
    direction: Literal["past", "future", "current", "nearest", "recent"] | None = None
    #: what was said just before (earlier turns): a day of the month said alone there may name its month
    earlier: str = ""


#: How far back "current" (a present-tense clause) still reads a date as the occurrence just begun:
#: "From 1 September I'm driving for another firm", said on 8 September, began a week ago.
CURRENT_WINDOW = timedelta(days=31)
#: How far back a month named with no tense at all is still read as the one just past ("Update: only one migraine
#: in February", said in March: the month before); one further back is the coming one.
RECENT_WINDOW = timedelta(days=31)


def directed(candidates: list[date], ref: date, direction: str | None, default: date) -> date:
    """The candidate date that ``direction`` picks relative to ``ref`` ("current": the first one that is
    still ahead or began within :data:`CURRENT_WINDOW`)."""
    if direction == "future":
        return min((d for d in candidates if d >= ref), default=default)
    if direction == "current":
        return min((d for d in candidates if d >= ref - CURRENT_WINDOW), default=default)
    if direction == "past":
        return max((d for d in candidates if d <= ref), default=default)
    if direction == "nearest":
        return min(candidates, key=lambda d: abs((d - ref).days))
    if direction == "recent":  # the one just past if it began within RECENT_WINDOW, else the coming one
        past = [d for d in candidates if ref - RECENT_WINDOW <= d < ref]
        return max(past) if past else directed(candidates, ref, "future", default)
    return default


Handler = Callable[[re.Match[str], date, Ctx], "spans.Span | None"]


def h_ago(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    n, approx = count_word(m["n"])
    return _shift(ref, -n, m["unit"].lower().rstrip("s"), approx)


def h_in(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    if ctx.direction == "past" or FIRST_IN.search(m.string, 0, m.start()) or TAKES_TIME.search(m.string, 0, m.start()):
        # "passed in two weeks", "our first holiday in three years", "start on 12 July and do it in 8 days":
        # how long something takes, not when it is
        return None
    n, approx = count_word(m["n"])
    unit = m["unit"].lower().rstrip("s")
    if unit in ("day", "week") and not approx and n <= 200:
        return spans.day(ref + timedelta(days=n * (7 if unit == "week" else 1)))  # "in two weeks": that day
    return _shift(ref, n, unit, approx)


#: What makes "a day" a rate: "three times a day from today", "once a week from Monday", "10mg a day".
_RATE_BEFORE = re.compile(r"\b(?:times|once|twice|\d+\s*(?:mg|ml|g|km|miles?|hours?|h))\s+$", re.IGNORECASE)


def h_counted_from(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"a week from Friday", "two weeks from today", "a week on Friday", "Wednesday week" (a week after the coming
    Wednesday): the day counted on from the coming weekday (today when it is that weekday), today, tomorrow or
    yesterday ("six weeks from yesterday"); after
    "for" ("for two weeks from tomorrow") the days from that day on; not a rate ("three times a day from today")."""
    if m["n"].lower() == "a" and _RATE_BEFORE.search(m.string, 0, m.start()):
        return None
    base_word = m["wd"].lower()
    if base_word in ("today", "now"):
        base = ref
    elif base_word in ("tomorrow", "yesterday"):
        base = ref + timedelta(days=1 if base_word == "tomorrow" else -1)
    else:
        if not m["n"] and _EVERY.search(m.string, 0, m.start()):
            return None  # "every Monday week": not one day
        base = ref + timedelta(days=(weekday_index(base_word) - ref.weekday()) % 7)
    n, approx = count_word(m["n"]) if m["n"] else (1, False)
    if n > 52 or approx:
        return None
    step = n * (1 if (m["unit"] or "week").lower().startswith("day") else 7)
    if m["n"] and _FOR.search(m.string, 0, m.start()):
        return spans.days(base, base + timedelta(days=step - 1))  # "off sick for two weeks from tomorrow": those days
    return spans.day(base + timedelta(days=step))


_FOR = re.compile(r"\bfor\s+$", re.IGNORECASE)


def _shift(ref: date, n: int, unit: str, approx: bool) -> spans.Span | None:
    if abs(n) > 200:
        return None
    if unit == "day":
        return spans.day(ref + timedelta(days=n), approx)
    if unit == "week":
        return spans.week(ref + timedelta(weeks=n), approx)
    if unit == "month":
        return spans.month(*spans.add_months(ref.year, ref.month, n), approx)
    return spans.year(ref.year + n, approx)


#: A day word in a simile of time ("feels like just yesterday we met", "seems like only yesterday"): no date; not the
#: subject of a clause ("I feel like yesterday was wasted": yesterday itself).
_SIMILE = re.compile(r"\b(?:feels?|felt|seems?|seemed|looks?|looked)\s+like\s+(?:(?:it\s+was|it's|just|only)\s+)*$", re.IGNORECASE)
_SUBJECT_AFTER = re.compile(r"\s+(?:was|were|is|has|had)\b", re.IGNORECASE)


def h_simple(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    if _SIMILE.search(m.string, 0, m.start()) and not _SUBJECT_AFTER.match(m.string, m.end()):
        return None
    w = " ".join(m[0].lower().split())
    if w in ("the day before yesterday",):
        return spans.day(ref - timedelta(days=2))
    if w in ("the day after tomorrow",):
        return spans.day(ref + timedelta(days=2))
    if w in ("yesterday", "last night"):
        return spans.day(ref - timedelta(days=1))
    if w == "tomorrow":
        return spans.day(ref + timedelta(days=1))
    return spans.day(ref)  # today, tonight, this morning/afternoon/evening, earlier today


def h_rel_period(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    which = " ".join(m["which"].lower().split())
    unit = m["unit"].lower()
    if unit == "week" and which == "this" and ref.weekday() == 6 and ctx.direction in ("future", "current"):
        return spans.week(ref + timedelta(days=1))  # "this week", said on a Sunday of what is ahead: the coming one
    step = {"last": -1, "past": -1, "this past": -1, "previous": -1, "this": 0, "earlier this": 0,
            "later this": 0, "next": 1, "the coming": 1, "the following": 1}[which]  # fmt: skip
    if which == "past" and unit != "weekend":  # "in the past week": the stretch up to now, not the calendar week before
        y, mo = spans.add_months(ref.year, ref.month, -12 if unit == "year" else -1)
        start = ref - timedelta(weeks=1) if unit == "week" else date(y, mo, min(ref.day, calendar.monthrange(y, mo)[1]))
        return start, ref + timedelta(days=1), "approx", f"the past {unit} up to {ref.isoformat()}", True
    if unit == "week":
        return spans.week(ref + timedelta(weeks=step))
    if unit == "weekend":
        sat = spans.monday(ref) + timedelta(days=5)
        if which == "next" and ref.weekday() < 4:
            step = 0  # "next weekend", said from Monday to Thursday: the next one to come, this week's
        return spans.weekend(sat + timedelta(weeks=step))
    if unit == "month":
        return spans.month(*spans.add_months(ref.year, ref.month, step))
    return spans.year(ref.year + step)


def h_week_before_last(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    return spans.week(ref - timedelta(weeks=2))


def h_over_weekend(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    sat = spans.monday(ref) + timedelta(days=5)
    return spans.weekend(sat - timedelta(weeks=1) if sat > ref else sat)


_RECURRING = re.compile(r"\s+(?:mornings|afternoons|evenings|nights)\b", re.IGNORECASE)


#: Words before a weekday that make it no date of its own: every one ("every Thursday"), or one of a week the talk
#: is about ("the same week, on the Friday", "the Saturday after").
_EVERY = re.compile(r"\b(?:every|each|most|all|other|some|any|one|black|cyber|the|that|a)\s+$", re.IGNORECASE)
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
#: A run or list of weekdays is a schedule ("She works Thursday to Saturday", "open Monday and Friday").
_SCHEDULE_AFTER = re.compile(rf"\s*(?:to|through|till|until|-|\u2013|and|or|&|,)\s*{_DAYS}", re.IGNORECASE)
_SCHEDULE_BEFORE = re.compile(rf"{_DAYS}\s*(?:to|through|till|until|-|\u2013|and|or|&|,)\s*$", re.IGNORECASE)
_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)
#: A weekday as a noun with a determiner and an adjective: "the only Saturday they had left", "a free Friday", "the
#: first Monday": one of many, not a date.
_DET_ADJ = re.compile(
    r"\b(?:the|a|an|that|one|any|every|each|no)\s+(?:only|first|second|third|fourth|final|last|same|following|previous|"
    r"free|spare|whole|entire|long|rainy|sunny|quiet|busy|particular|usual|typical|normal|single|odd)\s+$",
    re.IGNORECASE,
)
#: Words that may follow a weekday or a period that is a date ("due Thursday night", "a ride Saturday with Tom",
#: "Friday is free", "mid-week at the latest"); another lower-case word makes it a modifier of a noun ("Monday
#: production", "Friday meetings", "two mid-week rides"): a routine, not a date.
AFTER_DATE = frozenset(
    """
    morning mornings afternoon evening night noon midnight lunch lunchtime dinner breakfast week at and but so because cause
    for from to till until in with when as or then instead which too already now is was will would works suits could
    should might i we you he she they it is are if after before by on this that the our my his her their
    """.split()
)
NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
_COPULA = re.compile(r"(?:\b(?:is|are|was|were|be)|['\u2019]s)\s+(?:now\s+|still\s+|always\s+)?$", re.IGNORECASE)


def h_bare_weekday(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """A weekday with no word before it ("report due Thursday", "a long ride Saturday", "limping since Sunday"), not
    "every Thursday", "on the Friday" of another week, or a schedule ("Thursday to Saturday")."""
    s, text = m.start(), m.string
    if _EVERY.search(text, 0, s) or _SCHEDULE_AFTER.match(text, m.end()) or _SCHEDULE_BEFORE.search(text, 0, s):
        return None
    if _DET_ADJ.search(text, 0, s):
        return None
    nxt = NEXT_WORD.match(text, m.end())
    if nxt and nxt[1].islower() and nxt[1] not in AFTER_DATE:
        return None  # "Monday production in December": which day it is done on, every week
    if (c := _COPULA.search(text, 0, s)) is not None:
        if c[0].split()[0].lower() in ("was", "were") and "always" not in c[0].lower():
            return h_weekday(m, ref, Ctx(prefer="past"))  # "The wedding was Saturday", "last day was Friday": that day
        return None  # "My day off is Sunday": a weekday said of a routine as often as of one day; no date rather than a guess
    if _SINCE.search(text, 0, s):  # what began "since Sunday" began on the last one
        return h_weekday(m, ref, Ctx(prefer="past"))
    return h_weekday(m, ref, ctx)


def h_weekday(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    which = " ".join(((m.groupdict().get("which")) or "").lower().split())
    if not which and _RECURRING.match(m.string, m.end()):
        return None  # "on Saturday mornings": every Saturday, not a date
    wd = weekday_index(m["wd"])
    if which in ("last", "past", "this past"):
        back = (ref.weekday() - wd) % 7 or 7
        return spans.day(ref - timedelta(days=back))
    if which in ("next", "after next"):  # "next Monday": the Monday of next week; "Monday after next": of the week after
        return spans.day(spans.monday(ref) + timedelta(weeks=1 if which == "next" else 2, days=wd))
    if which == "this" and ctx.direction == "past":  # "I missed choir this Monday", said on Thursday: this week's
        return spans.day(ref - timedelta(days=(ref.weekday() - wd) % 7))
    if which in ("this", "this coming", "coming"):
        return spans.day(ref + timedelta(days=(wd - ref.weekday()) % 7))
    # bare "on Friday"
    if ctx.prefer == "future":
        return spans.day(ref + timedelta(days=(wd - ref.weekday()) % 7 or 7))
    back = (ref.weekday() - wd) % 7 or 7
    return spans.day(ref - timedelta(days=back))


def h_season(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    which = (m["which"] or "").lower()
    name = m["season"].lower()
    cur = spans.season_containing(name, ref)  # current or upcoming occurrence
    cs, ce, _ = spans.season_bounds(name, cur)
    if which in ("last", "past", "this past"):
        year = cur - 1
    elif which == "next":
        year = cur + 1 if cs <= ref else cur
    else:  # this
        year = ref.year - 1 if name == "winter" and ref.month <= 2 else ref.year
    if m["year"]:
        year = int(m["year"])
    return spans.season(name, year)


def h_season_year(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    return spans.season(m["season"].lower(), int(m["y"]))


#: What makes "the last two days" the time before now: a preposition before it ("in the last two days", "for the last
#: week"), or a clause that narrates or is perfect ("It rained the last three days", "I've been ill the last two days").
_BEFORE_NOW = re.compile(r"\b(?:in|for|over|during|within|from|since|throughout|across)\s+$", re.IGNORECASE)
_PERFECT_OR_PAST = re.compile(r"\b(?:have|has|had|was|were|'ve|'d)\b|\b[a-z]{3,}ed\b", re.IGNORECASE)


def h_past_n(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    if m[0].lower().startswith("the last") and not _BEFORE_NOW.search(m.string, 0, m.start()) and not (
        _PERFECT_OR_PAST.search(m.string, 0, m.start())
    ):
        return None  # "which leaves the last two days for proofreading": the final days of a stretch, not the past ones
    n, _ = count_word(m["n"])
    unit = m["unit"].lower().rstrip("s")
    if n > 200:
        return None
    if unit == "day":
        start = ref - timedelta(days=n)
    elif unit == "week":
        start = ref - timedelta(weeks=n)
    else:
        y, mo = spans.add_months(ref.year, ref.month, -n * (12 if unit == "year" else 1))
        start = date(y, mo, min(ref.day, calendar.monthrange(y, mo)[1]))
    words = " ".join(m["n"].lower().split()).removeprefix("a ")
    return start, ref + timedelta(days=1), "approx", f"the past {words} {unit}s up to {ref.isoformat()}", True


def h_month_rel(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    which = (m["which"] or "").lower()
    mon = MONTHS[m["month"].lower().rstrip(".")]
    if which == "last":
        year = ref.year if mon < ref.month else ref.year - 1
    elif which == "next":
        year = ref.year + 1  # "next June": the June of next year, as "next Friday" is the Friday of next week
    else:
        # "in January": compare month starts, so the current month counts as both before and after
        here = date(ref.year, ref.month, 1)
        options = [date(ref.year + dy, mon, 1) for dy in (-1, 0, 1)]
        year = directed(options, here, ctx.direction, date(ref.year, mon, 1)).year
    return spans.month(year, mon)


def _valid_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def h_iso(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return spans.day(d) if d else None


def h_us_numeric(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return spans.day(d) if d else None


#: A weekday that a date is said to be: "the only Saturday they had free was 27 September", "Sunday is 4 May".
_COPULA_WEEKDAY = re.compile(
    r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b[^.;:!?]{0,40}?\b(?:is|was|will be|would be)\s+"
    r"(?:on\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)


def h_mdy(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    day = day_number(m["d"])
    month = MONTHS[m["month"].lower().rstrip(".")]
    year = int(m["y"]) if m["y"] else ref.year
    d = _valid_day(year, month, day)
    if d is not None and not m["y"]:
        # "on 5 December" said in May: the one before when narrated, the one after when planned; "Thursday 12 March":
        # the year in which that day is a Thursday (one of three years in a row at most)
        options = [x for x in (_valid_day(year + dy, month, day) for dy in (-1, 0, 1)) if x is not None]
        wd = m["dwd"] or ((c := _COPULA_WEEKDAY.search(m.string, 0, m.start())) and c["wd"])
        named = [x for x in options if wd and x.weekday() == weekday_index(wd)]
        d = named[0] if len(named) == 1 else directed(options, ref, ctx.direction, d)
    return spans.day(d) if d else None


def h_month_year(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    return spans.month(int(m["y"]), MONTHS[m["month"].lower().rstrip(".")])


def h_month_of_year(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"October next year", "next year, in June", "3 May last year": the month (or day) in the year the words name."""
    if m["month"] == "may":
        return None  # "next year may be ...": the verb
    year = ref.year + {"last": -1, "this": 0, "next": 1}[m["which"].lower()]
    mon = MONTHS[m["month"].lower().rstrip(".")]
    if m["d"]:
        d = _valid_day(year, mon, day_number(m["d"]))
        return spans.day(d) if d else None
    return spans.month(year, mon)


def h_year(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    return spans.year(int(m["y"]))


_APPROX = {"the other day": (7, "a few days before"), "a while ago": (365, "some time before"), "a while back": (365, "some time before")}


def h_approx(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    days, label = _APPROX.get(" ".join(m[0].lower().split()), (30, "shortly before"))
    return spans.approx(ref, days, label)


