"""The present progressive of a dated clause, for :mod:`memdesk.timeexpr.tense`: "A joiner is replacing the windows on
3 November" arranges something ahead or under way, like a clause that drops its subject and "be" ("Picking it up on
Saturday"); "It's amazing", "That's something" are not progressives."""

from __future__ import annotations

import re


#: Adjectives and nouns in "-ing" after a form of "be" ("It's amazing", "That's something"): not a progressive.
_ING_NOUNS = frozenset("morning evening spring king ring wedding ceiling pudding darling sibling duckling ding".split())
#: A present progressive: with a date it is an arrangement ("A joiner is replacing the windows on 3 November").
_PROGRESSIVE = re.compile(
    r"(?:\b(?:am|is|are)|'(?:m|re)|\b(?:he|she|it|that|there|who)'s)\s+(?:\w+ly\s+)?(?:not\s+)?(?P<ing>[a-z]{2,}ing)\b",
    re.IGNORECASE,
)


#: A clause that opens with an "-ing" verb has dropped its subject and "be": "Picking it up on Saturday", "Flying
#: out Friday": an arrangement, like the progressive it stands for; not an "-ing" noun that is the subject of the
#: verb after it ("Pruning finished early, on 7 March").
_DROPPED_BE = re.compile(r"^\W*(?:(?:and|also|just|still|then)\s+)?(?P<ing>[A-Za-z]{2,}ing)\s+"
    r"(?!(?:on|in|at|of|to|for|is|was|were|has|had|will|would|can|could|must|took|went|began|ran)\b|[a-z]+ed\b)", re.IGNORECASE)
#: "-ing" words that are not verbs at the head of a clause.
_NOT_VERB_ING = frozenset("during according including regarding concerning considering notwithstanding".split())


def progressive(text: str) -> bool:
    """Whether ``text`` has a present progressive ("is replacing", "we're flying"; not "it's amazing"), or opens with
    one whose subject and "be" are dropped ("Picking it up on Saturday")."""
    if (d := _DROPPED_BE.match(text)) is not None:
        ing = d["ing"].lower()
        if not ing.endswith("thing") and ing not in _ING_NOUNS and ing not in _ING_ADJECTIVES and ing not in _NOT_VERB_ING:
            return True
    for m in _PROGRESSIVE.finditer(text):
        ing = m["ing"].lower()
        if not ing.endswith("thing") and ing not in _ING_NOUNS and ing not in _ING_ADJECTIVES:
            return True
    return False


_ING_ADJECTIVES = frozenset(
    """
    amazing interesting exciting boring annoying confusing tiring relaxing stunning charming missing worrying surprising
    encouraging disappointing frustrating refreshing rewarding challenging inspiring terrifying overwhelming promising
    """.split()
)
