"""A claim a statement makes about its speaker's world (an attribute and slot, its value, set or ended): what
supersession compares. Read from text by :mod:`.facts`, :mod:`.attributes` and :mod:`.updates`, and kept in a record's
metadata (:func:`claims_in`; the records an LLM processor's decision replaces: :func:`named_in`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pragma: no cover
    from ..records import MemoryRecord

__all__ = ["Claim", "Op", "claims_in", "named_in"]

Op = Literal["set", "end", "revise"]


@dataclass(frozen=True)
class Claim:
    attribute: str
    slot: str = ""
    value: str | None = None
    op: Op = "set"

    @property
    def key(self) -> str:
        return f"{self.attribute}:{self.slot}" if self.slot else self.attribute

    def as_dict(self) -> dict[str, str | None]:
        return {"attribute": self.attribute, "slot": self.slot, "value": self.value, "op": self.op}

    @classmethod
    def from_dict(cls, d: dict) -> "Claim":
        return cls(attribute=str(d["attribute"]), slot=str(d.get("slot") or ""), value=d.get("value"), op=d.get("op", "set"))


def claims_in(record: "MemoryRecord") -> list[Claim]:
    """The attribute claims a record carries (none for records no rule read)."""
    raw = record.metadata.get("claims") or []
    return [Claim.from_dict(c) for c in raw if isinstance(c, dict) and "attribute" in c]


def named_in(record: "MemoryRecord") -> list[str]:
    """The ids of the records a record says it replaces (an LLM processor's UPDATE decisions)."""
    raw = record.metadata.get("replaces") or []
    return [r for r in raw if isinstance(r, str)] if isinstance(raw, list) else []
