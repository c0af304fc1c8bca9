"""Passes over the mentions :func:`memdesk.timeexpr.resolve.resolve` found in one text, where one mention anchors
another: a weekday the text dates elsewhere ("on Friday ... bake on Friday 29 March"), a weekday of a week the text
names ("Next week ... on Tuesday"), a weekday after another ("fixed on Thursday, back on the road Friday"), weekdays
of a list of plans, days said without a year running forward after one ahead, and "next in 10 weeks" counted from the
last one the text dates."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .progressive import progressive
from .tense import clause_words, sentence_tense

if TYPE_CHECKING:
    from .resolve import TimeMention

__all__ = ["after_weekday", "dated_weekdays", "in_named_week", "next_after", "plan_weekdays", "runs_forward"]


#: "next in <n> <units>": the next of something that recurs, counted from the last one the text dates.
_NEXT_IN = re.compile(r"\bnext(?:\s+(?-i:[a-z]+))?\s+$", re.IGNORECASE)  # "next in 10 weeks", "the next dose in 4 weeks"
_IN_COUNT = re.compile(r"in\s", re.IGNORECASE)


def next_after(found: list[TimeMention], text: str, ref: datetime) -> list[TimeMention]:
    """"done on the 7th, next in 10 weeks": the interval runs from the day the text says the last one was, not from
    the message (a count said after a past day of the same text, and opened by "next")."""
    out: list[TimeMention] = []
    for t in found:
        last = out[-1] if out else None
        if (last is not None and last.granularity == "day" and last.start < ref and t.granularity == "day"
                and _IN_COUNT.match(t.text) and _NEXT_IN.search(text, 0, t.span[0])):  # fmt: skip
            shift = last.start - ref.replace(hour=0, minute=0, second=0, microsecond=0)
            start = t.start + shift
            t = t.model_copy(update={"start": start, "end": start + timedelta(days=1), "label": start.date().isoformat()})
        out.append(t)
    return out


def plan_weekdays(
    found: list[TimeMention], weekdays: list[TimeMention], inferred: list[TimeMention], text: str, ref: datetime
) -> list[TimeMention]:
    """A weekday in a sentence with no tense whose other days are ahead is ahead too: a list of plans ("Suit on
    Thursday, last shift on 12 December, Shetland from 5 January"), not a narrated day."""
    if sentence_tense(text) is not None or _NARRATED.search(text) or not any(t.start >= ref for t in inferred):
        return found
    out = []
    for t in found:
        if t in weekdays and t.start < ref and t.granularity == "day":
            day = t.start + timedelta(days=7)
            t = t.model_copy(update={"start": day, "end": day + timedelta(days=1), "label": day.date().isoformat()})
        out.append(t)
    return out


_WEEKDAY = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.IGNORECASE)


def after_weekday(found: list[TimeMention], weekdays: list[TimeMention], text: str) -> list[TimeMention]:
    """A weekday said without "last"/"next" after another weekday of the sentence, in a clause with no tense of its
    own, is the first such day after that one: "engine fixed on Thursday, van back on the road Friday" (said on
    Monday: the day after that Thursday, not the coming Friday); "flu hit me on Monday, off work till Wednesday"."""
    out: list[TimeMention] = []
    anchor: TimeMention | None = None
    for t in found:
        if t in weekdays and anchor is not None and t.granularity == "day":
            words = clause_words(text, t.span)[1]
            if sentence_tense(words) is None and not progressive(words):
                gap = (t.start.weekday() - anchor.start.weekday()) % 7 or 7
                day = anchor.start + timedelta(days=gap)
                t = t.model_copy(update={"start": day, "end": day + timedelta(days=1), "label": day.date().isoformat()})
        if t.granularity == "day" and _WEEKDAY.search(t.text) and not re.search(r"\d", t.text):
            anchor = t  # a weekday said alone (not "Sunday 4 May": a day weeks away is no anchor for this week's days)
        out.append(t)
    return out


def dated_weekdays(found: list[TimeMention], weekdays: list[TimeMention]) -> list[TimeMention]:
    """A weekday said alone in a text that writes the same weekday with its date ("pickup slots on Friday and Saturday,
    bake on Friday 29 March") is that date: the text has said which Friday it means."""
    dated = {}
    for t in found:
        said = _WEEKDAY.search(t.text)
        if t.granularity == "day" and t not in weekdays and said and re.search(r"\d", t.text) and (
            said[0].lower() == t.start.strftime("%A").lower()
        ):
            dated.setdefault(t.start.weekday(), t)
    out = []
    for t in found:
        same = dated.get(t.start.weekday()) if t in weekdays and t.granularity == "day" else None
        if same is not None and same.start != t.start:
            t = t.model_copy(update={"start": same.start, "end": same.end, "label": same.label})
        out.append(t)
    return out


#: What makes a weekday the start of something still ahead, whatever week the sentence names ("the sun came back last
#: week, I'm selling them from Friday").
_AHEAD = re.compile(r"\b(?:from|starting|as of)\s+$", re.IGNORECASE)


def _ahead_of(text: str, t: TimeMention) -> bool:
    """Whether the weekday ``t`` is said in a clause of its own that looks ahead: a start ("from Friday") in a clause
    that does not narrate, or a progressive or future clause."""
    words = clause_words(text, t.span)[1]
    tense = sentence_tense(words)
    return tense == "future" or (tense is None and (progressive(words) or _AHEAD.search(text, 0, t.span[0]) is not None))


def in_named_week(found: list[TimeMention], weekdays: list[TimeMention], text: str = "", ref: datetime | None = None) -> list[TimeMention]:
    """A weekday said without "last"/"next" in a sentence that names one week ("Next week I'm doing hill repeats on
    Tuesday", "Last week was mad: the boiler broke on Monday") is that week's day; not one said ahead in a clause of its
    own when the week named is past ("the sun came back last week, I'm selling them from Friday")."""
    weeks = [t for t in found if t.granularity == "week" and not t.approximate and t.end is not None]
    if len(weeks) != 1:
        return found
    week = weeks[0]
    out = []
    for t in found:
        if ref is not None and week.end is not None and week.end <= ref and t in weekdays and t.start >= ref and _ahead_of(text, t):
            out.append(t)
            continue
        if t in weekdays and not week.start <= t.start < week.end:  # type: ignore[operator]
            day = week.start + timedelta(days=t.start.weekday() - week.start.weekday())
            t = t.model_copy(update={"start": day, "end": day + timedelta(days=1), "label": day.date().isoformat()})
        out.append(t)
    return out


#: What narrates a clause whatever else it says: a past form of "be", "have" or "do", or a time word before now.
_NARRATED = re.compile(r"\b(?:was|were|had|did|ago|yesterday)\b", re.IGNORECASE)


def _next_year(t: TimeMention) -> TimeMention | None:
    try:
        start, end = t.start.replace(year=t.start.year + 1), t.end.replace(year=t.end.year + 1) if t.end else None
    except ValueError:  # 29 February
        return None
    label = start.date().isoformat() if t.granularity == "day" else f"{start.date()} to {(end - timedelta(days=1)).date()}"  # type: ignore[operator]
    return t.model_copy(update={"start": start, "end": end, "label": label})


def runs_forward(found: list[TimeMention], inferred: list[TimeMention], text: str, ref: datetime) -> list[TimeMention]:
    """Days said without their year in one sentence after a day that is ahead run forward, as a plan does: "starting
    23 March, about five weeks, so finished around 27 April", "visits on 7 December, 14 December and 11 January" (said
    in November: next January). A later day read as past moves to the next year when that puts it after the one before
    it, unless its clause narrates ("I fly out on 3 June; I was there on 2 May too")."""
    ahead: TimeMention | None = None
    out: list[TimeMention] = []
    for t in found:
        if t in inferred and ahead is not None and t.start < ref and not _NARRATED.search(text, ahead.span[1], t.span[0]):
            moved = _next_year(t)
            if moved is not None and moved.start >= ahead.start:
                t = moved
        if t in inferred and t.start >= ref:
            ahead = t
        out.append(t)
    return out
