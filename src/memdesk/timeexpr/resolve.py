"""Relative-time resolution: turn "yesterday" or "last summer" into absolute anchors.

:func:`resolve` finds the time expressions in a text and resolves each against a reference time
(the message's timestamp); :func:`main_anchor` picks the one that best dates the message. Both are
pure and deterministic: the same text and reference always give the same mentions.

Conventions (chosen, documented, tested):

* Weeks start on Monday. "last week" is the Monday-to-Sunday week before the reference's week;
  its label is ``week of <that Monday>``.
* "last weekend" (also "this past weekend", "the past weekend") is the Saturday-Sunday just
  before the reference's week; "this weekend" is the weekend of the reference's week; "next
  weekend" the one after; "over/on the weekend" is the most recent weekend that has begun.
* "last Friday" is the most recent Friday strictly before the reference day; "this Saturday" is
  the next Saturday on or after the reference day; "next Monday" is the Monday of the following
  week. A bare "on Friday" is read as the most recent past Friday (narrated memories are mostly
  past; pass ``prefer="future"`` to read it as the next one).
* "N days/weeks/months/years ago" subtracts N units; day counts resolve to a day, week counts
  to the week that contains the shifted day, month counts to a calendar month, year counts to a
  calendar year. Number words: "a"/"an"/"one" = 1 ... "twenty" = 20; "a couple of" = 2,
  "a few" = 3 and "several" = 3, and those three are marked ``approximate`` (label "about ...").
* "last summer" is the most recent summer that ended before the reference; "this summer" the
  summer of the reference year; "next summer" the first one that starts after the reference.
  Seasons are meteorological (northern): spring Mar-May, summer Jun-Aug, autumn/fall Sep-Nov,
  winter Dec-Feb (labelled with both years, e.g. ``winter 2022/23``).
* "recently", "lately", "the other day", "a while ago" are ``approx``: an interval ending at the
  reference day (7 days back for "the other day", 30 for "recently"/"lately", 365 for "a while
  ago"), labelled e.g. ``shortly before 2023-05-08``.
* Explicit dates: "May 7, 2023", "7 May 2023", "7 May, 2023", "May 7th", "2023-05-07", "5/7/2023"
  (US order), "June 2022", "in 2019". A day-month without a year takes the reference's year.

``start`` is the first instant of the interval and ``end`` the first instant after it (exclusive),
both in the reference's timezone (naive if the reference is naive).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from . import spans
from .spans import Granularity
from .words import DATED_WEEKDAY, DAY_RE, MONTH_RE, MONTHS, NUM_RE, SEASON_RE, UNIT_RE, WEEKDAY_RE, YEAR_RE
from .words import FIRST_IN, clause_tense, count_word, sentence_tense, weekday_index


__all__ = ["Granularity", "TimeMention", "resolve", "main_anchor", "format_anchor", "sentence_tense"]


class TimeMention(BaseModel):
    """One time expression found in a text, resolved to an absolute interval."""

    model_config = ConfigDict(frozen=True)

    text: str
    span: tuple[int, int]
    start: datetime
    end: datetime | None
    granularity: Granularity
    label: str
    approximate: bool = False


# --- handlers (one per pattern) ----------------------------------------------------------------

@dataclass(frozen=True)
class _Ctx:
    """How to read an ambiguous form: ``prefer`` for a bare weekday; ``direction`` (from the
    sentence's tense, ``prefer="auto"``) for a day-month without a year and "in <Month>": the
    occurrence before, after, or nearest the reference; ``None`` keeps the reference's year."""

    prefer: str = "past"
    direction: Literal["past", "future", "current", "nearest"] | None = None


#: How far back "current" (a present-tense clause) still reads a date as the occurrence just begun:
#: "From 1 September I'm driving for another firm", said on 8 September, began a week ago.
CURRENT_WINDOW = timedelta(days=31)


def _directed(candidates: list[date], ref: date, direction: str | None, default: date) -> date:
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
    return default


Handler = Callable[[re.Match[str], date, _Ctx], "spans.Span | None"]


def _h_ago(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    n, approx = count_word(m["n"])
    return _shift(ref, -n, m["unit"].lower().rstrip("s"), approx)


def _h_in(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    if ctx.direction == "past" or FIRST_IN.search(m.string, 0, m.start()):
        return None  # "passed in two weeks", "our first holiday in three years": a duration, not a date
    n, approx = count_word(m["n"])
    return _shift(ref, n, m["unit"].lower().rstrip("s"), approx)


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


def _h_simple(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
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


def _h_rel_period(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    which = " ".join(m["which"].lower().split())
    unit = m["unit"].lower()
    step = {"last": -1, "past": -1, "this past": -1, "previous": -1, "this": 0, "earlier this": 0,
            "later this": 0, "next": 1, "the coming": 1, "the following": 1}[which]  # fmt: skip
    if unit == "week":
        return spans.week(ref + timedelta(weeks=step))
    if unit == "weekend":
        sat = spans.monday(ref) + timedelta(days=5)
        return spans.weekend(sat + timedelta(weeks=step))
    if unit == "month":
        return spans.month(*spans.add_months(ref.year, ref.month, step))
    return spans.year(ref.year + step)


def _h_week_before_last(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    return spans.week(ref - timedelta(weeks=2))


def _h_over_weekend(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    sat = spans.monday(ref) + timedelta(days=5)
    return spans.weekend(sat - timedelta(weeks=1) if sat > ref else sat)


_RECURRING = re.compile(r"\s+(?:mornings|afternoons|evenings|nights)\b", re.IGNORECASE)


def _h_weekday(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    which = (m["which"] or "").lower()
    if not which and _RECURRING.match(m.string, m.end()):
        return None  # "on Saturday mornings": every Saturday, not a date
    wd = weekday_index(m["wd"])
    if which in ("last", "past", "this past"):
        back = (ref.weekday() - wd) % 7 or 7
        return spans.day(ref - timedelta(days=back))
    if which == "next":
        return spans.day(spans.monday(ref) + timedelta(weeks=1, days=wd))
    if which in ("this", "this coming", "coming"):
        return spans.day(ref + timedelta(days=(wd - ref.weekday()) % 7))
    # bare "on Friday"
    if ctx.prefer == "future":
        return spans.day(ref + timedelta(days=(wd - ref.weekday()) % 7 or 7))
    back = (ref.weekday() - wd) % 7 or 7
    return spans.day(ref - timedelta(days=back))


def _h_season(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
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


def _h_season_year(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    return spans.season(m["season"].lower(), int(m["y"]))


def _h_past_n(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
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


def _h_month_rel(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    which = (m["which"] or "").lower()
    mon = MONTHS[m["month"].lower().rstrip(".")]
    if which == "last":
        year = ref.year if mon < ref.month else ref.year - 1
    elif which == "next":
        year = ref.year if mon > ref.month else ref.year + 1
    else:
        # "in January": compare month starts, so the current month counts as both before and after
        here = date(ref.year, ref.month, 1)
        options = [date(ref.year + dy, mon, 1) for dy in (-1, 0, 1)]
        year = _directed(options, here, ctx.direction, date(ref.year, mon, 1)).year
    return spans.month(year, mon)


def _valid_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _h_iso(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return spans.day(d) if d else None


def _h_us_numeric(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return spans.day(d) if d else None


def _h_mdy(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    day = int(re.sub(r"\D", "", m["d"]))
    month = MONTHS[m["month"].lower().rstrip(".")]
    year = int(m["y"]) if m["y"] else ref.year
    d = _valid_day(year, month, day)
    if d is not None and not m["y"]:
        # "on 5 December" said in May: the one before when narrated, the one after when planned; "Thursday 12 March":
        # the year in which that day is a Thursday (one of three years in a row at most)
        options = [x for x in (_valid_day(year + dy, month, day) for dy in (-1, 0, 1)) if x is not None]
        named = [x for x in options if m["dwd"] and x.weekday() == weekday_index(m["dwd"])]
        d = named[0] if len(named) == 1 else _directed(options, ref, ctx.direction, d)
    return spans.day(d) if d else None


def _h_month_year(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    return spans.month(int(m["y"]), MONTHS[m["month"].lower().rstrip(".")])


def _h_year(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    return spans.year(int(m["y"]))


_APPROX = {"the other day": (7, "a few days before"), "a while ago": (365, "some time before"), "a while back": (365, "some time before")}


def _h_approx(m: re.Match[str], ref: date, ctx: _Ctx) -> spans.Span | None:
    days, label = _APPROX.get(" ".join(m[0].lower().split()), (30, "shortly before"))
    return spans.approx(ref, days, label)


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE)


# Order matters: earlier patterns win overlapping spans (longer, more specific forms first).
_RULES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_p(r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})"), _h_iso),
    (_p(r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})"), _h_us_numeric),
    # a weekday written with a date ("Saturday 13 July", "Fri, 16 Feb") is part of that one mention
    (_p(rf"{DATED_WEEKDAY}(?P<d>{DAY_RE})(?:\s+of)?\s+(?P<month>{MONTH_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), _h_mdy),
    (_p(rf"{DATED_WEEKDAY}(?P<month>{MONTH_RE})\s+(?P<d>{DAY_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), _h_mdy),
    (_p(rf"(?P<month>{MONTH_RE}),?\s+(?:of\s+)?(?P<y>{YEAR_RE})"), _h_month_year),
    (_p(rf"(?P<season>{SEASON_RE})(?:\s+of)?\s+(?P<y>{YEAR_RE})"), _h_season_year),
    (_p(r"the day before yesterday|the day after tomorrow"), _h_simple),
    (_p(rf"(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})\s+(?:ago|back|before now)"), _h_ago),
    (_p(rf"in\s+(?:about\s+|around\s+)?(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})(?:'?s)?(?:\s+time)?"), _h_in),
    (_p(r"the week before last"), _h_week_before_last),
    (_p(rf"(?:the\s+)?(?:past|last)\s+(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})"), _h_past_n),
    (_p(r"(?P<which>this past|last|past|previous|this|next|earlier this|later this|the coming|the following)\s+(?P<unit>weekend|week|month|year)"), _h_rel_period),
    (_p(r"(?:over|on|during)\s+the\s+weekend"), _h_over_weekend),
    (_p(rf"(?:(?P<which>this past|last|past|this coming|coming|this|next)\s+|on\s+)(?P<wd>{WEEKDAY_RE})"), _h_weekday),
    (_p(rf"(?:(?P<which>this past|last|past|this|next)\s+)(?P<season>{SEASON_RE})(?:\s+(?P<year>{YEAR_RE}))?"), _h_season),
    (_p(r"(?:(?P<which>last|this|next)\s+|in\s+)(?P<month>january|february|march|april|june|july|august|september|october|november|december|may)"), _h_month_rel),
    (_p(r"yesterday|last night|tomorrow|today|tonight|this morning|this afternoon|this evening|earlier today"), _h_simple),
    (_p(rf"(?:in|since|from|during|of|back in|until|by|around|before|after)\s+(?P<y>{YEAR_RE})"), _h_year),
    (_p(r"recently|lately|the other day|a while (?:ago|back)|not long ago"), _h_approx),
)


#: Words that make a date the start of a state that may have begun: "from 1 October", "since 3 May", "starting 2 June".
_STARTS = re.compile(r"\b(?:from|since|starting(?: on| from)?|as of|beginning(?: on)?|effective)\s+(?:the\s+)?$", re.IGNORECASE)

#: Handlers whose year (or direction) depends on the tense around the mention.
_DIRECTED = frozenset({_h_mdy, _h_month_rel, _h_weekday})


def _at(d: date, ref: datetime) -> datetime:
    return datetime.combine(d, time(0), tzinfo=ref.tzinfo)


MAX_MENTIONS = 64
"""The most time expressions :func:`resolve` reads from one text (bounded work on any input: linear in its length)."""


def resolve(
    text: str, ref: datetime, *, prefer: Literal["past", "future", "auto"] = "past"
) -> list[TimeMention]:
    """All time expressions in ``text``, resolved against ``ref``, in text order.

    Overlapping matches are settled by rule order (explicit dates first, then the longer relative
    forms), so "the day before yesterday" is one mention, not two. ``prefer`` reads a bare
    weekday as the last or the next one; ``"auto"`` takes the direction from the tense of
    ``text`` (:func:`sentence_tense`; pass one sentence) and also applies it to a day-month
    without a year and to "in <Month>" (nearest occurrence that way), and reads "in two weeks"
    after a past verb as a duration, not a date. With no tense cue ``"auto"`` reads like
    ``"past"``. At most :data:`MAX_MENTIONS` mentions are read (the first rules' first).
    """
    ref_day = ref.date()
    if prefer == "auto":
        tense = sentence_tense(text)
        ctx = _Ctx(prefer=tense or "past", direction=tense or "nearest")
    else:
        ctx = _Ctx(prefer=prefer)
    auto = prefer == "auto"
    taken: list[tuple[int, int]] = []
    found: list[TimeMention] = []
    for pattern, handler in _RULES:
        if len(found) >= MAX_MENTIONS:  # taken stays short, so the overlap test below is O(1) per match
            break
        for m in pattern.finditer(text):
            if len(found) >= MAX_MENTIONS:
                break
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            here = ctx
            if auto and handler in _DIRECTED:
                # the clause around a day-month or a month decides its year: "I accepted a position,
                # starting on 15 April" (said in March) is the coming April, not the last one
                tense = clause_tense(text, (s, e))
                if tense == "present" or (tense is None and handler is not _h_weekday):
                    # no cue that it is past: the date a person infers is the coming one; one just begun only
                    # when it starts a state ("from 1 October I'm driving for ..."), not for a day something
                    # happens on ("The review is pencilled in for 14 January", said on 10 February)
                    here = _Ctx(prefer="future", direction="current" if _STARTS.search(text, 0, s) else "future")
                else:
                    here = _Ctx(prefer=tense or "past", direction=tense or "nearest")
            try:
                res = handler(m, ref_day, here)
            except (OverflowError, ValueError):  # past the calendar's ends (year 1 or 9999)
                res = None
            if res is None:
                continue
            start, end, gran, label, approx = res
            taken.append((s, e))
            mention = TimeMention(
                text=m[0], span=(s, e), start=_at(start, ref), end=_at(end, ref),
                granularity=gran, label=label, approximate=approx,
            )  # fmt: skip
            found.append(mention)
    found.sort(key=lambda t: t.span)
    return found


def main_anchor(mentions: list[TimeMention]) -> TimeMention | None:
    """The mention that best dates the text: the first exact one, else the first approximate one."""
    if not mentions:
        return None
    exact = [t for t in mentions if not t.approximate]
    return (exact or mentions)[0]


def format_anchor(mention: TimeMention | None, ref: datetime) -> str:
    """A human-readable absolute anchor: the mention's label, or the reference day if none."""
    return mention.label if mention is not None else ref.date().isoformat()
