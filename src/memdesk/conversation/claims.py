"""A claim a statement makes about its speaker's world (an attribute and slot, its value, set or ended): what
supersession compares. Read from text by :mod:`.facts`, :mod:`.attributes` and :mod:`.updates`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Claim", "Op"]

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
