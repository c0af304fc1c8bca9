"""The mem0 facade as a path of the isolation machine: ``memdesk.compat.mem0.Memory`` bound to the tenant.

A bound facade is keyed in the machine's sense: a call may leave the user out (the bound scope fills it in),
name its own or name another tenant's (a write is ``ForbiddenScopeError``, a read ``UnknownScopeError``, a
by-id call reads as missing). mem0's shapes are turned back into the machine's: ``get`` -> ``None`` and
``history`` -> ``[]`` become ``RecordNotFoundError``. mem0 has no evidence or answer call (both are a search)
and no exact-scope delete: ``delete_all(user_id=)`` erases every run of the user, and leaving the user out is
``reset()`` (``delete_all()`` with no id refuses), so this face forgets with a wildcard only.
"""

from __future__ import annotations

from typing import Any

from memdesk.compat.mem0 import Memory as Mem0Memory
from memdesk.conversation.memory import Memory
from memdesk.errors import RecordNotFoundError

from .faces import Found, Item


def _item(d: dict[str, Any]) -> Item:
    return Item(d["id"], d.get("user_id"), d["memory"])


class Mem0Face:
    keyed = True
    exact_forget = False

    def __init__(self, memory: Memory, user: str) -> None:
        self.user = user
        self.m = Mem0Memory(memory=memory, scope={"user_id": user})

    def add(self, text, run_id, name):
        return [r["id"] for r in self.m.add(text, user_id=name, run_id=run_id)["results"]]

    def search(self, query, name):
        # old top-level ids and current filters= both reach the same scope check
        if name is None:
            return Found([_item(d) for d in self.m.search(query)["results"]])
        return Found([_item(d) for d in self.m.search(query, filters={"user_id": name})["results"]])

    evidence = answer = search

    def get(self, record_id, name):
        got = self.m.get(record_id, user_id=name)
        if got is None:
            raise RecordNotFoundError(record_id)
        return _item(got)

    def get_all(self, name):
        return Found([_item(d) for d in self.m.get_all(user_id=name, top_k=10_000)["results"]])

    def update(self, record_id, text, name):
        self.m.update(record_id, text, user_id=name)
        return self.get(record_id, name)

    def delete(self, record_id, name):
        self.m.delete(record_id, user_id=name)

    def history(self, record_id, name):
        rows = self.m.history(record_id, user_id=name)
        if not rows:
            raise RecordNotFoundError(record_id)
        return Found([Item(r["memory_id"], None, r["new_memory"] or r["old_memory"] or "") for r in rows])

    def forget(self, wildcard, name):
        if name is None:
            self.m.reset()
        else:
            self.m.delete_all(user_id=name)

    def close(self) -> None:
        self.m.close()
