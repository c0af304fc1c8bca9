"""mem0's ``add`` over memdesk's pipeline: mem0's message shapes in, mem0's events out.

:class:`Mem0Processor` wraps the memory's processor for the facade so that ``add`` keeps mem0's promises:

* **one memory per fact**: of the records one message gives, a record whose words another of them already holds
  is dropped (the rule extractor's sentence view inside its whole-turn view, an event that repeats a fact word
  for word), so a fact is not stored, returned and searched twice;
* **a repeated fact is not stored again**: a semantic record that says (case and spacing aside) what a current
  memory of the same speaker, role and scope says is dropped, and ``add`` reports that memory with ``NONE``.

:func:`add_events` turns memdesk's :class:`~memdesk.records.AddResult` into mem0's events, as they happened:
``ADD`` for a new memory; ``UPDATE`` for a new memory that superseded an earlier one (memdesk closes the old
memory and keeps it in history and ``as_of`` reads; the event carries the new memory's id, with mem0's
``previous_memory`` and memdesk's ``previous_id``); ``DELETE`` for any further memory the same one closed;
``NONE`` for a repeated fact (the id is the stored memory's).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ..conversation.base import Processed, Processor, Utterance
from ..conversation.decisions import ShowsKnown
from ..errors import InvalidInputError
from ..records import AddResult, MemoryRecord
from ..retrieval.packing import normalized_text

__all__ = ["Mem0Processor", "add_events", "message_dict", "message_list", "timestamp_of"]

#: how many stored facts (most similar to each message) a new fact is compared with for repeats
KNOWN_FACTS = 5


class Mem0Processor:
    """The facade's processor: ``inner``'s records, one memory per fact, repeats of stored facts held back
    (``repeats=False``: every record kept, as ``infer=False`` stores each message verbatim)."""

    def __init__(self, inner: Processor, *, repeats: bool = True) -> None:
        self.inner = inner
        self._inner_known = inner.known_facts if isinstance(inner, ShowsKnown) else 0
        self.known_facts = max(self._inner_known, KNOWN_FACTS) if repeats else self._inner_known
        self._repeats = repeats
        self._unchanged: dict[str, list[MemoryRecord]] = {}  # message id -> stored memories it repeated
        self._lock = threading.Lock()

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        shown = [
            u if len(u.known) <= self._inner_known else u.model_copy(update={"known": u.known[: self._inner_known]})
            for u in utterances
        ]  # the inner processor sees the known facts it asked for, no more
        out = self.inner.process(shown)
        for u, p in zip(utterances, out):
            kept = one_per_fact(p.records)
            if self._repeats and u.known:
                stored = {normalized_text(r.text()): r for r in u.known}
                repeated = [r for r in kept if r.type == "semantic" and normalized_text(r.text()) in stored]
                if repeated:
                    with self._lock:
                        self._unchanged[u.message_id] = [stored[normalized_text(r.text())] for r in repeated]
                    dropped = {id(r) for r in repeated}
                    kept = [r for r in kept if id(r) not in dropped]
            p.records[:] = kept
        return out

    def unchanged(self, message_ids: Sequence[str]) -> list[MemoryRecord]:
        """The stored memories the messages ``message_ids`` repeated (taken: asked once per add)."""
        with self._lock:
            found = [r for mid in message_ids for r in self._unchanged.pop(mid, [])]
        unique = {r.id: r for r in found}
        return list(unique.values())


def one_per_fact(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """One message's records without those whose words another kept record already holds (the longer stays)."""
    texts = [normalized_text(r.text()) for r in records]
    order = sorted(range(len(records)), key=lambda i: -len(texts[i]))
    kept: list[int] = []
    for i in order:
        if texts[i] and not any(texts[i] in texts[j] for j in kept):
            kept.append(i)
    return [records[i] for i in sorted(kept)]


def add_events(result: AddResult, unchanged: Sequence[MemoryRecord]) -> list[dict[str, Any]]:
    """mem0's ``results`` of an add: what happened to each memory (see the module docstring)."""
    closed: dict[str, list[MemoryRecord]] = {}
    for old in result.superseded:
        closed.setdefault(old.superseded_by or "", []).append(old)
    events = []
    for record in result.records:
        olds = closed.get(record.id, [])
        if not olds:
            events.append(_event(record, "ADD"))
            continue
        first = olds[0]
        events.append({**_event(record, "UPDATE"), "previous_memory": first.text(), "previous_id": first.id})
        events += [_event(old, "DELETE") for old in olds[1:]]
    events += [_event(record, "NONE") for record in unchanged]
    return events


def _event(record: MemoryRecord, event: str) -> dict[str, Any]:
    item = {"id": record.id, "memory": record.text(), "event": event, "role": record.role, "memory_type": record.type}
    if record.speaker is not None:
        item["actor_id"] = record.speaker
    return item


def message_list(messages: Any) -> list[Any]:
    if isinstance(messages, (str, Mapping)):
        return [messages]
    if isinstance(messages, list):
        return messages
    raise InvalidInputError(f"messages must be str, dict, or list[dict], not {type(messages).__name__}")


def message_dict(m: Any, i: int, metadata: dict[str, Any]) -> dict[str, Any]:
    """One mem0 message (a string or ``{"role", "content", "name"?}``) as memdesk's message dict."""
    if isinstance(m, str):
        m = {"role": "user", "content": m}
    if not isinstance(m, Mapping):
        raise InvalidInputError(f"message {i}: expected a dict with role and content, got {type(m).__name__}")
    content = m.get("content")
    if not isinstance(content, str):
        raise InvalidInputError(f"message {i}: content must be text (memdesk's mem0 facade takes no image parts)")
    out: dict[str, Any] = {"role": m.get("role", "user"), "content": content, "metadata": dict(metadata)}
    if m.get("name") is not None:
        out["speaker"] = m["name"]
    return out


def timestamp_of(value: Any) -> datetime | None:
    """A datetime, an ISO string or Unix seconds as a datetime (None stays None)."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, tz=timezone.utc)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    raise InvalidInputError(f"timestamp must be a datetime, an ISO date string or Unix seconds, got {value!r}")
