"""Handlers of :mod:`memdesk.timeexpr.resolve` for dates that are parts of something else: a part of a period ("the
end of next month", "early May"), a named holiday and the time around it ("after Easter"), a day of a month left
unsaid ("on the 14th", "Tuesday the 22nd") and a run of days ("12 to 16 July", "from the 23rd to the 27th").

Conventions: a month's beginning/early part is days 1-10, its middle 11-20, its end/late part its last ten days; a
week's beginning is Monday-Tuesday, its middle Wednesday-Thursday, its end Friday-Sunday; a year's beginning is
January, its end December, early/mid/late are January-April, May-August, September-December. The end of a month or a
year as a bound ("by the end of April", "until the end of the year") is its last day: a deadline, not ten days. A day of the month
whose month is unsaid is in the month the sentence names ("the July meeting moves to the 11th") or the month of a
holiday it is for ("home on the 20th for Christmas"), else the nearest
month in the direction of the clause's tense (a weekday with it picks the month where the day is that weekday, even
when the sentence names another month: "on Saturday the 22nd, ... on December 6"). With no month in the sentence, a
month said in the turns just before with one of the sentence's lone days is theirs ("I leave on the 16th and land
on the 17th" after "back on 16 October"); another month of earlier turns is not used. A state from a day ("from the
19th") is the nearest such day ahead or begun within a month; "since the 26th" is never ahead.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import replace
from datetime import date, timedelta

from . import holidays, spans
from .handlers import AFTER_DATE, CURRENT_WINDOW, NEXT_WORD, Ctx, directed
from .tense import clause_words
from .words import DAY_RE, MONTH_NAME, MONTH_NAME_NOT_MAY_RE, MONTH_NAME_RE, MONTHS, day_number, weekday_index

__all__ = ["h_part", "h_holiday", "h_ordinal", "h_range"]

_THIRD = {"beginning": 0, "start": 0, "early": 0, "middle": 1, "mid": 1, "end": 2, "late": 2}
_WORD = {"beginning": "beginning of", "start": "start of", "early": "early", "middle": "middle of", "mid": "mid",
         "end": "end of", "late": "late"}  # fmt: skip
#: How long after a holiday ends it is still "the" holiday of a sentence with no tense (:func:`h_holiday`).
JUST_PAST = timedelta(days=7)
_STEP = {"last": -1, "past": -1, "previous": -1, "this": 0, "the": 0, "next": 1, "the coming": 1, "the following": 1}


def _month_year(mon: int, year: str | None, ref: date, ctx: Ctx) -> int:
    """The year of a month named without one: the occurrence ``ctx`` directs to (month starts compared)."""
    if year:
        return int(year)
    here = date(ref.year, ref.month, 1)
    options = [date(ref.year + dy, mon, 1) for dy in (-1, 0, 1)]
    return directed(options, here, ctx.direction, date(ref.year, mon, 1)).year


def h_part(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"the end of next month", "early May", "mid-June 2025", "the beginning of the week", "late next year"."""
    part = m["part"].lower()
    third = _THIRD[part]
    if not m["month"] and not m["which"] and (nxt := NEXT_WORD.match(m.string, m.end())) and nxt[1].islower() and (
        nxt[1] not in AFTER_DATE
    ):
        return None  # "two mid-week rides", "the end-of-year party": a kind of thing, not a date
    if m["month"]:
        mon = MONTHS[m["month"].lower().rstrip(".")]
        year = _month_year(mon, m["y"], ref, ctx)
        start, end = spans.month_bounds(year, mon)
        unit, name = "month", f"{calendar.month_name[mon]} {year}"
    else:
        step = _STEP[" ".join((m["which"] or "this").lower().split())]
        unit = m["unit"].lower()
        if unit == "week":
            start = spans.monday(ref) + timedelta(weeks=step)
            end, name = start + timedelta(days=7), f"week of {spans.monday(ref) + timedelta(weeks=step)}"
        elif unit == "month":
            y, mo = spans.add_months(ref.year, ref.month, step)
            (start, end), name = spans.month_bounds(y, mo), f"{calendar.month_name[mo]} {y}"
        else:
            start, end, name = date(ref.year + step, 1, 1), date(ref.year + step + 1, 1, 1), str(ref.year + step)
    if unit == "week":
        a, b = ((0, 2), (2, 4), (4, 7))[third]
        s, e = start + timedelta(days=a), start + timedelta(days=b)
    elif unit == "month":
        s = end - timedelta(days=10) if third == 2 else start + timedelta(days=10 * third)  # the end: its last ten days
        e = end if third == 2 else start + timedelta(days=10 * (third + 1))
    else:
        first, last = (1, 1) if part in ("beginning", "start") else (12, 12) if part == "end" else (1 + 4 * third, 4 + 4 * third)
        s, e = date(start.year, first, 1), spans.month_bounds(start.year, last)[1]
    if part == "end" and m.groupdict().get("bound") and unit != "week":
        return spans.day(e - timedelta(days=1))  # "by the end of April", "till the end of the year": a deadline, its last day
    sep = "-" if part == "mid" else " "
    return spans.part(s, e, f"{_WORD[part]}{sep}{name}")


def h_holiday(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"at Easter", "after Easter", "for Christmas", "last Halloween", "New Year's Eve 2024"."""
    name, which = m["name"], " ".join((m["which"] or "").lower().split())
    if m["y"]:
        year = int(m["y"])
    else:
        occ = {ref.year + dy: holidays.holiday(name, ref.year + dy) for dy in (-1, 0, 1)}
        if which in ("last", "this past"):
            year = max(y for y, (_s, e, _) in occ.items() if e <= ref)
        elif which == "next":
            year = min(y for y, (s, _e, _) in occ.items() if s > ref)
        elif which == "this":
            year = ref.year
        elif ctx.direction == "recent":
            # a holiday said with no tense in the days just after it ("a thank-you note for Christmas", three days after
            # Christmas) is the one just gone (a year ahead is what "next" would have said); else the coming one
            window = timedelta(days=NEAR_DAYS) if ctx.prefer == "past" else JUST_PAST  # no tense at all: weeks, not days
            just = [y for y, (_s, e, _) in occ.items() if ref - window <= e <= ref]
            year = max(just) if just else directed([s for s, _e, _ in occ.values()], ref, "future", occ[ref.year][0]).year
        else:
            year = directed([s for s, _e, _ in occ.values()], ref, ctx.direction, occ[ref.year][0]).year
    start, end, label = holidays.holiday(name, year)
    relation = (m["rel"] or "").lower()
    if relation in ("before", "after"):
        main = holidays.easter(year) if label == "Easter" else None
        s, e = holidays.around(start, end, relation, main)
        return s, e, "part", f"{relation} {label} {year}", True  # its ends are conventions: approximate, said in words
    if end - start == timedelta(days=1):
        return spans.day(start)
    return start, end, "part", f"{label} {year}", True  # "over Easter": some of its days, which the words leave open


#: Words that may follow a day of the month ("on the 14th at 10", "the 3rd because ..."); any other word makes
#: it an ordinal of something else ("the 3rd floor", "the 21st century", "the 2nd time").
_AFTER_DAY = frozenset(
    """
    at and but so because for from to till until in with when as or then instead which too already now is was we i she
    he they it you our my his her their this that there if since after before though although unless while cause cos coz
    """.split()
)
_NEXT_WORD = re.compile(r"\s+(?:of\s+)?([A-Za-z]+)")
#: A finite verb right after a day: the day is a subject ("the 30th is a Friday"), not the object of a preposition.
_CLAUSE_AFTER = re.compile(r"\s+(?:is|was|falls|fell|will|would|isn't|wasn't)\b", re.IGNORECASE)


#: A day said with its month ("16 October", "October 16th"), in earlier turns.
_DAY_MONTH = re.compile(rf"\b(?:({DAY_RE})\s+(?:of\s+)?({MONTH_NAME_RE})|({MONTH_NAME_NOT_MAY_RE})\s+({DAY_RE}))\b")
_LONE_DAY = re.compile(r"\bthe\s+([12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)\b", re.IGNORECASE)
_FOR_HOLIDAY = re.compile(rf"(?<![\w-])(?:for|at|over|on|during)\s+(?:the\s+)?({holidays.HOLIDAY_RE})(?![\w-])", re.IGNORECASE)
#: How far from the reference day a day of an unsaid month is looked for (the month before, this one or the next).
NEAR_DAYS = 45
#: How far from the reference day a day put in a month the sentence names for another date may be: further, it is read
#: as a day alone (a lone day is not most of a year away).
FAR_DAYS = 300


def _day_of(day: int, month: int, year: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


#: How near a day said alone must be to a coming date said just before to be of that date's month (:func:`_beside_earlier`).
BESIDE_DAYS = 7


#: Words that relate a day said alone to what was said before: "the day before, on the 2nd", "till the 14th now".
_RELATING = re.compile(r"\b(?:before|after|till|until|instead|now|then|later|earlier|again|same|following|moved|changed)\b", re.IGNORECASE)
_CONTENT_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset("this that with from have will just been were they them their there what when about also into only".split())


def _relates(text: str, earlier: str, at: int) -> bool:
    """Whether ``text`` takes up what the sentence of ``earlier`` around position ``at`` says: a word that relates it
    ("before", "till", "instead", "now"), or a content word both say ("the movers come on 10 May" / "they can't come
    till the 14th")."""
    if _RELATING.search(text):
        return True
    start = max(earlier.rfind(c, 0, at) for c in ".!?\n") + 1
    ends = [i for c in ".!?\n" if (i := earlier.find(c, at)) >= 0]
    sentence = earlier[start : min(ends) if ends else len(earlier)]
    words = {w for w in _CONTENT_WORD.findall(text.lower()) if w not in _STOP}
    return bool(words & set(_CONTENT_WORD.findall(sentence.lower())))


def _beside_earlier(day: int, earlier: str, ref: date, text: str = "") -> list[int]:
    """The month of the last coming date said just before (in ``earlier``) when day ``day`` of that month is within
    :data:`BESIDE_DAYS` of it and ``text`` takes it up (:func:`_relates`): "the builders now start on 3 March" then
    "the scaffold goes up the day before, on the 2nd" (said in January) is 2 March, not 2 February; "the movers come on
    10 May" then "they can't come till the 14th now" is 14 May; "we perform at the festival on October 12" then "my
    knife skills test is on the 19th" (said on 7 September) is the 19th nearest. Empty when there is none."""
    for found in reversed(list(_DAY_MONTH.finditer(earlier))):
        d1, m1, m2, d2 = found.groups()
        if text and not _relates(text, earlier, found.start()):
            return []
        month = MONTHS[(m1 or m2).lower()]
        said = next((d for y in (ref.year, ref.year + 1) if (d := _day_of(day_number(d1 or d2), month, y)) and d > ref), None)
        if said is None:
            continue
        here = _day_of(day, month, said.year)
        return [month] if here is not None and abs((here - said).days) <= BESIDE_DAYS else []
    return []


def _unsaid_month(day: int, text: str, ref: date, ctx: Ctx, weekday: int | None, clause: tuple[int, str] | None = None) -> date | None:
    """The date of day ``day`` of a month the words leave unsaid (see the module's conventions); ``clause``: where the
    clause holding the day starts in ``text`` and its words, whose month is the day's (else the text's)."""
    at, words = clause if clause is not None else (0, text)
    named = [MONTHS[n.lower()] for n in MONTH_NAME.findall(words) if not (n == "May" and text.startswith("May", at))]
    # a holiday the day is for names its month ("home on the 20th for Christmas"); not one it is before or after
    named = named or [holidays.holiday(h[1], ref.year)[0].month for h in _FOR_HOLIDAY.finditer(words)][:1]
    if not named and ctx.earlier:
        # "I leave on the 16th and land on the 17th" after "coming back on 16 October": the month said just before
        # with a day this sentence says alone
        lone = {int(d) for d in _LONE_DAY.findall(text)} | {day}
        named = [MONTHS[(m1 or m2).lower()] for d1, m1, m2, d2 in _DAY_MONTH.findall(ctx.earlier) if day_number(d1 or d2) in lone][-1:]
        named = named or _beside_earlier(day, ctx.earlier, ref, text)
    if named and weekday is not None and not any(
        d is not None and d.weekday() == weekday for y in (ref.year - 1, ref.year, ref.year + 1) if (d := _day_of(day, named[0], y))
    ):
        named = []  # "on Saturday the 22nd, ... on December 6": the 22nd that is a Saturday is not December's
    if named:
        months = [(y, named[0]) for y in (ref.year - 1, ref.year, ref.year + 1)]
    else:
        months = [spans.add_months(ref.year, ref.month, k) for k in range(-3, 4)]
    options = [d for y, mo in months if (d := _day_of(day, mo, y)) is not None]
    direction = ctx.direction or "nearest"
    if direction == "current" and not named:
        # a state from a day of this month or the next ("open homes every Sunday from the 19th", said on the 10th):
        # the nearest such day that is ahead or just begun
        options = [d for d in options if d >= ref - CURRENT_WINDOW] or options
        direction = "nearest"
    if weekday is not None:
        options = [d for d in options if d.weekday() == weekday] or options
        if not named:  # the weekday names the month: the nearest such one in the direction of the tense
            return directed(options, ref, direction, min(options, key=lambda d: abs((d - ref).days)))
    if not options:
        return None
    near = min(options, key=lambda d: abs((d - ref).days))
    if named:
        chosen = directed(options, ref, direction, near)
        if abs((chosen - ref).days) <= FAR_DAYS or weekday is not None:
            return chosen
        # the month the sentence names for another date puts this day most of a year away ("delivered before the 3rd
        # we have to order by 20 December", said on 16 December): the day is the nearby one, not December's, read alone
        # (without the earlier turns, whose month would put it there again)
        return _unsaid_month(day, "", ref, replace(ctx, earlier=""), None) or chosen
    options = [d for d in options if abs((d - ref).days) <= NEAR_DAYS]  # the month before, this one or the next
    return directed(options, ref, direction, near) if options else near


def h_ordinal(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"on the 14th", "Tuesday the 22nd", "to the 30th": a day of the month with the month unsaid."""
    if m.groupdict().get("which"):  # "on the 12th of next month": a day of the month the words name
        y, mo = spans.add_months(ref.year, ref.month, _STEP[m["which"].lower()])
        d = _day_of(day_number(m["d"]), mo, y)
        return spans.day(d) if d else None
    if (m["prep"] or "").lower() == "since" and _CLAUSE_AFTER.match(m.string, m.end()):
        return None  # "since the 30th is a Friday": "since" opens a clause (because), the day is its subject
    if (m["prep"] or "").lower() == "since":
        ctx = replace(ctx, prefer="past", direction="past")  # what holds since a day began on it: the day is not ahead
    if not m["prep"] and not m["dwd"]:
        return None
    if (m["prep"] or "").lower() == "for" and ctx.direction == "past":
        return None  # "the hut was full for the 14th": the day something was wanted for, in a month the clause leaves open
    nxt = _NEXT_WORD.match(m.string, m.end())
    if nxt and nxt[0].lstrip().lower().startswith("of "):
        return None  # "by the 5th of each month": every month, not a date
    if nxt and nxt[1][0].islower() and nxt[1].lower() not in _AFTER_DAY:
        return None
    day = day_number(m["d"])
    weekday = weekday_index(m["dwd"]) if m["dwd"] else None
    d = _unsaid_month(day, m.string, ref, ctx, weekday, clause_words(m.string, m.span()))
    return spans.day(d) if d else None


def h_range(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"12 to 16 July", "from the 6th to the 20th of December", "July 12-16", "28 June to 3 July", "from the 23rd to
    the 27th" (the month unsaid: as for a day alone)."""
    if re.search(r"\sand\s", m[0], re.IGNORECASE) and not m[0].lower().startswith("between"):
        return None  # "on 9 December and 16 December": two days, not the run between them
    d1, d2 = day_number(m["d1"]), day_number(m["d"])
    if not m["month"]:
        first = _unsaid_month(d1, m.string, ref, ctx, None)
        if first is None:
            return None
        last = _day_of(d2, first.month, first.year) if d2 >= d1 else None
        if last is None:
            y, mo = spans.add_months(first.year, first.month, 1)
            last = _day_of(d2, mo, y)
        return spans.days(first, last) if last else None
    month = MONTHS[m["month"].lower().rstrip(".")]
    m1 = MONTHS[m["m1"].lower().rstrip(".")] if m.groupdict().get("m1") else month
    wraps = m1 > month  # "28 December to 3 January": the run crosses a new year
    if m["y"]:
        year = int(m["y"]) - wraps  # a written year is the last day's
    else:
        options = [d for y in (ref.year - 1, ref.year, ref.year + 1) if (d := _day_of(d1, m1, y)) is not None]
        if not options:
            return None
        year = directed(options, ref, ctx.direction, options[1] if len(options) > 2 else options[0]).year
    first, last = _day_of(d1, m1, year), _day_of(d2, month, year + wraps)
    if first is None or last is None or not first <= last <= first + timedelta(days=92):
        return None
    return spans.days(first, last)


_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1, "final": -1}
#: Words before "the first Monday of May" that make it a routine ("every first Monday of the month"), not a date.
_EVERY_NTH = re.compile(r"\b(?:every|each)\s+(?:the\s+)?$", re.IGNORECASE)


def _nth_weekday(year: int, month: int, nth: int, wd: int) -> date | None:
    days = [date(year, month, d) for d in range(1, calendar.monthrange(year, month)[1] + 1)]
    named = [d for d in days if d.weekday() == wd]
    return named[nth - 1] if nth > 0 and nth <= len(named) else (named[-1] if nth < 0 and named else None)


def h_nth_weekday(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"the last Saturday of April", "the first Monday in June", "the second Friday of next month": that day of that
    month (a month without a year in the direction of the tense); not "every first Monday of the month"."""
    if _EVERY_NTH.search(m.string, 0, m.start()):
        return None
    nth, wd = _NTH[m["nth"].lower()], weekday_index(m["wd"])
    if m["which"]:
        y, mo = spans.add_months(ref.year, ref.month, _STEP[m["which"].lower()])
        d = _nth_weekday(y, mo, nth, wd)
        return spans.day(d) if d else None
    mon = MONTHS[m["month"].lower().rstrip(".")]
    if m["y"]:
        d = _nth_weekday(int(m["y"]), mon, nth, wd)
        return spans.day(d) if d else None
    options = [d for y in (ref.year - 1, ref.year, ref.year + 1) if (d := _nth_weekday(y, mon, nth, wd)) is not None]
    return spans.day(directed(options, ref, ctx.direction or "nearest", options[1])) if len(options) == 3 else None


def h_weekday_of_week(m: re.Match[str], ref: date, ctx: Ctx) -> spans.Span | None:
    """"Thursday next week", "Monday this week", "Friday last week": that weekday of the week the words name."""
    step = {"last": -1, "this": 0, "next": 1}[m["which"].lower()]
    return spans.day(spans.monday(ref) + timedelta(weeks=step, days=weekday_index(m["wd"])))
