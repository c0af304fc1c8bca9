"""A new value of a named thing ("the new kit is all green", "my new flatmate is a nurse called Effie") or a new
habit ("I'll take the 38 bus instead": :func:`habit_claim`, :func:`rehabits`).

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
from ..retrieval.stemming import stem

__all__ = ["contrast_claim", "contrasts", "habit_claim", "rehabits", "retopics", "topic_claim"]

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


def _stems(text: str, skip: frozenset[str] = frozenset(("the", "and", "now", "with"))) -> set[str]:
    """The stems of the words of ``text`` of three letters or more, less ``skip``."""
    return {stem(w) for w in _WORDS.findall(text.lower()) if len(w) > 2 and w not in skip}


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


#: "I'll take the Victoria line instead", "I mostly paint from photos now": a habit (a verb and its object) said as
#: the new one; it ends an earlier statement of the same verb with another object ("Amara takes the Overground").
_HABIT = re.compile(
    r"\b(?:i|we)(?:'ll|\s+will|'m|\s+am|'re|\s+are)?\s+(?:(?:now|mostly|usually|only|just|always|generally)\s+)*"
    r"(?P<verb>[a-z]{3,})\s+(?P<obj>(?:(?P<prep>from|at|to|on|in|with|for|by|along|around|through|past|into|over)\s+)?[\w'-]+(?:\s+[\w'-]+){0,4}?)"
    r"\s+(?P<cue>instead|now|these\s+days|nowadays)\b",
    re.IGNORECASE,
)
_GENERIC_VERBS = frozenset(
    """be am is are was were have has had do does did get got go going went make made like love want need think know feel
    see say said tell told use try keep take's can could will would should must may might""".split()
)
_OBJ_STOP = frozenset("the a an my our to from at on in with for by of and".split())


def habit_claim(text: str) -> Claim | None:
    """A ``habit`` claim (slot: the verb's stem and its preposition; value: its object) when
    ``text`` says the speaker does a thing instead, or now after a reason ("..., so I ... now")."""
    m = _HABIT.search(text.replace("\u2019", "'"))
    if m is None or m.group("verb").lower() in _GENERIC_VERBS or m.group("verb").lower().endswith("ly"):
        return None
    if m.group("cue").lower() != "instead" and not re.search(r"\bso\b", text[: m.start()], re.IGNORECASE):
        return None  # "I cycle to work now" may be one more habit; "..., so I cycle to work now" replaces one
    prep = (m.group("prep") or "").lower()
    return Claim(attribute="habit", slot=f"{stem(m.group('verb').lower())} {prep}".strip(), value=m.group("obj").strip())


def rehabits(claim: Claim, old: str) -> bool:
    """Whether a ``habit`` claim ends ``old``: its speaker does the same verb (by its stem), with
    the same preposition, to an object the new one does not name ("takes the Overground" / "the Victoria line")."""
    if claim.attribute != "habit" or not claim.slot or not claim.value:
        return False
    verb, _, prep = claim.slot.partition(" ")
    words = _WORDS.findall(old.lower())
    new_obj = _stems(claim.value, _OBJ_STOP)
    for i, w in enumerate(words[1:], 1):
        if stem(w) != verb or (prep and (i + 1 >= len(words) or words[i + 1] != prep)):
            continue
        start = i + (2 if prep else 1)
        obj = {stem(x) for x in words[start : start + 4] if x not in _OBJ_STOP}
        if obj and not obj & new_obj:
            return True
    return False


_CH = r"(?:[^,.;:!?]|(?<=\d)[,.](?=\d))"  # a character of one clause (a comma inside "20,000" is one)
_W = r"(?:\d[\d,.]*\d|[\w'-]+)"
#: "I take it in the evening now, not in the morning", "we meet on Fridays now instead of Tuesdays": a new value said
#: against the old one, which the clause names after "not" or "instead of".
_CONTRAST = re.compile(
    rf"(?P<new>{_CH}*\b(?:now|instead|these\s+days|from\s+now\s+on)\b{_CH}*?),?\s+(?:and\s+|but\s+)?(?:not|instead\s+of|rather\s+than)\s+"
    rf"(?P<old>(?:(?:in|at|on|with|from|by|for|to)\s+)?(?:the\s+|a\s+|an\s+|my\s+|our\s+)?{_W}(?:\s+{_W}){{0,2}}?)(?=\s*(?:$|[,.;:!?]|\s+(?:any\s?more|anymore)\b))"
    rf"|(?P<new2>{_CH}*?)\s+instead\s+of\s+(?P<old2>{_W}(?:\s+{_W}){{0,2}}?)(?=\s*(?:$|[,.;:!?]))",
    re.IGNORECASE,
)
_PLAIN = frozenset("the a an my our in at on with from by for to i we it now instead these days".split())


def contrast_claim(text: str) -> Claim | None:
    """A ``contrast`` claim when ``text`` says a new value against the old one (slot: the words of the new clause,
    what the value is of; value: the old value's words)."""
    m = _CONTRAST.search(text.replace("\u2019", "'"))
    if m is None:
        return None
    new, old = (m.group("new"), m.group("old")) if m.group("old") else (m.group("new2"), m.group("old2"))
    if re.search(r"\b(?:if|whether|might|could|would|should)\b", new, re.IGNORECASE):
        return None
    return Claim(attribute="contrast", slot=new.strip(), value=old.strip(), op="end")


def contrasts(claim: Claim, old: str) -> bool:
    """Whether a ``contrast`` claim ends ``old``: it names the old value (every word of it, by its stem) and
    shares a word saying what the value is of ("the amlodipine"), and negates nothing itself."""
    if claim.attribute != "contrast" or not claim.value:
        return False
    said = _stems(old)
    if re.search(r"\b(?:not|never|no\s+longer)\b|n't\b", old, re.IGNORECASE):
        return False
    value = _stems(claim.value, _PLAIN)
    topic = _stems(claim.slot, _PLAIN | _GENERIC_VERBS | frozenset(("and", "now", "with"))) - value
    return bool(value) and value <= said and bool(topic & said)
