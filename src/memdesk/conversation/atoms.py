"""Atomic statements: a compound sentence split into statements that can be closed separately.

"I live in a flat in Leith with my cat, Biscuit" says where the speaker lives *and* that they have a
cat; a later "We moved to Portobello" ends the first, not the second. :func:`atoms` splits a sentence
in the speaker's own words (before any person rewrite) into such statements:

* at a semicolon, and at ", and" / ", but" / ", so" / " and" / " but" before a clause of the
  speaker's own ("..., and I work nights now", "... but we kept the car");
* "<subject> <verb> ... with my <companion>" after a verb of living or staying: the companion
  becomes a statement with the same verb ("I live with my cat, Biscuit").

A part too short to stand alone (fewer than three words) stays with the part before it. The rule
extractor writes one record per statement of a sentence that makes an attribute claim
(:mod:`.facts`), so :mod:`memdesk.supersede` closes only the statement a new claim replaces.
"""

from __future__ import annotations

import re

__all__ = ["atoms"]

_PRONOUNS = r"i|we|i'm|we're|i've|we've|i'll|we'll|i'd|we'd|my|our"
_OWN = rf"(?:{_PRONOUNS})\b"
_VERBS = r"(?:live|lives|lived|living|stay|stays|stayed|staying|moved|share|shares|shared|sharing)"


def _patterns(subject: str | None) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The clause break and the "with my ..." split, for the first person and, if given, a named subject."""
    who = r"(?:i|we)" if not subject else rf"(?:i|we|(?-i:{re.escape(subject)}))"
    own = _OWN if not subject else rf"(?:{_PRONOUNS}|(?-i:{re.escape(subject)})(?:'s)?)\b"
    brk = re.compile(rf";\s+|,\s+(?:and|but|so|while)\s+(?={own})|\s+(?:and|but)\s+(?={own})", re.IGNORECASE)
    with_ = re.compile(
        rf"^(?P<head>{who}(?:'ve|\s+have|\s+has|'m|\s+am|'re|\s+are|\s+is)?\s+(?:\w+ly\s+|still\s+|now\s+|just\s+)?"
        rf"(?P<verb>{_VERBS})\b)(?P<mid>.+?)\s+(?P<with>with\s+(?:my|our|his|her|their)\s+.+?)(?P<end>[.!?]*)$",
        re.IGNORECASE,
    )
    return brk, with_


_MIN_WORDS = 3


def _end(text: str, punct: str) -> str:
    text = text.strip().rstrip(",;:")
    return text if text[-1:] in ".!?" else text + (punct or ".")


def atoms(sentence: str, subject: str | None = None) -> list[str]:
    """The statements ``sentence`` makes, each a sentence of its own; ``[sentence]`` when it makes one.

    ``subject``: a name the sentence may use instead of "I" (a model's third-person fact: "Maya lives
    in Leith with her cat, Biscuit")."""
    s = sentence.strip()
    if not s:
        return []
    _BREAK, _WITH = _patterns(subject)
    punct = s[-1] if s[-1] in ".!?" else "."
    parts: list[str] = []
    start = 0
    for m in _BREAK.finditer(s):
        piece = s[start : m.start()]
        if len(piece.split()) >= _MIN_WORDS and len(s[m.end() :].split()) >= _MIN_WORDS:
            parts.append(piece)
            start = m.end()
    parts.append(s[start:])
    out: list[str] = []
    for part in parts:
        part = part.strip()
        m = _WITH.match(part.rstrip(".!?"))
        if m and len(m.group("mid").split()) >= 2:
            out.append(_end(m.group("head") + m.group("mid"), punct))
            out.append(_end(f"{m.group('head')} {m.group('with')}", punct))
        else:
            out.append(_end(part[0].upper() + part[1:] if part else part, punct))
    return [o for o in out if o] if len(out) > 1 else [s]
