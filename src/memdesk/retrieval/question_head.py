"""The head of a question: the attribute it asks *of*, not the things that attribute is said of (the one reader of it).

"When did Tomas fall off the ladder?" asks about a fall; "the ladder" only says which. A record that names the ladder
and states a date ("Tomas bought the ladder in 2019") shares as many of the question's words, and its value is of the
right kind, but it is about another attribute. "How much does Priya pay for a litre of milk?" is not answered by
"Priya pays 40 a month for the gym", though both state an amount and "pay". What tells them apart is the part of the
question that names the asked attribute, read from the shape of an English question (:func:`asked_head`):

* the noun of the wh-phrase, "*Which bakery* does Priya work at?", "*How many cats* does Priya have?" (the word that
  names the value itself: "day", "time", "name", ...: :data:`KIND_NOUNS`, is the kind, not the attribute);
* the main verb after the subject, "When did Tomas *fall* ...?", "Who did Priya *pay* ...?" (a light verb, "do",
  "have", "get", "say", ... says nothing of the attribute: :data:`LIGHT_VERBS`); the subject is the run of names,
  possessives and a determiner's noun after the auxiliary ("the band", "Priya's sister"); with no auxiliary ("Who
  teaches Ana the oud?") the verb follows the wh-word;
* for a question whose verb is "be" ("How much is the *rent* in Leeds?", "When is the *Harbour Run* now?"), the
  subject's words up to a preposition or an adverb.

The head noun of a phrase (its last word) weighs :data:`NOUN_WEIGHT`, the other words and the verb one each. A
question that opens with no wh-word (a yes/no question) has no head. Its two readers:

* the fused read path (:meth:`memdesk.retrieval.scope_index.ScopeIndex.rank`): a record holding a term of the head
  (:func:`head_terms`: its :attr:`Head.predicate`, the head words less the wh-phrase's when any are left, through the
  scope's tokenizer, less words of now, of a new value and units of money:
  :func:`memdesk.retrieval.same_attribute.asked_terms`) gets ``head_weight``, only when it already stands
  :data:`HEAD_FLOOR` standard deviations above its type's mean (the whole of it one more up): of the few records close
  to the question, the one about the asked attribute ranks first, and the records further down, at the edge of the
  token budget, keep their order. Which records hold a term is read from the scope's BM25 postings (:func:`holding`:
  no text is scanned at query time);
* the offline answerer (:mod:`memdesk.conversation.answer_choice`, with how much of the head a record's text holds:
  :mod:`memdesk.conversation.answer_head`): the record telling the asked event answers a question asking when it
  happened (:meth:`Head.past_event`), and a hit stating a value of the asked kind answers over a closer one only when
  it holds a head word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..text.english import PAST_BASE
from .lexical import BM25Index
from .same_attribute import asked_terms
from .stemming import stem

__all__ = [
    "HEAD_FLOOR", "HEAD_WEIGHT", "KIND_NOUNS", "LIGHT_VERBS", "NOUN_WEIGHT", "Head", "asked_head", "head_terms",
    "holding", "word_stem",
]

HEAD_WEIGHT = 0.5
"""Standard deviations added (gated) to a record holding a term of the question's head (0: off)."""

HEAD_FLOOR = 2.0
"""The head bonus is for records already close to the question: none at or below this many standard deviations
above their type's mean, the whole of it from one more up (the wrong first hit it moves is among the first few;
records further down, at the edge of the token budget, keep their order)."""

NOUN_WEIGHT = 2.0
"""The weight of the last word of a wh-phrase or a subject ("delivery *app*", "goal *time*"): the thing asked about;
the words before it narrow it and weigh one each, as the main verb does."""

_WH = frozenset("what which who whom whose where when how why".split())
_AUX = frozenset(
    "do does did is are was were am has have had will would can could should shall may might must".split()
)
_BE = frozenset("is are was were am".split())
_DETERMINERS = frozenset("the a an his her their its my our your this that these those".split())
_ADVERBS = frozenset(
    "not never still actually usually now ever finally really also just currently normally originally already "
    "always eventually first last ever again then today".split()
)
_PREPOSITIONS = frozenset(
    "in on at for to from with by about of into onto during before after since until till over under between "
    "per than off out up down away back".split()
)
#: Words that open a question before its wh-word ("On what day ...?", "Until when ...?", "And where ...?").
_OPENERS = _PREPOSITIONS | frozenset("and so but or".split())
#: Words that open another clause of the question ("... when she started at the bakery?").
_CLAUSE = _WH | frozenset("while because if and or as so".split())
_HOW_KIND = frozenset("much many long often old far big".split())

KIND_NOUNS = frozenset(
    "day days date dates time times year years month months week weeks hour hours place places name names number "
    "amount kind sort type thing things one".split()
)
"""Nouns of a wh-phrase that name the kind of value asked for, not what it is a value of ("On what *day* did ...?")."""

LIGHT_VERBS = frozenset(
    "be do have get go make take say tell ask mention suggest recommend give want need use happen think call name".split()
)
"""Verbs that say nothing of the asked attribute ("What did the assistant *say* about ...?", "What does he *do*?", "What
is the dog *called*?")."""

_LIGHT_STEMS = frozenset(stem(v) for v in LIGHT_VERBS)
_WORD = re.compile(r"[A-Za-z0-9][\w'\u2019-]*")


@dataclass(frozen=True)
class Head:
    """The head words of a question: stem -> weight (:data:`NOUN_WEIGHT` for the head noun, one for the others)."""

    weights: tuple[tuple[str, float], ...]
    wh: str = ""
    """The wh-word ("when", "which", ...)."""
    aux: str = ""
    """The auxiliary after the wh-phrase ("did", "is", ...; "" when the wh-word is the subject)."""
    verb: str | None = None
    """The stem of the main verb, when it is not a light one."""
    names: tuple[str, ...] = ()
    """The stems of the names of the question's subject ("When did *Tomas* fall ...?")."""
    words: tuple[str, ...] = ()
    """The head words as the question writes them, one per stem of :attr:`weights`."""
    kind: tuple[str, ...] = ()
    """The stems of the wh-phrase's words ("*Which bakery* does ..."): what the asked value is, more than what it is of."""

    @property
    def predicate(self) -> tuple[str, ...]:
        """The head words as written less the wh-phrase's, when any are left ("Which bakery does Priya *work* at?"):
        what the read path's head bonus looks up in a scope's BM25 postings (a record naming a bakery states a value of
        the asked kind, not the attribute; measured: the wh-noun in the bonus lost P@1 on the chat sets,
        ``bench/results/chats/28qh/README.md``); a light verb leaves the wh-phrase ("What grade did Ana get?")."""
        rest = tuple(w for (s, _), w in zip(self.weights, self.words) if s not in self.kind)
        return rest or self.words

    @property
    def noun(self) -> str | None:
        """The stem of the head noun: the last word of the wh-phrase or of the subject of "be" ("Which client *jobs*
        ...?"); None when the question names none (a kind noun or a verb only)."""
        return next((s for s, w in self.weights if w == NOUN_WEIGHT), None)

    @property
    def nouns(self) -> tuple[str, ...]:
        """The stems of the head words other than the verb (the wh-phrase, the subject of "be")."""
        return tuple(s for s, _ in self.weights if s != self.verb)

    def past_event(self) -> bool:
        """Whether the question asks when something happened: "When did Tomas fall off the ladder?", "When was the
        fence painted?" (a verb in the past, with "did", or a participle after "was"/"were"): the record that tells
        that event, holding its verb, answers with its date."""
        return self.wh == "when" and self.aux in ("did", "was", "were") and self.verb is not None


def word_stem(word: str) -> str:
    """A word's stem as a head compares it: lower-cased, less a possessive "'s", an irregular past by its base."""
    w = word.lower().replace("\u2019", "'").removesuffix("'s")
    return stem(PAST_BASE.get(w, w))


def _capital(word: str) -> bool:
    return word[:1].isupper()


def _possessive(word: str) -> bool:
    return word.lower().replace("\u2019", "'").endswith("'s")


def asked_head(question: str) -> Head | None:
    """The head words of ``question`` (see the module docstring); None for a question with no wh-word near its start or
    none left once kind nouns and light verbs are set aside."""
    words = _WORD.findall(question)
    lower = [w.lower() for w in words]
    at = next((i for i, w in enumerate(lower[:4]) if w in _WH), None)
    if at is None or any(w not in _OPENERS for w in lower[:at]):
        return None
    wh, i = lower[at], at + 1
    if wh == "how" and i < len(lower) and lower[i] in _HOW_KIND:
        i += 1
    phrase: list[str] = []
    while i < len(lower) and lower[i] not in _AUX and wh in ("what", "which", "whose", "how"):
        phrase.append(words[i])
        i += 1
    weights: dict[str, float] = {}
    said: dict[str, str] = {}
    if i >= len(lower) or lower[i] not in _AUX:  # no auxiliary: the wh-word is the subject ("Who teaches Ana the oud?"), its verb comes next
        verb = phrase[0] if phrase else (words[at + 1] if at + 1 < len(words) else None)
        if verb is None or wh in ("whose", "how"):
            return None
        return _head(weights, said, wh, "", _add_verb(weights, verb, said))
    _add_phrase(weights, phrase, said)
    kind = tuple(weights)
    aux, i = lower[i], i + 1
    segment: list[str] = []  # the subject and the verb: up to a preposition, a determiner after them, or the end
    for w in words[i:]:
        low = w.lower()
        if low in _ADVERBS or (low == "and" and segment and _capital(segment[-1])):
            continue
        if segment and (low in _PREPOSITIONS or low in _CLAUSE or low in _DETERMINERS):
            break
        segment.append(w)
    if not segment:
        return _head(weights, said, wh, aux, kind=kind)
    last, verb_stem = segment[-1], None
    if aux in _BE:  # "How much is the rent in Leeds?": the subject is what is asked of; "When was the fair held?": and the verb
        participle = re.search(r"(?:ed|ing)$", last.lower()) or last.lower() in PAST_BASE
        nouns = segment
        if participle and len(segment) > 1:
            nouns = segment[:-1]
            verb_stem = _add_verb(weights, last, said)
        if weights:  # "Which team was Freja picked for?": the wh-phrase names what is asked of, the subject's name not
            nouns = [w for w in nouns if not _capital(w)]
        _add_phrase(weights, _of_kind_noun(nouns, words, i), said)
    elif len(segment) > 1:
        verb = _verb(segment)
        verb_stem = _add_verb(weights, verb, said) if verb is not None else None
    names = tuple(dict.fromkeys(word_stem(w) for w in segment if _capital(w) and w.lower() not in _DETERMINERS))
    return _head(weights, said, wh, aux, verb_stem, names, kind)


def _verb(segment: list[str]) -> str | None:
    """The main verb of a subject-and-verb ``segment``: after a subject of names ("When did Mr Evans *fall* ill?"), a
    possessive and its noun ("Ana's sister *arrive*"), the next word; after a subject opened by a determiner ("When did
    the village choir *perform*?", "Which language should the helper *answer* Lena in?"), its last lower-case word."""
    if segment[0].lower() in _DETERMINERS:
        return next((w for w in reversed(segment[1:]) if not _capital(w)), None)
    k = 0
    while k < len(segment) and (_capital(segment[k]) or _possessive(segment[k])):
        k += 1
    if k and _possessive(segment[k - 1]):
        k += 1  # the possessed noun
    return segment[k] if k < len(segment) else None


def _of_kind_noun(nouns: list[str], words: list[str], start: int) -> list[str]:
    """``nouns``, or when they end in a kind noun followed by "of", the words after "of" ("the names of her
    children": what the value is of)."""
    if not nouns or nouns[-1].lower() not in KIND_NOUNS:
        return nouns
    at = next((k for k in range(start, len(words) - 1) if words[k] == nouns[-1] and words[k + 1].lower() == "of"), None)
    if at is None:
        return nouns
    after = []
    for w in words[at + 2:]:
        if w.lower() in _PREPOSITIONS or w.lower() in _CLAUSE or w.lower() in _ADVERBS:
            break
        if w.lower() not in _DETERMINERS:
            after.append(w)
    return [w for w in after if not _possessive(w)] or nouns


def _add_phrase(weights: dict[str, float], phrase: list[str], said: dict[str, str]) -> None:
    content = [
        w for w in phrase
        if len(w) > 2 and w.lower() not in KIND_NOUNS and w.lower() not in _DETERMINERS | _PREPOSITIONS | _ADVERBS
        and not _possessive(w)
    ]
    for n, w in enumerate(content):
        s = word_stem(w)
        said.setdefault(s, w)
        weights[s] = max(weights.get(s, 0.0), NOUN_WEIGHT if n == len(content) - 1 else 1.0)


def _add_verb(weights: dict[str, float], verb: str, said: dict[str, str]) -> str | None:
    """Adds ``verb``'s stem to ``weights`` unless it is a light verb; returns the stem added (None otherwise)."""
    low = verb.lower()
    base = PAST_BASE.get(low, low)
    if base in LIGHT_VERBS or stem(base) in _LIGHT_STEMS or low in _PREPOSITIONS:
        return None
    s = word_stem(verb)
    said.setdefault(s, verb)
    weights.setdefault(s, 1.0)
    return s


def _head(
    weights: dict[str, float], said: dict[str, str], wh: str, aux: str, verb: str | None = None,
    names: tuple[str, ...] = (), kind: tuple[str, ...] = (),
) -> Head | None:
    if not weights:
        return None
    return Head(tuple(weights.items()), wh, aux, verb, names, tuple(said[s] for s in weights), kind)


def head_terms(
    question: str | None, tokenizer: Callable[[str], list[str]], skip: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The terms (``tokenizer``'s) of ``question``'s :attr:`Head.predicate`, less words of now, of a new value, units of money and
    the terms of ``skip`` (the user's names); empty for a question with no head."""
    head = asked_head(question) if question else None
    return asked_terms(" ".join(head.predicate), tokenizer, skip) if head is not None else frozenset()


def holding(bm25: BM25Index, terms: frozenset[str], positions: np.ndarray) -> np.ndarray:
    """Per record at ``positions``: whether its text (as ``bm25`` indexed it) holds one of ``terms``."""
    return bm25.holds(terms)[positions]
