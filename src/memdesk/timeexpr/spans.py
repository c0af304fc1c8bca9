"""Calendar intervals for :mod:`memdesk.timeexpr.resolve`: week, month and season arithmetic, and the
(start, end, granularity, label, approximate) span each kind of mention resolves to. Weeks start on
Monday; seasons are meteorological (northern); ``end`` is exclusive."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Literal

from .words import SEASONS

#: "part": a part of a period or a named holiday ("the end of next month", "early May", "after Easter"); "range":
#: the days from one date to another ("12 to 16 July").
Granularity = Literal["day", "week", "weekend", "month", "season", "year", "approx", "part", "range"]


# --- calendar arithmetic -----------------------------------------------------------------------


def monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    idx = year * 12 + (month - 1) + delta
    return idx // 12, idx % 12 + 1


def month_bounds(year: int, month: int) -> tuple[date, date]:
    ny, nm = add_months(year, month, 1)
    return date(year, month, 1), date(ny, nm, 1)


def season_bounds(name: str, year: int) -> tuple[date, date, str]:
    """The season that starts in ``year`` (winter starts in December of ``year``)."""
    m = SEASONS[name]
    start = date(year, m, 1)
    ey, em = add_months(year, m, 3)
    label_name = "autumn" if name == "fall" else name
    label = f"winter {year}/{str(year + 1)[2:]}" if name == "winter" else f"{label_name} {year}"
    return start, date(ey, em, 1), label


def season_containing(name: str, d: date) -> int:
    """Start year of the ``name`` season whose occurrence is current or upcoming at ``d``."""
    for y in (d.year - 1, d.year, d.year + 1):
        _s, e, _ = season_bounds(name, y)
        if e > d:
            return y
    return d.year + 1  # pragma: no cover - unreachable


# --- results -----------------------------------------------------------------------------------

Span = tuple[date, date, Granularity, str, bool]  # start, end (exclusive), granularity, label, approximate


def day(d: date, approx: bool = False) -> Span:
    return d, d + timedelta(days=1), "day", ("about " if approx else "") + d.isoformat(), approx


def week(d: date, approx: bool = False) -> Span:
    m = monday(d)
    return m, m + timedelta(days=7), "week", ("about " if approx else "") + f"week of {m.isoformat()}", approx


def weekend(sat: date) -> Span:
    return sat, sat + timedelta(days=2), "weekend", f"weekend of {sat.isoformat()}", False


def month(year: int, month: int, approx: bool = False) -> Span:
    s, e = month_bounds(year, month)
    return s, e, "month", ("about " if approx else "") + f"{calendar.month_name[month]} {year}", approx


def year(year: int, approx: bool = False) -> Span:
    return date(year, 1, 1), date(year + 1, 1, 1), "year", ("about " if approx else "") + str(year), approx


def season(name: str, year: int) -> Span:
    s, e, label = season_bounds(name, year)
    return s, e, "season", label, False


def approx(ref: date, days_back: int, label: str) -> Span:
    return ref - timedelta(days=days_back), ref + timedelta(days=1), "approx", f"{label} {ref.isoformat()}", True


def part(start: date, end: date, label: str) -> Span:
    return start, end, "part", label, False


def days(start: date, last: date) -> Span:
    """The days ``start`` to ``last`` (both included)."""
    return start, last + timedelta(days=1), "range", f"{start.isoformat()} to {last.isoformat()}", False
