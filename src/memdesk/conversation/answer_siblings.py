"""The record of the answer's own message that says what the question asks, for the offline answerer.

A message is often stored as several records (its sentences, the items of a list), and the read path ranks them
by meaning: the record it puts first may be the message's other statement. The ranking's choice of message is kept;
within it, :func:`sibling` picks the record that says what is asked:

* **A list position.** A question naming a position in a list ("What should Ilse do *first* at the handover?", "What
  is *step 3* of the plan?", "the *last* step of the checklist": :func:`asked_position`) is answered by the item at
  that position. When the answer is a numbered item ("3. Keep the keys receipt.") or a record holding numbered items,
  none of them at the asked position, the record of the same message holding the asked item ("1. Ask for the meter
  readings.") answers instead: one in the evidence, else one the caller reads from the message (``mates``). "Last" is
  the highest number the message's items hold.
* **What the question asks of.** When the answer holds less of the question's head words (what it asks of:
  "What *sport* does Ilse's daughter *play*?", the subject's names left out:
  :func:`~memdesk.conversation.answer_head.asked_of`) than a current record of the same message among the best few
  ("She plays water polo on Saturday mornings" beside "Ilse's daughter Mira is 7."), that record answers; for a
  question about the past ("Where did they stay after the flood?"), a replaced one too. When none of the best few does
  and the answer states no value of the asked kind, the record of its message (``mates``) holding most of them does.

The message is the record's first provenance id (the ids after it are the context a reply was read in).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..hits import SearchHit
from ..records import MemoryRecord
from ..retrieval.question_head import Head
from .answer_head import asked_of

__all__ = ["asked_position", "item_numbers", "sibling"]

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10,
}  # fmt: skip
_POSITION = re.compile(
    r"\b(?:(?P<ord>" + "|".join(_ORDINALS) + r"|last|final)\b(?:\s+(?:step|item|point|thing|question|tip))?"
    r"|(?:step|item|point|number|no\.)\s*(?P<num>\d{1,2})\b)",
    re.IGNORECASE,
)
_ITEM = re.compile(r"(?:^|(?<=[\s:;,(]))(\d{1,2})[.)](?=\s|$)")
"""A list marker: "1." or "1)" opening the text or after a space or a colon ("Before you sign: 1) the deposit")."""

LAST = -1
"""The position :func:`asked_position` returns for "last" / "final"."""


def asked_position(question: str) -> int | None:
    """The list position ``question`` names: 1 for "first", 3 for "third" or "step 3", :data:`LAST` for "last";
    None when it names none."""
    m = _POSITION.search(question)
    if m is None:
        return None
    if m.group("num"):
        return int(m.group("num"))
    word = m.group("ord").lower()
    return LAST if word in ("last", "final") else _ORDINALS[word]


def item_numbers(text: str) -> tuple[int, ...]:
    """The numbers of the list items ``text`` holds, in order ("1) tiles, 2) taps" -> (1, 2)); () for none. A number
    with a unit ("2.5 km") is no marker: a marker is followed by a space or the end."""
    return tuple(int(n) for n in _ITEM.findall(text))


def sibling(
    question: str,
    head: Head | None,
    hits: Sequence[SearchHit],
    answer: SearchHit,
    current: Sequence[int],
    mates: Callable[[MemoryRecord], Sequence[MemoryRecord]] | None = None,
    states: Sequence[bool] | bool | None = None,
) -> SearchHit | MemoryRecord | None:
    """The record of ``answer``'s message that says what ``question`` asks instead of ``answer`` (see the module
    docstring); None when ``answer`` says it or no such record exists. ``current``: the indices of the best few current
    hits; ``mates(record)``: the other current records of ``record``'s message (None when a statement of it is already
    said beside the answer); ``states``: per hit, whether it states a value of the kind the question asks for, when that
    decides, False or None otherwise (an answer stating one is not left for a record of its message that states none:
    "Ilse drives the Volvo now" for "Which truck did Ilse drive?", not "Ilse swapped trucks.")."""
    message = answer.record.source_message()
    if message is None:
        return None
    position = asked_position(question)
    if position is not None and (numbers := item_numbers(answer.record.text())):
        return _at_position(position, numbers, hits, answer, message, mates)
    if head is None or not any(s not in head.names for s, _ in head.weights):
        return None
    base = asked_of(head, answer.record)
    states = states or None  # False: no kind decides
    stating = states is not None and any(s for h, s in zip(hits, states) if h.record.id == answer.record.id)
    found = next(
        (
            hits[i] for i in current
            if hits[i].record.source_message() == message and asked_of(head, hits[i].record) > base
            and (not stating or states[i])  # type: ignore[index]
        ),
        None,
    )
    if found is not None or stating or mates is None:
        return found
    return max(
        (r for r in mates(answer.record) if r.role == answer.record.role and asked_of(head, r) > base),
        key=lambda r: asked_of(head, r), default=None,
    )


def _at_position(
    position: int, numbers: tuple[int, ...], hits: Sequence[SearchHit], answer: SearchHit, message: str,
    mates: Callable[[MemoryRecord], Sequence[MemoryRecord]] | None,
) -> SearchHit | MemoryRecord | None:
    """The record of ``message`` holding the item at ``position`` when ``answer`` (holding ``numbers``) does not."""
    pool: list[SearchHit | MemoryRecord] = [
        h for h in hits
        if h.record.id != answer.record.id and not h.record.superseded_by and h.record.source_message() == message
    ]
    if mates is not None:
        seen = {h.record.id for h in pool if isinstance(h, SearchHit)} | {answer.record.id}
        pool += [r for r in mates(answer.record) if r.id not in seen and r.role == answer.record.role]
    held = {id(p): item_numbers(_record(p).text()) for p in pool}
    if position == LAST:
        top = max((n for ns in held.values() for n in ns), default=0)
        if top <= max(numbers):
            return None
        position = top
    if position in numbers:
        return None
    return next((p for p in pool if position in held[id(p)]), None)


def _record(said: SearchHit | MemoryRecord) -> MemoryRecord:
    return said.record if isinstance(said, SearchHit) else said
