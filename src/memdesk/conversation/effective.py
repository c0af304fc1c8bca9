"""When a change takes over from the memory it closes (the ``valid_to`` supersession gives the old memory).

A change said ahead of its date ("I'm leaving the bakery at the end of next month", "we're moving to Hull on 1 March"
said in January) closes the old memory from that date: until then the old memory is current
(:meth:`memdesk.records.RecordBase.closed_at`, read by every default read). A date after the words is that kind of
date only when it is not itself the value that changed, the words do not narrate, do not say the new value holds
now, and the date sits in a clause that makes a claim; otherwise the change took over when it was said.
"""

from __future__ import annotations

import re
from datetime import datetime

from .facts import claims_of
from ..records import MemoryRecord
from ..timeexpr.resolve import resolve
from ..timeexpr.tense import sentence_tense

__all__ = ["effective"]


def effective(new: MemoryRecord, old: MemoryRecord) -> datetime:
    """When ``new`` took over from ``old``: its event time if that is after the old one's, else when it was said.
    An event time after it was said is a change said ahead of its date ("I'm leaving the bakery at the end of next
    month": the old memory holds until then) only when the date is not itself the value that changed (the old
    memory dates nothing: "the dentist moved my check-up to 9 May" changes a date now), the new words do not
    narrate (a past-tense sentence whose date resolved ahead is a misreading) and do not say the new value holds
    now ("the ferry now leaves at 7.55, and the harbour office shuts on the 20th": the date is another clause's):
    otherwise it took over when said."""
    said = new.said_time() or new.ingest_time
    if new.event_time is None or (old.event_time is not None and new.event_time <= old.event_time):
        return said
    text = new.text()
    if new.event_time > said and (
        _dates_something(old) or sentence_tense(text) == "past" or _NOW.search(text) or not _dated_claim(text, said)
    ):
        return said
    return new.event_time


def _dated_claim(text: str, said: datetime) -> bool:
    """Whether one clause of ``text`` both names a time ahead of ``said`` and makes a claim (:func:`.facts.claims_of`):
    "we're moving to Hull on 1 March" dates the move; in "the vet put Pip on three tablets a day. we go back in six
    weeks" the time ahead belongs to a clause that changes nothing."""
    return any(
        claims_of(clause) and any(m.start > said for m in resolve(clause, said))
        for clause in _CLAUSE_END.split(text)
    )


_CLAUSE_END = re.compile(r"(?<=[.!?;])\s+")
"""Where a clause ends for :func:`_dated_claim`: sentence punctuation and a space, whatever the next letter's case
(chat is often written in lower case, where :func:`~.sentences.split_sentences` keeps the sentences together)."""


_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
"""The deictic "now": what the sentence says holds when it is said."""


def _dates_something(record: MemoryRecord) -> bool:
    """Whether ``record``'s words name a time (the rules extractor's ``metadata["time_expressions"]``, else read again)."""
    if record.metadata.get("extractor") == "rules" or "time_expressions" in record.metadata:
        return bool(record.metadata.get("time_expressions"))
    return bool(resolve(record.text(), record.said_time() or record.ingest_time))
