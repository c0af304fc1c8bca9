"""Questions asking for a set of items, and records that list several (English).

"Which students does Dana teach?", "What are the names of Omar's children?", "Who are Dana's flatmates now?" ask
for several items of one kind, not for one value: the head of the asked noun phrase is plural ("students",
"names", "children"), or a plural auxiliary follows "who" ("Who are ..."). Among the records on the asked topic, the
one that answers the whole question lists the items ("Mira, Jonah and Ellie on Tuesdays", "the atlas and the
kite", "1. pay the deposit 2. book the van"), or announces them with a count ("two new clients: ..."); a record
naming one item answers part of it, and a record only on the topic ("Dana got a tutoring job!") none.

:func:`asks_for_set` reads the question's form; :func:`listed_items` reads once per record how many items it lists
in its longest coordination of short items (:class:`~memdesk.retrieval.question_focus.RecordValues` keeps it as
``items``). The focus bonus of a question asking for a set goes to a record listing two or more items as well as to
one stating a value of the asked kind (:meth:`~memdesk.retrieval.question_focus.Focus.answers`), so a list the
capitalization cue cannot see ("the atlas and the kite") is no longer ranked under a record naming someone else.
"""

from __future__ import annotations

import re

__all__ = ["PART_SHARE", "asks_for_set", "listed_items"]

PART_SHARE = 0.5
"""For a question asking for a set of items, the share of the focus bonus a record earns that states one value of the
asked kind without listing several: it answers part of the question, a list the whole."""

_IRREGULAR = frozenset(
    "people children grandchildren kids men women feet teeth mice geese staff family folks".split()
)
"""Plural nouns without a plural -s, and collective nouns asked about as a set ("Which staff ...")."""
_NOT_PLURAL = frozenset(
    """is was has does this its his hers yours ours theirs us as less bus gas plus yes thus always perhaps
    news series species whereas famous various previous""".split()
)
_AUX = frozenset(
    """is are was were do does did has have had will would can could should may might am be been""".split()
)
_ASK = re.compile(
    r"^\W*(?:and |so |but )?(?:(?:on|in|at|from|to|for|with|by|of) )?(?P<wh>which|what|who)\b\s+(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NAME_ASK = re.compile(r"^\W*(?:name|list)\b", re.IGNORECASE)
"""An imperative asking for the items: "Name the towns ...", "List Dana's hobbies"."""
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_DETERMINERS = frozenset("the a an all of his her their my our your its any every both".split())


def _plural(word: str) -> bool:
    w = word.lower().replace("’", "'")
    if w.endswith("'s") or w in _NOT_PLURAL:
        return False
    if w in _IRREGULAR:
        return True
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous"))


def asks_for_set(question: str | None) -> bool:
    """True when ``question`` asks for several items of one kind: "Which <plural noun> ...", "What <plural noun>
    ...", "What are (the names of) ...'s <plural noun> ...", "Who are ...", "Name the <plural noun> ..."."""
    if not question:
        return False
    if _NAME_ASK.match(question):
        return any(_plural(w) for w in _WORD.findall(question)[1:4])
    m = _ASK.match(question)
    if m is None:
        return False
    wh, words = m.group("wh").lower(), _WORD.findall(m.group("rest"))
    if not words:
        return False
    first = words[0].lower()
    if wh == "who":
        return first in ("are", "were")
    if first in ("are", "were"):  # "What are Omar's children called?", "What are the names of ...": the subject's head
        for w in words[1:6]:
            low = w.lower()
            if low in _AUX:
                break
            if _plural(w):
                return True
        return False
    for w in words[:4]:  # "Which students", "Which ML engineers", "What presents did ...": the noun before the verb
        low = w.lower()
        if low in _AUX or low == "of":
            break
        if _plural(w):
            return True
    return False


_SEPARATOR = re.compile(r"\s*(?:,\s+(?:and|or|&|\+|plus)\s|,(?=\s|$)|;|\s(?:and|or|n|&|\+|plus)\s|\s?\+\s?|\s&\s)\s*", re.IGNORECASE)
_CONJUNCTION = re.compile(r"(?:and|or|n|&|\+|plus)$", re.IGNORECASE)
_NAMED_PAIR = re.compile(r"\b(?!(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\b)([A-Z][^\W\d_]*) (?:&|\+) (?=[A-Z])")
"""An ampersand between two capitalized words joins one name ("Cedar & Smoke", "Wick & Willow"), not two items
(unless the first is a day: "Mon & Wed")."""
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\s+[-–—]\s+|\n+")
_NUMBERED = re.compile(r"(?:^|\s)(?:\d{1,2}[.)]|\(\d{1,2}\)|[-•*])\s+\S")
_COUNTED = re.compile(
    r"\b(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|both)\s+(?:[^\W\d_]+\s+){0,2}?[^\W\d_]{3,}s\b[^:.!?]{0,40}:(?=\s|$)",
    re.IGNORECASE,
)
"""A count announcing the items that follow it: "3 new orders from guests: ...", "two things: ..."."""
_VERBS = _AUX | frozenset("'s ’s isn't aren't wasn't don't doesn't didn't won't can't".split())
_SUBJECTS = frozenset(
    "i we he she they you it i'm we're he's she's they're you're it's there oh ok okay so also well yes yeah no but".split()
)
"""A conjunct opening with a subject pronoun is a clause ("I went to the shop and bought milk"), and one opening with a
discourse marker ("Oh and ...", "ok and ...") opens the sentence: neither is an item."""
ITEM_WORDS = 4
"""The most words an item of a coordination holds: "the picture book", "Pink Fir Apple"; a longer conjunct is a
clause ("Tama's birthday is in May and Isla's in March")."""


def _item(segment: str) -> bool:
    words = [w.lower() for w in _WORD.findall(segment)]
    content = [w for w in words if w not in _DETERMINERS]
    return 0 < len(content) <= ITEM_WORDS and not any(w in _VERBS for w in words) and words[0] not in _SUBJECTS


def listed_items(text: str) -> int:
    """How many items ``text`` lists: the longest run of short conjuncts (at most :data:`ITEM_WORDS` words, no
    auxiliary verb) joined by commas with a conjunction among them ("Mira, Jonah and Ellie", "the atlas and the kite",
    "Mon + Wed"), the numbered or bulleted items it holds, or 2 for a count announcing items ("two new clients: ...");
    0 or 1 when it lists nothing."""
    best = 0
    for sentence in _SENTENCE.split(_NAMED_PAIR.sub(r"\1&", text)):
        if _COUNTED.search(sentence):
            best = max(best, 2)
        parts = _SEPARATOR.split(sentence)
        joins = [bool(_CONJUNCTION.search(m.group().strip())) for m in _SEPARATOR.finditer(sentence)]
        start = 0
        while start < len(parts):
            if not _item(parts[start]):
                start += 1
                continue
            end = start
            while end + 1 < len(parts) and _item(parts[end + 1]):
                end += 1
            count = end - start + 1
            if end + 1 < len(parts) and count >= 2 and joins[end]:  # "Mira, Jonah and Ellie who moved in in May"
                count += 1
            if count >= 2 and any(joins[start : min(end + 1, len(joins))]):
                best = max(best, count)
            start = end + 1
    numbered = len(_NUMBERED.findall(text))
    return max(best, numbered if numbered >= 2 else 0)
