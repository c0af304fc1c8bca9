"""Relative-time resolution: turn "yesterday" or "last summer" into absolute anchors.

:func:`resolve` finds the time expressions in a text and resolves each against a reference time
(the message's timestamp); :func:`main_anchor` picks the one that best dates the message. Both are
pure and deterministic: the same text and reference always give the same mentions.

Conventions (chosen, documented, tested):

* Weeks start on Monday. "last week" is the Monday-to-Sunday week before the reference's week;
  its label is ``week of <that Monday>``.
* "last weekend" (also "this past weekend", "the past weekend") is the Saturday-Sunday just
  before the reference's week; "this weekend" is the weekend of the reference's week; "next
  weekend" the one after, or the coming one when said from Monday to Thursday; "over/on the weekend" is the most recent weekend that has begun.
* "last Friday" is the most recent Friday strictly before the reference day; "this Saturday" is
  the next Saturday on or after the reference day; "next Monday" is the Monday of the following
  week. A bare "on Friday" is read as the most recent past Friday (narrated memories are mostly
  past; pass ``prefer="future"`` to read it as the next one; with ``"auto"`` a note with no verb,
  subject or article before it, "Physio on Wednesday at 8:30", is ahead). "a week from Friday",
  "a week on Friday" and "Friday week" are seven days after the coming Friday (today when it is
  Friday); "two weeks from today" counts from today; "for two weeks from tomorrow" is those days.
* "next June" is the June of next year, as "next Monday" is the Monday of next week; "last June"
  the most recent June before the reference's month; "in June" follows the tense.
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

import re
from dataclasses import replace
from datetime import date, datetime, time
from typing import Literal

from pydantic import BaseModel, ConfigDict

from . import anchoring as a
from . import handlers as h
from . import spans
from . import periods as p
from .handlers import Ctx, Handler
from .holidays import HOLIDAY_RE, NAMED_DAY_RE
from .narration import loose_past
from .spans import Granularity
from .words import DATED_WEEKDAY, DAY_RE, MONTH_RE, NUM_RE, SEASON_RE, UNIT_RE, WEEKDAY_RE, YEAR_RE
from .tense import FUTURE_CUE, clause_tense, date_clause_words, note, sentence_tense, verbless


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


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE)


_ORD = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)"  # a day of the month said as an ordinal ("the 14th")
_PERIOD = r"(?:(?P<which>this|next|last|past|previous|the coming|the following|the)\s+)?(?P<unit>week|month|year)"

# Order matters: earlier patterns win overlapping spans (longer, more specific forms first).
_RULES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_p(r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})"), h.h_iso),
    (_p(r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})"), h.h_us_numeric),
    # a run of days: "12 to 16 July", "from the 6th to the 20th of December", "July 12-16", "from the 23rd to the 27th"
    (_p(rf"(?:from\s+|between\s+)?(?:the\s+)?(?P<d1>{DAY_RE})(?:\s+(?:of\s+)?(?P<m1>{MONTH_RE}))?\s*(?:-|\u2013|to|until|till|through|and)\s*"
        rf"(?:the\s+)?(?P<d>{DAY_RE})(?:\s+of)?\s+(?P<month>{MONTH_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), p.h_range),
    (_p(rf"(?P<month>{MONTH_RE})\s+(?P<d1>{DAY_RE})\s*(?:-|\u2013|to|until|till|through)\s*(?P<d>{DAY_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), p.h_range),
    (_p(rf"from\s+the\s+(?P<d1>{_ORD})\s+(?:to|until|till)\s+the\s+(?P<d>{_ORD})(?P<month>)?(?P<y>)?"), p.h_range),
    (_p(rf"the\s+(?P<d1>{_ORD})\s*(?:-|\u2013)\s*(?:the\s+)?(?P<d>{_ORD})(?P<month>)?(?P<y>)?"), p.h_range),
    # a day of a month named by its place: "on the 12th of next month"
    (_p(rf"(?:(?P<prep>on|by|for|to|until|till|from|before|after)\s+)?(?P<dwd>)?the\s+(?P<d>{_ORD})\s+of\s+(?P<which>this|next|last)\s+month"), p.h_ordinal),
    # a weekday of a month named by its place in it: "the last Saturday of April", "the first Monday in June"
    (_p(rf"(?:the\s+)?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+(?P<wd>{WEEKDAY_RE})\s+(?:of|in)\s+"
        rf"(?:(?P<month>{MONTH_RE})(?:\s+(?P<y>{YEAR_RE}))?|(?P<which>this|next|last)\s+month)"), p.h_nth_weekday),
    # a weekday of a week named by its place: "Thursday next week"
    (_p(rf"(?P<wd>{WEEKDAY_RE})\s+(?P<which>next|this|last)\s+week"), p.h_weekday_of_week),
    # a part of a period, a holiday and the time around it
    (_p(rf"(?:(?P<bound>by|until|till|up to|through)\s+)?(?:the\s+)?(?P<part>end|beginning|start|middle)\s+of\s+(?:(?P<month>{MONTH_RE})(?:\s+(?P<y>{YEAR_RE}))?|{_PERIOD})"), p.h_part),
    (_p(rf"(?P<part>early|mid|late)[\s-]+(?:(?P<month>{MONTH_RE})(?:\s+(?P<y>{YEAR_RE}))?|{_PERIOD})"), p.h_part),
    (_p(rf"(?:(?P<rel>before|after|until|till|since|by)\s+|(?:at|over|for|on|around|during)\s+|(?P<which>this past|this|last|next)\s+)"
        rf"(?P<name>{HOLIDAY_RE})(?:\s+(?P<y>{YEAR_RE}))?"), p.h_holiday),
    (_p(rf"(?P<name>{NAMED_DAY_RE})(?:\s+(?P<y>{YEAR_RE}))?(?P<rel>(?!))?(?P<which>(?!))?"), p.h_holiday),  # "Easter Monday we ..."
    # a month (or a day of it) in a year named by its place: "October next year", "next year, in June", "3 May last year"
    (_p(rf"(?:(?P<d>{DAY_RE})\s+(?:of\s+)?)?(?P<month>{MONTH_RE})\s+(?P<which>next|last|this)\s+year"), h.h_month_of_year),
    (_p(rf"(?P<which>next|last|this)\s+year,?\s+(?:in\s+|on\s+)?(?:(?P<d>{DAY_RE})\s+(?:of\s+)?)?(?P<month>{MONTH_RE})"), h.h_month_of_year),
    # a weekday said after the date it names: "install on 16 March, Monday"
    (_p(rf"(?P<d>{DAY_RE})(?:\s+of)?\s+(?P<month>{MONTH_RE})(?:,?\s+(?P<y>{YEAR_RE}))?,?\s+(?P<dwd>{WEEKDAY_RE})"), h.h_mdy),
    # a weekday written with a date ("Saturday 13 July", "Fri, 16 Feb") is part of that one mention
    (_p(rf"{DATED_WEEKDAY}(?P<d>{DAY_RE})(?:\s+of)?\s+(?P<month>{MONTH_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), h.h_mdy),
    (_p(rf"{DATED_WEEKDAY}(?P<month>{MONTH_RE})\s+(?P<d>{DAY_RE})(?:,?\s+(?P<y>{YEAR_RE}))?"), h.h_mdy),
    (_p(rf"(?P<month>{MONTH_RE}),?\s+(?:of\s+)?(?P<y>{YEAR_RE})"), h.h_month_year),
    (_p(rf"(?P<season>{SEASON_RE})(?:\s+of)?\s+(?P<y>{YEAR_RE})"), h.h_season_year),
    (_p(r"the day before yesterday|the day after tomorrow"), h.h_simple),
    (_p(rf"(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})\s+(?:ago|back|before now)"), h.h_ago),
    (_p(rf"in\s+(?:about\s+|around\s+)?(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})(?:'?s)?(?:\s+time)?"), h.h_in),
    # a day counted from another: "a week from Friday", "two weeks from today", "a week on Friday", "Wednesday week"
    (_p(rf"(?P<n>{NUM_RE})\s+(?P<unit>days?|weeks?)\s+(?:from|on)\s+(?P<wd>{WEEKDAY_RE}|today|tomorrow|yesterday|now)"), h.h_counted_from),
    (_p(rf"(?P<wd>{WEEKDAY_RE})\s+week(?P<n>)(?P<unit>)"), h.h_counted_from),
    (_p(r"the week before last"), h.h_week_before_last),
    (_p(rf"(?:the\s+)?(?:past|last)\s+(?P<n>{NUM_RE})\s+(?P<unit>{UNIT_RE})"), h.h_past_n),
    (_p(r"(?P<which>this past|last|past|previous|this|next|earlier this|later this|the coming|the following)\s+(?P<unit>weekend|week|month|year)"), h.h_rel_period),
    (_p(r"(?:over|on|during)\s+the\s+weekend"), h.h_over_weekend),
    # a day of the month with its month unsaid: "on the 14th", "Tuesday the 22nd"
    (_p(rf"(?:(?P<prep>on|by|for|to|until|till|from|since|before|after)\s+)?(?:(?P<dwd>{WEEKDAY_RE}),?\s+(?:the\s+)?|the\s+)(?P<d>{_ORD})"), p.h_ordinal),
    (_p(rf"(?:the\s+)?(?P<wd>{WEEKDAY_RE})\s+(?P<which>after\s+next)"), h.h_weekday),  # "she starts Monday after next"
    (_p(rf"(?:(?P<which>this past|last|past|this coming|coming|this|next)\s+|on\s+)(?P<wd>{WEEKDAY_RE})"), h.h_weekday),
    (_p(rf"(?:(?P<which>this past|last|past|this|next)\s+)(?P<season>{SEASON_RE})(?:\s+(?P<year>{YEAR_RE}))?"), h.h_season),
    (_p(r"(?:(?P<which>last|this|next)\s+|in\s+)(?P<month>january|february|march|april|june|july|august|september|october|november|december|may)"), h.h_month_rel),
    (_p(r"yesterday|last night|tomorrow|today|tonight|this morning|this afternoon|this evening|earlier today"), h.h_simple),
    (_p(rf"(?:in|since|from|during|of|back in|until|by|around|before|after)\s+(?P<y>{YEAR_RE})"), h.h_year),
    (_p(r"recently|lately|the other day|a while (?:ago|back)|not long ago"), h.h_approx),
    (_p(r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"), h.h_bare_weekday),  # "report due Thursday"
)


#: Words that make a date the start of a state that may have begun: "from 1 October", "since 3 May", "starting 2 June".
_STARTS = re.compile(r"\b(?:from|since|starting(?: on| from)?|as of|beginning(?: on)?|effective)\s+(?:the\s+)?$", re.IGNORECASE)
_STARTS_HERE = re.compile(r"(?:from|since)\s", re.IGNORECASE)  # a mention that opens with its own "since"
#: An earlier value a change starts from, and its time: "down to 86 kg, from 91 in January", "up from £40 in May".
_OLD_VALUE = re.compile(
    rf"\bfrom\s+(?:about\s+|around\s+)?[£$€]?\d[\d.,]*\s*(?:(?!{MONTH_RE}\b|{WEEKDAY_RE}\b|st\b|nd\b|rd\b|th\b)[a-z%]{{1,6}}\s+)?"
    r"(?:(?:in|on|at\s+the\s+(?:start|end)\s+of)\s+)?$",
    re.IGNORECASE,
)
#: A clause break before "in <n> weeks" (a comma, a dash, "so", "and"): the count may be a clause of its own.
_WHEN = re.compile(r"(?:[,;:\u2013\u2014-]|\b(?:and|so|but))\s+[^,;:\u2013\u2014]*$", re.IGNORECASE)
#: The words before a weekday that make it the start of what holds from then on ("from Monday", "starting Friday").
_FROM = re.compile(r"\b(?:from|starting(?: on| from)?|as of|beginning(?: on)?|effective(?: from)?)\s+$", re.IGNORECASE)
#: "since" before a date, or opening its mention ("since new year", "no seizures since May 24"): a state begun then.
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$", re.IGNORECASE)
_SINCE_HERE = re.compile(r"since\s", re.IGNORECASE)


def _days_off(res: "spans.Span", ref: date) -> int:
    """How many days the interval of a handler's result lies from ``ref`` (0 when it holds it)."""
    start, end = res[0], res[1]
    if start <= ref < end:
        return 0
    return (start - ref).days if ref < start else (ref - end).days + 1



#: Handlers whose year (or direction) depends on the tense around the mention.
_DIRECTED = frozenset({h.h_mdy, h.h_month_rel, h.h_weekday, h.h_bare_weekday, h.h_rel_period, p.h_part, p.h_holiday,
                       p.h_ordinal, p.h_range, p.h_nth_weekday})  # fmt: skip


#: Handlers of dates whose year is unsaid ("9 March", "in March", "late June", "12 to 16 July"): a loose past reads
#: them nearest the message (:mod:`.narration`); a weekday or a lone day keeps the tense's direction.
_YEARLESS = frozenset({h.h_mdy, h.h_month_rel, p.h_part, p.h_holiday, p.h_range, p.h_nth_weekday})


def _at(d: date, ref: datetime) -> datetime:
    return datetime.combine(d, time(0), tzinfo=ref.tzinfo)


MAX_MENTIONS = 64
"""The most time expressions :func:`resolve` reads from one text (bounded work on any input: linear in its length)."""


def resolve(
    text: str, ref: datetime, *, prefer: Literal["past", "future", "auto"] = "past", earlier: str = ""
) -> list[TimeMention]:
    """All time expressions in ``text``, resolved against ``ref``, in text order.

    Overlapping matches are settled by rule order (explicit dates first, then the longer relative
    forms), so "the day before yesterday" is one mention, not two. ``prefer`` reads a bare
    weekday as the last or the next one; ``"auto"`` takes the direction from the tense of
    ``text`` (:func:`sentence_tense`; pass one sentence) and also applies it to a day-month
    without a year and to "in <Month>" (nearest occurrence that way), and reads "in two weeks"
    after a past verb as a duration, not a date. With no tense cue ``"auto"`` reads like
    ``"past"``. ``earlier``: what was said just before (earlier turns of the conversation), where a day of the month
    said alone here ("I leave on the 16th") may have been said with its month ("back on 16 October"). At most
    :data:`MAX_MENTIONS` mentions are read (the first rules' first).
    """
    ref_day = ref.date()
    if prefer == "auto":
        tense = sentence_tense(text)
        ctx = Ctx(prefer=tense or "past", direction=tense or "nearest")
    else:
        ctx = Ctx(prefer=prefer)
    auto = prefer == "auto"
    taken: list[tuple[int, int]] = []
    found: list[TimeMention] = []
    inferred: list[TimeMention] = []  # days whose year the rules chose
    weekdays: list[TimeMention] = []  # weekdays said without "last" or "next"
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
            arranged = False  # the date is ahead only because a verb arranges it ("moved to 2 July")
            if auto and handler in _DIRECTED:
                # the clause around a day-month or a month decides its year: "I accepted a position,
                # starting on 15 April" (said in March) is the coming April, not the last one
                tense = clause_tense(text, (s, e))
                if handler in _YEARLESS and tense in ("past", "present") and loose_past(text, (s, e), tense):
                    # a past lent by another clause ("I had knee surgery, two weeks off, back at the desk on 9 March"), or said by a
                    # headline's participle ("office closed from 23 to 27 March"): the occurrence nearest the message
                    here = Ctx(prefer="future" if tense == "present" else "past", direction="nearest")
                elif handler is h.h_month_rel and (tense is None or verbless(text, (s, e))):
                    # a month named with no tense ("Update: only one migraine in February", said in March) is the one
                    # just past if it is the month before (a report), else the coming one
                    here = Ctx(prefer="past", direction="recent")
                elif handler is p.h_holiday and tense in (None, "present") and not m["which"]:
                    # a holiday named with no past or future: the one just gone in the days after it (the weeks after it
                    # when no verb gives a tense: "Mira quit sugar over Christmas", said on 15 January), else the
                    # coming one
                    here = Ctx(prefer="past" if tense is None else "future", direction="recent")
                elif tense == "present" or (tense is None and (handler is not h.h_weekday or note(text, (s, e)))):
                    # no cue that it is past: the date a person infers is the coming one (a weekday too when its
                    # clause is a verbless note: "Physio on Wednesday at 8:30"); one just begun only
                    # when it starts a state ("from 1 October I'm driving for ..."), not for a day something
                    # happens on ("The review is pencilled in for 14 January", said on 10 February)
                    # "from the 24th to the 26th" is a run of days, not a state that began on the 24th
                    starts = _STARTS.search(text, 0, s) or (handler is not p.h_range and _STARTS_HERE.match(m[0]))
                    here = Ctx(prefer="future", direction="current" if starts else "future")
                else:
                    here = Ctx(prefer=tense or "past", direction=tense or "nearest")
                    words = date_clause_words(text, (s, e))
                    # ... while another clause narrates what happened ("dentist moved to 2 July, she had two teeth out")
                    arranged = tense == "future" and not FUTURE_CUE.search(words) and sentence_tense(text[e:]) == "past"
                if handler in _YEARLESS and _OLD_VALUE.search(text, 0, s):
                    # the time of the value a change starts from ("I'm down to 86 kg, from 91 in January", said in
                    # March): before the message
                    here = Ctx(prefer="past", direction="past")
            if auto and handler is h.h_in and here.direction == "past" and _WHEN.search(text, 0, s) and (
                sentence_tense(date_clause_words(text, (s, e))) is None
            ):
                # a clause of its own after a narrated one, with a present verb or none ("She got a job at the library,
                # starts in three weeks", "exam was hard, results in 2 weeks"): when it will be, not how long it took
                here = Ctx(prefer="future", direction="future")
            if auto and handler in (h.h_weekday, h.h_bare_weekday) and not m.groupdict().get("which") and _FROM.search(text, 0, s) and (
                sentence_tense(date_clause_words(text, (s, e))) != "past"
            ):
                # a state from a weekday ("Kojo's back in training from Monday, the doctor cleared him", said on
                # Saturday) starts ahead unless its own clause narrates it ("I was off from Monday"); said on that
                # weekday, it is next week's (today's would be "from today")
                here = Ctx(prefer="future", direction="future")
            since = auto and handler in _DIRECTED and (_SINCE.search(text, 0, s) or _SINCE_HERE.match(m[0]))
            if since:
                # what holds since a date began on it: the date is behind the message, whatever the clause's tense
                here = Ctx(prefer="past", direction="past")
            if earlier:
                here = replace(here, earlier=earlier)
            try:
                res = handler(m, ref_day, here)
                if res is not None and auto and handler in _YEARLESS and not since and _days_off(res, ref_day) > p.FAR_DAYS and (
                    _STARTS.search(text, 0, s) or _STARTS_HERE.match(m[0])
                ):
                    # a state from a date whose year is unsaid ("depot transferred me from 1 May", said on 26 April;
                    # "raised the price to 40 from 1 September", said on 21 August): the verb narrates the change, the
                    # date is when the new state holds from; not most of a year away (periods.FAR_DAYS) when it also
                    # falls within weeks of the message (periods.NEAR_DAYS)
                    near = handler(m, ref_day, replace(here, direction="nearest"))
                    res = near if near is not None and _days_off(near, ref_day) <= p.NEAR_DAYS else res
                elif res is not None and arranged and handler in _YEARLESS and _days_off(res, ref_day) > p.FAR_DAYS:
                    # a day a verb arranged whose year is unsaid, most of a year ahead, when the same day was weeks
                    # ago ("dentist moved to 2 July, she had two teeth out", said on 16 July): the recent one (a year
                    # ahead would be said)
                    near = handler(m, ref_day, replace(here, direction="past"))
                    res = near if near is not None and _days_off(near, ref_day) <= p.NEAR_DAYS else res
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
            if auto and handler in (h.h_mdy, p.h_range) and not m.groupdict().get("y"):
                inferred.append(mention)
            if handler in (h.h_weekday, h.h_bare_weekday) and not m.groupdict().get("which"):
                weekdays.append(mention)
    found.sort(key=lambda t: t.span)
    found = a.dated_weekdays(found, weekdays) if weekdays else found
    found = a.in_named_week(found, weekdays, text, ref) if weekdays else found
    found = a.after_weekday(found, weekdays, text) if weekdays and len(found) > 1 else found
    found = a.plan_weekdays(found, weekdays, inferred, text, ref) if weekdays and inferred else found
    found = a.next_after(found, text, ref) if len(found) > 1 else found
    return a.runs_forward(found, inferred, text, ref) if len(inferred) > 1 else found


#: Granularities that hold a narrower date said with them ("this week ... due Thursday", "in April, after Easter").
_COARSE = frozenset({"week", "weekend", "month", "season", "year"})


def main_anchor(mentions: list[TimeMention]) -> TimeMention | None:
    """The mention that best dates the text: the first exact one, narrowed by the narrowest other mention within it when
    it is a whole week, month, season or year ("this week ... due Thursday" is dated by the Thursday, "in April, after
    Easter" by the weeks after Easter); else the first approximate one."""
    if not mentions:
        return None
    exact = [t for t in mentions if not t.approximate]
    if not exact:
        return mentions[0]
    first = exact[0]
    if first.granularity not in _COARSE or first.end is None:
        return first
    within = [t for t in mentions if t.end is not None and t.start < first.end and first.start < t.end]
    return min(within, key=lambda t: (t.end - t.start, t.approximate))  # type: ignore[operator]


def format_anchor(mention: TimeMention | None, ref: datetime) -> str:
    """A human-readable absolute anchor: the mention's label, or the reference day if none."""
    return mention.label if mention is not None else ref.date().isoformat()
