"""The items of a compound statement, and which of them a change is about (:mod:`.remainder` reads them).

A memory may give several values or things side by side: a list of prices ("a trim is 300 rupees, a shave from
150"), counts joined by "and" ("12 ewes and 3 rams"), two things sold ("mango pickle and lime chutney"), a race
with its distance and its date. When a later message changes one of them, the remainder keeps the others:

* :func:`value_items` cuts a part before an "and" that joins two values, each said with words of its own;
* :func:`of_what_changed` keeps the values of items named in words the new value's sentences do not use, when
  another item with a value of the changed kind is named by them ("crab went up to 2.90" changes "crab is 2.40 a
  kilo", not "lobster 19 a kilo"); an item with no words of its own cannot be told apart and changes with them;
* :func:`sibling`: an item beside one that went is not its detail when both give an amount with words of their own;
* :func:`item_cut` takes from a list only the item that holds every word an end names ("I stopped the lime
  chutney": "selling mango pickle and lime chutney" keeps "selling mango pickle");
* :func:`not_rescheduled`: a change that moves a time ("the Hill Climb got moved to 21 June", "postponed to May")
  names what changed through its new time; the words naming the thing take no part with them.

Every text is the speaker's words less a span: nothing is rewritten or added.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .claims import Claim
from .endings import valued_end
from .typed_values import topic_terms, value_spans, values_of
from .updates import new_only

__all__ = ["AMOUNTS", "MOVED", "REFERS", "TIME_KINDS", "item_cut", "kind_group", "moved_terms", "named_words", "not_rescheduled", "of_what_changed", "sibling", "value_items", "without_gerunds"]

#: kinds of value that say when (a date, a clock time, a weekday, how often): what a rescheduling moves
TIME_KINDS = frozenset({"date", "clock", "weekday", "frequency"})

#: a part that refers back to what was said before it
REFERS = re.compile(r"^(?:it|its|it's|this|that|these|those|he|she|they|there|which)\b", re.IGNORECASE)


def kind_group(kind: str) -> str:
    """The kind of value as a change reads it: a schedule's days and its frequency are one kind."""
    return "when" if kind in ("weekday", "frequency") else kind


def value_items(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The span ``a``-``b`` of ``text`` cut before each "and" that joins two amounts, each given with its own words
    ("14 beehives and 6 alpacas"); days and times joined by "and" are one schedule ("every Tuesday and Thursday
    morning"), as :func:`sibling` reads them."""
    out = []
    for m in re.finditer(r"\s+(?=and\s)", text[a:b]):
        left, right = text[a : a + m.start()], text[a + m.end() : b]
        if _amount(left) and _amount(right) and topic_terms(left) and topic_terms(right):
            out.append((a, a + m.start()))
            a += m.end()
    return out + [(a, b)]


#: an item joined last to a list ("chocolate and [eucalyptus oil]", "nuts and [kurt] at the market")
_AND_ITEM = re.compile(r"\s+and\s+(?P<item>[^,;]+?)(?=\s+(?:at|in|on|from|to|for|near|with|every|by|since|until)\b|\W*$)", re.IGNORECASE)


def item_cut(part: str, named: set[str]) -> tuple[str, str] | None:
    """``part`` less the item of its list that holds every word it shares with what an end or a change names
    (``named``: "I stopped the eucalyptus oil" takes "and eucalyptus oil" from "selling chocolate and eucalyptus
    oil"), with what went; ``None`` when no item holds them alone or too little is left."""
    for m in _AND_ITEM.finditer(part):
        item, rest = m.group("item"), part[: m.start()] + part[m.end() :]
        hit = topic_terms(part) & named
        if hit and hit <= topic_terms(item) and not hit & topic_terms(rest) and len(topic_terms(rest)) >= 2:
            return rest, part[m.start() : m.end()].strip()
    return None


def named_words(claims: Sequence[Claim], replaced: Sequence[str]) -> set[str]:
    """The words of what the ends, changes and negations of ``claims`` name, and of the ``replaced`` values."""
    said = [v for c in claims if (v := valued_end(c)) is not None]
    said += [without_gerunds(c.value) for c in claims if c.value and c.op == "end" and c.attribute in ("change", "negation")]
    return topic_terms(" ".join([*said, *replaced]))


#: a verb's "-ing" form in what a change says ("stopped selling kurt"): it names the activity, not the thing
_GERUND = re.compile(r"\b\w+ing\b", re.IGNORECASE)


def without_gerunds(text: str) -> str:
    """``text`` less its "-ing" words: what a change names, not the activity ("stopped selling kurt": "stopped kurt")."""
    return _GERUND.sub(" ", text)


def of_what_changed(texts: list[str], stales: list[list[tuple[str, tuple[int, int]]]], claims: Sequence[Claim], names: frozenset[str]) -> list[list[tuple[str, tuple[int, int]]]]:
    """The stale values of each part, less those of parts that say what their value is of in words the new value's
    sentences do not use, when another part with a stale value does use them: items of a list each give their own
    value ("a trim is 300, a shave from 150" after "raised the trim to 350"; "crab is 2.40 a kilo. lobster 19 a
    kilo" after "crab went up to 2.90"), and only the item named changes."""
    said = [s for c in claims if c.attribute == "update" and c.value for s in re.split(r"(?<=[.!?])\s+", new_only(c.value)) if value_spans(s)]
    words = topic_terms(" ".join(said), names)
    staled = [i for i, stale in enumerate(stales) if stale]
    own = {i: topic_terms(texts[i], names) for i in staled}
    other = {i for i in staled if own[i] and not own[i] & words}  # an item named in words of its own: not the one changed
    if not other or not any(own[i] & words for i in staled):
        return stales
    return [[] if i in other else stale for i, stale in enumerate(stales)]


#: words that move a time ("moved the start to 9 June", "got moved to May 2", "pushed back to May", "postponed"): the one
#: reading of a rescheduling (:func:`moved_terms`, :mod:`.remainder`)
MOVED = re.compile(
    r"\b(?:postpon|delay|reschedul)\w*|\b(?:push(?:ed)?|put)\s+back\b|\bbr(?:ing|ought)\s+forward\b|\bmoved?\b(?:\s+[\w-]+){0,2}?\s+to\b", re.IGNORECASE
)


def moved_terms(claims: Sequence[Claim]) -> set[str]:
    """The words of the claims of ``claims`` that move a time ("the Hill Climb got moved to 21 June", "postponed")."""
    moved = [c.value for c in claims if c.value and MOVED.search(c.value) and values_of(c.value).keys() & TIME_KINDS]
    return topic_terms(" ".join(moved))


def not_rescheduled(claims: Sequence[Claim], terms: set[str]) -> list[Claim]:
    """``claims`` less the changes and ends that only name what a rescheduling moved (``terms``, their
    :func:`moved_terms`: "the Hill Climb got moved to 21 June": the race stays, its date goes; the new date says what
    changed)."""
    return [c for c in claims if not (terms and c.attribute in ("change", "ended", "negation") and c.value and topic_terms(c.value) <= terms)]


#: kinds of amount: a bare number may be any of them ("a trim is 300 rupees, a shave from 150")
AMOUNTS = ("money", "count", "percent", "dose", "number")


def _amount(text: str) -> bool:
    """Whether ``text`` gives an amount (a value of a kind of :data:`AMOUNTS`)."""
    return any(k in AMOUNTS for k, _, _ in value_spans(text))


def sibling(part: str, before: str) -> bool:
    """Whether ``part`` is an item beside the one ``before`` it, not a detail of it: both give an amount, each with
    words of its own ("a trim is 300 rupees, a shave from 150"; "12 ewes and 3 rams"); days and times said in a
    row are one schedule, not items ("Monday, Wednesday and Friday 6 to 9")."""
    return not REFERS.match(part) and all(_amount(t) and topic_terms(t) for t in (part, before))
