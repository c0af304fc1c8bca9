"""When a question asks about, read from its time expressions and the time it is asked.

"What did I cook two weeks ago?" asked on 2023-07-01 is about the week of 2023-06-12; "What did Ana
show Tom on March 3, 2023?" about that day. :func:`question_windows` resolves the question's time
expressions against the time it is asked (:func:`memdesk.timeexpr.resolve.resolve`, the same rules that date
the records when they are written) into intervals, each widened by :data:`SLACK` on both sides (a
question's "a week ago" is loose, and an event told "yesterday" is dated a day before the message).
The fused read path (:class:`memdesk.retrieval.retrieve.Retriever`, ``time_weight``) adds a bonus to a record
whose event time, or the time its message was said, lies in one of them: the question's words
still decide what is relevant, its dates decide among the relevant.

A bonus every candidate shares changes no order, so a window that holds the whole conversation ("in
2023" of a year-long chat) is harmless; a question with no time expression, or asked at an unknown
time, gets none. The expressions are English (:mod:`memdesk.timeexpr.words`).

A question in the past tense ("How many members were there in February?", "On which day did Noor swim in March?",
"What did Noor cook on Friday?": a past auxiliary after its wh-phrase, :func:`asks_past`) asks about a time before it
is asked: a month or a day it names without a year is the last one, not the coming one (a record's own "in February"
follows its clause's tense; a question's past auxiliary is that tense).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ..records import _aware as aware_utc
from ..timeexpr.resolve import resolve

__all__ = ["SLACK", "TIME_WEIGHT", "TimeWindow", "parse_asked_at", "question_windows"]

TIME_WEIGHT = 1.5
"""The default read path's bonus, in standard deviations of a memory type's scores, for a record dated
inside a time window the question names (measured in ``bench/results/RETRIEVAL_EXPERIMENTS.md``)."""

_SLASHED = re.compile(r"^(\d{4})/(\d{2})/(\d{2})")
_DAY_NAME = re.compile(r"\s*\((?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\)", re.IGNORECASE)

_ASKS_PAST = re.compile(
    r"^\W*(?:and |so |but )?(?:(?:on|in|at|from|to|for|with|by|during|since|until) )?"
    r"(?:who|whom|whose|where|when|what|which|how)\b(?:\s+[\w'’-]+){0,4}?\s+(?:did|was|were|had)\b",
    re.IGNORECASE,
)
"""A question whose wh-phrase (up to four words: "How many families", "On which day") is followed by a past auxiliary."""
_YEAR = re.compile(r"\b\d{4}\b|'\d{2}\b")

SLACK = timedelta(days=1)
"""How far past each end of the resolved interval a record still counts as inside it."""


@dataclass(frozen=True)
class TimeWindow:
    """One interval a question asks about: ``[start, end)`` as POSIX seconds, with the question's words."""

    start: float
    end: float
    text: str
    label: str

    def contains(self, when: datetime) -> bool:
        """Whether ``when`` (a naive time read as UTC, as records' times are) lies in the window."""
        return self.start <= aware_utc(when).timestamp() < self.end


def question_windows(question: str | None, asked_at: datetime | None, *, slack: timedelta = SLACK) -> list[TimeWindow]:
    """The intervals ``question``'s time expressions name, resolved against ``asked_at`` and widened by
    ``slack``; none without a question or a time. Approximate expressions ("recently", "a few months
    ago") count as the spans :mod:`memdesk.timeexpr.resolve` gives them."""
    if not question or not question.strip() or asked_at is None:
        return []
    out = []
    ref = aware_utc(asked_at)
    past = asks_past(question)
    for mention in resolve(question, ref, prefer="past" if past else "auto"):
        start, end = mention.start, mention.end or mention.start + timedelta(days=1)
        label = mention.label
        if past and aware_utc(start) > ref and not _YEAR.search(mention.text):  # "in March", asked in past tense: the last March
            label = label.replace(str(start.year), str(start.year - 1))
            start, end = _year_before(start), _year_before(end)
        out.append(TimeWindow((start - slack).timestamp(), (end + slack).timestamp(), mention.text, label))
    return out


def asks_past(question: str) -> bool:
    """True when ``question`` is in the past tense: a past auxiliary ("did", "was", "were", "had") follows its wh-phrase
    ("When did ...", "How many families were ...", "On which day did ...")."""
    return bool(_ASKS_PAST.search(question))


def _year_before(when: datetime) -> datetime:
    try:
        return when.replace(year=when.year - 1)
    except ValueError:  # 29 February
        return when.replace(year=when.year - 1, day=28)


ASKED_AT_CHARS = 200
"""How much of a question_time :func:`parse_asked_at` reads (a date and a time fit many times over)."""


def parse_asked_at(text: str) -> datetime | None:
    """The time a question is asked, from how a caller wrote it: an ISO time ("2023-05-30T15:31:00Z",
    "2023-05-30", also with slashes and a day name: "2023/05/30 (Tue) 15:31") or a text whose first time
    expression is one exact day ("30 May 2023", "Tue, May 30, 2023 15:31"); None for anything else
    ("not given", "last week"). Only the first :data:`ASKED_AT_CHARS` characters are read."""
    text = text.strip()[:ASKED_AT_CHARS]
    try:
        return aware_utc(datetime.fromisoformat(_DAY_NAME.sub("", _SLASHED.sub(r"\1-\2-\3", text, count=1))))
    except ValueError:
        pass
    mentions = resolve(text, datetime.now(timezone.utc))
    if mentions and mentions[0].granularity == "day" and not mentions[0].approximate and _explicit(mentions[0].text):
        return mentions[0].start
    return None


def _explicit(text: str) -> bool:
    """Whether a day mention names its date in digits ("May 30, 2023", "30/5/2023"), not "yesterday"."""
    return any(c.isdigit() for c in text)
