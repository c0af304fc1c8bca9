"""How the sentences of a turn are grouped into records by the rule extractor (:mod:`.extract`): which sentences say
something only beside the one before them.

* a sentence that opens with a pronoun or a demonstrative ("It was ...", "That's ...", "So ...") joins the one before
  it in a sentence view (:func:`view_groups`);
* an **elliptic** sentence (:func:`elliptic`): short, with no verb and no time of its own ("The check-up is on Tuesday
  at 9. Blood test and X-ray.", "Shearing pushed back a week. Rain.", "..., 40 pesos each."), joins the one before it
  in a sentence view and in a statement (:func:`continued`), so no record holds it alone: alone it says nothing a
  person could read back;
* a verbless short answer ("A bit.", "First try.") gets no view of its own where the turn or context view holds it
  (:func:`fragment`).

The test is structural: a finite verb, a modal or an instruction (:func:`memdesk.timeexpr.tense.has_verb`), the words
counted, a time expression, an image.
"""

from __future__ import annotations

import re

from ..timeexpr.tense import has_verb
from .rules import SUBJECTS, Sentence, has_past_event, words

__all__ = ["MAX_ELLIPTIC_WORDS", "continued", "elliptic", "fragment", "view_groups"]

_ANAPHOR = re.compile(r"^(?:it|it's|that|that's|this|they|they're|these|those|she|he|which|so)\b", re.IGNORECASE)
#: The most words of a sentence with no verb that says nothing alone (:func:`elliptic`).
MAX_ELLIPTIC_WORDS = 6


def fragment(s: Sentence) -> bool:
    """A verbless short answer ("A bit.", "First try.", "Probably not.")."""
    ws = words(s.text)
    if s.image or s.times or len(ws) > 3 or not ws:
        return False
    return ws[0].split("'")[0] not in SUBJECTS and not has_past_event(s.text)


def elliptic(s: Sentence) -> bool:
    """A short sentence with no verb and no time of its own: after another one, what it says is of that one."""
    ws = words(s.text)
    return bool(ws) and len(ws) <= MAX_ELLIPTIC_WORDS and not s.image and not s.times and not has_verb(s.text)


def continued(content: list[Sentence]) -> list[list[Sentence]]:
    """``content`` in groups for statements: each sentence with the elliptic ones after it (:func:`elliptic`)."""
    groups: list[list[Sentence]] = []
    for s in content:
        if groups and elliptic(s):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def view_groups(content: list[Sentence]) -> list[list[Sentence]]:
    """Sentence views: a sentence opening with a pronoun, or an elliptic one, joins the one before it."""
    groups: list[list[Sentence]] = []
    for s in content:
        if groups and (_ANAPHOR.match(s.text) or elliptic(s)):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups
