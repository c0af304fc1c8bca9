"""Whose words a question asks about, read from its grammatical person (English).

A memory scope holds one user's conversations with an assistant, and every record keeps the role of
the message it came from (:attr:`~memdesk.records.MemoryRecord.role`). A question in the first
person ("How many times did I ...?", "What is my ...?") asks what *the user* said or did: the
user's own messages answer it, while the assistant's long replies on the same topic only share its
words. :func:`role_boosts` turns that into a score bonus for the user's records in the fused read
path (:class:`memdesk.retrieval.retrieve.Retriever`, ``person_weight``). A question in the third person, or
one that also says "you" ("Can you remind me ...?"), gets none; nor does a question put to "you"
alone: "What did you suggest?" asks for the assistant's words, but an agent's own query "What do you
know about the user's diet?" does not, and no benchmark question measures the difference.

The cue is a handful of English pronouns; a question in another language gets no bonus.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["FIRST_PERSON", "PERSON_WEIGHT", "SECOND_PERSON", "grammatical_person", "role_boosts"]

PERSON_WEIGHT = 3.0
"""The default read path's bonus, in standard deviations of a memory type's scores, for the user's
records when a question is in the first person (measured in ``bench/results/RETRIEVAL_EXPERIMENTS.md``)."""

FIRST_PERSON = frozenset("i me my mine myself i'm i've i'd i'll im ive".split())
SECOND_PERSON = frozenset("you your yours yourself you're you've you'd you'll youre".split())
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")

Person = Literal["first", "second"]


def grammatical_person(question: str) -> Person | None:
    """``"first"`` when the question speaks of "I / me / my" and not of "you", ``"second"`` for the
    reverse, None for neither or both."""
    words = {w.replace("’", "'") for w in _WORD.findall(question.lower())}
    first, second = bool(words & FIRST_PERSON), bool(words & SECOND_PERSON)
    if first == second:
        return None
    return "first" if first else "second"


def role_boosts(question: str | None, weight: float) -> dict[str, float]:
    """The bonus per record role for ``question``: ``weight`` on the user's records for a
    first-person question; nothing otherwise."""
    if not question or weight <= 0 or grammatical_person(question) != "first":
        return {}
    return {"user": weight}
