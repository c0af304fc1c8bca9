"""Two records that hold the same attribute a question asks about, in other words (English).

"Who waters the allotment while Sunniva is away now?": the conversation said "my neighbour Odile will water the
allotment" and, weeks later, "Odile hurt her back, so my nephew Casimir will water the allotment instead". The write
side closes the first record when it reads the change (:mod:`memdesk.conversation.supersede`); when the change is
worded in a way it does not read, both stay open, and the read side's test of one topic
(:func:`memdesk.retrieval.question_now.later_on_topic`: the two vectors at least
:data:`~memdesk.retrieval.question_now.SAME_TOPIC` apart) often fails too, because the later record says more (why
the neighbour cannot, who the nephew is) and its vector drifts from the first; and where it holds, its penalty is
often too small, since the earlier record, usually the one whose words the question repeats, stands far above.

What the two records share is structure, not wording: each holds a word the question asks about (the attribute:
"water", "allotment"; "teacher"; "rent"; not a name, which says whose attribute it is), each states a value of the
kind the question asks for (a person, a place, a date, an amount: :meth:`memdesk.retrieval.question_focus.Focus.answers`),
and their vectors are still on one subject (cosine at least :data:`ATTRIBUTE_TOPIC`, well below one topic's
:data:`~memdesk.retrieval.question_now.SAME_TOPIC`). Two such records answer one question with two values; asked
what holds now, the later one holds. :func:`same_attribute` gives that relation as a matrix (:func:`attribute_pairs`
for the candidates of a :class:`~memdesk.retrieval.scope_index.ScopeIndex`), and :func:`later_first` puts the earlier
of each such pair just below the later one.

A question with no asked kind of value (a yes/no question: "Does Sunniva still go to the chess club?") needs the
shared asked word alone, at the same cosine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .question_focus import Focus, user_name_words
from .question_now import without_now
from .value_kinds import CURRENCY_NAMES

if TYPE_CHECKING:
    from .scope_index import ScopeIndex

__all__ = ["ATTRIBUTE_TOPIC", "MARGIN", "asked_terms", "attribute_pairs", "held_terms", "later_first", "same_attribute", "without_names"]

ATTRIBUTE_TOPIC = 0.35
"""The least cosine of two records holding the same asked attribute (MiniLM: two statements about one person sit
about 0.3-0.5 apart, two of one fact 0.6-0.8; the shared asked word and value kind say the rest)."""


MARGIN = 0.01
"""How far, in standard deviations, below the later record :func:`later_first` puts the earlier one."""

TOP = 20
"""Candidates compared: the best few by score."""


def later_first(
    z: np.ndarray, said: np.ndarray, related: Callable[[np.ndarray], np.ndarray], *, gate: float, top: int = TOP,
    speakers: np.ndarray | None = None, margin: float = MARGIN,
) -> np.ndarray:
    """``z`` (the candidates' scores; ``said`` when each was said, POSIX seconds, NaN unknown) with each of the best
    ``top`` above ``gate`` put just below (``margin``) every later one of them, said by the same speaker when ``speakers``
    are given, that ``related`` (given the positions compared, a matrix) says holds the same attribute."""
    out = np.array(z, dtype=np.float64, copy=True)
    best = np.argsort(-out, kind="stable")[:top]
    best = best[(out[best] > gate) & ~np.isnan(said[best])]
    if best.size < 2:
        return out
    pairs = related(best)
    later = said[best][None, :] > said[best][:, None]  # [i, j]: j was said after i
    if speakers is not None:
        later &= speakers[best][None, :] == speakers[best][:, None]
    pairs = pairs & later
    for a in np.argsort(-said[best], kind="stable").tolist():  # latest first: a chain of changes keeps its order
        after = np.flatnonzero(pairs[a])
        if after.size:
            out[best[a]] = min(out[best[a]], float(out[best[after]].min()) - margin)
    return out


#: a name (a capitalized word after a sentence's first, not a day or a month): whose attribute, or a place, not which
#: attribute ("Does Piet still cycle?" asks about cycling; "the Bramble Lane Cafe" says nothing of country lanes)
_NAME = re.compile(
    r"(?<!^)(?<![.!?:]\s)(?<![.!?:]\s\W)\b(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b|(?:January|February|March|April|May|June|"
    r"July|August|September|October|November|December)\b)[A-ZÀ-ÖØ-Þ][\w'’-]*"
)
#: words of a question asking for a new value rather than naming what it is of ("now instead of tennis", "the new
#: coach"), and units of money, which measure every amount ("How many euros does Piet save a week?": saving)
_NOT_ATTRIBUTE = re.compile(rf"\b(?:instead|new|newest|current|{CURRENCY_NAMES})\b", re.IGNORECASE)


def without_names(text: str) -> str:
    """``text`` with its names (see :data:`_NAME`) blanked out: the words that may say which attribute, not whose
    (also the write side's: :mod:`memdesk.conversation.restated`)."""
    return _NAME.sub(" ", text.strip())


def held_terms(text: str, tokenizer: Callable[[str], list[str]]) -> frozenset[str]:
    """The terms of ``text`` less its names (see :data:`_NAME`)."""
    return frozenset(tokenizer(without_names(text)))


def asked_terms(question: str, tokenizer: Callable[[str], list[str]], skip: frozenset[str] = frozenset()) -> frozenset[str]:
    """The terms of ``question`` (``tokenizer``'s: lower-cased, stemmed, stopwords out) that may name the attribute it
    asks about: less its words of now ("now", "still", "currently") and of a new value ("instead", "new"), units of
    money, the names it says (whose attribute it asks about: "Does Piet still cycle?" asks about cycling, and every
    record about Piet names him) and the terms of ``skip`` (the user's names)."""
    question = _NOT_ATTRIBUTE.sub(" ", without_now(question))
    return held_terms(question, tokenizer) - frozenset(t for w in skip for t in tokenizer(w))


def same_attribute(
    texts: Sequence[str], vectors: np.ndarray, asked: frozenset[str], tokenizer: Callable[[str], list[str]],
    answers: Sequence[bool] | None = None, least: float = ATTRIBUTE_TOPIC,
) -> np.ndarray:
    """[i, j]: records ``texts[i]`` and ``texts[j]`` (``vectors`` their unit vectors) both hold a term of ``asked``,
    one term for both, both state a value of the asked kind (``answers``; None: no kind asked) and their cosine is at
    least ``least``."""
    n = len(texts)
    if n < 2 or not asked:
        return np.zeros((n, n), dtype=bool)
    held = [asked & held_terms(t, tokenizer) for t in texts]
    share = np.array([[bool(a & b) for b in held] for a in held], dtype=bool)
    if answers is not None:
        ok = np.asarray(answers, dtype=bool)
        share &= ok[:, None] & ok[None, :]
    vectors = np.asarray(vectors, dtype=np.float32)
    return share & (vectors @ vectors.T >= least)


def attribute_pairs(
    index: ScopeIndex, positions: np.ndarray, question: str, focus: Focus | None, least: float = ATTRIBUTE_TOPIC
) -> Callable[[np.ndarray], np.ndarray]:
    """For :func:`later_first`: given which of the candidates ``positions`` (of ``index``) are compared, the pairs of them
    holding one attribute ``question`` asks about (:func:`same_attribute`; the asked kind of value: ``focus``'s)."""
    tokenizer = index.bm25.tokenizer
    asked = asked_terms(question, tokenizer, index.user_names)
    names = user_name_words(index.user_names)

    def pairs(best: np.ndarray) -> np.ndarray:
        chosen = positions[best].tolist()
        answers = None if focus is None else [focus.answers(index.values[i], names) for i in chosen]
        texts = [index.records[i].text() for i in chosen]
        return same_attribute(texts, index.vectors[positions[best]], asked, tokenizer, answers, least)

    return pairs
