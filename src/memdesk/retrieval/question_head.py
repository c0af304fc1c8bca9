"""The attribute a question asks about: its predicate, not the things the predicate is said of.

"When did Dana fall off her bike?" asks about a fall; "her bike" only says which. A record that names the bike and
states a date ("Dana's bike is a 2019 Honda") shares as many of the question's words, and its value is of the right
kind, but it is about another attribute. The question's *head* is read from its shape alone: past the question word
and its noun ("what day", "which route": the kind of value asked for), an auxiliary ("did", "is", "does"), the
subject (names, possessives, determiners and pronouns: whose attribute, which every record about them shares), the
words up to the first preposition: "fall" (off her bike), "birthday" (When is Theo's birthday?), "cooking class"
(On which day is Desmond's cooking class now?), "pay" (Who did Dana pay for her motorbike?). A question with no
auxiliary ("Who teaches Dana's class?") starts its head at its verb. Words of now ("now", "still"), of a new value
("new", "instead") and units of money are no part of it (:func:`memdesk.retrieval.same_attribute.asked_terms`).

A record holding a term of the head gets ``head_weight`` in :meth:`memdesk.retrieval.scope_index.ScopeIndex.rank`,
only when it already stands :data:`HEAD_FLOOR` standard deviations above its type's mean (the whole of it one more
up): of the few records close to the question, the one about the asked attribute ranks first, and the records further
down, at the edge of the token budget, keep their order. Which records hold a term is read from the scope's BM25
postings (no text is scanned at query time).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .lexical import BM25Index
from .question_now import without_now
from .same_attribute import asked_terms

__all__ = ["HEAD_FLOOR", "HEAD_WEIGHT", "asked_head", "holding"]

HEAD_WEIGHT = 0.5
"""Standard deviations added (gated) to a record holding a term of the question's head (0: off)."""

HEAD_FLOOR = 2.0
"""The head bonus is for records already close to the question: none at or below this many standard deviations
above their type's mean, the whole of it from one more up (the wrong first hit it moves is among the first few;
records further down, at the edge of the token budget, keep their order)."""

_WH = re.compile(r"^(?:what|which|when|where|who|whom|whose|how|why)$", re.IGNORECASE)
_AUX = re.compile(
    r"^(?:is|are|was|were|am|be|been|do|does|did|has|have|had|will|would|can|could|should|shall|may|might|must)$",
    re.IGNORECASE,
)
#: what opens a question's subject or object phrase and is no attribute ("the", "her", "Dana's")
_DETERMINER = re.compile(
    r"^(?:the|a|an|this|that|these|those|my|your|his|her|its|our|their|i|you|he|she|it|we|they|me|him|us|them|"
    r"there|any|some|much|many|long|old|often|far|usually|ever|actually|originally|first|last|still|now)$",
    re.IGNORECASE,
)
_PREPOSITION = re.compile(
    r"^(?:in|at|on|for|with|to|from|of|about|by|after|before|since|until|till|during|off|into|onto|over|under|near|"
    r"per|than|like|as|between|through|across|around|against|without|within|upon|toward|towards)$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_][\w'’-]*")
#: verbs that say little of what is asked ("What grade did Ana get?"): the question word's noun names it instead
_LIGHT = re.compile(r"^(?:get|got|have|has|had|do|does|did|make|made|take|took|go|went|use|used|be)$", re.IGNORECASE)


def _is_name(word: str, first: bool) -> bool:
    return word[:1].isupper() and not first


def head_words(question: str) -> list[str]:
    """The words of ``question``'s head (see the module docstring), as written; empty when it has none."""
    words = _WORD.findall(question)
    if not words:
        return []
    i, kind = 0, []
    while i < len(words) and _PREPOSITION.match(words[i]):  # "On what day ...", "For which day ..."
        i += 1
    if i < len(words) and _WH.match(words[i]):
        aux = next((j for j in range(i + 1, len(words)) if _AUX.match(words[j])), None)
        if aux is None or any(_PREPOSITION.match(w) for w in words[i + 1 : aux]):  # "Who teaches ...": no auxiliary
            i += 1
            while i < len(words) and (_DETERMINER.match(words[i]) or words[i].lower() in ("much", "many")):
                i += 1
            start = i
        else:
            start = aux + 1
            kind = [w for w in words[i + 1 : aux] if not (_DETERMINER.match(w) or _is_name(w, False))]
    elif i < len(words) and _AUX.match(words[i]):  # "Did Dana buy ...?", "Is Maryam running ...?"
        start = i + 1
    else:
        return []
    j = start
    while j < len(words) and (_DETERMINER.match(words[j]) or _AUX.match(words[j]) or _is_name(words[j], j == 0)):
        j += 1  # the subject: whose attribute
    head = []
    while j < len(words) and not _PREPOSITION.match(words[j]):
        if not (_DETERMINER.match(words[j]) or _AUX.match(words[j]) or _is_name(words[j], j == 0)):
            head.append(words[j])
        j += 1
    return kind if kind and all(_LIGHT.match(w) for w in head) else head


def asked_head(
    question: str | None, tokenizer: Callable[[str], list[str]], skip: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The terms (``tokenizer``'s) of ``question``'s head, less words of now, of a new value, units of money and the
    terms of ``skip`` (the user's names)."""
    if not question:
        return frozenset()
    return asked_terms(" ".join(head_words(without_now(question))), tokenizer, skip)


def holding(bm25: BM25Index, terms: frozenset[str], positions: np.ndarray) -> np.ndarray:
    """Per record at ``positions``: whether its text (as ``bm25`` indexed it) holds one of ``terms``."""
    return bm25.holds(terms)[positions]
