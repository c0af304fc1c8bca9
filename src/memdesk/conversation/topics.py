"""A new value of a named thing: "the new kit is all green", "our menu is now breakfast only", "my new flatmate is
a nurse called Effie".

A copular clause whose subject is a definite or possessed noun phrase ("the kit", "our house white", "my
flatmate") gives that thing a value. Said as new ("new", "now", "instead"), it is a ``topic`` claim (slot: the
head noun) that ends an earlier statement giving the same thing another value ("The kit is navy and white",
"the house white is a Rioja"), with a value of the same kind (:func:`retopics`: "my sister is now in Leeds"
does not end "my sister is a nurse"). The heads must be one noun ("kit" / "kit"), or the old one a
kind-of-value noun after it ("signature" / "signature dish", "venue" / "party venue"); "the kit bag" is not
"the kit".
"""

from __future__ import annotations

import re

from .claims import Claim

__all__ = ["retopics", "topic_claim"]

_COPULA = re.compile(
    r"(?:^|[,;:]\s*|\b(?:so|and|but|now)\s+)(?P<det>the|my|our|this\s+year's|this\s+month's)\s+"
    r"(?P<np>(?:[\w-]+\s+){0,3}?[\w-]+)(?:\s+(?:for|of|at)\s+(?:next|this|the)\s+[\w-]+)?\s+(?:is|are)\s+"
    r"(?P<value>(?!going\b|not\b|being\b|getting\b|in\s+the\b|on\s+the\s+way\b)[^,.;!?]+)",
    re.IGNORECASE,
)
_MARKED = re.compile(r"\b(?:now|instead|new|newer|these\s+days|from\s+now\s+on)\b", re.IGNORECASE)
#: nouns that name a kind of value of the noun before them ("signature dish", "party venue")
_KIND = frozenset("dish name title colour color time date day venue place price rate route menu".split())
_NOT_TOPICS = frozenset("one thing problem reason plan idea news point worry question truth best worst".split())
_WORDS = re.compile(r"[a-z0-9]+")


def _np(text: str) -> tuple[list[str], str, bool] | None:
    """(the noun phrase's words less "new", its value, whether the clause says it is new) of the first copular
    clause of ``text``."""
    m = _COPULA.search(text.replace("\u2019", "'"))
    if m is None:
        return None
    words = [w for w in m.group("np").lower().split() if w not in ("new", "newer", "current", "usual", "now")]
    if not words or words[-1] in _NOT_TOPICS:
        return None
    return words, m.group("value").strip(), _MARKED.search(m.group(0)) is not None


def topic_claim(text: str) -> Claim | None:
    """A ``topic`` claim when ``text`` gives a named thing a value said as new (see the module docstring)."""
    got = _np(text)
    if got is None or not got[2]:
        return None
    words, value, _ = got
    return Claim(attribute="topic", slot=" ".join(words), value=value)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORDS.findall(text.lower()) if len(w) > 2 and w not in ("the", "and", "now", "with")}


def retopics(claim: Claim, old: str) -> bool:
    """Whether a ``topic`` claim ends ``old``: it gives the same thing (by head noun) a value that differs."""
    if claim.attribute != "topic" or not claim.slot or not claim.value:
        return False
    got = _np(old)
    if got is None:
        return False
    words, value, _ = got
    new = claim.slot.split()
    same = words[-1] == new[-1] or (words[-1] in _KIND and new[-1] in words[:-1])
    return same and _kind(value) == _kind(claim.value) and not _stems(value) <= _stems(claim.value)


_PREP = re.compile(r"^(?:now\s+|still\s+)?(?P<prep>in|at|on|from|with|off|out|away|back|up|down|into|near|by)\b", re.IGNORECASE)


def _kind(value: str) -> str:
    """What kind of value: a place or state after a preposition ("in Leeds", "on leave"), by the preposition, or a
    thing, name or quality ("a nurse", "Effie", "all red"): "my sister is now in Leeds" does not end "my sister is a nurse"."""
    m = _PREP.match(value.strip())
    return m.group("prep").lower() if m else "thing"
