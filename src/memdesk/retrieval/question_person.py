"""Whose words a question asks about, read from its grammatical person (English).

A memory scope holds one user's conversations with an assistant, and every record keeps the role of
the message it came from (:attr:`~memdesk.records.MemoryRecord.role`). A question in the first
person ("How many times did I ...?", "What is my ...?") asks what *the user* said or did: the
user's own messages answer it, while the assistant's long replies on the same topic only share its
words. :func:`role_boosts` turns that into a score bonus for the user's records in the fused read
path (:class:`memdesk.retrieval.retrieve.Retriever`, ``person_weight``). A question that says both "I" and "you"
("Can you remind me ...?") takes no side; nor does a question put to "you" alone: "What did you suggest?" asks
for the assistant's words, but an agent's own query "What do you know about the user's diet?" does not, and no
benchmark question measures the difference.

A question in the third person asks about the user's world: one that names the user ("Where does Dana live?",
"What is Dana's cat called?", where Dana is the speaker of the user's own messages; ``names``, the names the user
goes by in the scope, :func:`memdesk.retrieval.scope_index.user_names`), also when it says "you" ("Do you know where
Dana lives?"), or one that says neither "I" nor "you" ("How old is Theo?", the user's son). The user's own statements
("I live in ...", "Theo is four") answer it; the assistant's replies only discuss it. It gets the same order as a
first-person question, told as a penalty on every other role's records, so that the user's records keep the scores
of a question that takes no side (:func:`role_boosts`).

The cue is a handful of English pronouns and the user's names: a question in another language reads as one in the
third person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from ..records import ROLES

__all__ = ["FIRST_PERSON", "PERSON_WEIGHT", "SECOND_PERSON", "grammatical_person", "names_user", "role_boosts"]

PERSON_WEIGHT = 3.0
"""The default read path's bonus, in standard deviations of a memory type's scores, for the user's
records when a question is in the first person (measured in ``bench/results/RETRIEVAL_EXPERIMENTS.md``)."""

FIRST_PERSON = frozenset("i me my mine myself i'm i've i'd i'll im ive".split())
SECOND_PERSON = frozenset("you your yours yourself you're you've you'd you'll youre".split())
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)

Person = Literal["first", "second"]


def grammatical_person(question: str) -> Person | None:
    """``"first"`` when the question speaks of "I / me / my" and not of "you", ``"second"`` for the
    reverse, None for neither or both."""
    words = {w.replace("’", "'") for w in _WORD.findall(question.lower())}
    first, second = bool(words & FIRST_PERSON), bool(words & SECOND_PERSON)
    if first == second:
        return None
    return "first" if first else "second"


def names_user(question: str, names: Iterable[str]) -> bool:
    """True when ``question`` names the user by one of ``names`` (whole words, any case, a possessive "'s" too)."""
    words = {w.replace("’", "'").removesuffix("'s") for w in _NAME_WORD.findall(question.lower())}
    for name in names:
        parts = _NAME_WORD.findall(name.lower())
        if parts and (all(p in words for p in parts) or parts[0] in words):  # "Dana" names "Dana Kim" too
            return True
    return False


def role_boosts(question: str | None, weight: float, names: Iterable[str] = ()) -> dict[str, float]:
    """The bonus per record role for ``question``: ``weight`` on the user's records for a first-person
    question; ``-weight`` on every other role's records for one naming the user (one of ``names``: the same order
    among the candidates, while the user's records keep the scores of a question that names nobody); nothing
    otherwise."""
    if not question or weight <= 0:
        return {}
    if grammatical_person(question) == "first":
        return {"user": weight}
    if names_user(question, names) or third_person(question):  # the same order, told as a penalty on the others
        return {role: -weight for role in ROLES if role != "user"}
    return {}


def third_person(question: str) -> bool:
    """True when ``question`` says neither "I / me / my" nor "you / your": it asks about someone or something in the
    user's world ("How old is Theo?"), which the user's own words tell and the assistant's replies only discuss."""
    words = {w.replace("’", "'") for w in _WORD.findall(question.lower())}
    return bool(words) and not words & (FIRST_PERSON | SECOND_PERSON)
