"""Narrowing: a memory of several statements keeps the ones a new memory does not supersede.

The rule extractor stores each statement of a message as a record, and also views that join several of them
("The dentist is on 14 November. And my sister's wedding is on 8 February."). When a new memory closes one
statement ("the dentist moved to the 19th"), a view holding it and another statement that still holds is neither
current nor gone: closing it would drop the wedding from it, keeping it would keep the old dentist date. It is
*narrowed* instead: a new version of the same record that says only the statements that still hold (its history
keeps the version before), with their claims; ``metadata["narrowed_by"]`` names the memory that narrowed it.

:func:`narrowings` decides, for the views of one message among the memories compared with a new one:

* a view whose statements (the other views of the message its text holds) are some closed and some not is
  narrowed to those not closed, whether the view itself was to be closed or not;
* a view whose statements are all closed is closed too (it says nothing that still holds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import MemoryRecord

__all__ = ["narrow", "narrowings", "statements_of"]

#: how much of a statement's text must begin inside a view for the view to hold it (a view is cut to its length
#: limit: its last statement may be cut short)
_HEAD = 40


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".!?… ").lower()


def _message(record: MemoryRecord) -> str:
    return record.provenance[0] if record.provenance else record.id


def statements_of(view: MemoryRecord, others: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The records of ``others`` of the same message as ``view`` whose text ``view``'s text holds, none of them
    inside another one's; empty unless there are two or more (``view`` is then a statement, not a join)."""
    text = _plain(view.text())
    inside = [
        o for o in others
        if o.id != view.id and _message(o) == _message(view) and len(_plain(o.text())) < len(text) and _plain(o.text())[:_HEAD] in text
    ]  # fmt: skip
    longest = [o for o in inside if not any(p is not o and _plain(o.text()) in _plain(p.text()) and len(p.text()) > len(o.text()) for p in inside)]
    unique = list({_plain(o.text()): o for o in longest}.values())
    return unique if len(unique) >= 2 else []


def narrow(view: MemoryRecord, kept: Sequence[MemoryRecord], by: str) -> MemoryRecord:
    """A new version of ``view`` saying only the statements ``kept`` (in their order in it), with their claims."""
    order = _plain(view.text())
    kept = sorted(kept, key=lambda r: order.find(_plain(r.text())[:_HEAD]))
    first = kept[0]
    body = " ".join(r.body() for r in kept)
    fields = {"summary": body} if view.memory_type.value == "episodic" else {"fact": body} if view.memory_type.value == "semantic" else {"content": body}
    if hasattr(view, "title"):
        fields["title"] = getattr(first, "title", "") or ""
    claims = [c for r in kept for c in (r.metadata.get("claims") or [])]
    metadata = {**view.metadata, "narrowed_by": by}
    if claims:
        metadata["claims"] = claims
    else:
        metadata.pop("claims", None)
    return view.model_copy(update={**fields, "metadata": metadata, "event_time": first.event_time, "temporal_anchor": first.temporal_anchor})


def narrowings(records: Sequence[MemoryRecord], closing: set[str]) -> tuple[set[str], dict[str, list[MemoryRecord]]]:
    """For stored memories compared with a new one (``closing``: the ids of those it closes): the ids to close
    after all, and the memories to narrow, by id, with the statements each keeps (see the module docstring)."""
    close, narrowed = set(closing), {}
    by_message: dict[str, list[MemoryRecord]] = {}
    for r in records:
        by_message.setdefault(_message(r), []).append(r)
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
                narrowed[view.id] = kept
            else:
                close.add(view.id)
    return close, narrowed
