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
goes by in the scope, :func:`speaker_names`), also when it says "you" ("Do you know where
Dana lives?"), or one that says neither "I" nor "you" ("How old is Theo?", the user's son). The user's own statements
("I live in ...", "Theo is four") answer it; the assistant's replies only discuss it. It gets the same order as a
first-person question, told as a penalty on every other role's records, so that the user's records keep the scores
of a question that takes no side (:func:`role_boosts`).

Two kinds of question take another side (a question about how the assistant is to answer, "In which language should
the assistant reply?", keeps the user's: the user's instruction answers it). One that names the assistant ("Which books did the assistant recommend?",
"What did the AI suggest for the trip?") asks for the assistant's words: the assistant's records get the bonus a
first-person question gives the user's. One that asks for know-how rather than for a fact of the user's life
(:func:`asks_for_advice`: what one should do, how something is done, what a term means, what a plan, list or
recipe that was drawn up says: "What should Sam pack first?", "How do I split a Rust crate?", "What does SMART
stand for?", "What was on the packing list?") takes no side: in a chat with an assistant such answers are as often
the assistant's replies as the user's words.

The cue is a handful of English pronouns and the user's names: a question in another language reads as one in the
third person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from ..records import ROLES

__all__ = [
    "FIRST_PERSON", "PERSON_WEIGHT", "SECOND_PERSON", "asks_for_advice", "grammatical_person", "names_assistant", "names_user",
    "role_boosts", "speaker_names",
]

PERSON_WEIGHT = 3.0
"""The default read path's bonus, in standard deviations of a memory type's scores, for the user's
records when a question is in the first person (measured in ``bench/results/RETRIEVAL_EXPERIMENTS.md``)."""

FIRST_PERSON = frozenset("i me my mine myself i'm i've i'd i'll im ive".split())
SECOND_PERSON = frozenset("you your yours yourself you're you've you'd you'll youre".split())
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)

Person = Literal["first", "second"]

_ASSISTANT = re.compile(r"\b(?:the|your|an|my) (?:ai |chat |virtual )?(?:assistant|bot|chatbot)\b|\bthe ai\b", re.IGNORECASE)
"""A question naming the assistant: "the assistant", "the bot", "the AI"."""
_ADVICE = re.compile(
    r"\b(?:should|ought to|shall)\b"  # what one should do: "What should Sam do with the cat?"
    r"|^\W*how (?:do|can|could|would|might) (?:i|you|we|one)\b"
    r"|\bhow to\b|\b(?:best|right|quickest|easiest) way\b"  # how something is done
    r"|\bstands? for\b|\bwhat (?:does|do) [\w' -]{1,40}? mean\b|\bmeaning of\b"  # what a term means
    r"|\bthe (?:[\w-]+ ){0,2}(?:list|checklist|plan|timeline|route|recipe|steps|instructions|itinerary|template|outline|draft|script|tips|advice|explanation)\b",
    re.IGNORECASE,
)
"""A question asking for know-how (see the module docstring): a modal of advice, "how do/can/to ...", what a term
means, or the content of a plan, list, recipe or other document drawn up ("the packing list", "the revision plan")."""
_INSTRUCTION = re.compile(
    r"\b(?:should|must|ought to|shall)\b.{0,60}?\b(?:assistant|bot|you|answers?|repl(?:y|ies)|responses?|respond|"
    r"messages?|write|written|format(?:ted)?)\b"
    r"|\b(?:assistant|bot|you|answers?|repl(?:y|ies)|responses?)\b.{0,40}?\b(?:should|must|ought to)\b"
    r"|\b(?:wants?|wanted|likes?|prefers?|asks?|asked|tells?|told)\b[^?]{0,12}?\b(?:from )?(?:the|your) (?:ai )?(?:assistant|bot)\b",
    re.IGNORECASE,
)
"""A question about how the assistant is to answer ("In which language should the assistant reply to Leila?", "How
long should answers to Olu be?"), or about what the user wants from the assistant or told it ("How does Olu want the
assistant to write?", "What did Leila ask the assistant to stop doing?": the assistant is the object of the wish, not
the speaker): the user's instruction answers it, not the assistant's replies."""


def grammatical_person(question: str) -> Person | None:
    """``"first"`` when the question speaks of "I / me / my" and not of "you", ``"second"`` for the
    reverse, None for neither or both."""
    words = {w.replace("’", "'") for w in _WORD.findall(question.lower())}
    first, second = bool(words & FIRST_PERSON), bool(words & SECOND_PERSON)
    if first == second:
        return None
    return "first" if first else "second"


def speaker_names(records: Iterable[Any], role: str) -> frozenset[str]:
    """The names the speakers of ``role`` (``"user"``, ``"assistant"``) go by in these records: the speakers of that
    role's messages, not the role's own word."""
    return frozenset(r.speaker for r in records if r.role == role and r.speaker and r.speaker != role)


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
    if _INSTRUCTION.search(question):  # how the assistant is to answer: the user's instruction says it
        return {role: -weight for role in ROLES if role != "user"}
    if names_assistant(question):
        return {"assistant": weight}
    if asks_for_advice(question):
        return {}
    if grammatical_person(question) == "first":
        return {"user": weight}
    if names_user(question, names) or third_person(question):  # the same order, told as a penalty on the others
        return {role: -weight for role in ROLES if role != "user"}
    return {}


def names_assistant(question: str) -> bool:
    """True when ``question`` names the assistant ("What did the assistant suggest?"): it asks for the assistant's
    words."""
    return bool(_ASSISTANT.search(question))


def asks_for_advice(question: str) -> bool:
    """True when ``question`` asks for know-how rather than a fact of someone's life (see the module docstring)."""
    return bool(_ADVICE.search(question))


def third_person(question: str) -> bool:
    """True when ``question`` says neither "I / me / my" nor "you / your": it asks about someone or something in the
    user's world ("How old is Theo?"), which the user's own words tell and the assistant's replies only discuss."""
    words = {w.replace("’", "'") for w in _WORD.findall(question.lower())}
    return bool(words) and not words & (FIRST_PERSON | SECOND_PERSON)
