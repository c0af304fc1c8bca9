"""Named holidays for :mod:`memdesk.timeexpr.resolve`: the day (or days) each falls on in a year, and the periods
before, after and around one.

Only holidays whose date follows from a rule everyone shares are here: Easter and the days tied to it (the Gregorian
computus, as Western churches reckon it), and the fixed-date ones (Christmas, New Year, Halloween, Valentine's Day).
Holidays whose date depends on a country or a lunar calendar (Thanksgiving, Mother's Day, Diwali, Eid) are not
resolved: no date is better than a wrong one.

Conventions: "Easter" alone is the Easter weekend, Good Friday to Easter Monday; "before Easter" is the two weeks
before that weekend and "after Easter" the three weeks after it (so "in April, after Easter" dates what the
sentence says); a period is ``[start, end)`` like every span of :mod:`.spans`.
"""

from __future__ import annotations

from datetime import date, timedelta

__all__ = ["HOLIDAY_RE", "NAMED_DAY_RE", "easter", "holiday", "around"]


def easter(year: int) -> date:
    """Easter Sunday of ``year`` (Gregorian; the anonymous computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _fixed(month: int, day: int, days: int = 1):  # noqa: ANN202 - a tiny closure factory
    return lambda y: (date(y, month, day), date(y, month, day) + timedelta(days=days))


def _easter_offset(start: int, days: int):  # noqa: ANN202
    return lambda y: (easter(y) + timedelta(days=start), easter(y) + timedelta(days=start + days))


#: name (lower case, spaces single) -> the holiday's [start, end) in a year, and the name to label it with
_HOLIDAYS = {
    "easter": (_easter_offset(-2, 4), "Easter"),
    "easter weekend": (_easter_offset(-2, 4), "Easter"),
    "easter sunday": (_easter_offset(0, 1), "Easter Sunday"),
    "easter day": (_easter_offset(0, 1), "Easter Sunday"),
    "easter monday": (_easter_offset(1, 1), "Easter Monday"),
    "easter saturday": (_easter_offset(-1, 1), "Easter Saturday"),
    "holy saturday": (_easter_offset(-1, 1), "Holy Saturday"),
    "good friday": (_easter_offset(-2, 1), "Good Friday"),
    "christmas eve": (_fixed(12, 24), "Christmas Eve"),
    "christmas day": (_fixed(12, 25), "Christmas Day"),
    "christmas": (_fixed(12, 25), "Christmas"),
    "xmas": (_fixed(12, 25), "Christmas"),
    "boxing day": (_fixed(12, 26), "Boxing Day"),
    "new year's eve": (_fixed(12, 31), "New Year's Eve"),
    "new years eve": (_fixed(12, 31), "New Year's Eve"),
    "new year's day": (_fixed(1, 1), "New Year's Day"),
    "new year": (_fixed(1, 1), "New Year"),
    "halloween": (_fixed(10, 31), "Halloween"),
    "valentine's day": (_fixed(2, 14), "Valentine's Day"),
    "valentines day": (_fixed(2, 14), "Valentine's Day"),
}

#: The names above, longest first (a regular-expression alternation; "Easter Monday" before "Easter").
HOLIDAY_RE = "(?:" + "|".join(n.replace(" ", r"\s+").replace("'", "['\u2019]") for n in sorted(_HOLIDAYS, key=len, reverse=True)) + ")"
#: The names that say one day of their own ("Easter Monday", "Boxing Day"): a date however they are said, with no
#: preposition too ("Easter Saturday we're closed"), where the weekday in the name must not be read alone.
NAMED_DAY_RE = "(?:" + "|".join(
    n.replace(" ", r"\s+").replace("'", "['\u2019]") for n in sorted(_HOLIDAYS, key=len, reverse=True) if " " in n and not n.endswith("weekend")
) + ")"


def holiday(name: str, year: int) -> tuple[date, date, str]:
    """The [start, end) of holiday ``name`` in ``year`` and its label name (``KeyError`` for an unknown name)."""
    key = " ".join(name.lower().replace("\u2019", "'").split())
    fn, label = _HOLIDAYS[key]
    start, end = fn(year)
    return start, end, label


#: How long "before X" and "after X" reach from the holiday.
BEFORE, AFTER = timedelta(weeks=2), timedelta(weeks=3)


def around(start: date, end: date, relation: str, main: date | None = None) -> tuple[date, date]:
    """The period ``relation`` ("before", "after", anything else: the holiday itself) names next to [start, end);
    ``main`` is the holiday's own day when it spans several ("after Easter" begins on Easter Monday)."""
    if relation == "before":
        return start - BEFORE, start
    if relation == "after":
        first = main + timedelta(days=1) if main is not None else end
        return first, first + AFTER
    return start, end
