"""Which evidence record answers a question, for the offline (extractive) answerer.

The read path ranks by meaning and words together; its first hit is the record most *related* to the
question, not always the one that *answers* it ("How does Maya make the curry?" ranks "Ines loved the
curry" next to the recipe). When the ranking is sure, its first hit answers: a current first hit whose calibrated
relevance (its ``score``, :mod:`memdesk.retrieval.relevance`) is at least :data:`TRUST` is the answer whatever words it
holds ("Where does Maya work now?": "Maya is a nurse at St Mary's now"). Otherwise :func:`choose` reads the
question's content words (stemmed, stopwords out; the words most of the evidence shares, such as the person's name,
say nothing about which record answers) and weighs each by how rare it is in the evidence. The first current hit
answers when it holds at least
:data:`KEEP_SHARE` of the largest share of that weight any of the first :data:`WINDOW` current hits
holds (the ranking knows more than word overlap); otherwise the hit holding the largest share does, the
earlier one among equals.

A current record that a later record in the evidence says no longer holds ("Maya works at the Riverside clinic",
then "Maya no longer works at the Riverside clinic": a negation cue, :data:`NEGATION`, and two or more of the
earlier record's distinctive words) is passed over as an answer, as a replaced one is: a store written before its
extractor closed such records still answers with what holds now.

A record that only says a value of the asked kind no longer holds ("Where does Maya work?": "Maya no longer works at
the Riverside clinic"; :meth:`~memdesk.retrieval.question_focus.Focus.denies`) does not answer a question about what
holds now: it is passed over too, and where it would answer (it replaced the record holding the question's words), a
statement of the same message that states a value of the asked kind answers instead ("I no longer work at the
Riverside clinic. I started at York Hospital": the second), and otherwise nothing does.

A question about what held before a change ("What did Maya pay before the rise?", "Where did she live originally?":
:func:`~memdesk.retrieval.question_now.asks_then`, the read side's reading, under which the ranking does not demote
replaced records) is answered by a replaced record of the best few that states a value of the asked kind and holds
some of the question's words, the one holding most of them: the record that said the old value, not the one that
replaced it; when none does and the first hit is a replaced record, that one answers.

When no current record in the evidence holds any of the question's content words but a memory that was
since replaced does, the record that replaced it answers when it is in the evidence ("Where does Maya
live now?": "lives in Headingley" was replaced by "moved to York, into a terraced house"), with the old
one beside it; a replacement that states no value of the asked kind (nor a statement of its message does) does not
answer, and the next replaced record holding the words is tried. When no record, current or replaced, holds the
question's words and the first hit is a closing statement, the first current hit that states a value of the asked
kind answers ("Where does Noor work now?": "Noor no longer works at the Riverside clinic", then "Noor is a nurse at
St Mary's now"). An answer that states no value of the asked kind comes with a statement
of its own message that does (:attr:`Choice.beside`): one in the evidence, else, when the caller can read the other
current records of the answer's message (``mates``), one of those ("Where will Noor work from July?": "Start date
July 1." comes with "Assistant professor at Lakeshore University.", said in the same message but ranked out of the
block). Otherwise nothing in memory says the answer directly: :class:`Choice` then carries the
closest record (the first hit) and the replaced one, if any, and the answerer says so rather than
presenting the first hit as the answer; so it does when the answer states no value of the asked kind and its message
states none (:attr:`Choice.direct`).

What counts as replaced is read at the time the question is asked (``asked_at``): a record closed only from a later
date (``valid_to`` after it: "I leave the bakery at the end of May", asked in May) still held then
(:meth:`~memdesk.records.RecordBase.closed_at`).

A question asking for a kind of value is answered by the hit stating one (:mod:`memdesk.conversation.answer_kinds`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from ..hits import SearchHit
from ..records import MemoryRecord
from ..retrieval.question_focus import Focus, RecordValues, question_focus, user_name_words
from ..retrieval.question_head import Head, asked_head
from ..retrieval.question_now import asks_now, asks_then
from ..retrieval.stemming import StemmingTokenizer
from .answer_head import asked_of, held, text_stems
from .answer_kinds import KEEP_SHARE, asks_days, loose, names_days, of_kind, replaced_answer
from .answer_siblings import sibling

__all__ = ["KEEP_SHARE", "WINDOW", "Choice", "choose"]

WINDOW = 5
"""Hits read for the answer: the best few, where a relevant record still sits when it is not first."""

TRUST = 0.2
"""The first hit answers, whatever words it holds, when its calibrated relevance (its ``score``) is at least this
(tune / burned held-out / heldout2 chats, extractive answers: 0.5 -> 0.799 / 0.771 / 0.606, 0.2 -> 0.810 / 0.776 /
0.609, 0.1 -> 0.810 / 0.774 / 0.609: a first hit the ranking gives one chance in five was the answer more often than a
lower hit sharing more of the question's words)."""

_HABITUAL = re.compile(r"^\W*when (?:do|does)\b", re.IGNORECASE)
"""A question asking when something is done, in the present (a habit, a schedule): a time of day answers it too."""

NEGATION = re.compile(r"\b(?:no longer|not\b.{0,40}\bany ?more|stopped|quit)\b", re.IGNORECASE)
"""What marks a record as saying an earlier one no longer holds."""

_TOKENIZER = StemmingTokenizer(max_cached=20_000)
#: Function words of a question that BM25's stopwords keep (the rest of NLTK's English list, stemmed as the
#: tokenizer stems them): "Where does Maya live *now*?" asks where she lives, not what was said "now"; and the words
#: that only say a name is asked ("What is the dog *called*?"): a record naming something else "called" is no closer.
_FUNCTION = frozenset(
    _TOKENIZER(
        "again against both during each few further itself more most nor now once only other own same should such through "
        "until called named name names"
    )
)


@dataclass(frozen=True)
class Choice:
    """The record that answers (``answer``), or, when none does, the closest one and an earlier one.

    ``answer``: the hit whose words answer the question, or the one that replaced ``earlier``; None when
    neither is in the evidence; ``closest``: the first hit (always set when there is evidence); ``earlier``:
    a superseded hit that holds the words no current one does (None otherwise); ``terms``: the question's
    content words that were looked for; ``beside``: see below."""

    answer: SearchHit | None
    closest: SearchHit | None
    earlier: SearchHit | None
    terms: tuple[str, ...]
    beside: MemoryRecord | None = None
    """A statement of the answer's own message that states the value of the asked kind the answer does not ("Where
    does Maya work?": "Maya works night shifts now" beside "Maya started at York Hospital"), None otherwise."""
    direct: bool = True
    """Whether ``answer`` (or ``beside``) states a value of the kind the question asks for (a place for "Where ...?");
    False when the best record holds the question's words but no such value: the answerer then says so."""
    more: tuple[SearchHit, ...] = ()
    """For a question asking for a set of items, the other hits of the best few that each name some of them (hold a
    head word of the question and state a value of the asked kind): parts of the answer, in rank order."""


def choose(
    question: str,
    hits: Sequence[SearchHit],
    *,
    window: int = WINDOW,
    trust: float = TRUST,
    mates: Callable[[MemoryRecord], Sequence[MemoryRecord]] | None = None,
    asked_at: datetime | None = None,
) -> Choice:
    """The hit of ``hits`` (best first) that answers ``question``; see the module docstring. ``mates(record)``, when
    given, reads the other current records of ``record``'s message (for :attr:`Choice.beside`); ``asked_at``, when
    given, is the time the question is asked: a record closed only after it (``valid_to`` later) still held then."""
    if not hits:
        return Choice(None, None, None, ())
    words = [set(_TOKENIZER(h.record.embed_text())) for h in hits]
    common = _common(words)
    focus = question_focus(question)
    denial, states = _focus_marks(focus, [h.record for h in hits])
    if focus is not None and focus.slot == "date" and _HABITUAL.match(question):  # "When does he drop her off?"
        states = [said or "clock" in RecordValues.of(h.record.text()).kinds for said, h in zip(states, hits)]
    if asks_days(question):  # "Which days does he go?": a record naming weekdays states the value, a name does not
        states = [names_days(h.record.text()) for h in hits]
    replaced = [_replaced(h.record, asked_at) for h in hits]
    current = [
        i for i, h in enumerate(hits)
        if not replaced[i] and not denial[i] and not _negated(i, hits, words, common, replaced)
    ][:window]
    weights = _weights(_TOKENIZER(question), words)
    head = asked_head(question)

    def chosen(i: int, terms: tuple[str, ...]) -> Choice:  # a current hit answers; its message may say the value
        if states[i]:
            return Choice(hits[i], hits[0], None, terms)
        beside = _restated(i, hits, denial, states, [r and focus.current for r in replaced])  # past: what held then
        said = hits[beside].record if beside is not None else _mate_stating(focus, hits[i].record, mates)
        direct = said is not None or focus is None or loose(question, focus) or (
            focus.slot == "date" and hits[i].record.temporal_anchor is not None  # its anchor is shown with it
        )
        return Choice(hits[i], hits[0], None, terms, said, direct)

    total = sum(weights.values()) or 1.0

    def share(i: int) -> float:  # the share of the question's weighted words hit ``i`` holds
        return sum(w for t, w in weights.items() if t in words[i]) / total

    heads = (lambda i: asked_of(head, hits[i].record)) if head is not None else (lambda i: 0.0)

    def says(i: int) -> bool:  # hit ``i``'s own words (not the context it was embedded with) hold the question's
        return bool(set(weights) & set(_TOKENIZER(hits[i].record.text())))

    then = replaced_answer(hits[:window], states, share, replaced, says, heads, trust, focus is not None) if asks_then(
        question
    ) else None
    if then is not None:
        return Choice(hits[then], hits[0], None, tuple(weights))  # what held before: the replaced record says it

    def ranked() -> Choice:  # the answer as the ranking, the asked kind and the question's words choose it
        nouns = head.nouns if head is not None else ()
        tells = (lambda i: bool(set(nouns) & text_stems(hits[i].record.text()))) if nouns else None
        kind = of_kind(
            question, hits, focus, states, replaced, current, share, asked_at, window, trust, denial, tells=tells,
            heads=heads if head is not None else None,
        )
        if kind is None:  # the best current hit holds more of the question's words: unless it says nothing of the kind
            kind = of_kind(
                question, hits, focus, states, replaced, current, share, asked_at, window, trust, denial,
                direct=lambda i: chosen(i, ()).direct, tells=tells,
            )  # and a hit stating a value of the kind holds what the question asks of ("When is the surgery?")
            kind = kind if kind is not None and _tells(head, hits[kind].record) else None
        if kind is not None:
            return chosen(kind, tuple(weights))  # the best hit stating a value of the asked kind
        if current and current[0] == 0 and hits[0].score >= trust:  # the ranking is sure enough: the first hit answers
            return chosen(0, tuple(weights))
        if not weights:  # a question of function words and names only: the ranking is all there is
            return chosen(current[0], ()) if current else Choice(hits[0], hits[0], None, ())
        best = max(current, key=lambda i: (share(i), -i), default=None)
        if best is not None and share(best) > 0:
            if share(current[0]) >= KEEP_SHARE * share(best):
                best = current[0]
            return chosen(best, tuple(weights))
        old = sorted((i for i in range(len(hits)) if replaced[i] and share(i) > 0), key=lambda i: (-share(i), i))
        for i in old:  # the replaced memory holding most of the question's words whose replacement answers
            newer = next((j for j, h in enumerate(hits) if h.record.id == hits[i].record.superseded_by), None)
            if newer is not None and (denial[newer] or not states[newer]):  # it closed the old value or says another thing
                newer = _restated(newer, hits, denial, states, replaced)  # a statement beside it may say the new value
            if newer is not None:
                return Choice(hits[newer], hits[0], hits[i], tuple(weights))
        if denial[0] and not old and any(states[i] for i in current):  # the first hit only said what no longer holds
            return chosen(next(i for i in current if states[i]), tuple(weights))
        return Choice(None, hits[0], hits[old[0]] if old else None, tuple(weights))

    choice = ranked()
    better = _by_head(head, hits, current[:window], states, choice)
    choice = chosen(better, tuple(weights)) if better is not None else choice
    if choice.answer is not None and choice.earlier is None:  # the record of the answer's message saying what is asked
        strict = focus is not None and not loose(question, focus)  # only a value of the asked kind answers
        past = focus is not None and not focus.current  # "Where did they stay after the flood?": what held then too
        near = sorted(set(current[:window]) | {i for i in range(min(window, len(hits))) if past and replaced[i]})
        said = sibling(question, head, hits, choice.answer, near, None if choice.beside else mates, strict and states)
        if said is not None:
            hit = said if isinstance(said, SearchHit) else choice.answer.model_copy(update={"record": said})
            choice = replace(choice, answer=hit, beside=None)
    if focus is not None and focus.several:  # "Which client jobs has Ana mentioned?": each record naming one answers
        return _with_parts(question, head, hits[:window], states, replaced, choice)  # part of it
    return choice


def _replaced(record: MemoryRecord, asked_at: datetime | None) -> bool:
    """Whether ``record`` no longer held when the question was asked: closed by then (a change said ahead of its date
    closes it only from that date: :meth:`~memdesk.records.RecordBase.closed_at`); superseded at all when the time
    is not known."""
    return record.closed_at(asked_at) if asked_at is not None else record.superseded_by is not None


def _focus_marks(
    focus: Focus | None, records: Sequence[MemoryRecord], names: frozenset[str] | None = None
) -> tuple[list[bool], list[bool]]:
    """Per record: (whether it only says values of the kind ``focus`` asks for no longer hold, for a question asking
    what holds now: :meth:`~memdesk.retrieval.question_focus.Focus.denies`; whether it states a value of that kind:
    :meth:`~memdesk.retrieval.question_focus.Focus.answers`, True for every record when the question asks for no
    kind). ``names``: the user's name words (default: read from ``records``)."""
    if focus is None:
        return [False] * len(records), [True] * len(records)
    if names is None:
        names = _user_names(records)
    values = [RecordValues.of(r.text()) for r in records]
    return [focus.denies(v, names) for v in values], [focus.answers(v, names) for v in values]


def _user_names(records: Sequence[MemoryRecord]) -> frozenset[str]:
    return user_name_words(r.speaker for r in records if r.role == "user" and r.speaker)


def _mate_stating(
    focus: Focus | None, record: MemoryRecord, mates: Callable[[MemoryRecord], Sequence[MemoryRecord]] | None
) -> MemoryRecord | None:
    """The shortest current record of ``record``'s message (read by ``mates``) that states a value of the kind
    ``focus`` asks for and is no closing statement; None without ``mates``, a kind asked or such a record."""
    if focus is None or mates is None:
        return None
    found = [r for r in mates(record) if r.role == record.role]
    denial, states = _focus_marks(focus, found, _user_names([record, *found]))
    stating = [r for r, denies, says in zip(found, denial, states) if says and not denies]
    return min(stating, key=lambda r: (len(r.text()), r.id), default=None)


def _restated(
    i: int, hits: Sequence[SearchHit], denial: list[bool], states: list[bool], replaced: list[bool]
) -> int | None:
    """A current hit from the same message as record ``i`` that states a value of the asked kind and is no closing
    statement: what the message says holds now ("I no longer work at X. I started at Y": the second); None when
    there is none."""
    said = set(hits[i].record.provenance)
    return next(
        (
            j for j, h in enumerate(hits)
            if j != i and states[j] and not denial[j] and not replaced[j] and said & set(h.record.provenance)
        ),
        None,
    )


def _common(words: list[set[str]]) -> set[str]:
    """Terms more than half of the records (of two or more) hold: the person's name, the topic of them all."""
    n = len(words)
    counts: dict[str, int] = {}
    for w in words:
        for t in w:
            counts[t] = counts.get(t, 0) + 1
    return {t for t, c in counts.items() if n >= 2 and c > n / 2}


def _negated(i: int, hits: Sequence[SearchHit], words: list[set[str]], common: set[str], replaced: list[bool]) -> bool:
    """True when another current record, said after record ``i``, says it no longer holds: it shares two or more of
    ``i``'s distinctive words (not ``common``; words, not the numbers of a date both carry), one of them in a clause a
    negation cue opens or closes (:func:`_negated_words`: "Ilse is not going to the pottery class anymore, since she
    has Sunday shifts at the bakery" negates the class, not the shifts)."""
    when = _said(hits[i].record)
    if when is None:
        return False
    for j, h in enumerate(hits):
        if j == i or replaced[j]:
            continue
        later = _said(h.record)
        if later is None or later <= when:
            continue
        shared = {t for t in (words[i] & words[j]) - common if not t.isdigit()}
        if len(shared) >= 2 and shared & _negated_words(h.record.text()):
            return True
    return False


_CLAUSE_END = re.compile(r"[.;:!?,]|\b(?:since|because|but|so|as|though)\b", re.IGNORECASE)


def _negated_words(text: str) -> set[str]:
    """The terms of the clauses of ``text`` a negation cue (:data:`NEGATION`) opens or closes: from the clause's start
    to its end ("Maya no longer works at the Riverside clinic"); empty when it has no cue."""
    out: set[str] = set()
    for m in NEGATION.finditer(text):
        starts = [e.end() for e in _CLAUSE_END.finditer(text, 0, m.start())]
        end = _CLAUSE_END.search(text, m.end())
        out |= set(_TOKENIZER(text[starts[-1] if starts else 0 : end.start() if end else len(text)]))
    return out


def _said(record: MemoryRecord):
    return record.said_time() or record.event_time


def _weights(terms: list[str], words: list[set[str]]) -> dict[str, float]:
    """Each distinct question term's weight: its inverse frequency over the evidence records; a term that
    more than half of the records (of two or more) hold weighs nothing."""
    n = len(words)
    out: dict[str, float] = {}
    for t in dict.fromkeys(terms):
        if len(t) < 2 or t in _FUNCTION:  # "s": what is left of "Maya's" once split at the apostrophe
            continue
        df = sum(t in w for w in words)
        if n >= 2 and df > n / 2:
            continue
        out[t] = math.log((n + 1) / (df + 0.5))
    return out


PARTS = 3
"""The most hits added to an answer to a question asking for a set of items."""


def _with_parts(
    question: str, head: Head | None, hits: Sequence[SearchHit], states: list[bool], replaced: list[bool],
    choice: Choice,
) -> Choice:
    """``choice`` with the other hits of ``hits`` (the best few) that name items of the asked set: they hold the head
    noun of the question (the set's noun, "Which client *jobs* ...?") and state a value of the asked kind (a replaced one
    too: "Which jobs has Ana mentioned?" asks of every one); ``choice`` as it is when the question names no such noun
    ("What hours will Ana work?") or asks what holds now ("Which nights does Ana work now?": an older record naming
    nights is no part of that set, and what replaced it is not read here)."""
    noun = head.noun if head is not None else None
    if noun is None or choice.answer is None or asks_now(question):
        return choice
    parts = tuple(
        h for i, h in enumerate(hits)
        if states[i] and noun in text_stems(h.record.text()) and h.record.id != choice.answer.record.id
    )
    return replace(choice, more=parts[:PARTS]) if parts else choice


def _tells(head: Head | None, record: MemoryRecord) -> bool:
    """Whether ``record`` holds a head word of the question (what it asks of: "surgery" for "When is the cataract
    surgery?"); False for a question with no head."""
    return head is not None and held(head, text_stems(record.text())) > 0


def _by_head(
    head: Head | None, hits: Sequence[SearchHit], window: list[int], states: list[bool], choice: Choice
) -> int | None:
    """For a question asking when something happened ("When did Tomas fall off the ladder?":
    :meth:`~memdesk.retrieval.question_head.Head.past_event`): the best current hit of ``window`` (the best few) that
    tells that event (holds the question's verb, an irregular past by its base: "fell") and states a date, when
    ``choice``'s answer does not hold the verb ("Tomas bought the ladder in 2019" names the ladder and a date, not the
    fall; ``head``: the question's, :func:`~memdesk.retrieval.question_head.asked_head`). None otherwise, and when the
    choice is a replacement answering with what it replaced."""
    if head is None or not head.past_event() or choice.earlier is not None:
        return None
    if choice.answer is not None:
        at = next((i for i in window if hits[i].record.id == choice.answer.record.id), None)
        if at is None or head.verb in text_stems(hits[at].record.text()):
            return None  # a record the window does not hold (a replaced one) answers, or the answer tells the event
    said = {i: text_stems(hits[i].record.text()) for i in window}
    named = sum(n in said[at] for n in head.names) if choice.answer is not None else 0
    return next(
        (i for i in window if states[i] and head.verb in said[i] and sum(n in said[i] for n in head.names) >= named),
        None,
    )  # the event told of the question's subject: a record naming it no less than the answer does
