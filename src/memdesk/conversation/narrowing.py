"""Narrowing: a memory of several statements keeps the ones a new memory does not supersede.

The rule extractor stores each statement of a message as a record, and also views that join several of them
("The dentist is on 14 November. And my sister's wedding is on 8 February."). When a new memory closes one
statement ("the dentist moved to the 19th"), a view holding it and another statement that still holds is neither
current nor gone: closing it would drop the wedding from it, keeping it would keep the old dentist date. It is
*narrowed* instead: a new version of the same record that says only what still holds (its history keeps the
version before), less the claims of what went; ``metadata["narrowed_by"]`` names the memory that narrowed it.

:func:`narrowings` decides, for the views of one message among the memories compared with a new one: a view holding
a statement that closes (another view of the message, inside its text) is narrowed to the statements inside it that
do not close, whether the view itself was to be closed or not; one left with none is closed too (what it says beside
its statements, such as "Asking 68,000." after "I'm selling the Peugeot.", means something only next to them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import MemoryRecord

__all__ = ["kept_text", "message_of", "narrow", "narrowings", "statements_of"]

#: how much of a statement's text must begin inside a view for the view to hold it (a view is cut to its length
#: limit: its last statement may be cut short)
_HEAD = 40


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".!?… ").lower()


def message_of(record: MemoryRecord) -> str:
    """The id of ``record``'s message (:meth:`~memdesk.records.MemoryRecord.source_message`), else its own id: the
    key that groups the records of one message."""
    message = record.source_message()
    return message if message is not None else record.id


def statements_of(view: MemoryRecord, others: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The records of ``others`` of the same message as ``view``, shorter than it, whose text ``view``'s text holds
    (none of them inside another one's): the statements it joins."""
    text = _plain(view.text())
    inside = [
        o for o in others
        if o.id != view.id and message_of(o) == message_of(view) and len(_plain(o.text())) < len(text) and _plain(o.text())[:_HEAD] in text
    ]  # fmt: skip
    longest = [o for o in inside if not any(p is not o and _plain(o.text()) in _plain(p.text()) and len(p.text()) > len(o.text()) for p in inside)]
    return list({_plain(o.text()): o for o in longest}.values())


def kept_text(view: MemoryRecord, kept: Sequence[MemoryRecord]) -> str:
    """What a view says when only the statements ``kept`` hold: their texts, in the order the view says them."""
    order = _plain(view.text())
    return " ".join(r.body().strip() for r in sorted(kept, key=lambda r: order.find(_plain(r.text())[:_HEAD])))


def narrow(view: MemoryRecord, text: str, gone: Sequence[MemoryRecord], by: str) -> MemoryRecord:
    """A new version of ``view`` saying ``text``, less the claims of the statements ``gone``, its title and event
    time read from the new text (:func:`.extract.text_fields`)."""
    from .extract import text_fields  # the record fields a text decides, as for an edit

    body = {"episodic": "summary", "semantic": "fact"}.get(view.memory_type.value, "content")
    dropped = [c for g in gone for c in (g.metadata.get("claims") or [])]
    claims = [c for c in (view.metadata.get("claims") or []) if c not in dropped]
    metadata = {k: v for k, v in view.metadata.items() if k != "claims"} | {"narrowed_by": by} | ({"claims": claims} if claims else {})
    fields = {"event_time": None, "temporal_anchor": None} | text_fields(view.memory_type, text, view.said_time())
    return view.model_copy(update={body: text, **fields, "metadata": metadata})


def narrowings(records: Sequence[MemoryRecord], closing: set[str]) -> tuple[set[str], dict[str, tuple[str, list[MemoryRecord]]]]:
    """For stored memories compared with a new one (``closing``: the ids of those it closes): the ids to close
    after all, and the memories to narrow, by id, with their new text and the statements that went (see the module
    docstring)."""
    close: set[str] = set(closing)
    narrowed: dict[str, tuple[str, list[MemoryRecord]]] = {}
    by_message: dict[str, list[MemoryRecord]] = {}
    for r in records:
        by_message.setdefault(message_of(r), []).append(r)
    for views in by_message.values():
        if not any(v.id in closing for v in views):
            continue
        for view in views:
            parts = statements_of(view, views)
            gone = [p for p in parts if p.id in closing]
            if not gone:
                continue
            kept = [p for p in parts if p.id not in closing]
            if kept:
                close.discard(view.id)
                narrowed[view.id] = (kept_text(view, kept), gone)
            else:
                close.add(view.id)
    return close, narrowed
