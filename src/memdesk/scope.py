"""``Scope``: who a memory belongs to, the one scope argument of every call (and ``ScopeIds``, what a
model of scope ids shares: a tenant's too)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .errors import InvalidScopeError
from .text.textcheck import text_problem

_CONTROL = re.compile("[\x00-\x1f]")
"""A control character (below U+0020): not allowed in a scope id. One regex search, not a loop over the
characters: every record read back validates its scope (twice: ``ScopeIds.__init__`` runs inside it)."""


class ScopeIds(BaseModel):
    """A frozen model of scope ids whose every invalid value is an :class:`~memdesk.errors.InvalidScopeError`
    ("invalid <what>: ..."), never pydantic's ``ValidationError``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    what: ClassVar[str] = "scope"

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise InvalidScopeError(f"invalid {self.what}: {e.errors()[0]['msg']}") from None


class Scope(ScopeIds):
    """Who a memory belongs to. At least one of the three ids must be set.

    Writes use the scope exactly. Reads treat unset fields as wildcards: ``Scope(user_id="u")``
    searches every agent and run of user ``u``.
    """

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None

    @model_validator(mode="after")
    def _check(self) -> "Scope":
        values = (self.user_id, self.agent_id, self.run_id)
        if all(v is None for v in values):
            raise InvalidScopeError("a scope needs at least one of user_id, agent_id, run_id")
        for v in values:
            if v is not None and (
                not v.strip() or len(v) > 256 or _CONTROL.search(v) is not None or text_problem(v) is not None
            ):
                raise InvalidScopeError(
                    f"invalid scope id {v!r}: empty, longer than 256, with control characters or not encodable as UTF-8"
                )
        return self

    def key(self) -> str:
        """A stable string key for the exact scope (used for caches and storage)."""
        return "\x1f".join(v or "" for v in (self.user_id, self.agent_id, self.run_id))

    @classmethod
    def from_key(cls, key: str) -> "Scope":
        u, a, r = key.split("\x1f")
        return cls(user_id=u or None, agent_id=a or None, run_id=r or None)

    def matches(self, other: "Scope") -> bool:
        """True if ``other`` (an exact scope) falls under this (possibly wildcard) scope."""
        return all(
            mine is None or mine == theirs
            for mine, theirs in (
                (self.user_id, other.user_id),
                (self.agent_id, other.agent_id),
                (self.run_id, other.run_id),
            )
        )

    def __str__(self) -> str:
        parts = [f"{n}={v}" for n, v in (("user", self.user_id), ("agent", self.agent_id), ("run", self.run_id)) if v]
        return ",".join(parts)
