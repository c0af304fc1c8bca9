"""Folding: a record whose words another record of the same block already shows is written once, in the longer line.

One message is stored as several records: its sentences, the message with the turn it answers (a question-answer
view), facts drawn from it. When a block holds a sentence and the question-answer view of the same message, the
sentence's words appear twice. :func:`folded` finds the records whose shown text (normalized as de-duplication
compares it, on whole words) is contained in the shown text of another record of the block that shares a message
with it, with the same provenance label, under the same temporal anchor or under another one when the text writes its
own date (``"... yesterday (2024-02-09)"``): the serializer writes no line for those (their words are in the longer
line, with their date and the same "by"/"via" label), and the packer prices them so. Nothing is cut: every word a
folded record shows stays in the block, and the hit stays among the block's hits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..hits import SearchHit


@dataclass(frozen=True)
class FoldKey:
    """What decides whether one record's line is contained in another's: its anchor, its provenance label, its
    normalized text padded with spaces (so containment is on whole words), and its messages."""

    anchor: str
    label: str
    text: str
    messages: frozenset[str]
    #: the text holds its own anchor (``"... yesterday (2024-02-09) ..."``): another line under another anchor keeps it
    dated: bool = False

    def within(self, other: "FoldKey") -> bool:
        """Whether ``other``'s line shows every word of this one's (another line, sharing a message, containing this
        text, with the same label and the same anchor, or another when this text writes its own)."""
        return (
            (self.anchor == other.anchor or self.dated)
            and self.label == other.label
            and not self.messages.isdisjoint(other.messages)
            and len(self.text) <= len(other.text)
            and self.text in other.text
        )


def folded(hits: Sequence[SearchHit], key: Callable[[SearchHit], FoldKey]) -> set[int]:
    """Indexes of the hits whose line another hit of ``hits`` shows (see the module docstring). Of two hits with the
    same text the later one folds; a chain folds into its longest line. ``key`` is called only for hits that share a
    message with another."""
    by_message: dict[str, list[int]] = {}
    for i, h in enumerate(hits):
        for m in set(h.record.provenance):
            by_message.setdefault(m, []).append(i)
    keys = {i: key(hits[i]) for ids in by_message.values() if len(ids) > 1 for i in ids}
    out: set[int] = set()
    for i, k in keys.items():
        if not k.text.strip():
            continue
        for j in {j for m in k.messages for j in by_message[m] if j != i}:
            o = keys[j]
            if k.within(o) and (len(o.text) > len(k.text) or j < i):
                out.add(i)
                break
    return out
