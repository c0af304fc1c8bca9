"""What ``memdesk eval chats`` checks in the stored records of one chat, from the chat's labels.

Pure functions over records (read through the public ``Memory.get_all``) and a chat's labels:

- :func:`small_talk_records`: records made from a message labelled small talk (the first id of their
  provenance: the ids after it are the context they were read in);
- :func:`wrong_date_records`: records from messages with labelled dates that carry a date (event time,
  temporal anchor, text, or metadata such as the extractor's resolved time expressions) that overlaps none
  of those messages' labelled dates; a record is judged only when every message of its provenance is
  labelled. A date equal to the day the record's message was said is the anchor a record gets when it
  says no date, and is not counted (no resolution is not a wrong resolution); nor is a date that only an
  expression without a label of its own gives (the author left it unlabelled: nothing to judge it by), or one
  whose year the speaker wrote ("built in 1924": theirs, not an inference). An event time is the first day of
  the record's anchor and stands for that anchor's days ("at the end of August": its last ten days);
- :func:`supersession_checks`: for each ``closes`` / ``keeps`` item, whether every record of message
  ``from`` whose text contains ``contains`` is closed / current (and one exists). A record is current when
  ``Memory.get_all`` still lists it and it has no end (``valid_to``).
  A ``closes`` item whose records were never stored holds vacuously; the summary counts those apart.

Only a record's public fields are read (``provenance``, ``text()``, ``temporal_anchor``,
``event_time``, ``said_time()``, ``metadata``), so the checks survive changes to how records are made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, Literal

from pydantic import BaseModel

from ..records import MemoryRecord
from .datasets.chats import Chat, ChatMessage, DateLabel, RecordRef

Span = tuple[date, date]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]  # fmt: skip
_WEEK = re.compile(r"\bweek of (\d{4})-(\d{2})-(\d{2})\b", re.I)
#: A run of days as the rules write it ("2027-03-13 to 2027-03-26"): one span, not its two ends.
_RUN = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2}) to (\d{4})-(\d{2})-(\d{2})(?![\d])")
_DAY = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d])")
_MONTH = re.compile(r"(?<![\d-])(\d{4})-(\d{2})(?![\d-])")
_NAMED_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{4})\b", re.I)
_YEAR = re.compile(r"^\s*(\d{4})\s*$")


def _month_span(year: int, month: int) -> Span:
    first = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return first, nxt - timedelta(days=1)


def date_spans(text: str, *, bare_year: bool = False) -> list[Span]:
    """The dates written in ``text`` as day spans: ``2025-04-15``, ``week of 2025-03-10`` (seven days), a run
    ``2025-03-13 to 2025-03-26`` (its days),
    ``2025-04`` and ``April 2025`` (the month); with ``bare_year`` a text that is only a year (an anchor)."""
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []
    for m in _WEEK.finditer(text):
        start = _safe_date(m.group(1), m.group(2), m.group(3))
        if start:
            spans.append((start, start + timedelta(days=6)))
            taken.append(m.span())
    for m in _RUN.finditer(text):
        first, last = _safe_date(*m.group(1, 2, 3)), _safe_date(*m.group(4, 5, 6))
        if first and last and first <= last:
            spans.append((first, last))
            taken.append(m.span())
    for m in _DAY.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        day = _safe_date(m.group(1), m.group(2), m.group(3))
        if day:
            spans.append((day, day))
    for m in _MONTH.finditer(text):
        year, month = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12:
            spans.append(_month_span(year, month))
    for m in _NAMED_MONTH.finditer(text):
        spans.append(_month_span(int(m.group(2)), _MONTHS.index(m.group(1).lower()) + 1))
    if bare_year and (m := _YEAR.match(text)):
        year = int(m.group(1))
        spans.append((date(year, 1, 1), date(year, 12, 31)))
    return spans


def _safe_date(y: str, m: str, d: str) -> date | None:
    try:
        return date(int(y), int(m), int(d))
    except ValueError:
        return None


def _metadata_spans(value: Any) -> list[Span]:
    """The dates written anywhere in a metadata value. The dates of one dict (one resolved time expression:
    its label, ``start`` and ``end``) are one span from the first to the last, so a half-open
    ``[start, end)`` interval counts as the dates it covers."""
    if isinstance(value, str):
        return date_spans(value)
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _metadata_spans(v)]
    if isinstance(value, dict):
        own = [s for v in value.values() if isinstance(v, str) for s in date_spans(v)]
        nested = [s for v in value.values() if not isinstance(v, str) for s in _metadata_spans(v)]
        merged = [(min(a for a, _ in own), max(b for _, b in own))] if own else []
        return merged + nested
    return []


#: Metadata keys that hold no date the record states: when its message was said or added, and the text of
#: the turn it answers (context for embedding).
_NOT_STATED = ("said_at", "added_at", "embed_context")


def record_dates(record: MemoryRecord) -> list[tuple[str, Span]]:
    """Each date the record carries, with where it was found: ``event_time``, ``anchor``, ``text`` or ``metadata``
    (any date written in its metadata, e.g. the extractor's resolved time expressions, except the times its message
    was said or added and the context it was embedded with)."""
    found: list[tuple[str, Span]] = []
    if record.event_time is not None:
        day = record.event_time.date()
        # the event time is the first day of the record's anchor: when that is a stretch of days ("at the end of
        # August", "in about a month"), the dates it stands for are the stretch's, not its first day alone
        found.append(("event_time", next((s for s in _expression_spans(record) if s[0] == day), (day, day))))
    if record.temporal_anchor:
        found += [("anchor", s) for s in date_spans(record.temporal_anchor, bare_year=True)]
    found += [("text", s) for s in date_spans(record.text())]
    for key, value in record.metadata.items():
        if key not in _NOT_STATED:
            found += [("metadata", s) for s in _metadata_spans(value)]
    return found


_WRITTEN_YEAR = re.compile(r"(?<![\d-])(?:1[89]|20)\d{2}(?![\d-])|\d{4}-\d{2}-\d{2}")


def _days(expression: Any) -> Span | None:
    """The days of one resolved time expression (a ``metadata["time_expressions"]`` entry: ``[start, end)``)."""
    if not isinstance(expression, dict):
        return None
    start, end = _DAY.fullmatch(str(expression.get("start", ""))), _DAY.fullmatch(str(expression.get("end") or ""))
    first = _safe_date(*start.groups()) if start else None
    after = _safe_date(*end.groups()) if end else None
    return (first, after - timedelta(days=1)) if first and after and after > first else None


def _expression_spans(record: MemoryRecord) -> list[Span]:
    """The days of each resolved time expression the record keeps (``metadata["time_expressions"]``)."""
    items = record.metadata.get("time_expressions")
    return [d for t in items if (d := _days(t))] if isinstance(items, list) else []


def _expressions(record: MemoryRecord) -> list[tuple[str, set[Span]]]:
    """Each resolved time expression the record keeps: its words, and the spans it can show up as (its days, its
    metadata entry read as :func:`_metadata_spans` reads it, and its label read as the record's anchor is read)."""
    items = record.metadata.get("time_expressions")
    out: list[tuple[str, set[Span]]] = []
    for t in items if isinstance(items, list) else []:
        if isinstance(t, dict):
            days = _days(t)
            # its label is also the record's temporal anchor when it dates the record ("end of September 2025"),
            # read there as the dates its words name (September 2025)
            label = set(date_spans(str(t.get("label", "")), bare_year=True))
            out.append((str(t.get("text", "")), ({days} if days else set()) | set(_metadata_spans(t)) | label))
    return out


_DATE_WORD = re.compile(r"\d+(?:st|nd|rd|th)?|" + "|".join(_MONTHS) + r"|monday|tuesday|wednesday|thursday|friday|saturday|"
                        r"sunday|yesterday|tomorrow|today|tonight|weekend", re.I)  # fmt: skip


def _same_expression(said: str, label: str) -> bool:
    """Whether a resolved expression and a labelled one are the same words (one holds the other, or they share a
    number, month, weekday or day word: "Thursday" and "by Thursday night")."""
    a, b = " ".join(said.lower().split()), " ".join(label.lower().split())
    if a and b and (a in b or b in a):
        return True
    return bool({w.lower() for w in _DATE_WORD.findall(a)} & {w.lower() for w in _DATE_WORD.findall(b)})


def unjudged_spans(record: MemoryRecord, labels: Sequence[DateLabel]) -> set[Span]:
    """The spans that only expressions with no label of their own give the record: a year the speaker wrote ("built
    in 1924", "until 2029": the date is theirs, not an inference), or an expression the chat's author did not label
    ("Flights in October are dear" beside a labelled "from 22 September"): nothing to judge them by."""
    exprs = _expressions(record)
    unjudged = {s for text, spans in exprs for s in spans if _WRITTEN_YEAR.search(text)
                or not any(_same_expression(text, d.text) for d in labels)}  # fmt: skip
    judged = {s for text, spans in exprs for s in spans if not _WRITTEN_YEAR.search(text)
              and any(_same_expression(text, d.text) for d in labels)}  # fmt: skip
    return unjudged - judged


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


class DateProblem(BaseModel):
    """A record whose date overlaps none of its message's labelled dates."""

    message_id: str
    record_id: str
    text: str
    found: str
    where: str
    expected: list[str]


def wrong_date_records(records: Sequence[MemoryRecord], chat: Chat) -> tuple[int, list[DateProblem]]:
    """(records checked, the wrong ones). A record is checked when every message of its provenance has labelled
    dates: a date could come from any of them, so one from a message without labels cannot be judged (a reply
    stored with the turn it answers as context is judged by its own message's labels, or not at all)."""
    labels: dict[str, list[DateLabel]] = {}
    for d in chat.labels.dates:
        labels.setdefault(d.message_id, []).append(d)
    said: dict[str, date] = {m.id: m.time.date() for m in chat.messages}
    checked, problems = 0, []
    for record in records:
        sources = list(dict.fromkeys(record.provenance))
        if not sources or any(p not in labels for p in sources):
            continue
        checked += 1
        expected = [d for p in sources for d in labels[p]]
        fallback = {said[p] for p in sources if p in said} | ({t.date()} if (t := record.said_time()) else set())
        unjudged = unjudged_spans(record, expected)
        for where, span in record_dates(record):
            if (span[0] == span[1] and span[0] in fallback) or span in unjudged:
                continue
            if not any(_overlaps(span, d.span()) for d in expected):
                found = span[0].isoformat() if span[0] == span[1] else f"{span[0]}/{span[1]}"
                problems.append(DateProblem(message_id=",".join(sources), record_id=record.id, text=record.text(),
                                            found=found, where=where, expected=[d.date for d in expected]))  # fmt: skip
                break
    return checked, problems


def small_talk_records(records: Sequence[MemoryRecord], chat: Chat) -> list[MemoryRecord]:
    """Records whose source, the message they were made from (the first id of their provenance; any further ids
    are context), is labelled small talk."""
    small = set(chat.labels.small_talk)
    return [r for r in records if r.provenance and r.provenance[0] in small]


class SupersessionCheck(BaseModel):
    """One ``closes`` or ``keeps`` item, checked right after its message was added."""

    message_id: str
    expect: Literal["closed", "current"]
    from_message: str
    contains: str
    matching: int
    current: int
    ok: bool


def check_ref(
    ref: RecordRef, expect: Literal["closed", "current"], message_id: str, records: Sequence[MemoryRecord], current_ids: set[str]
) -> SupersessionCheck:
    """Whether the records of ``ref`` (message ``from``, text containing ``contains``) are all closed / all current
    (a ``current`` item also needs one such record; a ``closed`` item with none holds vacuously, and its
    ``matching`` of 0 shows it)."""
    needle = ref.contains.lower()
    matching = [r for r in records if ref.from_ in r.provenance and needle in r.text().lower()]
    current = sum(1 for r in matching if r.id in current_ids)
    ok = current == 0 if expect == "closed" else bool(matching) and current == len(matching)
    return SupersessionCheck(message_id=message_id, expect=expect, from_message=ref.from_, contains=ref.contains,
                             matching=len(matching), current=current, ok=ok)  # fmt: skip


def supersession_checks(
    chat: Chat, message: ChatMessage, records: Sequence[MemoryRecord], current_ids: set[str]
) -> list[SupersessionCheck]:
    """The checks of the supersession labels of ``message`` (none when it has none)."""
    out: list[SupersessionCheck] = []
    for label in chat.labels.supersession:
        if label.message_id != message.id:
            continue
        out += [check_ref(ref, "closed", label.message_id, records, current_ids) for ref in label.closes]
        out += [check_ref(ref, "current", label.message_id, records, current_ids) for ref in label.keeps]
    return out
