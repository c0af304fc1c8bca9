"""Replies that restate a closed statement: when a speaker's statement is closed, another speaker's reply to it
that repeats the value that went closes with it.

A reply is stored with the turn it answers in its provenance (a ``context`` view: "Here is a budget for
2,800 dirhams: ..." answering "My salary is 2,800 dirhams a month"). When the statement answered is closed
("Now I earn 3,400 dirhams"), a reply that restates what the statement said and the new record does not (a
typed value, :func:`memdesk.conversation.updates.values_of`, or the value of a claim it made) was worked out
from the old value and no longer holds either; a reply that does not repeat it (general advice) stays.
"""

from __future__ import annotations

import re
from typing import Iterable

from .claims import Claim
from .updates import new_only, values_of

__all__ = ["old_values", "restates"]


def _flat(text: str) -> set[str]:
    """The typed values of ``text``, each by its number when it has one ("15 million naira", "15 million": "15")."""
    out = set()
    for values in values_of(text).values():
        for v in values:
            number = re.search(r"\d[\d.:]*", v)
            out.add(number.group(0) if number else v)
    return out


def old_values(old_text: str, old_claims: Iterable[Claim], new_text: str) -> tuple[set[str], set[str]]:
    """What a closed statement said that its successor does not: its typed values, and the values of its
    set claims (names, places), that ``new_text`` does not hold."""
    new_text = new_only(new_text)  # "instead of 15,000" names the old value, not the new one
    typed = _flat(old_text) - _flat(new_text)
    named = {
        c.value for c in old_claims
        if c.op == "set" and c.value and len(c.value) > 2 and c.value.lower() not in new_text.lower()
        and c.attribute not in ("update", "change", "negation", "topic", "habit")
    }  # fmt: skip
    return typed, named


def restates(reply: str, typed: set[str], named: set[str]) -> bool:
    """Whether ``reply`` repeats one of the old values (:func:`old_values`)."""
    if typed and _flat(reply) & typed:
        return True
    return any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", reply, re.IGNORECASE) for v in named)
