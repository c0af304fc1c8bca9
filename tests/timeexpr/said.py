"""What a sentence's time expressions resolve to when said on a given day (shared by the date-rule tests)."""

from __future__ import annotations

from datetime import datetime

from memdesk.timeexpr.resolve import main_anchor, resolve


def dates(text: str, said: str) -> list[tuple[str, str]]:
    """Each expression's [start, end) as ISO dates, ``text`` said at 10:00 UTC on ``said``."""
    ref = datetime.fromisoformat(said + "T10:00:00+00:00")
    return [(m.start.date().isoformat(), m.end.date().isoformat()) for m in resolve(text, ref, prefer="auto")]


def main_date(text: str, said: str) -> str | None:
    """The start of the sentence's main anchor (the record's date) as an ISO date; None when it has none."""
    ref = datetime.fromisoformat(said + "T10:00:00+00:00")
    m = main_anchor(resolve(text, ref, prefer="auto"))
    return m.start.date().isoformat() if m else None
