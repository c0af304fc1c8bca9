"""How much of a question's head a record holds, for the offline answerer.

The head itself, what a question asks *of* (the noun of its wh-phrase, its main verb, the subject of "be"), is read
by the one question reader of it, :func:`memdesk.retrieval.question_head.asked_head`, which the read path's head
bonus reads too. The answerer compares it with a record's words by stem (:func:`text_stems`), an irregular past form
by its base ("paid" holds "pay", "fell" holds "fall": :data:`~memdesk.text.english.PAST_BASE`), a noun made of a verb
with "-ment" as that verb too; :func:`held` is the weight of the head words a text holds.

The offline answerer (:mod:`memdesk.conversation.answer_choice`) reads it twice. A question asking when something
happened ("When did Tomas fall ...?": :meth:`~memdesk.retrieval.question_head.Head.past_event`) is answered by the
record of the best few that tells that event (holds its verb, names the question's subject no less than the ranked
answer does) and states a date, when the ranked answer does not hold the verb. And a hit stating a value of the asked
kind answers over a closer one that states none (whose message states none either) only when it holds a head word
("When is the cataract surgery?": "the surgery moved to 26 March", not "her brother visits on 26 March"). Matching
every question's head words against the ranked answer's was measured and dropped: verbs are paraphrased ("passed
away" for "die") and nouns name the topic as often as the attribute, so the ranking's first hit, right more often
than not, was replaced as often wrongly as rightly (``bench/results/chats/28an-s11/README.md``).
"""

from __future__ import annotations

import re

from ..records import MemoryRecord
from ..retrieval.question_head import Head, word_stem

__all__ = ["asked_of", "held", "text_stems"]

_WORD = re.compile(r"[A-Za-z0-9][\w'\u2019-]*")


def text_stems(text: str) -> frozenset[str]:
    """The stems of a text's words, an irregular past form stemmed as its base ("paid" -> "pay"), and a noun made of a
    verb with "-ment" as that verb too ("treatment" holds "treat")."""
    words = _WORD.findall(text)
    return frozenset(word_stem(w) for w in words) | {
        word_stem(w[:-4]) for w in words if w.lower().endswith("ment") and len(w) > 7
    }


def held(head: Head, stems: frozenset[str]) -> float:
    """The weight of ``head``'s words among ``stems`` (a text's :func:`text_stems`)."""
    return sum(w for s, w in head.weights if s in stems)


def asked_of(head: Head, record: MemoryRecord) -> float:
    """The weight of ``head``'s words ``record`` holds, the subject's names left out (every record of a person names
    them)."""
    stems = text_stems(record.text())
    return sum(w for s, w in head.weights if s not in head.names and s in stems)
