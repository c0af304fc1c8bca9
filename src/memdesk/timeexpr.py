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

Granularity = Literal["day", "week", "weekend", "month", "season", "year", "approx"]

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


# --- vocabulary --------------------------------------------------------------------------------

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTHS["sept"] = 9
_WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}


def _weekday(word: str) -> int:
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
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

# a full name, or an abbreviation with an optional period (so "in April." leaves the sentence's period alone)
_MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?)"
)
_WEEKDAY_RE = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|(?:mon|tues|tue|wed|thurs|thur|thu|fri|sat)\.?)"
)  # "sun" is left out: "this sun" is rarely a Sunday
_DATED_WEEKDAY = rf"(?:{_WEEKDAY_RE},?\s+(?:the\s+)?)?"
_NUM_RE = (
    r"(?:\d{1,3}|a couple of|a couple|couple of|a few|few|several|twenty|nineteen|eighteen|seventeen|"
    r"sixteen|fifteen|fourteen|thirteen|twelve|eleven|ten|nine|eight|seven|six|five|four|three|two|one|an|a)"
)
_UNIT_RE = r"(?:day|week|month|year)s?"
_SEASON_RE = r"(?:spring|summer|autumn|fall|winter)"
_DAY_RE = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR_RE = r"(?:19|20)\d{2}"


# --- calendar arithmetic -----------------------------------------------------------------------


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    idx = year * 12 + (month - 1) + delta
    return idx // 12, idx % 12 + 1


def _month_bounds(year: int, month: int) -> tuple[date, date]:
    ny, nm = _add_months(year, month, 1)
    return date(year, month, 1), date(ny, nm, 1)


def _season_bounds(name: str, year: int) -> tuple[date, date, str]:
    """The season that starts in ``year`` (winter starts in December of ``year``)."""
    m = _SEASONS[name]
    start = date(year, m, 1)
    ey, em = _add_months(year, m, 3)
    label_name = "autumn" if name == "fall" else name
    label = f"winter {year}/{str(year + 1)[2:]}" if name == "winter" else f"{label_name} {year}"
    return start, date(ey, em, 1), label


def _season_containing(name: str, d: date) -> int:
    """Start year of the ``name`` season whose occurrence is current or upcoming at ``d``."""
    for y in (d.year - 1, d.year, d.year + 1):
        _s, e, _ = _season_bounds(name, y)
        if e > d:
            return y
    return d.year + 1  # pragma: no cover - unreachable


# --- results -----------------------------------------------------------------------------------

_Res = tuple[date, date, Granularity, str, bool]  # start, end (exclusive), granularity, label, approximate


def _day(d: date, approx: bool = False) -> _Res:
    return d, d + timedelta(days=1), "day", ("about " if approx else "") + d.isoformat(), approx


def _week(d: date, approx: bool = False) -> _Res:
    m = _monday(d)
    return m, m + timedelta(days=7), "week", ("about " if approx else "") + f"week of {m.isoformat()}", approx


def _weekend(sat: date) -> _Res:
    return sat, sat + timedelta(days=2), "weekend", f"weekend of {sat.isoformat()}", False


def _month(year: int, month: int, approx: bool = False) -> _Res:
    s, e = _month_bounds(year, month)
    return s, e, "month", ("about " if approx else "") + f"{calendar.month_name[month]} {year}", approx


def _year(year: int, approx: bool = False) -> _Res:
    return date(year, 1, 1), date(year + 1, 1, 1), "year", ("about " if approx else "") + str(year), approx


def _season(name: str, year: int) -> _Res:
    s, e, label = _season_bounds(name, year)
    return s, e, "season", label, False


def _approx(ref: date, days_back: int, label: str) -> _Res:
    return ref - timedelta(days=days_back), ref + timedelta(days=1), "approx", f"{label} {ref.isoformat()}", True


# --- handlers (one per pattern) ----------------------------------------------------------------

@dataclass(frozen=True)
class _Ctx:
    """How to read an ambiguous form: ``prefer`` for a bare weekday; ``direction`` (from the
    sentence's tense, ``prefer="auto"``) for a day-month without a year and "in <Month>": the
    occurrence before, after, or nearest the reference; ``None`` keeps the reference's year."""

    prefer: str = "past"
    direction: Literal["past", "future", "nearest"] | None = None


def _directed(candidates: list[date], ref: date, direction: str | None, default: date) -> date:
    """The candidate date that ``direction`` picks relative to ``ref``."""
    if direction == "future":
        return min((d for d in candidates if d >= ref), default=default)
    if direction == "past":
        return max((d for d in candidates if d <= ref), default=default)
    if direction == "nearest":
        return min(candidates, key=lambda d: abs((d - ref).days))
    return default


Handler = Callable[[re.Match[str], date, _Ctx], "_Res | None"]


def _num(word: str) -> tuple[int, bool]:
    w = " ".join(word.lower().split())
    if w.isdigit():
        return int(w), False
    return _NUMBERS[w], w in _APPROX_NUMBERS


def _h_ago(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    n, approx = _num(m["n"])
    return _shift(ref, -n, m["unit"].lower().rstrip("s"), approx)


def _h_in(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    if ctx.direction == "past":
        return None  # "passed in two weeks": a duration, not a date
    n, approx = _num(m["n"])
    return _shift(ref, n, m["unit"].lower().rstrip("s"), approx)


def _shift(ref: date, n: int, unit: str, approx: bool) -> _Res | None:
    if abs(n) > 200:
        return None
    if unit == "day":
        return _day(ref + timedelta(days=n), approx)
    if unit == "week":
        return _week(ref + timedelta(weeks=n), approx)
    if unit == "month":
        return _month(*_add_months(ref.year, ref.month, n), approx)
    return _year(ref.year + n, approx)


def _h_simple(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    w = " ".join(m[0].lower().split())
    if w in ("the day before yesterday",):
        return _day(ref - timedelta(days=2))
    if w in ("the day after tomorrow",):
        return _day(ref + timedelta(days=2))
    if w in ("yesterday", "last night"):
        return _day(ref - timedelta(days=1))
    if w == "tomorrow":
        return _day(ref + timedelta(days=1))
    return _day(ref)  # today, tonight, this morning/afternoon/evening, earlier today


def _h_rel_period(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    which = " ".join(m["which"].lower().split())
    unit = m["unit"].lower()
    step = {"last": -1, "past": -1, "this past": -1, "previous": -1, "this": 0, "earlier this": 0,
            "later this": 0, "next": 1, "the coming": 1, "the following": 1}[which]  # fmt: skip
    if unit == "week":
        return _week(ref + timedelta(weeks=step))
    if unit == "weekend":
        sat = _monday(ref) + timedelta(days=5)
        return _weekend(sat + timedelta(weeks=step))
    if unit == "month":
        return _month(*_add_months(ref.year, ref.month, step))
    return _year(ref.year + step)


def _h_week_before_last(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    return _week(ref - timedelta(weeks=2))


def _h_over_weekend(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    sat = _monday(ref) + timedelta(days=5)
    if sat > ref:
        sat -= timedelta(weeks=1)
    return _weekend(sat)


def _h_weekday(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    which = (m["which"] or "").lower()
    wd = _weekday(m["wd"])
    if which in ("last", "past", "this past"):
        back = (ref.weekday() - wd) % 7 or 7
        return _day(ref - timedelta(days=back))
    if which == "next":
        return _day(_monday(ref) + timedelta(weeks=1, days=wd))
    if which in ("this", "this coming", "coming"):
        return _day(ref + timedelta(days=(wd - ref.weekday()) % 7))
    # bare "on Friday"
    if ctx.prefer == "future":
        return _day(ref + timedelta(days=(wd - ref.weekday()) % 7 or 7))
    back = (ref.weekday() - wd) % 7 or 7
    return _day(ref - timedelta(days=back))


def _h_season(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    which = (m["which"] or "").lower()
    name = m["season"].lower()
    cur = _season_containing(name, ref)  # current or upcoming occurrence
    cs, ce, _ = _season_bounds(name, cur)
    if which in ("last", "past", "this past"):
        year = cur - 1
    elif which == "next":
        year = cur + 1 if cs <= ref else cur
    else:  # this
        year = ref.year - 1 if name == "winter" and ref.month <= 2 else ref.year
    if m["year"]:
        year = int(m["year"])
    return _season(name, year)


def _h_season_year(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    return _season(m["season"].lower(), int(m["y"]))


def _h_past_n(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    n, _ = _num(m["n"])
    unit = m["unit"].lower().rstrip("s")
    if n > 200:
        return None
    if unit == "day":
        start = ref - timedelta(days=n)
    elif unit == "week":
        start = ref - timedelta(weeks=n)
    else:
        y, mo = _add_months(ref.year, ref.month, -n * (12 if unit == "year" else 1))
        start = date(y, mo, min(ref.day, calendar.monthrange(y, mo)[1]))
    words = " ".join(m["n"].lower().split()).removeprefix("a ")
    return start, ref + timedelta(days=1), "approx", f"the past {words} {unit}s up to {ref.isoformat()}", True


def _h_month_rel(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    which = (m["which"] or "").lower()
    mon = _MONTHS[m["month"].lower().rstrip(".")]
    if which == "last":
        year = ref.year if mon < ref.month else ref.year - 1
    elif which == "next":
        year = ref.year if mon > ref.month else ref.year + 1
    else:
        # "in January": compare month starts, so the current month counts as both before and after
        here = date(ref.year, ref.month, 1)
        options = [date(ref.year + dy, mon, 1) for dy in (-1, 0, 1)]
        year = _directed(options, here, ctx.direction, date(ref.year, mon, 1)).year
    return _month(year, mon)


def _valid_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _h_iso(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return _day(d) if d else None


def _h_us_numeric(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    d = _valid_day(int(m["y"]), int(m["mo"]), int(m["d"]))
    return _day(d) if d else None


def _h_mdy(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    day = int(re.sub(r"\D", "", m["d"]))
    month = _MONTHS[m["month"].lower().rstrip(".")]
    year = int(m["y"]) if m["y"] else ref.year
    d = _valid_day(year, month, day)
    if d is not None and not m["y"]:
        # "on 5 December" said in May: the one before when narrated, the one after when planned
        options = [x for x in (_valid_day(year + dy, month, day) for dy in (-1, 0, 1)) if x is not None]
        d = _directed(options, ref, ctx.direction, d)
    return _day(d) if d else None


def _h_month_year(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    return _month(int(m["y"]), _MONTHS[m["month"].lower().rstrip(".")])


def _h_year(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    return _year(int(m["y"]))


def _h_approx(m: re.Match[str], ref: date, ctx: _Ctx) -> _Res | None:
    w = " ".join(m[0].lower().split())
    if w == "the other day":
        return _approx(ref, 7, "a few days before")
    if w in ("a while ago", "a while back"):
        return _approx(ref, 365, "some time before")
    return _approx(ref, 30, "shortly before")


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE)


# Order matters: earlier patterns win overlapping spans (longer, more specific forms first).
_RULES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_p(r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})"), _h_iso),
    (_p(r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})"), _h_us_numeric),
    # a weekday written with a date ("Saturday 13 July", "Fri, 16 Feb") is part of that one mention
    (_p(rf"{_DATED_WEEKDAY}(?P<d>{_DAY_RE})(?:\s+of)?\s+(?P<month>{_MONTH_RE})(?:,?\s+(?P<y>{_YEAR_RE}))?"), _h_mdy),
    (_p(rf"{_DATED_WEEKDAY}(?P<month>{_MONTH_RE})\s+(?P<d>{_DAY_RE})(?:,?\s+(?P<y>{_YEAR_RE}))?"), _h_mdy),
    (_p(rf"(?P<month>{_MONTH_RE}),?\s+(?:of\s+)?(?P<y>{_YEAR_RE})"), _h_month_year),
    (_p(rf"(?P<season>{_SEASON_RE})(?:\s+of)?\s+(?P<y>{_YEAR_RE})"), _h_season_year),
    (_p(r"the day before yesterday|the day after tomorrow"), _h_simple),
    (_p(rf"(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})\s+(?:ago|back|before now)"), _h_ago),
    (_p(rf"in\s+(?:about\s+|around\s+)?(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})(?:'?s)?(?:\s+time)?"), _h_in),
    (_p(r"the week before last"), _h_week_before_last),
    (_p(rf"(?:the\s+)?(?:past|last)\s+(?P<n>{_NUM_RE})\s+(?P<unit>{_UNIT_RE})"), _h_past_n),
    (_p(r"(?P<which>this past|last|past|previous|this|next|earlier this|later this|the coming|the following)\s+(?P<unit>weekend|week|month|year)"), _h_rel_period),
    (_p(r"(?:over|on|during)\s+the\s+weekend"), _h_over_weekend),
    (_p(rf"(?:(?P<which>this past|last|past|this coming|coming|this|next)\s+|on\s+)(?P<wd>{_WEEKDAY_RE})"), _h_weekday),
    (_p(rf"(?:(?P<which>this past|last|past|this|next)\s+)(?P<season>{_SEASON_RE})(?:\s+(?P<year>{_YEAR_RE}))?"), _h_season),
    (_p(r"(?:(?P<which>last|this|next)\s+|in\s+)(?P<month>january|february|march|april|june|july|august|september|october|november|december|may)"), _h_month_rel),
    (_p(r"yesterday|last night|tomorrow|today|tonight|this morning|this afternoon|this evening|earlier today"), _h_simple),
    (_p(rf"(?:in|since|from|during|of|back in|until|by|around|before|after)\s+(?P<y>{_YEAR_RE})"), _h_year),
    (_p(r"recently|lately|the other day|a while (?:ago|back)|not long ago"), _h_approx),
)


_FUTURE_CUE = re.compile(
    r"\b(?:will|shall|gonna|going to|plan(?:s|ning)? (?:to|on)|about to|can't wait|looking forward|"
    r"hop(?:e|ing) to|intend to|next|upcoming|coming up|tomorrow|soon|"
    r"(?:am|is|are)\s+(?:\w+ly\s+)?(?:leaving|moving|starting|flying|going|coming|arriving|meeting|visiting|heading|"
    r"travell?ing|getting|having|doing|opening|seeing|taking|picking))\b|'ll\b|'(?:m|re|s)\s+(?:leaving|moving|starting|"
    r"flying|going|coming|arriving|meeting|visiting|heading|travell?ing|getting|having|doing|opening|seeing|taking|picking)\b",
    re.IGNORECASE,
)
_PAST_CUE = re.compile(
    r"\b(?:was|were|did|had|went|came|got|made|took|gave|saw|met|left|ran|won|lost|bought|told|said|ago|"
    r"yesterday|last|[a-z]{3,}ed)\b",
    re.IGNORECASE,
)


_ED_ADJECTIVES = frozenset(
    """
    excited interested tired bored scared worried married used supposed based pleased thrilled stressed
    indeed need proceed succeed exceed speed freed agreed concerned dedicated talented committed
    """.split()
)


def sentence_tense(text: str) -> Literal["past", "future"] | None:
    """"future" if ``text`` plans something ("I'll", "going to", "next ..."), else "past" if it
    narrates ("went", "-ed", "ago"), else ``None``."""
    if _FUTURE_CUE.search(text):
        return "future"
    if any(m[0].lower() not in _ED_ADJECTIVES for m in _PAST_CUE.finditer(text)):
        return "past"
    return None


def _at(d: date, ref: datetime) -> datetime:
    return datetime.combine(d, time(0), tzinfo=ref.tzinfo)


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
    ``"past"``.
    """
    ref_day = ref.date()
    if prefer == "auto":
        tense = sentence_tense(text)
        ctx = _Ctx(prefer=tense or "past", direction=tense or "nearest")
    else:
        ctx = _Ctx(prefer=prefer)
    taken: list[tuple[int, int]] = []
    found: list[TimeMention] = []
    for pattern, handler in _RULES:
        for m in pattern.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            try:
                res = handler(m, ref_day, ctx)
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
