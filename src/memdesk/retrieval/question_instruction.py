"""Whether a question asks how the assistant is to act, and whether a record is the user's instruction (English).

A scope holds two kinds of the user's words: what the user's life holds ("Dana is a tiler in Swansea") and what the
user wants from the assistant ("pls keep answers short, Dana reads them on her phone"). A question asks for one or
the other, and the record of the other kind often shares its topic words: "What does Dana do for a living?" sits
close to the instruction that mentions her jobs, and "How should the assistant write to Dana?" close to any record
naming Dana. The two are told apart by grammar, not by topic:

* **the question** (:func:`asks_instruction`) asks for an instruction when the assistant is the subject of a modal
  or the one a wish is put to ("How should the assistant write to Dana?", "What did Dana ask the assistant to stop
  doing?"), when a modal of obligation has a subject that is neither the user nor the asker ("How should reminders
  for Dana be written?", "What units should recipes use?", "What food must not be served?": the user is then the
  one served, after "for / to / with", not the one who acts, which makes "What should Dana pack?" advice), or when
  the user is the subject of a verb of wishing ("How does Dana want things laid out?", "What kind of daycare does
  Dana not want?", "How does Dana prefer to revise?");
* **the record** (:func:`instructs`) is the user's instruction when it carries a marker of request ("please", "pls":
  "no spreadsheets pls"), or one of its clauses opens with a negated imperative ("don't ever suggest ...", "never
  suggest ...") or tells how to answer (the write side's :func:`memdesk.conversation.stance.instructs_reply`: "keep
  answers short", "no emojis"). A bare imperative and the write side's ``procedural`` type are not read: casual
  notes look like orders ("put wreaths up to $95"). A record stating what the user wants or likes (:func:`wishes`: a
  verb of volition or liking) is a wish.

The fused read path (:meth:`memdesk.retrieval.scope_index.ScopeIndex.rank`, ``instruction_weight``) gives an
instruction record a bonus for a question asking for one (gated like the other bonuses), and, for a question asking
for a value of the user's world (one with a focus, :mod:`memdesk.retrieval.question_focus`, that asks for no
instruction), takes half that weight off it (:data:`VALUE_SHARE`): the instruction's words are about the
conversation, not the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np

from .question_person import names_assistant, names_user
from ..records import MemoryRecord

__all__ = [
    "INSTRUCTION_WEIGHT", "VALUE_SHARE", "asks_instruction", "instruction_weights", "instructs", "instructing", "wishes",
]

Asked = Literal["instruction", "wish"]

INSTRUCTION_WEIGHT = 1.0
"""The default read path's bonus, in standard deviations, for the user's instruction when a question asks for one,
and the penalty on it when a question asks for a value of the user's world (``bench/results/chats/28tp/README.md``)."""

VALUE_SHARE = 0.5
"""The share of ``instruction_weight`` taken off an instruction for a question asking for a value: less than the bonus,
as an instruction often carries a fact in passing ("pls remind Dana she takes her pill when she wakes up")."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_MODAL = re.compile(r"\b(?:should|must|ought to|shall|has to|have to)\b\s+(?:not\s+|n['’]t\s+)?([^\W\d_]+(?:['’][^\W\d_]+)?)?", re.IGNORECASE)
_WISH = re.compile(
    r"\b(?:does|did|do|would)\s+(.{1,40}?)\s+(?:not\s+|n['’]t\s+)?(?:want|prefer|wish|rather)\b"
    r"|\b(?:wants?|prefers?|wanted|preferred)\b",
    re.IGNORECASE,
)
_ASKED_OF = re.compile(
    r"\b(?:ask|asks|asked|tell|tells|told|want|wants|wanted)\b[^?]{0,20}?\b(?:the |your )?(?:ai )?(?:assistant|bot)\b",
    re.IGNORECASE,
)
_POSSESSED = re.compile(r"['’]s\s+\w")
"""A subject that is someone of the user's ("Dana's neighbour"), not the user."""
_SUBJECTLESS = frozenset("i we you one me us".split())
"""Subjects of a modal that make it a question of know-how: "What should I ...", "How should one ..."; a capitalized
subject is a person's name ("What should Sam pack?"): advice too."""
_VOLITION = frozenset(
    """want wants wanted prefer prefers preferred rather like likes liked love loves loved hate hates hated enjoy
    enjoys enjoyed favourite favorite favourites favorites dislike dislikes""".split()
)
"""Verbs (and the noun "favourite") of wanting and liking: a record holding one states the user's will or taste."""
_REQUEST = frozenset("please pls plz plse porfa kindly".split())
"""Markers of a request, the mood of an instruction whatever its verb ("no spreadsheets pls")."""
_NEGATED = re.compile(
    r"^(?:(?:yes|yess|yeah|no|ok|okay|grand|also|and|oh|btw|but|so|just|then|tak|sure)\W+)*"
    r"(?:don['’]?t|do not|never)\s+(?:ever\s+)?(?!been\b|had\b|did\b|was\b|were\b)[a-z]+",
    re.IGNORECASE,
)
"""A clause opening with a negated imperative ("don't ever suggest ...", "never suggest ...", "dont give long
answers"), after any discourse markers ("yes", "also", "btw"); not a narrated "never been"."""
_CLAUSE = re.compile(r"[.!?;]+\s+|,\s+|\s+[-–—]\s+|\s+(?:and|but|so)\s+", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:yes|yess|yeah|ok|okay|grand|also|and|oh|btw|but|so|just|then|tak|sure)\W+)+", re.IGNORECASE)


def asks_instruction(question: str | None, users: Iterable[str] = (), assistants: Iterable[str] = ()) -> Asked | None:
    """``"instruction"`` when ``question`` asks how the assistant is to act, ``"wish"`` when it asks what the user
    wants or prefers (the user the subject of a verb of wishing), None otherwise (see the module docstring); ``users``
    and ``assistants`` are the names the two go by in the scope."""
    if not question:
        return None
    users, assistants = list(users), list(assistants)
    assistant = names_assistant(question) or names_user(question, assistants)
    if _ASKED_OF.search(question):  # "What did Dana ask the assistant to stop doing?"
        return "instruction"
    for m in _MODAL.finditer(question):
        subject = m.group(1) or ""
        if assistant or (subject and not subject[0].isupper() and subject.lower() not in _SUBJECTLESS):
            return "instruction"  # "How should the assistant write ...", "How should reminders for Dana be written?"
    for m in _WISH.finditer(question):
        who = m.group(1)
        if who is None and assistant:  # "What tone does Dana want from the assistant?" (the subject said elsewhere)
            return "instruction"
        if who is not None and names_user(who, users) and not _POSSESSED.search(who):  # "How does Dana want ...?"
            return "wish"
    return None


def instructs(text: str, role: str = "") -> bool:
    """True when a record of this ``text`` (and ``role``) is the user's instruction to the assistant (see the module
    docstring)."""
    if role and role != "user":
        return False
    from ..conversation.stance import instructs_reply  # the write side's reading of "keep it short" (late: no cycle)

    if _words(text) & _REQUEST:
        return True
    return any(_NEGATED.match(c) or instructs_reply(_LEAD.sub("", c)) for c in map(str.strip, _CLAUSE.split(text)))


def wishes(text: str, role: str = "") -> bool:
    """True when a record of this ``text`` (and ``role``) states what the user wants, likes or refuses: a verb of
    volition or liking (:data:`_VOLITION`), whoever its subject ("Dana prefers the derive API", "we only want positive
    reinforcement", "Durango was our favourite")."""
    return (not role or role == "user") and bool(_words(text) & _VOLITION)


def _words(text: str) -> set[str]:
    """The words of ``text``, lower-cased, with a plain apostrophe."""
    return {w.lower().replace("’", "'") for w in _WORD.findall(text)}


def instructing(records: Sequence[MemoryRecord]) -> np.ndarray:
    """Per record: 1 when it is the user's instruction to the assistant (:func:`instructs`), 2 when it states a wish
    (:func:`wishes`) and no instruction, 0 otherwise."""
    return np.array(
        [1 if instructs(r.text(), r.role) else 2 if wishes(r.text(), r.role) else 0 for r in records], dtype=np.int8
    )


def instruction_weights(
    question: str | None, asks_value: bool, weight: float, users: Iterable[str] = (), assistants: Iterable[str] = ()
) -> dict[str, float]:
    """The bonuses ``instruction_weight`` and ``wish_weight`` of the fused ranking for ``question``: ``weight`` on an instruction for a question asking for one or
    for a wish, ``weight`` on a wish for a question asking for one, -:data:`VALUE_SHARE` * ``weight`` on an
    instruction for a question asking for a value of the user's world instead (``asks_value``: it has a focus)."""
    asked = asks_instruction(question, users, assistants)
    if asked is not None:
        return {"instruction_weight": weight, "wish_weight": weight if asked == "wish" else 0.0}
    return {"instruction_weight": -VALUE_SHARE * weight if asks_value else 0.0, "wish_weight": 0.0}
