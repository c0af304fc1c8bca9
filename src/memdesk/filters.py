"""The one filter model for reads: which records a search, scan, evidence block or answer may use.

:class:`RecordFilter` is plain data: every backend compiles it into its own query (SQL ``WHERE`` for
scans, a row mask in the in-memory vector index, so a search's top-k is taken *after* filtering), and
:meth:`RecordFilter.matches` is the reference meaning every backend must agree with (the conformance
suite checks it). Unset fields do not filter. New conditions (metadata, event-time ranges) are added
here as fields, with their meaning in :meth:`matches`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import InvalidInputError
from .records import MemoryType, RecordBase, Role

__all__ = ["RecordFilter", "as_filter"]


class RecordFilter(BaseModel):
    """Conditions on a record's provenance and type (all must hold; an unset field matches anything).

    >>> RecordFilter(roles=["user"], sources=["chat"]).matches(record)  # doctest: +SKIP
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    roles: tuple[Role, ...] | None = Field(default=None, description="Keep records from messages of these roles.")
    sources: tuple[str, ...] | None = Field(
        default=None, description="Keep records whose source is one of these (exact match)."
    )
    types: tuple[MemoryType, ...] | None = Field(default=None, description="Keep these memory types.")
    speaker: str | None = Field(default=None, description="Keep one speaker's bank.")

    @field_validator("roles", "sources", "types", mode="before")
    @classmethod
    def _listlike(cls, v: Any) -> Any:
        if isinstance(v, (str, MemoryType)):
            return (v,)
        if isinstance(v, (set, frozenset)):
            return tuple(sorted(v, key=str))
        return v

    @field_validator("roles", "sources", "types")
    @classmethod
    def _not_empty(cls, v: tuple | None) -> tuple | None:
        if v is not None and not v:
            raise ValueError("an empty list matches nothing: leave the field unset to keep everything")
        return tuple(dict.fromkeys(v)) if v is not None else None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise InvalidInputError(f"invalid filter {where}: {err['msg']}") from None

    @property
    def is_empty(self) -> bool:
        return self.roles is None and self.sources is None and self.types is None and self.speaker is None

    def type_list(self) -> list[MemoryType]:
        """The memory types to search (all of them when ``types`` is unset)."""
        return list(self.types) if self.types else list(MemoryType)

    def provenance_only(self) -> "RecordFilter":
        """The same filter without ``types`` (searches go one type at a time)."""
        return self.model_copy(update={"types": None})

    def matches(self, record: RecordBase) -> bool:
        """The reference meaning of the filter for one record."""
        if self.types is not None and record.memory_type not in self.types:
            return False
        if self.speaker is not None and record.speaker != self.speaker:
            return False
        if self.roles is not None and record.role not in self.roles:
            return False
        if self.sources is not None and record.source not in self.sources:
            return False
        return True


def as_filter(
    where: RecordFilter | dict[str, Any] | None = None,
    *,
    types: Iterable[MemoryType | str] | MemoryType | str | None = None,
    speaker: str | None = None,
    roles: Sequence[str] | str | None = None,
    sources: Sequence[str] | str | None = None,
) -> RecordFilter:
    """One :class:`RecordFilter` from ``where`` (a filter or its fields as a dict) and the keyword
    shortcuts (``types=``, ``speaker=``, ``roles=``, ``sources=``); a keyword that ``where`` also sets
    is an :class:`InvalidInputError`."""
    if isinstance(where, dict):
        where = RecordFilter(**where)
    elif where is not None and not isinstance(where, RecordFilter):
        raise InvalidInputError(f"where must be a RecordFilter or a dict, not {type(where).__name__}")
    base = where or RecordFilter()
    extra = {k: v for k, v in (("types", types), ("speaker", speaker), ("roles", roles), ("sources", sources)) if v is not None}
    clash = sorted(k for k in extra if getattr(base, k) is not None)
    if clash:
        raise InvalidInputError(f"{', '.join(clash)} given both as an argument and in where=")
    if not extra:
        return base
    return RecordFilter(**{**base.model_dump(exclude_none=True), **extra})
