"""``RemoteMemory``'s reasoning-bank methods: :class:`~memdesk.reasoning.service.ReasoningBanks`'s methods, with the
same arguments and results, over a memdesk server's ``/v1/banks`` routes (a mixin of :class:`~memdesk.RemoteMemory`).

The owner scope is a ``Scope`` (or a dict of ids) as in process (a user and/or agent, no run). Replies are parsed
into the same models, error envelopes into the same exception classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from pydantic import TypeAdapter, ValidationError

from .. import errors
from ..reasoning.datasets import AnswerKind
from ..reasoning.methods import Method
from ..reasoning.service_models import AddedExamples, BankInfo, ExampleRetrieval, NewExample, Solution
from ..reasoning.solved_examples import MemoryFormat, Tags
from ..records import Scope

_BANKS = TypeAdapter(list[BankInfo])
_ADDED = TypeAdapter(AddedExamples)
_RETRIEVAL = TypeAdapter(ExampleRetrieval)
_SOLUTION = TypeAdapter(Solution)
_TAGS = TypeAdapter(Tags | None)


def _owner(scope: Scope | Mapping[str, Any]) -> dict[str, str]:
    fields = (scope if isinstance(scope, Scope) else Scope(**scope)).model_dump(exclude_none=True)
    if "run_id" in fields:
        raise errors.InvalidScopeError("a reasoning bank belongs to a user_id and/or agent_id, not to a run: leave run_id out")
    return fields


def _path(value: str, what: str) -> str:
    if not isinstance(value, str) or not value or "/" in value or value in (".", ".."):
        raise errors.InvalidInputError(f"invalid {what} {value!r}")
    return quote(value, safe="")


def _enum(value: Any) -> Any:
    return getattr(value, "value", value)


class RemoteBanks:
    """The bank calls; the class using it provides ``_call(method, path, json=, params=)`` and ``_parse``."""

    def _call(self, method: str, path: str, *, json: Any = None, params: Any = None) -> Any: ...  # pragma: no cover

    def _parse(self, adapter: TypeAdapter, body: Any) -> Any: ...  # pragma: no cover

    def list_banks(self, *, scope: Scope | Mapping[str, Any]) -> list[BankInfo]:
        """The banks under ``scope``: see :meth:`ReasoningBanks.list_banks <memdesk.reasoning.ReasoningBanks.list_banks>`."""
        return self._parse(_BANKS, self._call("GET", "/v1/banks", params=_owner(scope)))

    def retrieve_examples(
        self, bank: str, problem: str, *, scope: Scope | Mapping[str, Any], k: int = 5,
        format: MemoryFormat | str = MemoryFormat.LONG, tags: Tags | Mapping[str, Any] | None = None,
    ) -> ExampleRetrieval:
        body = {**_owner(scope), "problem": problem, "k": k, "format": _enum(format), "tags": _TAGS.dump_python(_tags(tags), mode="json")}
        return self._parse(_RETRIEVAL, self._call("POST", f"/v1/banks/{_path(bank, 'bank name')}/retrieve", json=body))

    def solve(
        self, bank: str, problem: str, *, scope: Scope | Mapping[str, Any], method: Method | str = Method.COT, k: int = 3,
        format: MemoryFormat | str = MemoryFormat.SHORT, gamma: float | None = None,
        tags: Tags | Mapping[str, Any] | None = None, gold: str | None = None, max_tokens: int = 1024,
    ) -> Solution:
        body = {
            **_owner(scope), "problem": problem, "method": _enum(method), "k": k, "format": _enum(format), "gamma": gamma,
            "tags": _TAGS.dump_python(_tags(tags), mode="json"), "gold": gold, "max_tokens": max_tokens,
        }  # fmt: skip
        return self._parse(_SOLUTION, self._call("POST", f"/v1/banks/{_path(bank, 'bank name')}/solve", json=body))

    def add_examples(
        self, bank: str, examples: Sequence[NewExample | Mapping[str, Any]], *, scope: Scope | Mapping[str, Any],
        answer_kind: AnswerKind | str | None = None,
    ) -> AddedExamples:
        if isinstance(examples, (str, bytes, Mapping)) or not isinstance(examples, Sequence):
            raise errors.InvalidInputError("examples must be a list of solved examples")
        items = [ex.model_dump(mode="json", exclude_none=True) if isinstance(ex, NewExample) else dict(ex) for ex in examples]
        body = {**_owner(scope), "examples": items, "answer_kind": _enum(answer_kind)}
        return self._parse(_ADDED, self._call("POST", f"/v1/banks/{_path(bank, 'bank name')}/examples", json=body))

    def delete_example(self, bank: str, example_id: str, *, scope: Scope | Mapping[str, Any]) -> None:
        path = f"/v1/banks/{_path(bank, 'bank name')}/examples/{_path(example_id, 'example id')}"
        self._call("DELETE", path, params=_owner(scope))

    def delete_bank(self, bank: str, *, scope: Scope | Mapping[str, Any]) -> int:
        return int(self._call("DELETE", f"/v1/banks/{_path(bank, 'bank name')}", params=_owner(scope))["deleted"])


def _tags(tags: Any) -> Tags | None:
    if tags is None or isinstance(tags, Tags):
        return tags
    try:
        return Tags.model_validate(tags)
    except ValidationError as e:
        first = e.errors()[0]
        raise errors.InvalidInputError(f"invalid tags: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
