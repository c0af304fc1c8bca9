"""The reasoning-bank operations of the paths in :mod:`.faces` (mixins): each adds, lists, retrieves and deletes a
tenant's bank examples through its path, owned by ``Scope(user_id=name or the tenant)``, and raises the memdesk
exception the path reports. ``name`` is as in :mod:`.faces`."""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import quote


class BankFace(Protocol):
    """A path that also reaches reasoning banks (a ``Face`` of :mod:`.faces` too)."""

    def bank_add(self, bank: str, problem: str, name: str | None) -> list[str]: ...
    def bank_list(self, name: str | None) -> list[tuple[str, str | None]]: ...
    def bank_retrieve(self, bank: str, problem: str, name: str | None) -> Any: ...
    def bank_delete_example(self, bank: str, example_id: str, name: str | None) -> None: ...
    def bank_delete(self, bank: str, name: str | None) -> int: ...


def solved(problem: str) -> dict[str, str]:
    """A solved example whose solution reaches its answer."""
    return {"problem": problem, "answer": "7", "solution": "3 + 4 = 7, so the answer is \\boxed{7}."}


class InProcessBanks:
    """``ReasoningBanks``' methods (in process, or RemoteMemory's) on ``self.banks``, naming ``self._scope(name)``."""

    banks: Any
    _scope: Any

    def bank_add(self, bank, problem, name):
        return self.banks.add_examples(bank, [solved(problem)], scope=self._scope(name)).ids

    def bank_list(self, name):
        return [(b.name, b.user_id) for b in self.banks.list_banks(scope=self._scope(name))]

    def bank_retrieve(self, bank, problem, name):
        from .faces import Found, Item

        got = self.banks.retrieve_examples(bank, problem, scope=self._scope(name), k=50)
        return Found([Item(e.id, None, e.problem) for e in got.examples], got.memory_block)

    def bank_delete_example(self, bank, example_id, name):
        self.banks.delete_example(bank, example_id, scope=self._scope(name))

    def bank_delete(self, bank, name):
        return self.banks.delete_bank(bank, scope=self._scope(name))


class HttpBanks:
    """The ``/v1/banks`` routes through ``self._call``."""

    _call: Any

    def bank_add(self, bank, problem, name):
        return self._call("POST", f"/v1/banks/{bank}/examples", body={"examples": [solved(problem)]}, name=name)["ids"]

    def bank_list(self, name):
        return [(b["name"], b["user_id"]) for b in self._call("GET", "/v1/banks", name=name)]

    def bank_retrieve(self, bank, problem, name):
        from .faces import Found, Item

        got = self._call("POST", f"/v1/banks/{bank}/retrieve", body={"problem": problem, "k": 50}, name=name)
        return Found([Item(e["id"], None, e["problem"]) for e in got["examples"]], got["memory_block"])

    def bank_delete_example(self, bank, example_id, name):
        self._call("DELETE", f"/v1/banks/{bank}/examples/{quote(example_id, safe='')}", name=name)

    def bank_delete(self, bank, name):
        return self._call("DELETE", f"/v1/banks/{bank}", name=name)["deleted"]


class McpBanks:
    """The bank tools through ``self._tool``."""

    _tool: Any

    def bank_add(self, bank, problem, name):
        return self._tool("add_solved_example", {"bank": bank, **solved(problem)}, name)["ids"]

    def bank_list(self, name):
        return [(b["name"], b["user_id"]) for b in self._tool("list_banks", {}, name)]

    def bank_retrieve(self, bank, problem, name):
        from .faces import Found, Item

        got = self._tool("retrieve_examples", {"bank": bank, "problem": problem, "k": 50}, name)
        return Found([Item(e["id"], None, e["problem"]) for e in got["examples"]], got["memory_block"])

    def bank_delete_example(self, bank, example_id, name):
        self._tool("delete_example", {"bank": bank, "example_id": example_id}, name)

    def bank_delete(self, bank, name):
        return self._tool("delete_bank", {"bank": bank}, name)
