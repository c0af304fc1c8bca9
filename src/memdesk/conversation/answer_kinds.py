"""Which evidence record answers a question asking for a kind of value, for the offline answerer.

A question asking for a kind of value (a place, a date, an amount, a name, ...: :func:`question_focus`) is answered by
the hit stating one (:func:`_of_kind`), among the best few current hits holding some of the question's words (and the
best one): those dated inside a time of a month or less the question names ("What was her HbA1c in March?") first,
then the one holding most of the question's words (the better ranked while it holds at least :data:`KEEP_SHARE` of the
best), and, for a question about what holds now, a later statement of the kind on the same subject (one telling a change
and naming what the earlier named, or for a question saying "now", one holding as much of its words) replaces it,
unless it holds none of the nouns the question asks of (``tells``: "How many units of insulin ...?" is not answered by
a later count of bus stops). The
best current hit keeps the answer when it states no such value but holds more of the question's words (its message may
state the value), or as much when it was said later and states no value of its own ("Maya works night shifts now"
over the older "Maya works at the Riverside clinic"). A replaced hit answers too when the record that replaced it is in
the evidence and neither states nor denies a value of the asked kind ("Farah works late shifts at the clinic in Bukit
Mertajam", replaced by "Farah moved to day shifts": where she works did not change), or when it held during the time
the question names. A question naming the assistant ("What did the assistant suggest ...?") is answered by the
assistant's words; one asking for no kind of value by the record said in a time it names, when one holds its words
("What dose was he on in April?"). "When does ...?" (a habit, a schedule) is answered by a time of day too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime

from ..hits import SearchHit
from ..records import MemoryRecord
from ..retrieval.question_focus import Focus, RecordValues
from ..retrieval.question_now import asks_now, asks_then
from ..retrieval.question_person import names_assistant
from ..retrieval.question_time import asks_past, question_windows
from ..timeexpr.words import WEEKDAY_RE
from .updates import update_of

__all__ = ["KEEP_SHARE", "SPAN", "asks_days", "loose", "names_days", "of_kind", "replaced_answer"]

KEEP_SHARE = 0.5
"""The first current hit answers when it holds at least this fraction of the best share of the question's words."""

_WHAT_NOUN = re.compile(r"^\W*what (?!kind\b|sort\b|type\b)[a-z]+ ", re.IGNORECASE)
_NAMED = re.compile(r"\b(?:called|named|name|names)\b", re.IGNORECASE)

_ASKS_DAYS = re.compile(
    r"^\W*(?:on\s+|in\s+)?(?:which|what)\s+(?:days|nights|evenings|mornings|afternoons|weekdays)\b",
    re.IGNORECASE,
)
"""A question asking on which days of the week something is done ("Which days does Ilse go to the pool?", "On which
evenings is the choir?"): a weekday answers it, not a date or a name."""
_DAY_NAMED = re.compile(rf"\b(?:{WEEKDAY_RE}s?|weekends?|weekdays?|every\s+day|daily)(?![\w'])", re.IGNORECASE)

_ADJUNCT = re.compile(r"^\W*(?:on|by|for|from|until|till|in|at)\b", re.IGNORECASE)
"""A record that is only an adjunct cut from a statement: it opens with a preposition ("on Sunday 4 May.")."""

SPAN = 62 * 86_400.0
"""The longest time a question names (seconds, its slack included) that decides among records said in it: a month ("in
March") does, "this year" does not."""


def of_kind(
    question: str, hits: Sequence[SearchHit], focus: Focus | None, states: list[bool], replaced: list[bool],
    current: list[int], share: Callable[[int], float], asked_at: datetime | None, window: int, trust: float,
    denial: list[bool], direct: Callable[[int], bool] | None = None, tells: Callable[[int], bool] | None = None,
    heads: Callable[[int], float] | None = None,
) -> int | None:
    """For a question asking for a kind of value (a place, a date, an amount, ...): the hit of the best few that
    answers it among those stating a value of that kind. Candidates: the current hits, and a replaced one whose
    replacement in the evidence states no value of the asked kind (the change was to another part of what it said);
    of them those holding some of the question's words, and the first of the best few if it states one. Those dated
    inside a time the question names ("in March") are preferred; then the one holding most of the question's words
    (the better ranked while it holds at least :data:`KEEP_SHARE` of the best); for a question asking what holds now,
    a later candidate stating a value of the kind on the same subject (the same name, or for a question saying "now",
    some of its words) replaces it. None when the question asks for no kind or no candidate states one."""
    if asks_then(question):
        return None
    windows = [w for w in question_windows(question, asked_at) if w.end - w.start <= SPAN]  # "this year" decides nothing
    dated = focus is None or focus.slot in ("items", "steps") or loose(question, focus)  # only a time it names decides
    if dated:
        if not windows:
            return None
        states = [share(i) > 0 for i in range(len(hits))]
    ids = {h.record.id: j for j, h in enumerate(hits)}
    pool = set(current)
    if names_assistant(question):  # "What did the assistant suggest ...?": the assistant's words
        pool = {i for i in pool if hits[i].record.role == "assistant"}
    for i in range(min(window, len(hits))):
        if replaced[i] and _held(i, hits, ids, states, denial, windows, revive=not asks_now(question)):
            pool.add(i)
    first = min(pool, default=None)
    stating = sorted(i for i in pool if states[i] and (share(i) > 0 or i == first))
    if not stating:
        return None
    inside = [i for i in stating if any(w.contains(t) for w in windows for t in _times(hits[i].record))]
    if dated and not inside:
        return None
    stating = inside or stating
    best = max(stating, key=lambda i: (share(i), -i))
    pick = stating[0] if share(stating[0]) >= KEEP_SHARE * share(best) else best
    if stating[0] == 0 != pick and hits[0].score >= trust and share(0) > 0 and (
        heads is not None and heads(0) >= heads(pick)
    ):  # the ranking is sure of a first hit stating a value of the kind, holding no less of what is asked of
        pick = 0
    top = current[0] if current else None  # the best current hit
    if top is not None and not states[top] and (top > 0 or hits[0].score >= trust) and (
        (share(top) > share(pick) and (direct is None or direct(top)))
        or (share(top) == share(pick) > 0 and _later(hits[top].record, hits[pick].record) and _plain(hits[top].record, focus))
    ):  # the best current hit holds more of the question's words (unless neither it nor its message states a value of
        # the asked kind: ``direct``), or as much, said later and stating no value of another kind ("Maya works night
        return None  # shifts now"): it answers as the ranking or the words decide
    if focus is None or not focus.current or focus.several or windows or asks_past(question):
        return pick
    now = asks_now(question)
    names = RecordValues.of(hits[pick].record.text()).names - focus.said
    for j in stating:
        later, record = hits[j].record, hits[pick].record
        if j == pick or later.role != record.role or not _later(later, record) or (tells is not None and not tells(j)):
            continue  # (a later statement that holds no head word of the question is of another attribute)
        change = update_of(later.text()) is not None
        if (change and names & RecordValues.of(later.text()).names) or (
            now and share(j) > 0 and (share(j) >= share(pick) or change)
        ):
            pick = j  # a later statement of a value of the kind on the same subject: what holds now
    return pick


def _held(
    i: int, hits: Sequence[SearchHit], ids: dict[str, int], states: list[bool], denial: list[bool], windows: list,
    *, revive: bool,
) -> bool:
    """Whether replaced hit ``i`` still answers: it held in a time the question names (closed after it starts), or,
    unless the question asks what holds now (``revive``), the record that replaced it is in the evidence and neither
    states nor denies a value of the asked kind (the change was to another part of what ``i`` said)."""
    record = hits[i].record
    newer = ids.get(record.superseded_by or "")
    if windows:
        end = record.valid_to or (hits[newer].record.said_time() if newer is not None else None)
        return end is not None and any(w.start < end.timestamp() for w in windows)
    return revive and newer is not None and not states[newer] and not denial[newer]


def loose(question: str, focus: Focus) -> bool:
    """Whether ``question`` asks for a name only by its form "What <noun> ...?" ("What hours does Hoa work?", "What
    dose ...?"): the noun, not a name, is what it asks for, so a record stating a name is no better an answer."""
    return focus.slot == "name" and _WHAT_NOUN.match(question) is not None and not _NAMED.search(question)


def _plain(record: MemoryRecord, focus: Focus) -> bool:
    """Whether ``record`` states no value at all: no name the question does not say, no date, count or other kind."""
    values = RecordValues.of(record.text())
    return not (values.names - focus.said or values.date or values.count or values.kinds)


def _times(record: MemoryRecord) -> list[datetime]:
    """When ``record`` was said and when what it tells happened."""
    return [t for t in (record.said_time(), record.event_time) if t is not None]


def _later(a: MemoryRecord, b: MemoryRecord) -> bool:
    """Whether ``a`` was said after ``b`` (both times known)."""
    ta, tb = a.said_time(), b.said_time()
    return ta is not None and tb is not None and ta > tb


def asks_days(question: str) -> bool:
    """Whether ``question`` asks on which days of the week something is done (:data:`_ASKS_DAYS`)."""
    return _ASKS_DAYS.match(question) is not None


def names_days(text: str) -> bool:
    """Whether ``text`` names days of the week ("Tue and Sat", "Mondays and Fridays", "weekends")."""
    return _DAY_NAMED.search(text) is not None


def replaced_answer(
    hits: Sequence[SearchHit], states: list[bool], share: Callable[[int], float], replaced: list[bool],
    says: Callable[[int], bool], heads: Callable[[int], float], trust: float, kind: bool,
) -> int | None:
    """For a question about what held before a change: the replaced record of ``hits`` (the best few) that states a
    value of the asked kind and holds some of the question's words (``share``: how much of them hit ``i`` holds), the
    one holding most of them (the better ranked among equals); None when no replaced record does. A current first hit that
    states a value of the asked kind and of which the ranking is sure (calibrated relevance at least ``trust``) is not
    displaced by a replaced record whose own words hold none of the question's (``says``: it shares
    them only through the context it was embedded with: "the chair is Mr Okafor" for "What was the old spending
    limit?"; unless, for a question asking for a kind of value, ``kind``, it is a part of the first hit's own message:
    "by 3 June" beside "we hope to be back in the house before summer"), nor by one holding less of what the question
    asks of (``heads``: "Ilse's son sleeps 6 hour stretches" for "What hours did Ilse *work* before the change?"). The
    words of the change itself ("before the council moved the pitches") are the new record's, so how many of the
    question's words each holds does not decide."""
    old = [i for i in range(len(hits)) if replaced[i] and states[i] and share(i) > 0]
    if not old and hits and replaced[0]:
        return 0  # the ranking, which does not demote replaced records for such a question, puts one first
    best = max(old, key=lambda i: (share(i), -i), default=None)
    if best is not None and best != 0 and replaced[0] and share(best) <= share(0) and heads(best) <= heads(0):
        return 0  # the ranking put a replaced record first that holds as much of the question
    if best is None or best == 0 or replaced[0] or not states[0] or hits[0].score < trust:
        return best
    # a part of the first hit's own statement: of its message, stating a value of the kind asked or only an adjunct of
    # it ("by 3 June", "on Sunday 4 May."): the topic, and so the question's words, are in the other part
    part = hits[best].record.provenance[:1] == hits[0].record.provenance[:1] and (
        kind or _ADJUNCT.match(hits[best].record.text()) is not None
    )
    return None if not part and (heads(best) < heads(0) or not says(best)) else best
