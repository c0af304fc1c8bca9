"""A question about what holds now, and the later of two records on one topic (English).

"What bike does Dana ride now?", "Who is Dana's main client these days?", "Is Dana still at the Corran clinic?"
ask for the current state of something that may have changed. When the conversation said it twice ("Dana rides
an old steel tourer", later "Dana bought a carbon road bike"), both records sit close to the question and the
earlier one often a little closer (it is usually the fuller statement). The write side closes the earlier one
when it recognises the change (supersession, :mod:`memdesk.conversation.supersede`); where it did not, the read
side still knows two things: the question asks what holds *now*, and of two records on the *same topic* (their
vectors close to each other, not merely both close to the question) the later one was said last.
:func:`asks_now` reads the first from the question's words ("now", "currently", "these days", "at the moment",
"still", "any more", "nowadays", "latest", "most recent", and what held at the end of a change: "in the end", "finally",
"eventually", "end up", "after all"); :func:`later_on_topic` gives the second as a penalty,
in standard deviations, on each relevant candidate that a later relevant candidate on the same topic follows.

A question without such a word gets no penalty: "Where does Dana live?" may ask about a fact that never changed,
and "What did Dana cook on Sunday?" about one moment; their order is the ranking's alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

import numpy as np

from .question_time import TimeWindow

__all__ = ["CHANGE_WEIGHT", "NOW_WEIGHT", "SAME_TOPIC", "asks_now", "asks_then", "held_at", "later_on_topic", "without_now"]

NOW_WEIGHT = 1.5
"""The default read path's penalty, in standard deviations, on a record that a later record on the same topic
follows, for a question asking what holds now (tune / burned held-out chats, P@1: 1.0 -> 0.812 / 0.756, 1.5 ->
0.815 / 0.763, 2.0 -> 0.810 / 0.771, 3.0 -> 0.807; none 0.805 / 0.740; ``bench/results/chats/28rk-tune/README.md``)."""

CHANGE_WEIGHT = 0.5
"""The default read path's bonus, in standard deviations (gated), for a record telling a change (a value given with a
word of change: "moved rehearsals to Wednesdays", "raised the price to 1000", "diesel went up to 98 now",
:func:`memdesk.conversation.updates.update_of`, the write side's own reading) when the question asks what holds now,
and its penalty when the question asks what held before: the record that tells the change states the new value, even
where the write side did not close the old one (replay of the nine burned chat sets, P@1: at 0.5 no set lost a question
against the read path without it; 1.0 gained a little more on three and lost one on two:
``bench/results/chats/28rk-kinds/README.md``)."""

SAME_TOPIC = 0.6
"""Two records are on the same topic when the cosine of their vectors is at least this (MiniLM: two statements
of one fact in other words sit about 0.6-0.8 apart; two facts about the same person about 0.3-0.5)."""

TOP = 20
"""Candidates compared: the best few by score (a penalty only reorders the records that could rank first)."""

_NOW = re.compile(
    r"\b(?:now|currently|these days|nowadays|at the moment|at present|still|any ?more|latest|most recent|in the end|finally|eventually|end(?:s|ed)? up|after all)\b",
    re.IGNORECASE,
)
_BEFORE_NOW = re.compile(r"\bbefore (?:the |this |that |her |his |their )?(?:latest|most recent|current)\b", re.IGNORECASE)
"""What held before the latest change ("What did it cost before the latest increase?"): the past, whatever "latest" says."""
_HYPOTHETICAL = re.compile(r"^\W*(?:would|could|might|should|if)\b|\bif (?:she|he|they|i|you|we)\b", re.IGNORECASE)


def without_now(question: str) -> str:
    """``question`` less its words asking what holds now ("now", "still", "these days", ...)."""
    return _NOW.sub(" ", question)


def asks_now(question: str | None) -> bool:
    """True when ``question`` asks what holds now (see the module docstring); not a hypothetical ("Would Dana still
    ... if ...?"), and not "current" as an adjective ("How long has Dana had her current job?" asks a duration)."""
    return bool(question and _NOW.search(question) and not _HYPOTHETICAL.search(question) and not _BEFORE_NOW.search(question))


#: Words of a question asking what held before a change: "Where did she work before ...?", "What date was it first
#: booked for?", "What did it cost originally?", "Who did he use to live with?", "first" said of an act rather than of a
#: thing ("What did the flat cost when Noor first asked?", "When was the party first planned?"; not "the first step",
#: "her first marathon"), a thing said to be the old one ("What was Noor's old car called?").
_THEN = re.compile(
    r"\b(?:before|originally|original|initially|at first|first (?:booked|planned|set|given|scheduled|due|chosen|picked)|"
    r"used to|use to|previous(?:ly)?|formerly|former)\b"
    r"|(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bhis )(?<!\bher )(?<!\bits )(?<!\btheir )(?<!\bmy )(?<!\bour )(?<!\byour )(?<!'s )(?<!’s )"
    r"\bfirst (?!(?:of|time|step|thing|day|week|month|year|one|two|three)\b)[a-z]+\b"  # "when she first asked": an adverb
    r"|\b(?:the|his|her|its|their|my|our|your|[\w-]+['’]s) old (?!(?:friends?|days|age|school friends?)\b)[a-z]+",  # "Biju's old boat"
    re.IGNORECASE,
)


def asks_then(question: str | None) -> bool:
    """True when ``question`` asks what held before a change (and not what holds now): a superseded record answers it,
    so a search for it does not demote superseded records."""
    return bool(question and _THEN.search(question) and not asks_now(question))


def held_at(question: str | None, windows: Sequence[TimeWindow], now: datetime) -> datetime:
    """When ``question`` asks what held: the end of the past intervals it names ("What did the jar cost in March?",
    "On which days was the course in September?": a memory closed after March was current then, and is not demoted as
    superseded), else ``now`` (also for a question asking what holds now, or naming a time still ahead)."""
    ends = [w.end for w in windows]
    if not ends or asks_now(question) or max(ends) >= now.timestamp():
        return now
    return datetime.fromtimestamp(max(ends), tz=timezone.utc)


def later_on_topic(
    z: np.ndarray, vectors: np.ndarray, said: np.ndarray, *, gate: float, weight: float, same_topic: float = SAME_TOPIC,
    top: int = TOP, speakers: np.ndarray | None = None, narrowing: Callable[[int], tuple[str | None, str]] | None = None,
) -> np.ndarray:
    """The penalty of each candidate (``z`` their scores, ``vectors`` their unit vectors, ``said`` when each was said,
    POSIX seconds, NaN unknown): ``weight`` for one of the best ``top`` whose score is above ``gate`` and that a
    later one of them, also above ``gate``, on the same topic (cosine >= ``same_topic``) follows, said by the same
    speaker when ``speakers`` are given; 0 otherwise. ``narrowing``: per candidate, the id of the memory that narrowed
    it (``metadata["narrowed_by"]``, :mod:`memdesk.conversation.narrowing`) and its own id; a memory narrowed by a later
    candidate is on that one's topic whatever their cosine (the write side read the later one as changing part of it:
    "works nights at the depot, [10pm to 6am]" narrowed by "moving to days, 7am to 7pm, same depot")."""
    penalty = np.zeros(len(z))
    best = np.argsort(-z, kind="stable")[:top]
    best = best[(z[best] > gate) & ~np.isnan(said[best])]
    if best.size < 2:
        return penalty
    close = vectors[best] @ vectors[best].T >= same_topic
    if narrowing is not None:
        by, ids = zip(*(narrowing(int(j)) for j in best))
        close |= np.array([b or "" for b in by], dtype=object)[:, None] == np.array(ids, dtype=object)[None, :]
    later = said[best][None, :] > said[best][:, None]  # [i, j]: j was said after i
    if speakers is not None:  # one person's later word on a topic, not another's
        later &= speakers[best][None, :] == speakers[best][:, None]
    followed = (close & later).any(axis=1)
    penalty[best[followed]] = weight
    return penalty
